"""``SearchWeights``: the tunable knobs of the hybrid ranking (DESIGN.md §4).

``score = short_factor × (w_sem·semantic + w_lex·lexical + w_phrase·phrase)``
``        / (w_sem + w_lex + w_phrase)``

The short-message factor is ``floor + (1 - floor) · (1 - exp(-n / scale))`` where ``n`` is
the number of content tokens of the message: 0 tokens give ``floor``, and the factor
approaches 1 smoothly as messages get longer. ``scale`` sets how fast.

The semantic signal is ``x ** semantic_exponent``, ``x`` the cosine mapped linearly from
the embedder's "unrelated" floor to 1 (``signals.semantic``). An exponent above 1 makes
the signal steepest where cosines are high: among near-paraphrases the embedding decides,
while among passages that are only loosely related the query's own words count for more.

The defaults were chosen on the dev retrieval sets only (``python -m
toolkit.evaluate.tuning``); see docs/search.md and docs/evaluation.md.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    Strict,
    ValidationError,
    model_validator,
)

from toolkit.errors import ConfigError, InvalidWeights


class SearchWeights(BaseModel):
    """Weights of the three relevance signals and the shape of the short-message factor."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    semantic: float = Field(0.85, description="Weight of the semantic (embedding) signal.")
    lexical: float = Field(0.10, description="Weight of lexical coverage of the query terms.")
    phrase: float = Field(0.05, description="Weight of the phrase-match signal.")
    short_floor: float = Field(
        0.7, description="Short-message factor of a message with no content tokens."
    )
    short_scale: float = Field(
        4.0, description="Content tokens over which the short factor rises to ~63% of the way to 1."
    )
    semantic_exponent: float = Field(
        4.0, description="Exponent of the mapped cosine in the semantic signal (> 0)."
    )

    @model_validator(mode="after")
    def _check(self) -> SearchWeights:
        values = {
            "semantic": self.semantic,
            "lexical": self.lexical,
            "phrase": self.phrase,
            "short_floor": self.short_floor,
            "short_scale": self.short_scale,
            "semantic_exponent": self.semantic_exponent,
        }
        for name, value in values.items():
            if not math.isfinite(value):
                raise ValueError(f"weight {name} must be a finite number, got {value}")
            if value < 0:
                raise ValueError(f"weight {name} must not be negative, got {value}")
        if self.semantic + self.lexical + self.phrase <= 0:
            raise ValueError("at least one of semantic, lexical, phrase must be positive")
        if self.short_floor > 1:
            raise ValueError(f"short_floor must be in [0, 1], got {self.short_floor}")
        if self.short_scale <= 0:
            raise ValueError(f"short_scale must be positive, got {self.short_scale}")
        if self.semantic_exponent <= 0:
            raise ValueError(f"semantic_exponent must be positive, got {self.semantic_exponent}")
        return self

    @classmethod
    def build(cls, **values: Any) -> SearchWeights:
        """Build weights from keyword values; invalid values raise ``InvalidWeights``."""
        try:
            return cls(**values)
        except ValidationError as exc:
            first = exc.errors()[0]
            raise InvalidWeights(f"invalid search weights: {first['msg']}") from exc

    def replace(self, **changes: Any) -> SearchWeights:
        """Return a copy with some values changed, validated like ``build``."""
        return self.build(**{**self.model_dump(), **changes})

    @classmethod
    def from_file(cls, path: Path) -> SearchWeights:
        """Load weights from a JSON file such as the one the ranking notebook writes."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ConfigError(f"cannot read weights file {path}: {exc}") from exc
        if not isinstance(data, dict):
            raise ConfigError(f"weights file {path} must hold a JSON object")
        return cls.build(**data)

    def to_file(self, path: Path) -> None:
        """Write the weights as JSON, readable by ``from_file`` and ``MLENS_WEIGHTS_FILE``."""
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(json.dumps(self.model_dump(), indent=2) + "\n", encoding="utf-8")


StrictNumber = Annotated[float, Strict(), Field(allow_inf_nan=False)]
"""A finite JSON number (an integer is fine; a boolean or a string is not)."""


class WeightsOverride(BaseModel):
    """Per-call overrides of the configured search weights (any subset of fields)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    semantic: StrictNumber | None = Field(None, description="Weight of the semantic signal.")
    lexical: StrictNumber | None = Field(None, description="Weight of lexical coverage.")
    phrase: StrictNumber | None = Field(None, description="Weight of the phrase match.")
    short_floor: StrictNumber | None = Field(None, description="Short factor of an empty message.")
    short_scale: StrictNumber | None = Field(None, description="Content terms of the short factor.")
    semantic_exponent: StrictNumber | None = Field(None, description="Shape of the semantic map.")


WeightsArg = SearchWeights | WeightsOverride | Mapping[str, float] | None
"""Per-call weights: a ``SearchWeights``, or some of its fields (a ``WeightsOverride`` or a
mapping; the rest from the configured weights), or ``None`` for the configured weights."""


def _as_override(value: Any) -> Any:
    # A whole SearchWeights overrides every field: the same weights, carried as one shape.
    return value.model_dump() if isinstance(value, SearchWeights) else value


WeightsField = Annotated[WeightsOverride | None, BeforeValidator(_as_override)]
"""A request's ``weights``: a ``WeightsOverride`` (a mapping or a whole ``SearchWeights``
is taken as one)."""


def resolve_weights(weights: WeightsArg, default: SearchWeights) -> SearchWeights:
    """This call's weights: a full ``SearchWeights``, or a mapping of some of its fields
    that overrides ``default`` (the configured weights); ``None`` is ``default``.

    Raises:
        InvalidWeights: negative, non-finite or all-zero weights (``field="weights"``).
    """
    if weights is None:
        return default
    if isinstance(weights, SearchWeights):
        return weights
    if isinstance(weights, WeightsOverride):
        weights = weights.model_dump(exclude_none=True)
    try:
        return default.replace(**dict(weights))
    except InvalidWeights as exc:
        raise InvalidWeights(exc.message, field="weights") from exc
    except TypeError as exc:
        raise InvalidWeights(f"invalid search weights: {exc}", field="weights") from exc
