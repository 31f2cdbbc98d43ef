"""Each message's language: ``py3langid`` (its model ships inside the package), with the
chat's own languages as a prior.

A short message ("ok", "Ну да") says too little for any detector, so each message's
probabilities are multiplied by a prior: the languages of the chat's longer messages
(their summed probabilities, smoothed), and a message's own evidence counts in
proportion to its length (its probabilities to the power ``letters / SURE_LETTERS``,
at most 1). A long message in another language keeps its own; a short one takes the
language its chat is written in. Text without letters has no language (None).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

SURE_LETTERS = 25
"""Messages with at least this many letters form the chat's prior."""
SMOOTHING = 0.02
"""The prior every language keeps, so a clear message in a new language still shows."""
READ_CHARS = 600
"""What the detector reads of a text: its opening says its language; a long post's rest
would only cost time (the detector's cost grows with the text)."""
REMEMBERED = 20_000
"""Texts whose probabilities are kept (≈ 1 KB each): a digest asked again, or over an
overlapping period, detects only its new messages."""


@lru_cache(maxsize=1)
def _identifier() -> Any:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier  # type: ignore[import-untyped]

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


@lru_cache(maxsize=1)
def _labels() -> list[str]:
    return sorted(_identifier().nb_classes)


@lru_cache(maxsize=REMEMBERED)
def _probabilities(text: str) -> np.ndarray[Any, Any]:
    """The detector's probability of each language (in ``_labels()`` order) for ``text``
    (at most ``READ_CHARS`` of it: callers pass it cut)."""
    ranked = dict(_identifier().rank(text))
    probs = np.array([ranked[code] for code in _labels()], dtype=np.float64)
    probs.setflags(write=False)  # shared by every later call with the same text
    return probs


def languages(texts: Sequence[str]) -> list[str | None]:
    """The ISO 639-1 code of each text's language (None for text without letters)."""
    if not texts:
        return []
    rows: list[np.ndarray[Any, Any] | None] = []
    sizes = [sum(ch.isalpha() for ch in t) for t in texts]
    for text, size in zip(texts, sizes, strict=True):
        if size == 0:
            rows.append(None)
            continue
        rows.append(_probabilities(text[:READ_CHARS]))
    present = [r for r in rows if r is not None]
    if not present:
        return [None] * len(texts)
    sure = [r for r, s in zip(rows, sizes, strict=True) if r is not None and s >= SURE_LETTERS]
    prior = np.sum(sure or present, axis=0)
    prior = prior / prior.sum() + SMOOTHING
    labels = _labels()
    out: list[str | None] = []
    for row, size in zip(rows, sizes, strict=True):
        if row is None:
            out.append(None)
            continue
        evidence = np.power(np.maximum(row, 1e-12), min(1.0, size / SURE_LETTERS))
        out.append(labels[int(np.argmax(evidence * prior))])
    return out


def language(text: str) -> str | None:
    """One text's language on its own (no chat prior)."""
    return languages([text])[0]


def ranked(text: str) -> list[tuple[str, float]]:
    """Every language the detector knows with its probability for ``text`` on its own
    (normalised, the likeliest first)."""
    scores = _identifier().rank(text)  # the whole text: an answer weighs all its parts
    return sorted(((code, float(p)) for code, p in scores), key=lambda pair: -pair[1])


def known() -> frozenset[str]:
    """The ISO 639-1 codes the detector knows."""
    return frozenset(_labels())
