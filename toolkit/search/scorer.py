"""Fusion of the four signals into one score, and the explanation of each score.

``score = short × (w_sem·semantic + w_lex·lexical + w_phrase·phrase) / (w_sem + w_lex + w_phrase)``

Each signal is in [0, 1] and the weights are normalised by their sum, so the score is
in [0, 1] too. The weights and the short factor's shape are a ``SearchWeights``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from toolkit.search import signals as sig
from toolkit.search.crossscript import QueryTerms
from toolkit.search.signals import FloatVector, TermWindow
from toolkit.weights import SearchWeights

SIGNAL_NAMES = ("semantic", "lexical", "phrase", "short_factor")


@dataclass(frozen=True, slots=True)
class Signals:
    """The four signals of every message of a window (arrays of equal length)."""

    semantic: FloatVector
    lexical: FloatVector
    phrase: FloatVector
    short_factor: FloatVector
    across: npt.NDArray[np.bool_] | None = None
    """Which messages are in another script than the query (``None``: none is)."""

    def explain(self, index: int) -> dict[str, float]:
        """The signals of one message, by name: what its score is made of."""
        return {name: round(float(getattr(self, name)[index]), 6) for name in SIGNAL_NAMES}


def compute_signals(
    cosines: npt.ArrayLike,
    window: TermWindow,
    query_sequence: Sequence[int] | QueryTerms,
    weights: SearchWeights,
    *,
    semantic_floor: float = 0.0,
) -> Signals:
    """All four signals over a scan window.

    Args:
        cosines: cosine of the query with each message.
        window: the messages' content terms.
        query_sequence: the query's term ids in order (repeats kept), or its
            ``QueryTerms``: then a message term it aliases (the query term's spelling
            in another script) counts as the query term.
        weights: supplies the semantic exponent and the short factor's shape.
        semantic_floor: the embedder's "no similarity" cosine (see ``signals.semantic``).
    """
    across = None
    if isinstance(query_sequence, QueryTerms):
        across = query_sequence.across(window)
        window = query_sequence.remap(window)
        query_sequence = query_sequence.ids
    distinct = list(dict.fromkeys(query_sequence))
    presence = sig.term_presence(window, distinct)
    return Signals(
        semantic=sig.semantic(cosines, floor=semantic_floor, exponent=weights.semantic_exponent),
        lexical=sig.lexical_coverage(presence, sig.window_idf(presence)),
        phrase=sig.phrase_match(sig.longest_runs(window, query_sequence), len(query_sequence)),
        short_factor=sig.short_factor(
            window.lengths, floor=weights.short_floor, scale=weights.short_scale
        ),
        across=across if across is not None and across.any() else None,
    )


def fuse(
    signals: Signals, weights: SearchWeights, *, embedded: npt.NDArray[np.bool_] | None = None
) -> FloatVector:
    """The hybrid score of every message, in [0, 1].

    Args:
        signals: the window's signals.
        weights: the weights and the short factor's shape.
        embedded: which messages had a vector (all when ``None``). A message without one
            (a background embedding has not reached it yet) is scored on its lexical
            signals alone: ``short × (w_lex·lexical + w_phrase·phrase) / (w_lex + w_phrase)``
            (0 when both weights are 0), rather than as if it were unrelated in meaning.

    A message in another script than the query (``signals.across``) cannot share most
    of its words, so the words it cannot have do not lower its score: its relevance is
    the larger of the weighted sum and the semantic signal alone (lexical and phrase
    evidence it does have, a name or a number, still raises it).
    """
    total = weights.semantic + weights.lexical + weights.phrase
    relevance = (
        weights.semantic * signals.semantic
        + weights.lexical * signals.lexical
        + weights.phrase * signals.phrase
    ) / total
    if embedded is not None and not embedded.all():
        words = weights.lexical + weights.phrase
        lexical = weights.lexical * signals.lexical + weights.phrase * signals.phrase
        by_words = lexical / words if words > 0 else np.zeros_like(relevance)
        relevance = np.where(embedded, relevance, by_words)
    if signals.across is not None and weights.semantic > 0:
        evidence = weights.lexical * signals.lexical + weights.phrase * signals.phrase
        meaning = signals.semantic * (1.0 + evidence / weights.semantic)
        usable = signals.across if embedded is None else signals.across & embedded
        relevance = np.where(usable, meaning, relevance)
    scores: FloatVector = np.clip(signals.short_factor * relevance, 0.0, 1.0)
    return scores


__all__ = ["SIGNAL_NAMES", "Signals", "compute_signals", "fuse"]
