"""The labelled digest windows: chats and channels whose acts and facts were labelled by reading.

``data/digest_windows.jsonl`` holds one window per line: the messages of a chat, a
forum or a channel over a few days (written for this project, or a dev dialogue of
``../shared/data/eval/dev`` named by id), the time zone its people live in, and what a
digest of it may claim: the open questions, the decisions and agreements, the plans
with their dates, and the key facts a reader must learn. ``data/README.md`` gives the
schema and the labelling rules (the meanings of ``digest_acts.jsonl``).

``load_windows`` reads the file into ``Window`` objects whose messages are what the
store would give the engine (times in UTC); ``problems`` lists what is wrong with a
window's labels, for the tests and for whoever edits the file.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from toolkit.models import Message, SectionKind, SourceKind

DATA_FILE = Path(__file__).parent.parent / "data" / "digest_windows.jsonl"
"""The labelled windows, shipped with the package."""
SCORED = (SectionKind.OPEN_QUESTIONS, SectionKind.DECISIONS, SectionKind.PLANS)
"""The sections whose items are checked against the labels."""
_SECTIONS = {kind.value: kind for kind in SCORED}
MESSAGES = (15, 80)
"""How many messages a window has (at least, at most)."""
FACTS = (4, 8)
"""How many key facts a window has (at least, at most)."""


@dataclass(frozen=True, slots=True)
class KeyFact:
    """A fact a reader must learn: found when any of its strings is in the digest.

    ``any`` are written in the window's language; ``anchors`` are language-neutral (a
    number, a name as the chat writes it) and alone count across languages.
    """

    any: tuple[str, ...]
    anchors: tuple[str, ...] = ()

    def alternatives(self, *, same_language: bool) -> tuple[str, ...]:
        """What counts as finding the fact in a digest written in the window's language
        (``same_language``) or in another one (the anchors only)."""
        return (*self.any, *self.anchors) if same_language else self.anchors


@dataclass(frozen=True, slots=True)
class Labels:
    """What a digest of one window may claim (message ids), and the facts it must give.

    ``acceptable`` ids are defensible but not required: they are neither false when
    claimed nor missed when not.
    """

    open_questions: frozenset[int]
    decisions: frozenset[int]
    agreements: frozenset[tuple[int, int]]
    plans: Mapping[int, date | None]
    key_facts: tuple[KeyFact, ...]
    acceptable: Mapping[SectionKind, frozenset[int]]

    def required(self, kind: SectionKind) -> frozenset[int]:
        """The ids a section of ``kind`` should claim (an agreement: its proposal)."""
        if kind is SectionKind.OPEN_QUESTIONS:
            return self.open_questions
        if kind is SectionKind.DECISIONS:
            return self.decisions | {proposal for proposal, _ in self.agreements}
        if kind is SectionKind.PLANS:
            return frozenset(self.plans)
        return frozenset()

    def allowed(self, kind: SectionKind) -> frozenset[int]:
        """The ids an item of ``kind`` may rest on first without being false."""
        return self.required(kind) | self.acceptable.get(kind, frozenset())

    def ids(self) -> set[int]:
        """Every id the labels name."""
        out = {i for kind in SCORED for i in self.allowed(kind)}
        return out | {i for pair in self.agreements for i in pair}


@dataclass(frozen=True, slots=True)
class Window:
    """One labelled window: its messages as the store gives them, and its labels."""

    id: str
    language: str
    kind: SourceKind
    tz: str
    title: str
    about: str
    messages: tuple[Message, ...]
    labels: Labels
    topics: tuple[tuple[int, str], ...] = ()
    origin: str = "written"

    @property
    def zone(self) -> ZoneInfo:
        """The window's time zone (its people's clocks)."""
        return ZoneInfo(self.tz)

    def message(self, message_id: int) -> Message | None:
        """The message with ``message_id`` (``None`` when the window has none)."""
        return next((m for m in self.messages if m.messenger_message_id == message_id), None)


def _labels(row: Mapping[str, Any]) -> Labels:
    labels, ok = row["labels"], row.get("acceptable", {})
    plans = labels["plans"]
    return Labels(
        open_questions=frozenset(labels["open_questions"]),
        decisions=frozenset(d for d in labels["decisions"] if isinstance(d, int)),
        agreements=frozenset(
            (p, r) for p, r in (d for d in labels["decisions"] if isinstance(d, list))
        ),
        plans={p["id"]: date.fromisoformat(p["date"]) if p["date"] else None for p in plans},
        key_facts=tuple(
            KeyFact(tuple(f["any"]), tuple(f.get("anchors", ()))) for f in labels["key_facts"]
        ),
        acceptable={_SECTIONS[k]: frozenset(v) for k, v in ok.items()},
    )


def _written(rows: Iterable[Mapping[str, Any]]) -> tuple[Message, ...]:
    return tuple(
        Message(
            source_id=0,
            messenger_message_id=m["id"],
            posted_at=datetime.fromisoformat(m["at"]).astimezone(UTC),
            text=m["text"],
            sender_peer_id=m["sender"],
            sender_name=m["sender"],
            reply_to=m.get("reply_to"),
            topic_id=m.get("topic"),
        )
        for m in rows
    )


@lru_cache(maxsize=4)
def _dialogues(path: Path) -> dict[str, tuple[Message, ...]]:
    from toolkit.evaluate.summaries import load_dialogues

    return {d.id: tuple(d.messages) for d in load_dialogues(path)}


def _from_dialogue(ref: Mapping[str, Any], dev_dir: Path) -> tuple[Message, ...]:
    """A dev dialogue's turns (ids from 1), ``step_minutes`` apart from ``start``."""
    turns = _dialogues(dev_dir / ref["file"])[ref["id"]]
    start = datetime.fromisoformat(ref["start"]).astimezone(UTC)
    step = timedelta(minutes=ref.get("step_minutes", 1))
    replies = {int(k): v for k, v in ref.get("replies", {}).items()}
    return tuple(
        replace(
            m,
            posted_at=start + step * (m.messenger_message_id - 1),
            reply_to=replies.get(m.messenger_message_id),
        )
        for m in turns
    )


