"""What the extractive engine knows about one summary's messages, and how it quotes them.

A long message is quoted by its key sentence: the one sharing most content words with
the rest of the messages.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache, partial

import numpy as np
import numpy.typing as npt

from toolkit.lang.base import UNNAMED, LanguagePack
from toolkit.lang.chatter import is_chatter
from toolkit.models import Message, SectionKind, SourceKind
from toolkit.summarize.context import SummaryContext
from toolkit.summarize.extractive.draft.adverts import Hygiene
from toolkit.summarize.extractive.draft.keys import LINE_VOCABULARY, key_weigher
from toolkit.summarize.extractive.draft.quotes import quoted_sentences
from toolkit.summarize.extractive.draft.tokens import content_words

MIN_QUOTE_WORDS = 4


@dataclass(frozen=True)
class Draft:
    """Everything the engine knows about the messages of one summary."""

    messages: list[Message]
    ctx: SummaryContext
    texts: list[str]
    terms: list[list[tuple[str, str]]]
    sizes: list[int]
    labels: npt.NDArray[np.int_]
    central: npt.NDArray[np.float64]
    importance: npt.NDArray[np.float64]
    quality: npt.NDArray[np.float64]
    titles: dict[int, list[str]]
    df: dict[str, int]
    vectors: npt.NDArray[np.float32]
    book: LanguagePack
    """The pack of the requested language: every word the engine writes is its."""
    langs: list[str | None]
    """Each message's language (``lang.detect``; None: no letters)."""
    packs: list[LanguagePack | None]
    """Each message's language pack (None: a language without one)."""
    headings: dict[int, str] = field(default_factory=dict)
    """A section label's forum topic title, when sections are a forum's topics."""
    acts: Mapping[SectionKind, frozenset[int]] = field(default_factory=dict)
    """The messages the act scorers name as decisions, plans and open questions
    (``scoring.model.decide``); none before they have run."""
    hygiene: Hygiene = field(default_factory=Hygiene)
    """The messages whose text recurs in the source, the adverts, and the copies of a text
    an earlier message of the window has (``adverts.hygiene``)."""

    def foreign(self, i: int) -> bool:
        """Whether message ``i`` is in another language than the requested one."""
        return self.langs[i] not in (None, self.book.code)

    def weight(self, sentence: str, language: str | None = None) -> float:
        """How much a sentence (in ``language``, when known) shares the messages'
        vocabulary (to pick what to quote)."""
        return sentence_weight(sentence, self.df, language)

    def weigher(
        self, i: int, said: str, vocabulary_share: float = LINE_VOCABULARY
    ) -> Callable[[str], float]:
        """How much each sentence of ``said`` (message ``i``'s text as it is quoted) is
        worth quoting: the likelihood that it carries the message's point
        (``keys.key_weigher``, over the sentences a quote of it chooses from, with their
        ``weight`` among the features), plus ``vocabulary_share`` times that ``weight``."""
        return key_weigher(
            quoted_sentences(said),
            partial(self.weight, language=self.langs[i]),
            self.packs[i],
            reply=self.messages[i].reply_to is not None,
            channel=self.ctx.kind is SourceKind.CHANNEL,
            vocabulary_share=vocabulary_share,
        )

    def leaning(self, i: int) -> re.Pattern[str] | None:
        """The opening words of a sentence of message ``i`` that leans on the one before
        it (its language's ``Cues.leaning`` and ``Cues.leans_back``: "So…", "It…";
        ``None`` when its language has no pack)."""
        pack = self.packs[i]
        if pack is None:
            return None
        return _either(pack.cue.leaning.pattern, pack.cue.leans_back.pattern)

    def members(self, label: int) -> list[int]:
        """Indices of the messages in one cluster, in posting order."""
        return [i for i, lab in enumerate(self.labels.tolist()) if lab == label]

    def representatives(self, indices: list[int], count: int) -> list[int]:
        """The ``count`` most central of ``indices``, messages that say something first.

        Short replies ("solo stuff", "que bien") sit close to a cluster's centre too, so
        messages of ``MIN_QUOTE_WORDS`` content words or more go first; messages with no
        content word at all, and chatter ("Now I have to go! Take care, friend"), only
        when nothing else is left.
        """

        def rank(i: int) -> tuple[int, float, int]:
            tier = 0 if self.sizes[i] >= MIN_QUOTE_WORDS and self.quality[i] > 0.1 else 1
            if self.sizes[i] == 0 or is_chatter(self.texts[i]):
                tier = 2
            return tier, -(self.central[i] * self.quality[i]), i

        ranked = sorted(indices, key=rank)
        said = [i for i in ranked if self.sizes[i] > 0 and not is_chatter(self.texts[i])]
        return (said or ranked)[:count]


def sentence_weight(sentence: str, df: Mapping[str, int], language: str | None = None) -> float:
    """How much a sentence (in ``language``, when known) shares the vocabulary of the
    messages whose content-word counts are ``df``: each of its content words used by more
    than one message counts one, each word 0.1."""
    stems = {stem for stem, _ in content_words(sentence, language)}
    return sum(df.get(s, 0) > 1 for s in stems) + 0.1 * len(stems)


def audience(message: Message) -> float:
    """How much a message's audience answered it beyond replies, in [0, 1]: reactions
    and forwards (when the platform gives them), on a log scale (10 or more: 1)."""
    total = message.reaction_count + (message.forwards or 0)
    return min(1.0, math.log1p(total) / math.log1p(10))


def author(message: Message) -> str:
    """The name a quote is attributed to."""
    return message.sender_name or message.sender_peer_id or UNNAMED


@lru_cache(maxsize=16)
def _either(first: str, second: str) -> re.Pattern[str]:
    """One pattern matching what either of two patterns matches (case aside)."""
    return re.compile(f"(?:{first})|(?:{second})", re.IGNORECASE)
