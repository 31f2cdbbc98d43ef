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
from functools import lru_cache

from toolkit.lang import packs, quotation_marks
from toolkit.lang.base import LanguagePack
from toolkit.lang.chatter import is_chatter, is_placeholder
from toolkit.summarize.extractive.draft.quotes import shown
from toolkit.summarize.extractive.draft.tokens import content_words
from toolkit.summarize.period_wording import split_sentences
from toolkit.text import links


class Act(Enum):
    """A message's role, in the order a digest prefers them."""

    QUESTION = "question"
    PROPOSAL = "proposal"
    DECISION = "decision"
    SHARE = "share"
    STATEMENT = "statement"
    CHATTER = "chatter"


@lru_cache(maxsize=1)
def _question_re() -> re.Pattern[str]:
    """A question mark that ends the text (closing brackets and quotation marks of any
    pack after it) or a sentence inside it."""
    closers = re.escape("".join(quotation_marks().values()))
    return re.compile(rf"[?？]\s*[)\]{closers}\"']*\s*$|[?？]\s")


@lru_cache(maxsize=1)
def _media_re() -> re.Pattern[str]:
    """A bare attachment mark ("[photo]", "[video_file]") of a kind some pack names."""
    kinds = sorted({kind.split()[0] for p in packs() for kind in p.media})
    return re.compile(rf"^\[(?:{'|'.join(kinds)})[^\]]*\]$")


def _asked(pack: LanguagePack | None) -> tuple[LanguagePack, ...]:
    return (pack,) if pack is not None else packs()


def _any(text: str, pack: LanguagePack | None, cue: str) -> bool:
    return any(getattr(p.cue, cue).search(text) for p in _asked(pack))


def act_of(text: str, pack: LanguagePack | None = None) -> Act:
    """The role of one message, from its own text (``pack``: its language's, if any)."""
    stripped = shown(text).strip()  # a post's hidden preview link shares nothing
    if is_chatter(stripped):
        return Act.CHATTER
    if links(stripped) or _media_re().match(stripped):
        return Act.SHARE
    if (
        _question_re().search(stripped)
        and not (_any(stripped, pack, "rhetorical") and question_sentence(stripped, pack) is None)
        and not _greets_only(stripped)
    ):
        return Act.QUESTION  # "Why do we even have Friday releases?" asks nobody
    if _any(stripped, pack, "proposal") and not _any(stripped, pack, "wish"):
        return Act.PROPOSAL  # "let's celebrate the round number" is a toast, no proposal
    if _any(stripped, pack, "decision") and not _any(stripped, pack, "hedge"):
        return Act.DECISION  # "I think it might be booked", "not confirmed yet" decide nothing
    return Act.STATEMENT


def _greets_only(text: str) -> bool:
    """Whether every question of ``text`` is a greeting ("Happy new year! How are you?
    Wishing you …"): it asks nothing anyone answers."""
    question = _question_re()
    asked = [s for s in split_sentences(text) if question.search(s.strip())]
    return bool(asked) and all(is_chatter(s) for s in asked)


def proposes(text: str, pack: LanguagePack | None = None) -> bool:
    """Whether a message proposes something, also in question form ("shall we …?")."""
    return _any(text.strip(), pack, "proposal")


def agrees(text: str, pack: LanguagePack | None = None) -> bool:
    """Whether a reply accepts what it answers ("sounds good", "давай", "домовились"):
    its first sentence opens with the agreement cue and holds no question, refusal or hedge
    ("ok, but I'm at work till 8" does not agree)."""
    stripped = text.strip()
    # The first sentence carries the answer: "Agreed on Thursday. Who runs the job?" agrees.
    first = next((s.strip() for s in split_sentences(stripped) if s.strip()), "")
    return (
        _any(first, pack, "agreement")
        and not _question_re().search(first)
        and not declines(first, pack)
        and not _any(first, pack, "hedge")
    )


def declines(text: str, pack: LanguagePack | None = None) -> bool:
    """Whether a reply turns down what it answers ("I can't", "не получится")."""
    return _any(text.strip(), pack, "refusal")


def plans(text: str, pack: LanguagePack | None = None) -> bool:
    """Whether a message states a plan or commitment ("I'll book it", "буду в 9"): its
    plan cue, and not a question, a hedge, a report of the past or a wish."""
    return (
        _any(text, pack, "plan")
        and not _question_re().search(text.strip())
        and not any(_any(text, pack, cue) for cue in ("hedge", "past", "wish"))
    )


def resolves(text: str, pack: LanguagePack | None = None) -> bool:
    """Whether an asker's later message closes their question ("never mind, found it")."""
    return _any(text, pack, "resolved")


def asks_back(text: str, pack: LanguagePack | None = None) -> bool:
    """Whether a message opens with a question of its own ("Who is coming to the
    concert?") rather than answering one: its first sentence asks and has two content
    words or more ("no, not really, why?" answers; "Hm, not sure. Isn't it risky?" too)."""
    sentences = [s for s in split_sentences(text.strip()) if s.strip()]
    if not sentences or not _question_re().search(sentences[0].strip()):
        return False
    return len(content_words(sentences[0], pack.code if pack is not None else None)) >= 2


UNMARKED_WORDS = 6
"""The most words a message that opens on a question word may have to be read as a
question without its mark ("what coin ser"); a longer one may be a statement."""


def asks_unmarked(text: str, pack: LanguagePack | None = None) -> bool:
    """Whether a short message asks back without a question mark: it opens on its
    language's question word (``Cues.interrogative``: "what coin ser", «какой именно»)
    and has at most ``UNMARKED_WORDS`` words; never in a language without a pack."""
    line = text.strip()
    if pack is None or "?" in line or len(line.split()) > UNMARKED_WORDS:
        return False
    return pack.cue.interrogative.match(line.lstrip(" \t\"'«“„(")) is not None


MAX_AFTER_QUESTION = 3
"""Words a message may go on after its question before it reads as answering itself."""


def question_sentence(text: str, pack: LanguagePack | None = None) -> str | None:
    """The sentence of ``text`` that asks (a greeting before it left out), or None when
    the message asks nothing a reader would call a question: no question mark, only
    chatter ("how are you?"), a rhetorical question ("who knew?"), or a post that goes
    on to answer itself ("What changes? Here is what you need to know: …")."""
    sentences = split_sentences(text.strip())
    question = _question_re()
    asked = [
        k
        for k, s in enumerate(sentences)
        if question.search(s.strip()) and not is_chatter(s) and not _any(s, pack, "rhetorical")
    ]
    if not asked:
        return None
    after = "".join(sentences[asked[-1] + 1 :])
    if len(after.split()) > MAX_AFTER_QUESTION:
        return None
    return sentences[asked[0]].strip()


def names_time(text: str, pack: LanguagePack | None = None) -> bool:
    """Whether a message names a day or time ("on Friday at 9", "завтра в 10")."""
    return _any(text, pack, "when")


__all__ = [
    "Act",
    "act_of",
    "agrees",
    "asks_back",
    "asks_unmarked",
    "declines",
    "is_chatter",
    "is_placeholder",
    "names_time",
    "plans",
    "proposes",
    "question_sentence",
    "resolves",
]
