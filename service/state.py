"""The app's typed state: everything a request may need, built once by ``create_app``.

Starlette's ``app.state`` is an untyped bag; the service keeps one ``ServiceState`` in
it (``app.state.service``) and reads it only through ``state_of``, so every field has
a type that mypy checks. The application itself (store, embedder, searcher, summary
engines) is one ``toolkit.workspace.Workspace``; the rest is what only HTTP needs.
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.applications import Starlette

from service.keystamps import KeyStamps
from service.ratelimit import FailureLimiter, RateLimiter
from toolkit.config import Settings
from toolkit.workspace import Workspace


@dataclass
class ServiceState:
    """What the running service holds.

    Attributes:
        workspace: the application: settings, store, embedder, searcher (each built once).
        rate_limiter: per-key request limit (429 when spent).
        auth_failures: per-client limit on failed authentications (429 when spent).
        key_stamps: writes "key last used" off the request path.
    """

    workspace: Workspace
    rate_limiter: RateLimiter
    auth_failures: FailureLimiter
    key_stamps: KeyStamps

    @property
    def settings(self) -> Settings:
        """The configuration the app was built with."""
        return self.workspace.settings


def state_of(app: Starlette) -> ServiceState:
    """The ``ServiceState`` that ``create_app`` put on ``app``."""
    state = app.state.service
    assert isinstance(state, ServiceState)
    return state
