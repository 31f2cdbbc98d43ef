"""Texts that recur in a source: near-duplicates found over its recent messages.

A carrier's advert posted five times, the same offer from one sender, a channel post
forwarded into a group again and again: a digest shows such a text once at most and
never as a decision, a plan or a question (``adverts``, ``digest.turns``). Two texts
recur when their normalised forms (case folded, links cut to host and path, every run
of signs and spaces one space) share ``SIMILAR`` of their character ``SHINGLE``-grams
(Jaccard); datasketch's MinHash LSH proposes the pairs, the exact Jaccard decides, so
the groups do not depend on the hashing. Texts shorter than ``MIN_CHARS`` are left
alone: "thanks!" and "good morning" recur by nature. The same author's same text, of
any length, is one text too (``echoes``): a digest writes it once.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from toolkit.models import Message
from toolkit.text import URL_RE

Hashes = npt.NDArray[np.uint64]

SHINGLE = 5
SIMILAR = 0.6
MIN_CHARS = 32
"""Shorter normalised texts never count as recurring."""
MAX_CHARS = 2000
"""Of a longer text only its head is compared: an advert shows what it is early."""
NUM_PERM = 64
SEED = 7

_PRIME = np.uint64((1 << 61) - 1)
_MAX_HASH = np.uint64((1 << 32) - 1)
_LINK_TAIL_RE = re.compile(r"[?#]\S*")
_NOT_WORD_RE = re.compile(r"[\W_]+")


def normalised(text: str) -> str:
    """``text`` case folded, its links without query, every run of signs and spaces one
    space: two copies of an advert that differ in an emoji or a tracking tag read alike."""
    text = text[:MAX_CHARS]
    text = URL_RE.sub(lambda m: " " + _LINK_TAIL_RE.sub("", m.group(0)) + " ", text)
    return _NOT_WORD_RE.sub(" ", text.casefold()).strip()


def shingles(text: str) -> Hashes:
    """The distinct hashes of the character ``SHINGLE``-grams of a normalised text,
    sorted (none when it is shorter than ``MIN_CHARS``): computed with numpy at once,
    a polynomial hash of the code points mod 2**32, the same in every process."""
    if len(text) < MIN_CHARS:
        return np.zeros(0, dtype=np.uint64)
    points = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    count = len(points) - SHINGLE + 1
    hashed = np.zeros(count, dtype=np.uint64)
    for k in range(SHINGLE):
        hashed = (hashed * np.uint64(1_000_003) + points[k : k + count]) & np.uint64(0xFFFFFFFF)
    return np.unique(hashed)


def jaccard(a: Hashes, b: Hashes) -> float:
    """The Jaccard similarity of two sorted hash sets (0 when either is empty)."""
    if not a.size or not b.size:
        return 0.0
    both = np.intersect1d(a, b, assume_unique=True).size
    return both / (a.size + b.size - both)


@lru_cache(maxsize=1)
def _permutations() -> tuple[Hashes, Hashes]:
    state = np.random.RandomState(SEED)
    return (
        state.randint(1, _PRIME, NUM_PERM, dtype=np.uint64),
        state.randint(0, _PRIME, NUM_PERM, dtype=np.uint64),
    )


def signature(hashes: Hashes) -> Hashes:
    """The MinHash signature of a shingle set: the least of each of ``NUM_PERM``
    seeded permutations of its hashes (as datasketch's ``MinHash`` computes it, at once)."""
    a, b = _permutations()
    permuted: Hashes = (((hashes[:, None] * a) + b) % _PRIME) & _MAX_HASH
    return np.asarray(permuted.min(axis=0), dtype=np.uint64)


def _root(parent: list[int], i: int) -> int:
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


def groups(texts: Sequence[str]) -> list[int]:
    """A group label per text: texts that recur share one (their first index); a text
    that recurs nowhere is ``-1``.

    Args:
        texts: the texts, oldest first (a source's recent messages and the window's).
    """
    from datasketch import MinHash, MinHashLSH

    keys = [normalised(t) for t in texts]
    sets = [shingles(k) for k in keys]
    indexed = [i for i, s in enumerate(sets) if s.size]
    parent = list(range(len(texts)))
    if len(indexed) < 2:
        return [-1] * len(texts)
    # The signatures are datasketch's "legacy" scheme, computed here at once per text.
    hashes = [
        MinHash(hashvalues=signature(sets[i]), permutations=_permutations(), scheme="legacy")
        for i in indexed
    ]
    lsh = MinHashLSH(threshold=SIMILAR, num_perm=NUM_PERM)
    exact: dict[str, int] = {}
    for i, minhash in zip(indexed, hashes, strict=True):
        if keys[i] in exact:  # the same text again: no need to ask the index
            parent[_root(parent, i)] = _root(parent, exact[keys[i]])
            continue
        exact[keys[i]] = i
        for j in lsh.query(minhash):
            if jaccard(sets[i], sets[j]) >= SIMILAR:
                parent[_root(parent, i)] = _root(parent, j)
        lsh.insert(i, minhash)
    roots = [_root(parent, i) for i in range(len(texts))]
    first: dict[int, int] = {}
    sizes: Counter[int] = Counter(roots)
    for i, r in enumerate(roots):
        first.setdefault(r, i)
    return [first[r] if sizes[r] > 1 else -1 for r in roots]


@dataclass(frozen=True, slots=True)
class Recurrence:
    """What recurs among a source's recent messages and a summary's window.

    ``group`` maps a message id to its group (only messages whose text recurs); ``copies``
    and ``days`` are each group's messages and the distinct days they were posted on;
    ``senders`` each group's distinct senders.
    """

    group: dict[int, int]
    copies: dict[int, int]
    days: dict[int, int]
    senders: dict[int, int]

    def recurs(self, message_id: int) -> bool:
        """Whether the message's text recurs in the source."""
        return message_id in self.group


def recurrence(messages: Sequence[Message]) -> Recurrence:
    """What recurs among ``messages`` (oldest first; a source's recent messages and a
    summary's window, each once)."""
    labels = groups([m.text for m in messages])
    group = {m.messenger_message_id: g for m, g in zip(messages, labels, strict=True) if g >= 0}
    members: dict[int, list[Message]] = {}
    for m, g in zip(messages, labels, strict=True):
        if g >= 0:
            members.setdefault(g, []).append(m)
    return Recurrence(
        group=group,
        copies={g: len(ms) for g, ms in members.items()},
        days={g: len({m.posted_at.date() for m in ms}) for g, ms in members.items()},
        senders={
            g: len({m.sender_peer_id or m.sender_name for m in ms}) for g, ms in members.items()
        },
    )
