"""What a message does in a conversation: chatter, a question, a proposal, a decision, a share.

Rules, not a model; the cue words are the message's language pack's (a message in a
language without a pack is asked of every pack). Chatter (``lang.chatter``) is no
content: a digest never quotes it. A question is known by its mark in any language.
The other acts choose the digest's verb: who *asked*, *proposed*, *decided* or
*shared* what; ``agrees`` and ``declines`` tell how a reply meets a proposal, ``plans``
and ``names_time`` what goes under plans and dates.
"""

from __future__ import annotations

import re
from enum import Enum

from toolkit.summarize.lang import LanguagePack, packs
from toolkit.summarize.lang.chatter import is_chatter, is_placeholder
from toolkit.text import URL_RE


class Act(Enum):
    """A message's role, in the order a digest prefers them."""

    QUESTION = "question"
    PROPOSAL = "proposal"
    DECISION = "decision"
    SHARE = "share"
    STATEMENT = "statement"
    CHATTER = "chatter"


_QUESTION_RE = re.compile(r"[?？]\s*[)\]»”\"']*\s*$|[?？]\s")
_MEDIA_RE = re.compile(r"^\[(?:photo|video|document|file|audio|voice|sticker|gif)[^\]]*\]$")


def _asked(pack: LanguagePack | None) -> tuple[LanguagePack, ...]:
    return (pack,) if pack is not None else packs()


def _any(text: str, pack: LanguagePack | None, cue: str) -> bool:
    return any(getattr(p.cue, cue).search(text) for p in _asked(pack))


def act_of(text: str, pack: LanguagePack | None = None) -> Act:
    """The role of one message, from its own text (``pack``: its language's, if any)."""
    stripped = text.strip()
    if is_chatter(stripped):
        return Act.CHATTER
    if URL_RE.search(stripped) or _MEDIA_RE.match(stripped):
        return Act.SHARE
    if _QUESTION_RE.search(stripped):
        return Act.QUESTION
    if _any(stripped, pack, "proposal"):
        return Act.PROPOSAL
    if _any(stripped, pack, "decision"):
        return Act.DECISION
    return Act.STATEMENT


def agrees(text: str, pack: LanguagePack | None = None) -> bool:
    """Whether a reply accepts what it answers ("sounds good", "давай", "домовились")."""
    return _any(text.strip(), pack, "agreement") and not declines(text, pack)


def declines(text: str, pack: LanguagePack | None = None) -> bool:
    """Whether a reply turns down what it answers ("I can't", "не получится")."""
    return _any(text.strip(), pack, "refusal")


def plans(text: str, pack: LanguagePack | None = None) -> bool:
    """Whether a message states a plan or commitment ("I'll book it", "буду в 9")."""
    return _any(text, pack, "plan")


def names_time(text: str, pack: LanguagePack | None = None) -> bool:
    """Whether a message names a day or time ("on Friday at 9", "завтра в 10")."""
    return _any(text, pack, "when")


__all__ = [
    "Act",
    "act_of",
    "agrees",
    "declines",
    "is_chatter",
    "is_placeholder",
    "names_time",
    "plans",
]
