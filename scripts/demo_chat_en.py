"""The English demo chat: real conversations from ``chitchat_dataset`` (MIT) as one group.

Conversations are picked per day from a five-week stretch of the dataset and keep their
real timestamps, shifted by whole weeks into the demo window (order, pauses, time of day
and weekday preserved). Overlapping conversations interleave as they would in a group;
a turn answering a partner across someone else's message becomes a reply. Joins, pins,
a title change, a photo change, a few leaves, edits, photos and stickers are added.
The dataset has anonymous sender ids only, so the people get invented first names.
"""

from __future__ import annotations

import hashlib
import itertools
import random
import re
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from typing import Any

import chitchat_dataset
from demo_export import NOT_INCLUDED, Event, pin, utc, week_shift

TITLE_BEFORE = "Chitchat Lounge"
TITLE = "Chitchat Lounge (demo)"
FIRST_DAY = datetime(2018, 4, 10, tzinfo=UTC)
LAST_DAY = datetime(2018, 5, 16, tzinfo=UTC)
PER_DAY = 2
_PIC = re.compile(r"\b(pic|pics|picture|pictures|photo|photos|selfie)\b", re.IGNORECASE)
# fmt: off
_NAMES = [
    "Ava", "Ben", "Cara", "Dev", "Eli", "Faye", "Gus", "Hana", "Ivan", "Jade", "Kai",
    "Lena", "Milo", "Nora", "Omar", "Pia", "Quinn", "Rosa", "Sam", "Tara", "Uma", "Vic",
    "Wes", "Xena", "Yuri", "Zoe", "Abby", "Boris", "Cole", "Dina", "Emil", "Fern", "Gil",
    "Hugo", "Iris", "Joel", "Kira", "Liam", "Maya", "Nico", "Olga", "Paul", "Rita", "Sean",
    "Tess", "Ugo", "Vera", "Will", "Yara", "Zack", "Amir", "Bea", "Carl", "Dora"
]
# fmt: on
_INITIALS = "ABCDEFGHJKLMNPRSTVW"
_STICKERS = ["👍", "😂", "🙌", "😅", "🔥", "❤️", "😮", "🎉"]


def _peer(uuid: str) -> str:
    return f"user{int(hashlib.sha256(uuid.encode()).hexdigest()[:8], 16) % 900_000_000 + 10**8}"


def _conversations(rng: random.Random) -> list[list[tuple[datetime, str, str, int]]]:
    """Per day of the stretch, ``PER_DAY`` random conversations of 8–80 utterances."""
    data = chitchat_dataset.Dataset()
    by_day: dict[datetime, list[list[tuple[datetime, str, str, int]]]] = defaultdict(list)
    for key in sorted(data):
        utts = [
            (utc(u["timestamp"]), u["sender"], " ".join(u["text"].split()), turn)
            for turn, messages in enumerate(data[key]["messages"])
            for u in messages
        ]
        utts = [u for u in utts if u[2]]
        if not 8 <= len(utts) <= 80 or any(a[0] > b[0] for a, b in itertools.pairwise(utts)):
            continue
        if FIRST_DAY <= utts[0][0] < LAST_DAY:
            by_day[utts[0][0].replace(hour=0, minute=0, second=0)].append(utts)
    chosen: list[list[tuple[datetime, str, str, int]]] = []
    for day in sorted(by_day):
        chosen += rng.sample(by_day[day], min(PER_DAY, len(by_day[day])))
    return chosen


def _people(convs: list[list[tuple[datetime, str, str, int]]]) -> dict[str, tuple[str, str]]:
    people: dict[str, tuple[str, str]] = {}
    for conv in sorted(convs, key=lambda c: c[0][0]):
        for _, sender, _, _ in conv:
            if sender not in people:
                n = len(people)
                name = (
                    f"{_NAMES[n % len(_NAMES)]} {_INITIALS[n % len(_INITIALS)]}."  # 54 x 19: unique
                )
                people[sender] = (name, _peer(sender))
    return people


def _extra(
    rng: random.Random, after: Event, before: datetime | None, media: dict[str, object]
) -> Event:
    """A media-only message by ``after``'s sender a few seconds later (before the next reply)."""
    gap = rng.uniform(3, 25)
    if before is not None:
        gap = min(gap, (before - after.at).total_seconds() / 2)
    return Event(after.at + timedelta(seconds=gap), after.sender, "", media=media)


