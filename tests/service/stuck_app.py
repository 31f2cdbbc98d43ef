"""An app whose searches never finish, for the shutdown test (run by uvicorn, not pytest).

``uvicorn --app-dir tests/service stuck_app:create --factory``: ``Settings()`` from the
environment (the test points ``MLENS_DATABASE`` at a store holding a key), and a
searcher that sleeps for ten minutes.
"""

from __future__ import annotations

import time
from typing import Any

from fastapi import FastAPI

from service.app import create_app


class SleepingSearcher:
    """Sleeps for ten minutes, then finds nothing."""

    def search(self, request: Any) -> list[Any]:
        time.sleep(600)
        return []


def create() -> FastAPI:
    """The service, with a searcher that never answers in time."""
    return create_app(searcher=SleepingSearcher())  # type: ignore[arg-type]
