"""``SentenceTransformerEmbedder``: any sentence-transformers model by path or hub id."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from toolkit.embeddings.base import (
    E5_PASSAGE_PREFIX,
    E5_QUERY_PREFIX,
    E5_SIMILARITY_FLOOR,
    QUERY_TOKENS,
    Matrix,
    cut_to_tokens,
    is_e5_style,
    normalise_rows,
    passage_texts,
)


class SentenceTransformerEmbedder:
    """Any sentence-transformers model, by local path or hub id.

    Prefixes: explicit ``query_prefix``/``passage_prefix`` win; else the model's own
    ``query``/``passage`` (or ``document``) prompts; else, for e5-style names, the e5
    prefixes; else none. Loading a local path opens no connection; a hub id needs the
    hub (or its cache with ``HF_HUB_OFFLINE=1``).

    Args:
        model: a local directory or a hub id.
        device: torch device (``"cpu"`` by default).
        batch_size: texts per forward pass.
        query_prefix: text put before every query.
        passage_prefix: text put before every passage.
    """

    def __init__(
        self,
        model: str | Path,
        *,
        device: str = "cpu",
        batch_size: int = 32,
        query_prefix: str | None = None,
        passage_prefix: str | None = None,
    ) -> None:
        from sentence_transformers import SentenceTransformer

        self._name = str(model)
        self._model = SentenceTransformer(self._name, device=device)
        self._batch_size = batch_size
        prompts: dict[str, str] = dict(getattr(self._model, "prompts", None) or {})
        e5 = is_e5_style(self._name)
        self.query_prefix = _first(
            query_prefix, prompts.get("query"), E5_QUERY_PREFIX if e5 else ""
        )
        self.passage_prefix = _first(
            passage_prefix,
            prompts.get("passage", prompts.get("document")),
            E5_PASSAGE_PREFIX if e5 else "",
        )
        self.similarity_floor = E5_SIMILARITY_FLOOR if e5 else 0.0
        # sentence-transformers 5 renamed the method; older releases have only the old name.
        measure = getattr(self._model, "get_embedding_dimension", None)
        dim = measure() if measure else self._model.get_sentence_embedding_dimension()
        if dim is None:
            raise ValueError(f"{self._name} does not say its embedding dimension")
        self._dimension = int(dim)

    @property
    def model_name(self) -> str:
        """``sentence-transformers:<path or hub id>``."""
        return f"sentence-transformers:{self._name}"

    @property
    def dimension(self) -> int:
        """The model's embedding dimension."""
        return self._dimension

    def _encode(self, texts: Sequence[str], prefix: str) -> Matrix:
        if not texts:
            return np.zeros((0, self._dimension), dtype=np.float32)
        vectors = self._model.encode(
            [prefix + t for t in passage_texts(texts)],
            batch_size=self._batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return normalise_rows(vectors)

    def _tokens(self, text: str) -> int:
        return len(self._model.tokenizer(self.query_prefix + text)["input_ids"])

    def query_texts(self, texts: Sequence[str]) -> list[str]:
        """The queries as the model reads them: each cut to ``QUERY_TOKENS`` tokens."""
        return [cut_to_tokens(t, QUERY_TOKENS, self._tokens) for t in texts]

    def embed_queries(self, texts: Sequence[str]) -> Matrix:
        """Embed queries with the query prefix, each cut to ``QUERY_TOKENS`` tokens first."""
        return self._encode(self.query_texts(texts), self.query_prefix)

    def embed_passages(self, texts: Sequence[str]) -> Matrix:
        """Embed passages with the passage prefix."""
        return self._encode(texts, self.passage_prefix)


def _first(*values: str | None) -> str:
    # The first value that was given (an empty prefix counts as given).
    return next(v for v in values if v is not None)
