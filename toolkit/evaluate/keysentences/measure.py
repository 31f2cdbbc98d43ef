"""How often a quote of a labelled message holds the sentence that carries its point.

Each labelled message is quoted as the engine would quote it in its window (the window's
content-word counts weigh its sentences, its language's leaning words keep a leaning
sentence with the one before it), at the engine's two lengths: a message in the digest's
language (``QUOTE_CHARS``) and one in another language (``FOREIGN_QUOTE_CHARS``). A quote
holds the key sentence when it contains it whole.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial

from toolkit.evaluate.corpus.sources import BY_KEY
from toolkit.evaluate.keysentences.labels import KeyLabel, sentence_hash
from toolkit.evaluate.keysentences.sample import Candidate, candidates
from toolkit.lang import find
from toolkit.lang.base import LanguagePack
from toolkit.lang.detect import languages
from toolkit.lang.sentences import split_sentences
from toolkit.summarize.context import message_text
from toolkit.summarize.extractive.choose.keyphrases import message_terms
from toolkit.summarize.extractive.compose.cite import FOREIGN_QUOTE_CHARS, QUOTE_CHARS
from toolkit.summarize.extractive.draft.draft import sentence_weight
from toolkit.summarize.extractive.draft.quotes import one_line, passage, without_roll_call

LIMITS = (QUOTE_CHARS, FOREIGN_QUOTE_CHARS)
"""The quote lengths measured: the digest's own language, another language."""


@dataclass(frozen=True, slots=True)
class Case:
    """A labelled message ready to quote: its text, the sentences of its key, how to weigh."""

    source: str
    id: int
    text: str
    sentences: list[str]
    key: tuple[str, ...]
    weigh: Callable[[str], float]
    pack: LanguagePack | None
    reply: bool
    channel: bool

    @property
    def leaning(self) -> re.Pattern[str] | None:
        """The opening words of a sentence leaning on the one before (its pack's)."""
        return self.pack.cue.leaning if self.pack is not None else None


def holds(quote: str, key_sentences: Iterable[str]) -> bool:
    """Whether ``quote`` contains one of ``key_sentences`` whole (a key cut short has lost
    its end: readers count it as a fragment)."""
    return any(s in quote for s in key_sentences)


def _key_sentences(label: KeyLabel, sentences: list[str], text: str) -> tuple[str, ...]:
    """The sentences of ``sentences`` that are ``label``'s key: by their hash, or (a label
    made when a line break ended no sentence) those inside the key sentence it named, or
    holding it (an item's number now opens its item)."""
    by_hash = {sentence_hash(s): s for s in sentences}
    found = tuple(by_hash[h] for h in label.key if h in by_hash)
    if found:
        return found
    folded = without_roll_call(one_line(text))
    named = {sentence_hash(s.strip()): s.strip() for s in split_sentences(folded) if s.strip()}
    keys = [named[h] for h in label.key if h in named]
    return tuple(s for s in sentences if any(s in k or k in s for k in keys))


def cases(labels: list[KeyLabel]) -> list[Case]:
    """The labelled messages found in the cache, each with its window's weights.

    Raises:
        CorpusMissing: a source is not cached.
    """
    wanted = {(lab.source, lab.id): lab for lab in labels}
    seen: dict[tuple[str, int], Case] = {}
    windows: dict[tuple[str, str], list[Candidate]] = {}
    for c in candidates({lab.source for lab in labels}):
        windows.setdefault((c.source, c.group), []).append(c)
    for group in windows.values():
        texts = [message_text(m) for m in group[0].messages]
        langs = languages(texts)
        terms = message_terms(texts, langs)
        df = Counter(stem for words in terms for stem in {s for s, _ in words})
        for c in group:
            lab = wanted.get((c.source, c.label_id))
            if lab is None:
                continue
            key = _key_sentences(lab, c.sentences, texts[c.index])
            if not key:
                continue  # the message's sentences changed since it was labelled
            seen[(lab.source, lab.id)] = Case(
                lab.source,
                lab.id,
                texts[c.index],
                c.sentences,
                key,
                partial(sentence_weight, df=df, language=langs[c.index]),
                find(langs[c.index]),
                c.message.reply_to is not None,
                c.source in BY_KEY and BY_KEY[c.source].kind == "channel",
            )
    return [seen[k] for k in sorted(seen)]


def vocabulary_quote(case: Case, limit: int) -> str:
    """The quote of ``case`` at ``limit`` characters with its sentences weighed by their
    share of the window's vocabulary alone (the engine before the key-sentence model)."""
    return passage(case.text, limit, case.weigh, case.leaning)


def hit_rates(
    found: list[Case], quote: Callable[[Case, int], str] = vocabulary_quote
) -> dict[str, dict[int, tuple[int, int]]]:
    """Per source (and ``"all"``), per limit: (quotes holding the key, labelled messages
    too long to quote whole at that limit)."""
    out: dict[str, dict[int, tuple[int, int]]] = {}
    for case in found:
        for limit in LIMITS:
            if len(" ".join(case.sentences)) <= limit:
                continue  # quoted whole: no choice to measure
            ok = holds(quote(case, limit), case.key)
            for name in (case.source, "all"):
                hit, total = out.setdefault(name, {}).get(limit, (0, 0))
                out[name][limit] = (hit + ok, total + 1)
    return out
