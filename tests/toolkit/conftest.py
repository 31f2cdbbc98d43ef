"""Fixtures of the toolkit tests (``store`` and ``db`` are in tests/conftest.py)."""

from __future__ import annotations

import pytest
from summary_data import seed

from toolkit.models import Source
from toolkit.store import MessageStore


@pytest.fixture
def summary_sources(store: MessageStore) -> dict[str, Source]:
    """``store`` seeded with the summary test sources (``summary_data.seed``)."""
    return seed(store)
