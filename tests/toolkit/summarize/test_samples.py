"""``docs/samples/``: the 24 committed digests of the demo, checked as a reader would.

``scripts/make_samples.py`` writes them (``make samples``); they must come from the
engine as it is (its version), be in the requested language outside quotations, have
titles that say what a section is about in that language (not lists of words), cite
exactly the messages listed as important, never an empty "()", count a source's
participants as the source has them and say what a source summary read of it. Names are
the chat's (never transliterated), so the script checks leave them out.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from toolkit.demo import demo_files
from toolkit.lang import pack
from toolkit.lang.script import letters
from toolkit.summarize.extractive.engine import EXTRACTIVE_VERSION

SAMPLES = Path(__file__).resolve().parents[3] / "docs" / "samples"
INDEX: dict[str, Any] = json.loads((SAMPLES / "index.json").read_text(encoding="utf-8"))
ENTRIES: list[dict[str, Any]] = INDEX["samples"]
_QUOTED = re.compile(r"“[^”]*”|«[^»]*»|\"[^\"]*\"")
_LINK = re.compile(r"https://t\.me/\S+?/(\d+)(?=[),\s]|$)")
_WORD_LIST = re.compile(r"^[^\W\d_]+(?:, [^\W\d_]+)+$")


def _demo_names() -> list[str]:
    """Every sender name of the demo sources, longest first."""
    names: set[str] = set()
    for path, _ in demo_files():
        export = json.loads(path.read_text(encoding="utf-8"))
        names |= {m["from"] for m in export["messages"] if m.get("from")}
    return sorted(names, key=len, reverse=True)


NAMES = _demo_names()


def unnamed(text: str) -> str:
    """``text`` without the demo's sender names (written as the chat writes them)."""
    for name in NAMES:
        text = text.replace(name, " ")
    return text


def _text(entry: dict[str, Any]) -> str:
    parts = [entry["summary"], *(s["title"] + "\n" + s["body"] for s in entry["sections"])]
    return "\n".join(parts)


def script_share(text: str, code: str) -> float:
    """The share of letters outside quotations and links that are in ``code``'s script."""
    bare = unnamed(_QUOTED.sub(" ", re.sub(r"https?://\S+", " ", text)))
    own, total = letters(bare, pack(code).script)
    return own / total if total else 1.0


def test_there_are_24_samples_from_the_engine_as_it_is() -> None:
    assert INDEX["extractive_version"] == EXTRACTIVE_VERSION, "run `make samples`"
    assert len(ENTRIES) == 24
    languages = {(e["source_language"], e["language"]) for e in ENTRIES}
    assert ("en", "ru") in languages  # cross-language both ways, and Ukrainian
    assert ("ru", "en") in languages
    assert {e["language"] for e in ENTRIES} == {"en", "ru", "uk"}
    assert all((SAMPLES / f"{e['name']}.md").is_file() for e in ENTRIES)


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["name"] for e in ENTRIES])
def test_every_word_the_engine_writes_is_in_the_requested_language(
    entry: dict[str, Any],
) -> None:
    assert script_share(_text(entry), entry["language"]) >= 0.95, _text(entry)


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["name"] for e in ENTRIES])
def test_titles_say_what_a_section_is_about_in_the_requested_language(
    entry: dict[str, Any],
) -> None:
    book = pack(entry["language"])
    for section in entry["sections"]:
        title = section["title"]
        # An acronym ("SPX") reads the same in any language; every other word is the pack's.
        own, total = letters(re.sub(r"\b[A-Z0-9]{2,}\b", " ", unnamed(title)), book.script)
        assert own == total, title
        assert not _WORD_LIST.match(title), title
        assert ", ," not in title, title  # nothing was cut out of it
        assert title == title.strip(" ,:;"), title
    assert len({s["title"] for s in entry["sections"]}) == len(entry["sections"])


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["name"] for e in ENTRIES])
def test_the_important_ids_are_exactly_the_messages_the_text_cites(
    entry: dict[str, Any],
) -> None:
    text = _text(entry)
    cited = _LINK.findall(text)
    important = entry["important_messenger_message_ids"]
    assert set(cited) == set(important)
    assert len(important) == len(set(important))
    assert "()" not in text
    assert entry["summary"].count("(") == entry["summary"].count(")")


READ_500 = {
    "en": "This summary reads 500 of its ",
    "ru": "В сводке прочитано 500 из ",
    "uk": "У зведенні прочитано 500 з ",
}


def test_a_source_summary_counts_the_sources_participants() -> None:
    path = next(p for p, handle in demo_files() if handle == "@mlens_demo_en")
    export = json.loads(path.read_text(encoding="utf-8"))
    senders = {m["from_id"] for m in export["messages"] if m.get("type") == "message"}
    for code in ("en", "ru", "uk"):
        entry = next(e for e in ENTRIES if e["name"] == f"chat-source-{code}")
        assert pack(code).counted(len(senders), "participant") in entry["summary"]
        # It read a sample of the source's messages, and says so.
        assert READ_500[code] in entry["summary"]
