"""Helpers of the deadline tests (module-named, so that no ``conftest`` shadows it): an
app whose searcher outlives ``MLENS_REQUEST_TIMEOUT_SECONDS``, and a searcher that checks it."""

from __future__ import annotations

import threading
import time
from typing import Any

from fastapi import FastAPI

from cli.asgi import create_app
from service.state import state_of
from toolkit import deadline
from toolkit.apikeys import create_api_key
from toolkit.config import Settings


class CheckingSearcher:
    """A searcher that works in small steps (20 s in all), checking the deadline between them."""

    def __init__(self) -> None:
        self.stopped = threading.Event()
        self.error: BaseException | None = None

    def search(self, request: Any) -> list[Any]:
        """Work until the deadline stops it (recorded in ``error``), or 20 s."""
        try:
            for _ in range(2000):
                deadline.check()
                time.sleep(0.01)
        except BaseException as exc:
            self.error = exc
            raise
        finally:
            self.stopped.set()
        return []


def hasty_app(settings: Settings, searcher: Any, seconds: float) -> tuple[FastAPI, str]:
    """An app searching with ``searcher`` whose requests (summaries and /mcp too) may take
    ``seconds``, and the token of a key with ``search.read``."""
    hasty = settings.replace(
        service={"request_timeout_seconds": seconds, "summary_timeout_seconds": seconds}
    )
    app = create_app(hasty, searcher=searcher)
    token, _ = create_api_key(state_of(app).workspace.store, name="k", scopes={"search.read"})
    return app, token
