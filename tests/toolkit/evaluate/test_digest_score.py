"""The labelled-set scorer on small synthetic digests: a false item lowers precision, an
acceptable one does not, recall counts an act once, facts and contacts are found as a
reader would find them, and plan dates are checked."""

from __future__ import annotations

from datetime import date

import pytest
from digest_data import digest, score

from toolkit.evaluate.digests.acts import false_items, rows
from toolkit.evaluate.digests.score import (
    Item,
    contains,
    emails,
    fact_found,
    phones,
    repeated_addressee,
)
from toolkit.evaluate.digests.windows import KeyFact
from toolkit.models import SectionKind

OPEN, DECISIONS, PLANS = SectionKind.OPEN_QUESTIONS, SectionKind.DECISIONS, SectionKind.PLANS


def test_a_false_item_lowers_precision_an_acceptable_one_does_not() -> None:
    true = Item(PLANS, (3,), "Kai H. plans: booked")
    acceptable = Item(PLANS, (1,), "Kai H. plans: which bus")
    false = Item(PLANS, (4,), "Ugo H. plans: rain")
    plans = score(true, acceptable).sections[PLANS]
    assert (plans.true, plans.false) == (2, [])
    plans = score(true, acceptable, false).sections[PLANS]
    assert plans.true == 2
    assert plans.false == [false]
    row = rows([digest(score(true, acceptable, false))])[0]
    assert row["plans P"] == pytest.approx(2 / 3)
    assert row["plans n"] == 3
    assert row["no false item"] == 0.0


def test_the_first_id_decides_and_an_item_without_ids_is_false() -> None:
    decisions = score(Item(DECISIONS, (2, 3), "x"), Item(DECISIONS, (), "y")).sections[DECISIONS]
    assert decisions.true == 0
    assert len(decisions.false) == 2


def test_recall_counts_an_agreement_by_its_proposal_and_a_double_label_once() -> None:
    scored = score(Item(DECISIONS, (1, 2), "Kai H. proposes; Ugo H. agrees"))
    decisions = scored.sections[DECISIONS]
    assert (decisions.found, decisions.required, decisions.missed) == (1, 2, [3])
    # 3 is a decision and a plan: found among the plans, it is not missed as a decision.
    scored = score(Item(DECISIONS, (1, 2), "a"), Item(PLANS, (3,), "b"))
    assert (scored.sections[DECISIONS].found, scored.sections[DECISIONS].required) == (1, 1)
    assert scored.sections[PLANS].found == 1
    assert scored.sections[OPEN].missed == [5]


def test_no_items_is_no_precision_and_the_row_says_so() -> None:
    row = rows([digest(score())])[0]
    assert row["open P"] is None
    assert row["open n"] == 0
    assert row["open R"] == 0.0
    assert row["no false item"] == 1.0


def test_facts_are_found_as_a_reader_finds_them() -> None:
    assert contains("Bus at 13:40 from Kawaguchiko", "13:40")
    assert not contains("at 11:40", "1:40")
    assert not contains("at 1:405", "1:40")
    assert contains("ЗАБРОНИРОВАЛИ «Смерічку»", "смерічк")
    assert not contains("unbooked", "booked")
    assert contains("a\u00a0bus  at\n7:45", "a bus at 7:45")
    fact = KeyFact(("ремонт", "Kazimierz"), ("Kazimierz",))
    assert fact_found(fact, "кімната на Kazimierz", same_language=False)
    assert not fact_found(KeyFact(("ремонт",), ()), "ремонт", same_language=False)
    scored = score(text="The 7:45 bus; no tattoo rule")
    assert (scored.facts_found, scored.facts_total) == (2, 2)
    across = score(text="Автобус в 7:45", asked="ru")
    assert (across.facts_found, across.facts_total) == (1, 1)  # no anchor: not counted


def test_contacts_copied_into_a_digest_are_counted() -> None:
    assert emails("write to stay@kiraku-hostel.example, or not") == ["stay@kiraku-hostel.example"]
    assert phones("call +44 7700 900123 now") == ["+44 7700 900123"]
    assert phones("087 123 4567") == ["087 123 4567"]
    assert phones("number 512 345", ["phone 512 345 678"]) == ["512 345"]
    assert phones("from 9 to 13 March 2025, 12:30, ¥14,800, 4 200 ₽, 1 500 ₽") == []
    assert phones("the 7:45 bus") == []


def test_the_addressee_named_twice_is_counted() -> None:
    names = ["Kai H.", "Ugo H."]
    bad = "Kai H. asks Ugo H. whether Ugo H. is still on the bug."
    assert repeated_addressee(bad, names) == ["asks Ugo H. whether Ugo H."]
    assert repeated_addressee("Kai H. asks Ugo H. whether he is still on the bug.", names) == []
    assert (
        repeated_addressee("Kai asks Ugo whether Natalie is in. Ugo says no.", ["Kai", "Ugo"]) == []
    )


def test_plan_dates_are_right_or_wrong() -> None:
    def day(d: date) -> str:
        return f"{d.day} {d.strftime('%B')}"

    right = Item(PLANS, (3,), "10 March, 21:03: Kai H. plans for 11 March, 07:45: booked")
    wrong = Item(PLANS, (3,), "10 March, 12:03: Kai H. plans for 12 March: booked")
    scored = score(right, render_day=day)
    assert (scored.dates_right, scored.dates_wrong) == (1, [])
    scored = score(wrong, render_day=day)
    assert (scored.dates_right, scored.dates_wrong) == (0, [wrong])
    assert rows([digest(scored)])[0]["wrong dates"] == 1


def test_false_items_name_their_window_and_language() -> None:
    one = digest(score(Item(OPEN, (1,), "Kai H. asks which bus"), asked="ru"))
    assert false_items([one]) == [
        {
            "window": "w",
            "asked": "ru",
            "section": "open",
            "ids": [1],
            "text": "Kai H. asks which bus",
        }
    ]
    assert rows([one])[0]["scope"] == "across languages"
    assert rows([one])[1]["scope"] == "  en → ru"