def parse_window(row: Mapping[str, Any], *, dev_dir: Path | None = None) -> Window:
    """One line of the file as a ``Window``; a dev dialogue's turns are read from ``dev_dir``.

    Raises:
        FileNotFoundError: a dev dialogue whose file is not in ``dev_dir``.
        ValueError: a dev dialogue without a ``dev_dir``.
    """
    if "dialogue" in row:
        if dev_dir is None:
            raise ValueError(f"window {row['id']} is a dev dialogue: a dev_dir is needed")
        messages, origin = _from_dialogue(row["dialogue"], dev_dir), f"dev:{row['dialogue']['id']}"
    else:
        messages, origin = _written(row["messages"]), "written"
    return Window(
        id=row["id"],
        language=row["lang"],
        kind=SourceKind(row["kind"]),
        tz=row["tz"],
        title=row["title"],
        about=row.get("about", ""),
        messages=messages,
        labels=_labels(row),
        topics=tuple((t, title) for t, title in row.get("topics", [])),
        origin=origin,
    )


def read_rows(path: Path | str = DATA_FILE) -> list[dict[str, Any]]:
    """The file's lines as JSON objects (blank lines skipped)."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def load_windows(path: Path | str = DATA_FILE, *, dev_dir: Path | None = None) -> list[Window]:
    """Every window of the file, in order; without ``dev_dir`` the dev dialogues are left out.

    Raises:
        FileNotFoundError: a dev dialogue's file is missing from ``dev_dir``.
    """
    rows = read_rows(path)
    return [
        parse_window(row, dev_dir=dev_dir)
        for row in rows
        if dev_dir is not None or "dialogue" not in row
    ]


def problems(window: Window) -> list[str]:
    """What is wrong with a window: unknown or forward ids, labels that contradict the
    rules (``data/README.md``), sizes out of bounds; empty when it is sound."""
    ids = [m.messenger_message_id for m in window.messages]
    known, found = set(ids), []
    if len(known) != len(ids):
        found.append("message ids repeat")
    if not MESSAGES[0] <= len(ids) <= MESSAGES[1]:
        found.append(f"{len(ids)} messages (want {MESSAGES[0]}..{MESSAGES[1]})")
    if any(
        b.posted_at < a.posted_at
        for a, b in zip(window.messages, window.messages[1:], strict=False)
    ):
        found.append("messages are not in posting order")
    position = {m: n for n, m in enumerate(ids)}
    for m in window.messages:
        if (
            m.reply_to is not None
            and position.get(m.reply_to, len(ids)) >= position[m.messenger_message_id]
        ):
            found.append(
                f"{m.messenger_message_id} replies to {m.reply_to}, not an earlier message"
            )
    labels = window.labels
    found += [f"labelled id {i} is not a message" for i in sorted(labels.ids() - known)]
    for proposal, reply in sorted(labels.agreements):
        if position.get(proposal, 0) >= position.get(reply, 0):
            found.append(f"agreement {proposal}+{reply}: the reply is not after the proposal")
    if window.kind is SourceKind.CHANNEL and labels.allowed(SectionKind.OPEN_QUESTIONS):
        found.append("a channel has no open questions")
    if not FACTS[0] <= len(labels.key_facts) <= FACTS[1]:
        found.append(f"{len(labels.key_facts)} key facts (want {FACTS[0]}..{FACTS[1]})")
    for plan, day in labels.plans.items():
        message = window.message(plan)
        if (
            day is not None
            and message is not None
            and day < message.posted_at.astimezone(window.zone).date()
        ):
            found.append(f"plan {plan} is dated before its message")
    topics = {t for t, _ in window.topics}
    found += [
        f"{m.messenger_message_id} is in unknown topic {m.topic_id}"
        for m in window.messages
        if m.topic_id is not None and m.topic_id not in topics
    ]
    return found


__all__ = [
    "DATA_FILE",
    "SCORED",
    "KeyFact",
    "Labels",
    "Window",
    "load_windows",
    "parse_window",
    "problems",
    "read_rows",
]
