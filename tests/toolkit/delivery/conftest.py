"""Fixtures of the delivery tests (``store`` is in tests/conftest.py, or the module's own)."""

from __future__ import annotations

import pytest

from toolkit.models import Source, SourceKind
from toolkit.store import MessageStore


@pytest.fixture
def team(store: MessageStore) -> Source:
    """The chat ``@team_chat`` ("Team") in ``store``, the source a test's schedule or
    alert follows."""
    return store.upsert_source(title="Team", kind=SourceKind.CHAT, handle="team_chat")
