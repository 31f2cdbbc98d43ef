"""A summary never waits for the background embedder: a few missing vectors are
computed at once; many missing, the window is read by its words, the answer says how
many had no vector, and such an answer is not cached."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np

from toolkit.models import Message
from toolkit.summarize.extractive.draft import vectors as vectors_module
from toolkit.summarize.extractive.draft.lexical import DIMENSION, lexical_vectors
from toolkit.summarize.extractive.draft.vectors import window_vectors

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


class _Store:
    """The two store calls the vectors make: nothing stored, writes recorded."""

    def __init__(self) -> None:
        self.written: list[Any] = []

    def get_vectors(self, source_id: int, ids: list[int], model: str) -> dict[int, Any]:
        return {}

    def put_vectors(self, source_id: int, model: str, rows: list[Any]) -> None:
        """Never called on the request's path: ``write_behind`` only records the job."""

    def write_behind(self, job: Any) -> bool:
        self.written.append(job)
        return True


class _Embedder:
    model_name = "test-model"
    dimension = 4

    def __init__(self) -> None:
        self.calls = 0

    def embed_passages(self, texts: list[str]) -> np.ndarray[Any, Any]:
        self.calls += 1
        return np.ones((len(texts), 4), dtype=np.float32) / 2


def _messages(n: int) -> list[Message]:
    return [
        Message(1, i, START + timedelta(minutes=i), f"Booked the hostel in Lviv for night {i}")
        for i in range(1, n + 1)
    ]


def test_a_few_missing_vectors_are_computed_at_once() -> None:
    store, embedder = _Store(), _Embedder()
    matrix, unembedded = window_vectors(store, embedder, 1, _messages(5), embed_at_once=10)  # type: ignore[arg-type]
    assert unembedded == 0
    assert matrix.shape == (5, 4)
    assert embedder.calls == 1
    assert store.written  # stored by the background writer, off the request


def test_many_missing_vectors_read_the_window_by_its_words() -> None:
    store, embedder = _Store(), _Embedder()
    matrix, unembedded = window_vectors(store, embedder, 1, _messages(30), embed_at_once=10)  # type: ignore[arg-type]
    assert unembedded == 30
    assert matrix.shape == (30, DIMENSION)
    assert embedder.calls == 0  # the request never embedded


def test_lexical_vectors_are_normalised_and_similar_by_shared_words() -> None:
    matrix = lexical_vectors(
        ["Flights booked to Tokyo", "booked the flights", "ok", "Едем в Казань"]
    )
    norms = np.linalg.norm(matrix, axis=1)
    assert np.allclose(norms[[0, 1, 3]], 1.0)
    assert norms[2] == 0.0
    assert matrix[0] @ matrix[1] > 0.5
    assert abs(matrix[0] @ matrix[3]) < 1e-6
    assert vectors_module.EMBED_AT_ONCE > 0
