"""Which sentence of a long message carries its point: a small model over what any
language shows.

Readers of real chats found quotes holding the wrong sentence of a long message: the
background before a question, a side remark, a command's output instead of the advice.
``key_weigher`` weighs each sentence by its share of the window's vocabulary and its
probability of being the one a reader needs, from a logistic model (``key_weights.json``,
fitted by ``python -m toolkit.evaluate.keysentences train`` on real chats and dev
dialogues labelled by readers, checked leave-one-source-out) over features with no word
of any language in them: where the sentence stands, whether it asks, how much it shares
the window's vocabulary, its length, its share of symbols (a command's output), and the
pack's cues for a sentence that leans on the one before it, an offer or a hedge.
``quotes.passage`` then keeps the run of sentences that fits with the most weight.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

from toolkit.lang.base import LanguagePack
from toolkit.lang.chatter import is_chatter

KEY_WEIGHTS = Path(__file__).with_name("key_weights.json")
FEATURES = (
    "first",
    "last",
    "position",
    "asks",
    "beside_question",
    "shared",
    "length",
    "leaning",
    "lead_in",
    "digits",
    "symbols",
    "lower_start",
    "chatter",
    "reply_asks",
    "offer",
    "hedge",
    "headline",
)
"""The features, in the order of a row and of the weights file."""
_ASKS = re.compile(r"[?？]\s*[)\]\"'»”]*\s*$")
_LETTER = re.compile(r"[^\W\d_]")


def _matches(pattern: re.Pattern[str] | None, sentence: str, *, start: bool = False) -> float:
    if pattern is None:
        return 0.0
    found = pattern.match(sentence) if start else pattern.search(sentence)
    return float(found is not None)


def sentence_rows(
    sentences: Sequence[str],
    weigh: Callable[[str], float],
    pack: LanguagePack | None,
    *,
    reply: bool,
    channel: bool = False,
) -> npt.NDArray[np.float64]:
    """One row of ``FEATURES`` per sentence of a message (``reply``: it answers another;
    ``channel``: a channel's post, whose first sentence is often its headline)."""
    n = len(sentences)
    weights = [weigh(s) for s in sentences]
    top = max(weights) if weights and max(weights) > 0 else 1.0
    asks = [bool(_ASKS.search(s)) for s in sentences]
    cue = pack.cue if pack is not None else None
    rows = []
    for k, s in enumerate(sentences):
        letters = len(_LETTER.findall(s))
        symbols = sum(1 for ch in s if not ch.isspace() and not _LETTER.match(ch))
        rows.append(
            [
                float(k == 0),
                float(k == n - 1),
                k / (n - 1) if n > 1 else 0.0,
                float(asks[k]),
                float(any(asks) and not asks[k]),
                weights[k] / top,
                math.log1p(len(s)) / 6,
                _matches(cue.leaning if cue else None, s, start=True) if k > 0 else 0.0,
                float(s.rstrip().endswith(":")),
                float(any(ch.isdigit() for ch in s)),
                symbols / max(1, letters + symbols),
                float(bool(s) and s[0].islower()),
                float(is_chatter(s)),
                float(reply and asks[k]),
                _matches(cue.offer if cue else None, s),
                _matches(cue.hedge if cue else None, s),
                float(channel and k == 0),
            ]
        )
    return np.asarray(rows, dtype=np.float64).reshape(n, len(FEATURES))


@dataclass(frozen=True)
class Logistic:
    """A standardised logistic model: the engine's scorers (the key sentence here, the
    acts in ``choose.scoring.model``) apply one in numpy, without scikit-learn."""

    mean: npt.NDArray[np.float64]
    scale: npt.NDArray[np.float64]
    coef: npt.NDArray[np.float64]
    intercept: float

    def probability(self, rows: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """The model's probability for each row (columns in its features' order)."""
        z = ((rows - self.mean) / self.scale) @ self.coef + self.intercept
        out: npt.NDArray[np.float64] = 1.0 / (1.0 + np.exp(-z))
        return out


KeyModel = Logistic
"""The key-sentence model: a probability that a sentence is its message's key."""


@lru_cache(maxsize=2)
def load_key_model(path: Path = KEY_WEIGHTS) -> KeyModel | None:
    """The shipped model (``None`` without a weights file: sentences weigh by vocabulary)."""
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    if tuple(data["features"]) != FEATURES:
        return None
    return KeyModel(
        np.asarray(data["mean"], dtype=np.float64),
        np.asarray(data["scale"], dtype=np.float64),
        np.asarray(data["coef"], dtype=np.float64),
        float(data["intercept"]),
    )


SHARPNESS = 4
"""The power a sentence's key probability is raised to: a run of middling sentences must
not outweigh the one likely key."""
LINE_VOCABULARY = 0.0
"""How much a sentence's share of the window's vocabulary (its ``shared`` feature, the
weight before the model) adds to its key probability in a section's lines: none, the
model alone quotes the most keys whole leave-one-source-out (``python -m
toolkit.evaluate.keysentences measure --loso``)."""
SUMMARY_VOCABULARY = 1.0
"""The same in the summary paragraph, which tells the window's gist: there the sentences
that share its vocabulary hold ROUGE-L against reference summaries (DialogSum 24.29 with
the model alone, 24.70 at 1.0), and the model still quotes more keys than vocabulary."""


def key_weigher(
    sentences: Sequence[str],
    vocabulary: Callable[[str], float],
    pack: LanguagePack | None,
    *,
    reply: bool,
    channel: bool = False,
    vocabulary_share: float = LINE_VOCABULARY,
    model: KeyModel | None = None,
) -> Callable[[str], float]:
    """The weight of each of a message's ``sentences`` for ``quotes.passage``: its key
    probability (``model``, the shipped one by default) raised to ``SHARPNESS``, plus
    ``vocabulary_share`` times its share of the window's vocabulary; the ``vocabulary``
    weight itself when there is no model."""
    model = model if model is not None else load_key_model()
    if model is None or not sentences:
        return vocabulary
    rows = sentence_rows(sentences, vocabulary, pack, reply=reply, channel=channel)
    shared = rows[:, FEATURES.index("shared")]
    p = vocabulary_share * shared + model.probability(rows) ** SHARPNESS
    weights = dict(zip(sentences, p.tolist(), strict=True))
    return lambda sentence: weights.get(sentence, 0.0)
