"""``python -m toolkit.evaluate.digests.main`` prints the table, each false item with its
window and line, and with ``--missed`` what no item claimed."""

from __future__ import annotations

from digest_data import digest, score
from text_checks import assert_shows

from toolkit.evaluate.digests.main import report, text_table
from toolkit.evaluate.digests.score import Item
from toolkit.models import SectionKind


def test_the_report_lists_false_items_failures_and_misses() -> None:
    wrong = Item(SectionKind.DECISIONS, (4,), "Ugo H. reports a decision: “I think it might rain”")
    text = "Kai H. asks Ugo H. whether Ugo H. takes the 7:45 bus; call +44 7700 900123"
    shown = report([digest(score(wrong, text=text))], [], missed=True)
    assert_shows(
        shown,
        "same language",
        "w → en, decisions 4: Ugo H. reports a decision: “I think it might rain”",
        "w → en, must be 0: +44 7700 900123",
        "w → en, must be 0: asks Ugo H. whether Ugo H.",
        "w → en, open 5: Does the onsen take tattoos?",
        "w → en, fact: tattoo",
    )


def test_text_tables_align_and_show_none() -> None:
    table = text_table([{"a": 0.5, "b": None}, {"a": 12, "b": "x"}], ["a", "b"])
    assert table.splitlines() == ["a     b", "0.50  —", "12    x"]
