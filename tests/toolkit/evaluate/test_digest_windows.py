"""The labelled digest windows (``toolkit/evaluate/data/digest_windows.jsonl``) are sound:
every labelled id is a message, replies point backwards, dates parse and agree with the
window's zone, the set has the windows the issue asks for, and ``problems`` finds what
an editor may break."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from toolkit.evaluate.digests.score import contains
from toolkit.evaluate.digests.windows import (
    DATA_FILE,
    Window,
    load_windows,
    problems,
    read_rows,
)
from toolkit.models import SectionKind, SourceKind

WRITTEN = load_windows()


@pytest.fixture(scope="module")
def every_window(dev_dir: Path) -> list[Window]:
    return load_windows(dev_dir=dev_dir)


def test_the_data_file_ships_with_the_package() -> None:
    pyproject = (Path(__file__).resolve().parents[3] / "pyproject.toml").read_text()
    assert '"evaluate/data/*.jsonl"' in pyproject
    assert DATA_FILE.is_file()
    assert DATA_FILE.with_name("README.md").is_file()


def test_every_window_is_sound(every_window: list[Window]) -> None:
    found = {w.id: problems(w) for w in every_window}
    assert not {k: v for k, v in found.items() if v}


def test_the_set_has_the_languages_and_kinds_asked_for(every_window: list[Window]) -> None:
    languages = Counter(w.language for w in every_window)
    assert len(every_window) >= 15
    assert languages["en"] >= 6
    assert languages["ru"] >= 4
    assert languages["uk"] >= 4
    assert any(w.kind is SourceKind.CHANNEL for w in every_window)
    assert any(w.topics for w in every_window)  # a forum
    assert len({w.id for w in every_window}) == len(every_window)
    assert {w.origin for w in every_window} >= {"written", "dev:samsum-13817283"}


def test_times_carry_the_offset_of_the_window_zone() -> None:
    for row in read_rows():
        zone = ZoneInfo(row["tz"])
        for message in row.get("messages", []):
            at = datetime.fromisoformat(message["at"])
            assert at.utcoffset() == at.astimezone(zone).utcoffset(), (row["id"], message["id"])


def test_the_engine_gets_the_messages_in_utc() -> None:
    tokyo = next(w for w in WRITTEN if w.id == "trip-tokyo-en")
    first = tokyo.messages[0]
    assert first.posted_at.utcoffset().total_seconds() == 0  # type: ignore[union-attr]
    assert first.posted_at.astimezone(tokyo.zone).strftime("%Y-%m-%d %H:%M") == "2025-03-09 08:58"


def test_every_key_fact_is_in_the_messages(every_window: list[Window]) -> None:
    for window in every_window:
        text = "\n".join(m.text for m in window.messages)
        for fact in window.labels.key_facts:
            assert any(contains(text, s) for s in fact.any), (window.id, fact.any)
            if fact.anchors:
                assert any(contains(text, s) for s in fact.anchors), (window.id, fact.anchors)


def test_written_contacts_are_invented() -> None:
    for window in WRITTEN:
        for message in window.messages:
            for address in re.findall(r"[\w.+-]+@([\w.-]+)", message.text):
                assert "example" in address, (window.id, message.messenger_message_id)


def test_labels_read_as_written() -> None:
    tokyo = next(w for w in WRITTEN if w.id == "trip-tokyo-en")
    labels = tokyo.labels
    assert labels.open_questions == {232}
    assert (217, 218) in labels.agreements
    assert 217 in labels.required(SectionKind.DECISIONS)
    assert labels.plans[215].isoformat() == "2025-03-11"
    assert 231 in labels.allowed(SectionKind.PLANS) - labels.required(SectionKind.PLANS)
    channel = next(w for w in WRITTEN if w.kind is SourceKind.CHANNEL)
    assert not channel.labels.allowed(SectionKind.OPEN_QUESTIONS)


def test_dev_windows_need_the_dev_folder() -> None:
    assert all(w.origin == "written" for w in WRITTEN)
    rows = read_rows()
    dev = next(r for r in rows if "dialogue" in r)
    with pytest.raises(FileNotFoundError):
        load_windows(DATA_FILE, dev_dir=Path("/nonexistent"))
    assert dev["dialogue"]["file"].startswith("summaries_")


def test_problems_finds_what_an_editor_breaks() -> None:
    window = next(w for w in WRITTEN if w.id == "release-team-en")
    labels = replace(window.labels, open_questions=frozenset({313, 999}))
    first, second = window.messages[0], window.messages[1]
    broken = replace(
        window,
        labels=labels,
        messages=(replace(first, reply_to=second.messenger_message_id), *window.messages[1:]),
    )
    found = problems(broken)
    assert "labelled id 999 is not a message" in found
    assert f"301 replies to {second.messenger_message_id}, not an earlier message" in found
    as_channel = replace(window, kind=SourceKind.CHANNEL)
    assert "a channel has no open questions" in problems(as_channel)
    short = replace(
        window, messages=window.messages[:10], labels=replace(labels, open_questions=frozenset())
    )
    assert any(p.startswith("10 messages") for p in problems(short))
