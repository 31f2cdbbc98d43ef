"""The app's typed state: everything a request may need, built once by ``create_app``.

Starlette's ``app.state`` is an untyped bag; the service keeps one ``ServiceState`` in
it (``app.state.service``) and reads it only through ``state_of``, so every field has
a type that mypy checks. Costly resources (the embedder, the searcher) are built on
first use by ``ServiceState.resource``, under a re-entrant lock because one factory
may ask for another (the searcher needs the embedder).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from starlette.applications import Starlette

from service.keystamps import KeyStamps
from service.ratelimit import FailureLimiter, RateLimiter
from toolkit.config import Settings
from toolkit.embeddings import Embedder
from toolkit.search.searcher import Searcher
from toolkit.store.base import MessageStore

T = TypeVar("T")


@dataclass
class ServiceState:
    """What the running service holds.

    Attributes:
        settings: the configuration the app was built with.
        store: the store requests read (and sync writes).
        rate_limiter: per-key request limit (429 when spent).
        auth_failures: per-client limit on failed authentications (429 when spent).
        key_stamps: writes "key last used" off the request path.
        embedder: the embedder, built on first use unless given.
        searcher: the searcher, built on first use unless given.
    """

    settings: Settings
    store: MessageStore
    rate_limiter: RateLimiter
    auth_failures: FailureLimiter
    key_stamps: KeyStamps
    embedder: Embedder | None = None
    searcher: Searcher | None = None
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False)

    def resource(self, name: str, factory: Callable[[], T]) -> T:
        """The resource ``name`` (an attribute), built by ``factory`` on first use."""
        value: Any = getattr(self, name)
        if value is None:
            with self._lock:
                value = getattr(self, name)
                if value is None:
                    value = factory()
                    setattr(self, name, value)
        return cast(T, value)


def state_of(app: Starlette) -> ServiceState:
    """The ``ServiceState`` that ``create_app`` put on ``app``."""
    state = app.state.service
    assert isinstance(state, ServiceState)
    return state
