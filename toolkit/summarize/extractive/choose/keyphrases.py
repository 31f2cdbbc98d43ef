"""Key phrases of message clusters, in dictionary form: section titles and digest topics.

Candidates are runs of one to three adjacent content words that form a noun phrase:
the head can be a noun, the words before it nouns or adjectives, as the message's
language pack tells (``noun_role``; a language without a pack: every word a noun: a
verb form or a person's first name is none; a word its dictionary lacks counts only
where ``GUESS_SUPPORT`` messages use it). A word is
taken whole, hyphens and apostrophes and all ("honky-tonk", "rock'n'roll"); a phrase
never starts inside a longer run of such words (its cut: "tonk dad rock" of "honky tonk
dad rock"), never holds a participant's name (``names``), nor the word a number counts
("500 рублей": a quantity's unit is no topic). A
cluster ranks its candidates by a class-based TF-IDF (the share of the cluster's
messages that use the phrase, times its inverse document frequency over all messages);
a phrase that recurs gains per extra word, and its parts give way to it. Each phrase
is shown in dictionary form, as its pack writes it (``phrase_form``); acronyms and
proper names keep their case ("США", "Kubernetes").
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from toolkit.lang import quotation_marks
from toolkit.lang.base import LanguagePack
from toolkit.lang.chatter import chatter_words
from toolkit.lang.script import script as text_script
from toolkit.summarize.extractive.draft.tokens import content_words, is_topic_token
from toolkit.text import URL_RE, stem

Labels = npt.NDArray[np.int_]
Term = tuple[str, str]
MAX_WORDS = 3
PHRASE_BONUS = 0.6
GUESS_SUPPORT = 2
"""Messages that must use a phrase with a word its dictionary lacks for it to be a topic."""
_MENTION_RE = re.compile(r"@\w+")
_WORD_RE = re.compile(r"[^\W\d_][\w'’\u2010\u2011-]*[^\W_]|[^\W\d_]")


def message_terms(
    texts: Sequence[str], languages: Sequence[str | None] | None = None
) -> list[list[Term]]:
    """The content words (stem, surface) of each text, in text order (``languages``:
    each text's ISO 639-1 code, when known: its stop words and stemmer)."""
    codes = list(languages) if languages is not None else [None] * len(texts)
    return [content_words(text, code) for text, code in zip(texts, codes, strict=True)]


def _keeps_case(word: str, first: bool) -> bool:
    """Acronyms keep their case; a capitalised word does too unless it opens a sentence."""
    if len(word) >= 2 and word.isupper():
        return True
    return word[:1].isupper() and not first


def _role(pack: LanguagePack | None, word: str) -> str:
    return pack.noun_role(word) if pack is not None else "noun"


def dictionary_form(
    pack: LanguagePack | None, words: Sequence[str], keep_case: Sequence[bool]
) -> str:
    """A noun phrase in dictionary form (its pack's ``phrase_form``)."""
    shown = [w if keep else w.lower() for w, keep in zip(words, keep_case, strict=True)]
    return pack.phrase_form(shown, keep_case) if pack is not None else " ".join(shown)


Candidate = tuple[tuple[str, ...], tuple[tuple[str, bool], ...]]
"""A phrase's stems, and its words as written with whether each keeps its case."""


@lru_cache(maxsize=1)
def _skipped_before() -> frozenset[str]:
    """White space, straight quotes, ``(`` and every pack's opening quotation mark."""
    return frozenset(" \t\"'(" + "".join(quotation_marks()))


def _mark_before(text: str, at: int) -> str:
    """The character before ``at``, spaces, opening quotes and brackets skipped (``""``
    at the start): read backwards from ``at``, never by copying the text before it."""
    i = at - 1
    skipped = _skipped_before()
    while i >= 0 and text[i] in skipped:
        i -= 1
    return text[i] if i >= 0 else ""


def _counted(text: str, at: int) -> bool:
    """Whether the word at ``at`` follows a whole number standing alone ("500 рублей",
    "3 tickets"; not "COVID-19 vaccine", "the 2.4 release"): read backwards, never by
    copying the text before it."""
    i = at - 1
    while i >= 0 and text[i] in " \t":
        i -= 1
    if i < 0 or not text[i].isdigit():
        return False
    while i >= 0 and (text[i].isdigit() or text[i] == ","):
        i -= 1  # "1,500 rubles"; a dot makes a version ("the 2.4 release"), no count
    return i < 0 or text[i].isspace() or text[i] in "(~≈"


def candidates(text: str, pack: LanguagePack | None = None) -> list[Candidate]:
    """Every noun-phrase candidate of one message (see the module docstring)."""
    clean = _MENTION_RE.sub(" . ", URL_RE.sub(" . ", text))  # whom it calls is no topic
    code = pack.code if pack is not None else None
    out: list[Candidate] = []
    run: list[tuple[str, bool]] = []
    for match in _WORD_RE.finditer(clean):
        word = match.group(0)
        before = _mark_before(clean, match.start())
        opens_sentence = not before or before in ".!?…\n:"
        if _counted(clean, match.start()):
            out.extend(_phrases(pack, run))  # what a number counts ("500 рублей"): no topic
            run = []
            continue
        if is_topic_token(word, code) and not (run and before and before in ",;:.!?…"):
            run.append((word, _keeps_case(word, opens_sentence)))
            continue
        out.extend(_phrases(pack, run))
        topical = is_topic_token(word, code)
        run = [(word, _keeps_case(word, opens_sentence))] if topical else []
    out.extend(_phrases(pack, run))
    return out


def _phrases(pack: LanguagePack | None, run: list[tuple[str, bool]]) -> list[Candidate]:
    out = []
    roles = _roles(pack, run)
    for a in range(len(run)):
        for b in range(a + 1, min(len(run), a + MAX_WORDS) + 1):
            span = roles[a:b]
            if len(run) > MAX_WORDS and b - a > 1 and _cut(pack, roles, a, b):
                continue

            if "noun" not in span or "other" in span:
                continue
            if pack is not None and pack.head_last and span[-1] != "noun":
                continue  # an English phrase ends in its head noun
            keys = tuple(_stem(w, pack.code if pack is not None else None) for w, _ in run[a:b])
            out.append((keys, tuple(run[a:b])))
    return out


def _names_in(candidate: Candidate, names: Collection[str], pack: LanguagePack | None) -> bool:
    """Whether a phrase holds a word of one of ``names``: one of its forms (by stem), or
    a capitalised short form of it ("Pam" of "Pamela")."""
    if not names:
        return False
    keys, written = candidate
    if set(keys) & _name_stems(tuple(names), pack.code if pack else None):
        return True
    shorts = [w.lower() for w, keep in written if keep and len(w) >= 3 and not w.isupper()]
    return any(n.startswith(w) for w in shorts for n in _name_words(tuple(names)))


@lru_cache(maxsize=64)
def _name_words(names: tuple[str, ...]) -> frozenset[str]:
    return frozenset(w.lower() for name in names for w in _WORD_RE.findall(name))


def _cut_words(forms: dict[tuple[str, ...], Counter[tuple[tuple[str, bool], ...]]]) -> set[str]:
    """The words of the phrases that begin a longer word of them ("совмещ", "info" beside
    "information"): a word cut short, never a title."""
    seen = sorted({w.lower() for counts in forms.values() for ws in counts for w, _ in ws})
    cut = set()
    for k, word in enumerate(seen):
        for after in seen[k + 1 :]:
            if not after.startswith(word):
                break  # sorted: the words that begin with ``word`` follow it
            if len(after) > len(word) + 1:  # "tent" of "tents" is no cut
                cut.add(word)
                break
    return cut


@lru_cache(maxsize=64)
def _name_stems(names: tuple[str, ...], language: str | None) -> frozenset[str]:
    return frozenset(_stem(w, language) for name in names for w in _WORD_RE.findall(name))


def _roles(pack: LanguagePack | None, run: Sequence[tuple[str, bool]]) -> list[str]:
    """Each word's role, a ``guess`` counted a noun. A capital that only opens a sentence
    says nothing of the word ("Верте" is read as "верте")."""
    roles = [_role(pack, w if keep else w.lower()) for w, keep in run]
    return ["noun" if r == "guess" else r for r in roles]


def _guessed(pack: LanguagePack | None, written: tuple[tuple[str, bool], ...]) -> bool:
    """Whether a phrase holds a word its pack's dictionary lacks (``guess``)."""
    return any(_role(pack, w if keep else w.lower()) == "guess" for w, keep in written)


def _cut(pack: LanguagePack | None, roles: list[str], a: int, b: int) -> bool:
    """Whether the words ``a:b`` of a run longer than a title takes are a cut of a
    compound: they start after a noun of it, or (where the head comes last) stop before
    one. Leaving out an adjective ("ramen place" of "new ramen place") cuts nothing."""
    if a > 0 and roles[a - 1] == "noun":
        return True
    head_last = pack is not None and pack.head_last
    return head_last and b < len(roles) and roles[b] == "noun"


@lru_cache(maxsize=65536)
def _stem(word: str, language: str | None) -> str:
    return stem(word.lower(), language)


def _form(pack: LanguagePack | None, written: tuple[tuple[str, bool], ...]) -> str:
    return dictionary_form(pack, [w for w, _ in written], [k for _, k in written])


def neutral_name(phrase: str, script: str | None) -> bool:
    """Whether a phrase reads the same in any language's title: each word an acronym
    ("LND", "API"), or, in a chat written in another ``script`` than Latin, a name in
    Latin letters ("Telegram", "Mini App"); never a chatter word ("LOL")."""
    words = phrase.split()
    if not words or any(w.casefold() in chatter_words() for w in words):
        return False
    if all(len(w) >= 2 and w.isupper() and text_script(w) == "latin" for w in words):
        return True
    names = all(w[:1].isupper() for w in words) and text_script(phrase) == "latin"
    return names and script not in (None, "latin")


@dataclass(frozen=True, slots=True)
class Background:
    """Which of a source's earlier messages use each content word (``postings``: its
    stem → the messages' indices), of ``size`` messages: what the source says all the
    time is its register, not what one thread of it is about."""

    postings: dict[str, frozenset[int]]
    size: int

    def share(self, phrase: tuple[str, ...]) -> float:
        """The share of the messages that use every word of ``phrase`` (its stems)."""
        found = [self.postings.get(word, frozenset()) for word in phrase]
        return len(frozenset.intersection(*found)) / self.size if found and self.size else 0.0


LIFT = 3.0
"""How many times more often a thread's messages must use a phrase than the source's
earlier messages do for it to name the thread (readers of real channels found titles
such as «Публикации: компания» and «Темы канала: мысль», a word the channel always uses)."""
MIN_BACKGROUND = 50
"""The fewest earlier messages that make a background worth weighing a phrase against."""


def background(texts: Sequence[str], pack: LanguagePack | None) -> Background:
    """The content words of a source's earlier messages (``texts``), read with ``pack``'s
    stemmer and stop words (a phrase's words, not the phrase: reading noun phrases out
    of a thousand messages cost a digest a second)."""
    code = pack.code if pack is not None else None
    postings: dict[str, set[int]] = defaultdict(set)
    for n, text in enumerate(texts):
        for word, _ in content_words(text, code):
            postings[word].add(n)
    return Background({w: frozenset(ns) for w, ns in postings.items()}, len(texts))


def _register(k: tuple[str, ...], share: float, behind: Background | None) -> bool:
    """Whether phrase ``k``, used by ``share`` of a thread's messages, is no more the
    thread's than the source's (``LIFT``, ``MIN_BACKGROUND``)."""
    if behind is None or behind.size < MIN_BACKGROUND:
        return False
    return share < LIFT * behind.share(k)


def key_phrases(
    texts: Sequence[str],
    labels: Labels,
    *,
    top: int = 3,
    keep: Callable[[str], bool] = lambda _: True,
    packs: Sequence[LanguagePack | None] | None = None,
    names: Collection[str] = (),
    least_share: float = 0.0,
    behind: Background | None = None,
) -> dict[int, list[str]]:
    """The ``top`` key phrases of each cluster, best first (possibly fewer, or none).

    Args:
        texts: the messages' texts, aligned with ``labels``.
        labels: each message's cluster.
        top: phrases per cluster.
        keep: a filter on phrases (e.g. no period wording in source summaries).
        packs: each text's language pack (None: a language without one).
        names: the participants' names as the chat shows them: a phrase with a word of
            one, in any of its forms (by stem), is no topic.
        least_share: the least share of a cluster's messages that must use a phrase for
            it to name the cluster (a word two of thirty messages drop in passing does
            not); when one is given, two messages at least.
        behind: the source's earlier messages' phrases: a phrase they use as often as
            the cluster does (``LIFT``) is the source's register, and names no cluster.
    """
    of_text = list(packs) if packs is not None else [None] * len(texts)
    per_message = [
        [c for c in candidates(t, p) if not _names_in(c, names, p)]
        for t, p in zip(texts, of_text, strict=True)
    ]
    pack_of: dict[tuple[str, ...], LanguagePack | None] = {}
    df: Counter[tuple[str, ...]] = Counter()
    forms: dict[tuple[str, ...], Counter[tuple[tuple[str, bool], ...]]] = defaultdict(Counter)
    for found, pack in zip(per_message, of_text, strict=True):
        df.update({k for k, _ in found})
        for k, written in found:
            forms[k][written] += 1
            pack_of.setdefault(k, pack)
    # A word no dictionary knows is a topic only where it recurs: a typo is said once.
    guesses = {k for k, ws in forms.items() if any(_guessed(pack_of.get(k), w) for w in ws)}
    # A word no dictionary knows that begins a longer word of the chat is that word cut.
    cut = _cut_words(forms)
    guesses_cut = {
        k
        for k in guesses
        for ws in forms[k]
        if any(w.lower() in cut and _guessed(pack_of.get(k), ((w, keep),)) for w, keep in ws)
    }
    members: dict[int, list[int]] = defaultdict(list)
    for index, label in enumerate(labels.tolist()):
        members[int(label)].append(index)
    n = len(texts)
    out: dict[int, list[str]] = {}
    for label, indices in members.items():
        local: Counter[tuple[str, ...]] = Counter()
        for i in indices:
            local.update({k for k, _ in per_message[i]})
        # Where a share is asked, a phrase one message says is no topic, however small
        # the cluster ("Stay strong little" of three messages).
        least = 2 if len(indices) >= 4 or least_share > 0 else 1
        floor = max(least, math.ceil(least_share * len(indices)))
        scored = sorted(
            (
                -(c / len(indices)) * math.log(1 + n / df[k]) * (1 + PHRASE_BONUS * (len(k) - 1)),
                k,
            )
            for k, c in local.items()
            if c >= floor
            and (df[k] >= GUESS_SUPPORT or k not in guesses)
            and k not in guesses_cut
            and not _register(k, c / len(indices), behind)
        )
        chosen: list[tuple[str, ...]] = []
        phrases: list[str] = []
        for _, k in scored:
            if any(set(k) <= set(c) or set(c) <= set(k) for c in chosen):
                continue
            form = _form(pack_of.get(k), forms[k].most_common(1)[0][0])
            if not keep(form) or form.lower() in (p.lower() for p in phrases):
                continue
            chosen.append(k)
            phrases.append(form)
            if len(phrases) == top:
                break
        out[label] = phrases
    return out
