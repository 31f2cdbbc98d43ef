"""The act labels of real-chat windows (``data/real_acts.jsonl``): ids only, never text.

One window per line: a source key of ``sources.SOURCES``, an inclusive range of message
ids, the ids labelled with each act, the answered questions as ``[question, answer]``
pairs, and a one-line paraphrase (``note``) of what the window is about, without quotes
or names. ``problems`` lists what is wrong with a row (the schema test runs it on every
line); ``data/README.md`` gives the meanings of the acts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkit.evaluate.corpus.sources import BY_KEY
from toolkit.evaluate.corpus.store import Window

LABELS_FILE = Path(__file__).resolve().parents[1] / "data" / "real_acts.jsonl"
"""The labelled real-chat windows, shipped with the package."""
ACTS = ("decision", "plan", "open_question", "advert", "secret")
"""The acts labelled as lists of message ids."""
FIELDS = frozenset({"id", "source", "first_id", "last_id", "answered", "note", *ACTS})
"""Every field a row has (and no other: no text of the chat is ever kept)."""
SIZE = (30, 80)
"""How many message ids a window spans (at least, at most)."""
MAX_SPAN = 1000
"""The widest id range a window may name (ids skip deleted messages; ``SIZE`` counts the
messages a window really has, checked where the cache is)."""
_ID = re.compile(r"[a-z0-9_]+-\d{2,}")


@dataclass(frozen=True, slots=True)
class LabelledWindow:
    """A window of a real chat and the ids of its acts."""

    id: str
    window: Window
    acts: Mapping[str, tuple[int, ...]]
    answered: tuple[tuple[int, int], ...]
    note: str


def read_rows(path: Path | str = LABELS_FILE) -> list[dict[str, Any]]:
    """The rows of the labels file, as parsed JSON objects (``[]`` when it is missing)."""
    path = Path(path)
    if not path.is_file():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _is_id(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def problems(row: Mapping[str, Any]) -> list[str]:
    """What is wrong with one row of the labels file (``[]`` when nothing)."""
    found: list[str] = []
    name = row.get("id")
    extra = set(row) - FIELDS
    if extra:
        found.append(f"fields other than the schema's: {sorted(extra)}")
    missing = FIELDS - set(row)
    if missing:
        found.append(f"missing fields: {sorted(missing)}")
    if not isinstance(name, str) or not _ID.fullmatch(name):
        found.append(f"id {name!r} is not <source>-<number>")
    source = row.get("source")
    if source not in BY_KEY:
        found.append(f"unknown source {source!r}")
    elif BY_KEY[source].held_out:
        found.append(f"source {source!r} is held out: it is never labelled")
    elif isinstance(name, str) and not name.startswith(f"{source}-"):
        found.append(f"id {name!r} does not start with its source {source!r}")
    first, last = row.get("first_id"), row.get("last_id")
    if type(first) is not int or type(last) is not int:
        return [*found, "first_id and last_id must be integers"]
    if not SIZE[0] - 1 <= last - first <= MAX_SPAN:
        found.append(f"span {first}-{last} is not a window of {SIZE[0]}-{SIZE[1]} messages")
    labelled: dict[str, list[int]] = {}
    for act in ACTS:
        ids = row.get(act, [])
        if not isinstance(ids, list) or not all(_is_id(i) for i in ids):
            found.append(f"{act} must be a list of integer ids")
            continue
        labelled[act] = ids
        if len(set(ids)) != len(ids):
            found.append(f"{act} lists an id twice")
        outside = [i for i in ids if not first <= i <= last]
        if outside:
            found.append(f"{act} ids outside the window: {outside}")
    pairs = row.get("answered", [])
    ok_pairs = isinstance(pairs, list) and all(
        isinstance(p, list) and len(p) == 2 and all(_is_id(i) for i in p) for p in pairs
    )
    if not ok_pairs:
        found.append("answered must be a list of [question id, answer id] pairs")
    else:
        for question, answer in pairs:
            if not first <= question <= last or answer <= question:
                found.append(
                    f"answered pair {[question, answer]}: question outside or answer first"
                )
        asked = {q for q, _ in pairs}
        both = asked & set(labelled.get("open_question", []))
        if both:
            found.append(f"questions both open and answered: {sorted(both)}")
    adverts = set(labelled.get("advert", []))
    for act in ("decision", "plan", "open_question"):
        clash = adverts & set(labelled.get(act, []))
        if clash:
            found.append(f"adverts are never a {act}: {sorted(clash)}")
    clash = set(labelled.get("decision", [])) & set(labelled.get("open_question", []))
    if clash:
        found.append(f"a question is no decision: {sorted(clash)}")
    note = row.get("note")
    if not isinstance(note, str) or not note.strip() or "\n" in note:
        found.append("note must be one line of paraphrase")
    elif any(q in note for q in ('"', "«", "»", "“", "”")):
        found.append("note quotes: paraphrase instead")
    return found


def load_labels(path: Path | str = LABELS_FILE) -> list[LabelledWindow]:
    """The labelled windows of the file.

    Raises:
        ValueError: a row has problems (each named with the row's id).
    """
    windows: list[LabelledWindow] = []
    for row in read_rows(path):
        wrong = problems(row)
        if wrong:
            raise ValueError(f"{row.get('id')}: {'; '.join(wrong)}")
        windows.append(
            LabelledWindow(
                id=row["id"],
                window=Window(row["source"], row["first_id"], row["last_id"]),
                acts={act: tuple(row[act]) for act in ACTS},
                answered=tuple((q, a) for q, a in row["answered"]),
                note=row["note"],
            )
        )
    return windows


def find_window(spec: str, path: Path | str = LABELS_FILE) -> Window:
    """A window named by its label id (``blitz-01``) or written ``key:first-last``.

    Raises:
        ValueError: neither a labelled window's id nor a ``key:first-last`` range.
    """
    for row in read_rows(path):
        if row.get("id") == spec:
            return Window(row["source"], row["first_id"], row["last_id"])
    if ":" not in spec:
        raise ValueError(f"no labelled window {spec!r} in {Path(path).name}")
    return Window.parse(spec)