def build(rng: random.Random, window_end: datetime) -> list[Event]:
    """Every event of the English demo chat, unsorted."""
    convs = _conversations(rng)
    people = _people(convs)
    shift = week_shift(max(c[-1][0] for c in convs), window_end)
    host = ("Lounge Host", _peer("lounge-host"))
    start = min(c[0][0] for c in convs) + shift
    events = [
        Event(
            start - timedelta(days=2),
            host,
            service={"action": "create_group", "title": TITLE_BEFORE, "members": []},
        ),
        Event(
            start - timedelta(days=2, minutes=-5),
            host,
            service={
                "action": "edit_group_photo",
                "photo": NOT_INCLUDED,
                "width": 640,
                "height": 640,
            },
        ),
    ]
    texts: list[tuple[Event, datetime | None]] = []
    candidates: dict[Event, Event] = {}
    for conv in convs:
        turn_last: Event | None = None
        prev: Event | None = None
        for i, (ts, sender, text, turn) in enumerate(conv):
            event = Event(ts + shift, people[sender], text)
            if prev is not None and conv[i - 1][3] != turn:
                turn_last = prev
                candidates[event] = turn_last
            if texts and texts[-1][1] is None and prev is not None:
                texts[-1] = (prev, event.at)
            texts.append((event, None))
            events.append(event)
            prev = event
    _replies(rng, events, candidates)
    _service(rng, events, texts, host, window_end)
    _media(rng, events, texts)
    for event, _ in rng.sample(texts, len(texts) // 25):
        event.edited_after = timedelta(seconds=rng.randint(20, 900))
    return events


def _replies(rng: random.Random, events: list[Event], candidates: dict[Event, Event]) -> None:
    position = {e: i for i, e in enumerate(sorted(events, key=lambda e: e.at))}
    for event, target in candidates.items():
        interleaved = position[event] - position[target] > 1
        if interleaved or rng.random() < 0.06:
            event.reply_to = target


def _service(
    rng: random.Random,
    events: list[Event],
    texts: list[tuple[Event, datetime | None]],
    host: tuple[str, str],
    window_end: datetime,
) -> None:
    first_at: dict[tuple[str, str], datetime] = {}
    last_at: dict[tuple[str, str], datetime] = {}
    for event, _ in texts:
        assert event.sender is not None
        first_at.setdefault(event.sender, event.at)
        first_at[event.sender] = min(first_at[event.sender], event.at)
        last_at[event.sender] = max(last_at.get(event.sender, event.at), event.at)
    for person, at in first_at.items():
        join: dict[str, Any] = rng.choice(
            [
                {"action": "join_group_by_link", "inviter": host[0]},
                {"action": "invite_members", "members": [person[0]]},
            ]
        )
        events.append(Event(at - timedelta(minutes=rng.uniform(2, 40)), person, service=join))
    quiet = [p for p, at in last_at.items() if at < window_end - timedelta(days=10)]
    for person in rng.sample(quiet, min(3, len(quiet))):
        leave = {"action": "remove_members", "members": [person[0]]}
        events.append(
            Event(last_at[person] + timedelta(hours=rng.uniform(1, 30)), person, service=leave)
        )
    ordered = sorted((e for e, _ in texts), key=lambda e: e.at)
    middle = ordered[len(ordered) // 2].at + timedelta(minutes=7)
    events.append(Event(middle, host, service={"action": "edit_group_title", "title": TITLE}))
    long_ones = [e for e in ordered if len(e.text) >= 120]
    for target in long_ones[:: max(1, len(long_ones) // 5)][:5]:
        events.append(pin(target, host, target.at + timedelta(minutes=rng.uniform(3, 30))))


def _media(
    rng: random.Random, events: list[Event], texts: list[tuple[Event, datetime | None]]
) -> None:
    captioned = [e for e, _ in texts if _PIC.search(e.text) and not e.text.endswith("?")]
    for event in rng.sample(captioned, min(12, len(captioned))):
        event.media = {
            "photo": NOT_INCLUDED,
            "width": rng.choice([1280, 960]),
            "height": rng.choice([960, 1280]),
        }
    plain = [(e, nxt) for e, nxt in texts if not e.media]
    for event, nxt in rng.sample(plain, 20)[:12]:
        photo = {"photo": NOT_INCLUDED, "width": 1280, "height": 960}
        events.append(_extra(rng, event, nxt, photo))
    for event, nxt in rng.sample(plain, 8):
        sticker = {
            "file": NOT_INCLUDED,
            "media_type": "sticker",
            "sticker_emoji": rng.choice(_STICKERS),
            "width": 512,
            "height": 512,
        }
        events.append(_extra(rng, event, nxt, sticker))
