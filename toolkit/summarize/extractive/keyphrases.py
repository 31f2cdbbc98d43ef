"""Key phrases of message clusters, in dictionary form: section titles and digest topics.

Candidates are runs of one to three adjacent content words that form a noun phrase:
the head can be a noun (``lemminflect`` for English, ``pymorphy3`` for Russian), the
words before it nouns or adjectives. A cluster ranks its candidates by a class-based
TF-IDF (the share of the cluster's messages that use the phrase, times its inverse
document frequency over all messages); a phrase that recurs gains per extra word, and
its parts give way to it. Each phrase is shown in dictionary form: English head nouns
in the singular, Russian phrases in the nominative (adjectives agreeing with the
head); acronyms and proper names keep their case ("США", "Kubernetes").
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from functools import lru_cache

import lemminflect  # type: ignore[import-untyped]
import numpy as np
import numpy.typing as npt

from toolkit.summarize.extractive.grammar import morph
from toolkit.summarize.extractive.tokens import content_words, is_content_token
from toolkit.text import URL_RE, stem

Labels = npt.NDArray[np.int_]
Term = tuple[str, str]
MAX_WORDS = 3
PHRASE_BONUS = 0.6
_WORD_RE = re.compile(r"[^\W\d_][\w'’-]*[^\W_]|[^\W\d_]")
_CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)


def message_terms(texts: Sequence[str]) -> list[list[Term]]:
    """The content words (stem, surface) of each text, in text order."""
    return [content_words(text) for text in texts]


@lru_cache(maxsize=65536)
def _role(word: str) -> str:
    """``noun``, ``adj`` or ``other``: what a word can be in a noun phrase."""
    if _CYRILLIC.search(word):
        tag = morph().parse(word.lower())[0].tag
        if tag.POS == "NOUN":
            return "noun"
        return "adj" if tag.POS in ("ADJF", "PRTF") else "other"
    if word.isupper() and len(word) >= 2:
        return "noun"
    lemmas = lemminflect.getAllLemmas(word.lower())
    if not lemmas:
        return "noun"  # a name or a term the dictionary does not know
    if "NOUN" in lemmas or "PROPN" in lemmas:
        return "noun"
    return "adj" if "ADJ" in lemmas else "other"


@lru_cache(maxsize=65536)
def _lemma_en(word: str) -> str:
    lemmas = lemminflect.getAllLemmas(word.lower()).get("NOUN")
    return str(lemmas[0]) if lemmas else word


def _keeps_case(word: str, first: bool) -> bool:
    """Acronyms keep their case; a capitalised word does too unless it opens a sentence."""
    if len(word) >= 2 and word.isupper():
        return True
    return word[:1].isupper() and not first


def dictionary_form(words: Sequence[str], keep_case: Sequence[bool]) -> str:
    """A noun phrase in dictionary form (see the module docstring)."""
    shown = [w if keep else w.lower() for w, keep in zip(words, keep_case, strict=True)]
    if not _CYRILLIC.search(words[-1]) and not any(_CYRILLIC.search(w) for w in words):
        if not keep_case[-1]:
            shown[-1] = _lemma_en(shown[-1])
        return " ".join(shown)
    heads = [i for i, w in enumerate(words) if _role(w) == "noun"]
    if not heads:
        return " ".join(shown)
    head = heads[0]
    parse = morph().parse(words[head].lower())[0]
    number = "plur" if "plur" in parse.tag or "Pltm" in parse.tag else "sing"
    nominative = parse.inflect({"nomn", number}) if not keep_case[head] else None
    if nominative is not None:
        shown[head] = nominative.word
    gender = nominative.tag.gender if nominative is not None else parse.tag.gender
    for i in range(head):
        if keep_case[i]:
            continue
        grammemes = {"nomn", "plur"} if number == "plur" or gender is None else {"nomn", gender}
        adj = morph().parse(words[i].lower())[0].inflect(grammemes)
        if adj is not None:
            shown[i] = adj.word
    return " ".join(shown)


Candidate = tuple[tuple[str, ...], tuple[tuple[str, bool], ...]]
"""A phrase's stems, and its words as written with whether each keeps its case."""


def candidates(text: str) -> list[Candidate]:
    """Every noun-phrase candidate of one message (see the module docstring)."""
    clean = URL_RE.sub(" . ", text)
    out: list[Candidate] = []
    run: list[tuple[str, bool]] = []
    for match in _WORD_RE.finditer(clean):
        word = match.group(0)
        before = clean[: match.start()].rstrip(" \t\"'«“(")
        opens_sentence = not before or before[-1] in ".!?…\n:"
        if is_content_token(word) and not (run and before and before[-1] in ",;:.!?…"):
            run.append((word, _keeps_case(word, opens_sentence)))
            continue
        out.extend(_phrases(run))
        run = [(word, _keeps_case(word, opens_sentence))] if is_content_token(word) else []
    out.extend(_phrases(run))
    return out


def _phrases(run: list[tuple[str, bool]]) -> list[Candidate]:
    out = []
    roles = [_role(w) for w, _ in run]
    for a in range(len(run)):
        for b in range(a + 1, min(len(run), a + MAX_WORDS) + 1):
            span = roles[a:b]
            if "noun" not in span or "other" in span:
                continue
            if _CYRILLIC.search(run[a][0]) is None and span[-1] != "noun":
                continue  # an English phrase ends in its head noun
            keys = tuple(_stem(w) for w, _ in run[a:b])
            out.append((keys, tuple(run[a:b])))
    return out


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return stem(word.lower())


@lru_cache(maxsize=16384)
def _form(written: tuple[tuple[str, bool], ...]) -> str:
    return dictionary_form([w for w, _ in written], [k for _, k in written])


def key_phrases(
    texts: Sequence[str],
    labels: Labels,
    *,
    top: int = 3,
    keep: Callable[[str], bool] = lambda _: True,
) -> dict[int, list[str]]:
    """The ``top`` key phrases of each cluster, best first (possibly fewer, or none).

    Args:
        texts: the messages' texts, aligned with ``labels``.
        labels: each message's cluster.
        top: phrases per cluster.
        keep: a filter on phrases (e.g. no period wording in source summaries).
    """
    per_message = [candidates(t) for t in texts]
    df: Counter[tuple[str, ...]] = Counter()
    forms: dict[tuple[str, ...], Counter[tuple[tuple[str, bool], ...]]] = defaultdict(Counter)
    for found in per_message:
        df.update({k for k, _ in found})
        for k, written in found:
            forms[k][written] += 1
    members: dict[int, list[int]] = defaultdict(list)
    for index, label in enumerate(labels.tolist()):
        members[int(label)].append(index)
    n = len(texts)
    out: dict[int, list[str]] = {}
    for label, indices in members.items():
        local: Counter[tuple[str, ...]] = Counter()
        for i in indices:
            local.update({k for k, _ in per_message[i]})
        floor = 2 if len(indices) >= 4 else 1
        scored = sorted(
            (
                -(c / len(indices)) * math.log(1 + n / df[k]) * (1 + PHRASE_BONUS * (len(k) - 1)),
                k,
            )
            for k, c in local.items()
            if c >= floor
        )
        chosen: list[tuple[str, ...]] = []
        phrases: list[str] = []
        for _, k in scored:
            if any(set(k) <= set(c) or set(c) <= set(k) for c in chosen):
                continue
            form = _form(forms[k].most_common(1)[0][0])
            if not keep(form) or form.lower() in (p.lower() for p in phrases):
                continue
            chosen.append(k)
            phrases.append(form)
            if len(phrases) == top:
                break
        out[label] = phrases
    return out
