"""Adverts and repeats: the messages a digest never names as a decision, a plan or a
question, and the copies it never shows twice (issue 40).

``hygiene`` reads a summary's window with the source's recent messages before it
(``recurrence``) and marks, by index in the window:

- **repeated**: its text recurs in the source (a near-duplicate of another message);
- **advert**: an offer, known by evidence that carries across chats and languages, not by
  a list of products: how many *kinds* of offer evidence it holds (``evidence``: a link
  or a handle, a phone number or an e-mail address, a price, a call to action of a
  pack's ``offer`` cue): two kinds posted again on another day or three times, forwarded
  into a group, or by a sender who posts nothing else; all four however posted. In a
  channel only a repeated offer is one (a channel's posts are its content);
- **echo**: a text an earlier message of the window already has (its recurrence group,
  or the same author's same words): the digest shows the first only.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from toolkit.lang import packs
from toolkit.lang.base import UNNAMED, LanguagePack
from toolkit.models import Message, MessageFilter
from toolkit.store.base import MessageReader
from toolkit.summarize.extractive.draft.recurrence import Recurrence, normalised, recurrence
from toolkit.summarize.personal import EMAIL_RE, phone_spans
from toolkit.text import URL_RE

HISTORY = 1000
"""The source's messages before a window that repetition is looked for in."""
STRONG = 4
"""Kinds of evidence that make an offer an advert however it was posted (three are a
meeting invitation too: a link, an id read as a number to call, "join")."""
MIN_SENDER_POSTS = 3
"""A sender who posts only offers does so this often at least (a helpful member gives an
address and "write to me" twice)."""
MIN_SENDER_COPIES = 3
"""A sender who posts only one text does so this often at least (a member who sent one
message twice is no advertiser)."""

PRICE_RE = re.compile(
    r"[$€£₽₴¥₸]\s?\d|\d\s?[$€£₽₴¥₸]|\d\s?(?:usd|eur|gbp|rub|uah|usdt|btc)\b", re.IGNORECASE
)
"""A price: a currency sign or an ISO code beside a number (a pack's own words for money
are its ``offer`` cue)."""
HANDLE_RE = re.compile(r"(?<![\w@.])@[A-Za-z][A-Za-z0-9_]{3,31}\b")
_DIGIT_RE = re.compile(r"\d")


def _any(asked: Sequence[LanguagePack], cue: str, text: str) -> bool:
    return any(getattr(p.cue, cue).search(text) for p in asked)


def evidence(text: str, pack: LanguagePack | None = None) -> int:
    """How many kinds of offer evidence ``text`` holds (0–4): a link or handle, a phone
    number or e-mail address, a price (a currency sign or code beside a number, or a
    number and the ``price`` cue), a call to action (the ``offer`` cue) — the cues of
    ``pack``, or of every pack for a message in a language without one."""
    asked = (pack,) if pack is not None else packs()
    return (
        bool(URL_RE.search(text) or HANDLE_RE.search(text))
        + bool(EMAIL_RE.search(text) or phone_spans(text))
        + bool(PRICE_RE.search(text) or (_DIGIT_RE.search(text) and _any(asked, "price", text)))
        + _any(asked, "offer", text)
    )


@dataclass(frozen=True, slots=True)
class Hygiene:
    """The window's messages (indices) that recur, are adverts, or echo an earlier one."""

    repeated: frozenset[int] = frozenset()
    advert: frozenset[int] = frozenset()
    echo: frozenset[int] = frozenset()


def recent(store: MessageReader, source_id: int, window: Sequence[Message]) -> list[Message]:
    """The source's messages with text before ``window``'s first (``HISTORY`` at most,
    oldest first): where repeats and adverts are looked for beside the window."""
    if not window:
        return []
    where = MessageFilter(before=window[0].posted_at, with_text_only=True)
    return store.recent_messages(source_id, HISTORY, where)


def _sender(message: Message) -> str:
    return message.sender_peer_id or message.sender_name or UNNAMED


def _single_minded(
    every: Sequence[Message], found: Recurrence, offers: dict[int, int]
) -> frozenset[str]:
    """Senders of a group with others (three senders or more) whose every message is
    one recurring text, or an offer (two kinds of evidence or more)."""
    posts: dict[str, list[Message]] = defaultdict(list)
    for m in every:
        posts[_sender(m)].append(m)
    if len(posts) < 3:
        return frozenset()
    out = set()
    for who, theirs in posts.items():
        if len(theirs) < MIN_SENDER_POSTS:
            continue
        groups = {found.group.get(m.messenger_message_id, -1 - k) for k, m in enumerate(theirs)}
        one_text = len(groups) == 1 and len(theirs) >= MIN_SENDER_COPIES
        if one_text or all(offers.get(m.messenger_message_id, 0) >= 2 for m in theirs):
            out.add(who)
    return frozenset(out)


def hygiene(
    window: Sequence[Message],
    history: Sequence[Message] = (),
    *,
    chat: bool = True,
    window_packs: Sequence[LanguagePack | None] | None = None,
) -> Hygiene:
    """What recurs, advertises or echoes among ``window`` (see the module docstring).

    Args:
        window: the summary's messages, oldest first.
        history: the source's messages before them (``HISTORY`` at most), oldest first.
        chat: a group or personal chat (``False``: a channel).
        window_packs: each window message's language pack (``None``: asked of every pack).
    """
    seen = {m.messenger_message_id for m in window}
    every = [m for m in history if m.messenger_message_id not in seen] + list(window)
    found = recurrence(every)
    chosen = window_packs or [None] * len(window)
    offers = {
        m.messenger_message_id: evidence(m.text, p) for m, p in zip(window, chosen, strict=True)
    }
    for m in history:
        if m.messenger_message_id in found.group or chat:
            offers.setdefault(m.messenger_message_id, evidence(m.text))
    lonely = _single_minded(every, found, offers) if chat else frozenset()
    repeated: set[int] = set()
    advert: set[int] = set()
    echo: set[int] = set()
    shown: set[tuple[object, ...]] = set()
    for i, m in enumerate(window):
        g = found.group.get(m.messenger_message_id)
        kinds = offers[m.messenger_message_id]
        if g is not None:
            repeated.add(i)
            spread = found.days[g] >= 2 or found.copies[g] >= 3
            # Two kinds at least: a FAQ link posted again and again is a repeat, no advert.
            if kinds >= 2 and (spread or (chat and _sender(m) in lonely)):
                advert.add(i)
        if chat and (
            kinds >= STRONG or (kinds >= 2 and (m.forwarded_from or _sender(m) in lonely))
        ):
            advert.add(i)
        words = normalised(m.text)
        key = ("group", g) if g is not None else ("text", _sender(m), words) if words else None
        if key is not None and key in shown:
            echo.add(i)
        elif key is not None:
            shown.add(key)
    return Hygiene(frozenset(repeated), frozenset(advert), frozenset(echo))
