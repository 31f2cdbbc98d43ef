"""Fitting the key-sentence model, and measuring it leave-one-source-out.

Every sentence of a labelled message is a row (``keys.sentence_rows``), labelled 1 when
it is one of the message's key sentences. For each source the model fitted on the other
sources weighs that source's sentences, and the engine's quote (``quotes.passage`` with
those weights) is checked for the key; the model written to ``keys.KEY_WEIGHTS`` is the
one fitted on every source.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from toolkit.evaluate.acts.fit import fit_logistic
from toolkit.evaluate.keysentences.measure import Case, hit_rates
from toolkit.summarize.extractive.draft.keys import (
    FEATURES,
    KEY_WEIGHTS,
    LINE_VOCABULARY,
    KeyModel,
    key_weigher,
    sentence_rows,
)
from toolkit.summarize.extractive.draft.quotes import passage

C = 0.1
"""The inverse L2 strength of the fit (few hundred messages: a strong prior; 0.1, 0.5 and 2
measured alike leave-one-source-out)."""

Floats = npt.NDArray[np.float64]


def rows_of(case: Case) -> Floats:
    """The feature rows of ``case``'s sentences."""
    return sentence_rows(
        case.sentences, case.weigh, case.pack, reply=case.reply, channel=case.channel
    )


def labels_of(case: Case) -> Floats:
    """1 for each of ``case``'s sentences that is a key, else 0."""
    return np.asarray([float(s in case.key) for s in case.sentences])


def fit(cases: Sequence[Case]) -> KeyModel:
    """A standardised logistic regression over the sentences of ``cases``."""
    x = np.vstack([rows_of(c) for c in cases])
    y = np.concatenate([labels_of(c) for c in cases])
    return fit_logistic(x, y, c=C, balanced=False)


def model_quote(
    model: KeyModel, vocabulary_share: float = LINE_VOCABULARY
) -> Callable[[Case, int], str]:
    """The engine's quote of a case with its sentences weighed by ``model`` (and
    ``vocabulary_share`` times their share of the window's vocabulary)."""

    def quote(case: Case, limit: int) -> str:
        weigh = key_weigher(
            case.sentences,
            case.weigh,
            case.pack,
            reply=case.reply,
            channel=case.channel,
            vocabulary_share=vocabulary_share,
            model=model,
        )
        return passage(case.text, limit, weigh, case.leaning)

    return quote


def loso(
    cases: Sequence[Case], vocabulary_share: float = LINE_VOCABULARY
) -> dict[str, dict[int, tuple[int, int]]]:
    """``measure.hit_rates`` of quotes weighed by the model fitted without the source."""
    quotes = {
        source: model_quote(fit([c for c in cases if c.source != source]), vocabulary_share)
        for source in {c.source for c in cases}
    }
    return hit_rates(list(cases), lambda case, limit: quotes[case.source](case, limit))


def write(model: KeyModel, path: Path = KEY_WEIGHTS) -> None:
    """Ship ``model`` as the engine's key-sentence weights."""
    data = {
        "features": list(FEATURES),
        "mean": model.mean.round(6).tolist(),
        "scale": model.scale.round(6).tolist(),
        "coef": model.coef.round(6).tolist(),
        "intercept": round(model.intercept, 6),
    }
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
