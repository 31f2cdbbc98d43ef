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


@lru_cache(maxsize=1)
def _identifier() -> Any:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier  # type: ignore[import-untyped]

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def _probabilities(text: str) -> tuple[list[str], np.ndarray[Any, Any]]:
    ranked = _identifier().rank(text)
    ranked.sort()
    return [code for code, _ in ranked], np.array([p for _, p in ranked], dtype=np.float64)


def languages(texts: Sequence[str]) -> list[str | None]:
    """The ISO 639-1 code of each text's language (None for text without letters)."""
    if not texts:
        return []
    rows: list[np.ndarray[Any, Any] | None] = []
    labels: list[str] = []
    sizes = [sum(ch.isalpha() for ch in t) for t in texts]
    for text, size in zip(texts, sizes, strict=True):
        if size == 0:
            rows.append(None)
            continue
        labels, probs = _probabilities(text)
        rows.append(probs)
    present = [r for r in rows if r is not None]
    if not present:
        return [None] * len(texts)
    sure = [r for r, s in zip(rows, sizes, strict=True) if r is not None and s >= SURE_LETTERS]
    prior = np.sum(sure or present, axis=0)
    prior = prior / prior.sum() + SMOOTHING
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
    codes, probs = _probabilities(text)
    order = np.argsort(-probs)
    return [(codes[i], float(probs[i])) for i in order]
