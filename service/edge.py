"""The connection edge of ``mlens serve``: connections that cannot exhaust the service.

uvicorn bounds much of it with its own settings, which ``mlens serve`` passes from
``Settings``: the keep-alive timeout (``timeout_keep_alive``), the listen queue
(``backlog``) and the largest request head (``h11_max_incomplete_event_size``). What
it lacks is added here, in a subclass of its h11 protocol (``EdgeProtocol``) and of its
``Config`` (``EdgeConfig``):

- **a head timeout**: a connection that has not sent a complete request head
  ``header_timeout`` seconds after it opened (or after its previous answer) is closed;
- **a connection bound** below the descriptor limit (``raise_fd_limit`` lifts the soft
  limit to the hard one first): past it a new connection takes the place of the oldest
  one that is idle (waiting for a request head, or kept alive), and is refused with a
  fixed 503 when every connection is busy with a request. uvicorn's
  ``limit_concurrency`` is not used: it counts idle connections too, so a flood of them
  would turn every real request into a 503;
- **quiet logs**: accept failures ("Too many open files"), head timeouts, refusals and
  malformed requests are counted and logged at most once per ``log_interval`` with
  their counts (``EdgeLog``), never once per event.
"""

from __future__ import annotations

import asyncio
import logging
import resource
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from toolkit.config import Settings

log = logging.getLogger("uvicorn.error")

MAX_DEFAULT_CONNECTIONS = 10_000
_ACCEPT_FAILED = "socket.accept() out of system resource"
_INVALID_REQUEST = "Invalid HTTP request received."
_REFUSAL_BODY = (
    b'{"type":"about:blank","title":"Service Unavailable","status":503,'
    b'"detail":"too many open connections; try again"}'
)
REFUSAL = (
    b"HTTP/1.1 503 Service Unavailable\r\n"
    b"Content-Type: application/problem+json\r\n"
    b"Retry-After: 1\r\n"
    b"Connection: close\r\n"
    b"Content-Length: " + str(len(_REFUSAL_BODY)).encode() + b"\r\n\r\n" + _REFUSAL_BODY
)
"""What a connection over the bound gets before it is closed: written, never parsed."""


def raise_fd_limit() -> int:
    """Raise this process's soft open-file limit to its hard limit; the soft limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 1_048_576)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass  # a limit the kernel refuses: keep the one we have
    return soft if soft != resource.RLIM_INFINITY else 1_048_576


def connection_bound(fd_limit: int, configured: int | None = None) -> int:
    """Connections one worker keeps open: ``configured``, else ``fd_limit`` less a quarter
    (at least 64) for the store, models and logs, at most ``MAX_DEFAULT_CONNECTIONS``;
    never more than ``fd_limit`` less 32 descriptors."""
    headroom = max(16, fd_limit - 32)
    if configured is not None:
        return min(configured, headroom)
    return max(16, min(MAX_DEFAULT_CONNECTIONS, fd_limit - max(64, fd_limit // 4), headroom))


def accept_burst(backlog: int, fd_limit: int, max_connections: int) -> int:
    """The listen queue ``mlens serve`` asks for: ``backlog``, but at most half the
    descriptors kept beside the connection bound (at least 16). asyncio accepts up to
    the queue's length in one go before any connection is counted, so this keeps one
    burst of accepts from reaching the descriptor limit."""
    return max(16, min(backlog, (fd_limit - max_connections) // 2))


@dataclass(frozen=True)
class EdgeLimits:
    """What the edge enforces in each worker.

    Attributes:
        header_timeout: seconds a connection may take to send a complete request head.
        max_connections: open connections per worker.
        log_interval: seconds between two log lines about edge events.
    """

    header_timeout: float
    max_connections: int
    log_interval: float

    @classmethod
    def from_settings(cls, settings: Settings, *, fd_limit: int) -> EdgeLimits:
        """The limits ``settings`` ask for, at the open-file limit ``fd_limit``."""
        return cls(
            header_timeout=settings.edge.header_timeout_seconds,
            max_connections=connection_bound(fd_limit, settings.edge.max_connections),
            log_interval=settings.edge.log_interval_seconds,
        )


class EdgeLog:
    """Counts edge events; says them at once when quiet before, then once per interval.

    Args:
        interval: seconds between two lines.
        logger: where the lines go.
    """

    def __init__(self, interval: float, logger: logging.Logger = log) -> None:
        self.interval = interval
        self.logger = logger
        self.counts: Counter[str] = Counter()
        self.total: Counter[str] = Counter()
        self._next: asyncio.TimerHandle | None = None

    def note(self, event: str) -> None:
        """Count one ``event`` (a short phrase); log now unless a line went out lately."""
        self.counts[event] += 1
        self.total[event] += 1
        if self._next is None:
            self.flush()

    def flush(self) -> None:
        """Log the counts since the last line (if any) and plan the next look."""
        self._next = None
        if not self.counts:
            return
        said = "; ".join(f"{event}: {n}" for event, n in sorted(self.counts.items()))
        self.logger.warning("connection edge (counts, one line per %g s): %s", self.interval, said)
        self.counts.clear()
        try:
            self._next = asyncio.get_running_loop().call_later(self.interval, self.flush)
        except RuntimeError:  # no loop (a direct call in a test): nothing to plan
            self._next = None


class EdgeState:
    """One worker's edge: its limits, its idle connections (oldest first) and its log."""

    def __init__(self, limits: EdgeLimits) -> None:
        self.limits = limits
        self.log = EdgeLog(limits.log_interval)
        self.idle: OrderedDict[EdgeProtocol, None] = OrderedDict()

    def evict_idle(self) -> bool:
        """Close the oldest idle connection; whether there was one."""
        while self.idle:
            victim, _ = self.idle.popitem(last=False)
            victim.cancel_head_timer()
            if not victim.transport.is_closing():
                victim.transport.close()
                self.log.note("idle connections closed to admit new ones")
                return True
        return False

    def exception_handler(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """The event loop's error handler: accept failures counted, the rest as asyncio does."""
        if context.get("message") == _ACCEPT_FAILED:
            exc = context.get("exception")
            reason = getattr(exc, "strerror", None) or str(exc)
            self.log.note(f"accept failed ({reason})")
            return
        loop.default_exception_handler(context)


class _QuietLogger:
    """uvicorn's logger for one connection, with its per-request warnings counted instead."""

    def __init__(self, logger: logging.Logger, edge: EdgeLog) -> None:
        self._logger = logger
        self._edge = edge

    def warning(self, msg: str, *args: Any, **kwargs: Any) -> None:
        """Count a malformed request; pass any other warning on."""
        if msg == _INVALID_REQUEST:
            self._edge.note("malformed or oversized request heads (400)")
            return
        self._logger.warning(msg, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._logger, name)


class EdgeProtocol(H11Protocol):
    """uvicorn's h11 protocol with a head timeout and the connection bound (see module)."""

    def __init__(
        self,
        config: uvicorn.Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        assert isinstance(config, EdgeConfig), "EdgeProtocol needs an EdgeConfig"
        self.edge = config.edge_state
        self.logger = _QuietLogger(self.logger, self.edge.log)  # type: ignore[assignment]
        self._head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Admit the connection (in place of the oldest idle one when at the bound) or
        refuse it with a fixed 503; then wait for its request head."""
        super().connection_made(transport)
        edge = self.edge
        if len(self.connections) > edge.limits.max_connections and not edge.evict_idle():
            edge.log.note(f"refused over {edge.limits.max_connections} connections (503)")
            transport.write(REFUSAL)
            transport.close()
            return
        self._await_head()

    def connection_lost(self, exc: Exception | None) -> None:
        """Forget the connection, then let uvicorn close it."""
        self.cancel_head_timer()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        """uvicorn's event handling; a request that began stops the head timer."""
        cycle = self.cycle
        super().handle_events()
        if self.cycle is not cycle:
            self.cancel_head_timer()

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        """An upgraded connection is no longer waiting for a head."""
        self.cancel_head_timer()
        super().handle_websocket_upgrade(event)

    def on_response_complete(self) -> None:
        """After an answer the connection waits for its next head (or for the keep-alive
        timeout); a pipelined request uvicorn starts now stops that wait at once."""
        if not self.transport.is_closing():
            self._await_head()
        super().on_response_complete()

    def cancel_head_timer(self) -> None:
        """Stop waiting for a request head (one arrived, or the connection is gone)."""
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None
        self.edge.idle.pop(self, None)

    def _await_head(self) -> None:
        self.cancel_head_timer()
        self._head_timer = self.loop.call_later(self.edge.limits.header_timeout, self._no_head)
        self.edge.idle[self] = None

    def _no_head(self) -> None:
        self._head_timer = None
        self.edge.idle.pop(self, None)
        if not self.transport.is_closing():
            self.edge.log.note(
                f"closed: no request head within {self.edge.limits.header_timeout:g} s"
            )
            self.transport.close()


class EdgeConfig(uvicorn.Config):
    """uvicorn's ``Config`` serving through ``EdgeProtocol`` with ``limits``, its loop's
    accept failures counted (``EdgeLog``).

    Args:
        app: the application's import string (``service.app:create_app``; with workers
            it must be one), or the ASGI application itself.
        limits: the edge's limits.
        kwargs: uvicorn's own settings.
    """

    def __init__(self, app: Any, *, limits: EdgeLimits, **kwargs: Any) -> None:
        super().__init__(app, http=EdgeProtocol, **kwargs)
        self.limits = limits
        self._edge_state: EdgeState | None = None

    def __getstate__(self) -> dict[str, Any]:
        """Picklable for a worker process (which builds its own edge state)."""
        state = dict(self.__dict__)
        state["_edge_state"] = None
        return state

    @property
    def edge_state(self) -> EdgeState:
        """This process's edge: idle connections and counts (built on first use)."""
        if self._edge_state is None:
            self._edge_state = EdgeState(self.limits)
        return self._edge_state

    def get_loop_factory(self) -> Callable[[], asyncio.AbstractEventLoop] | None:
        """uvicorn's loop, whose error handler counts accept failures."""
        parent = super().get_loop_factory() or asyncio.new_event_loop

        def new_loop() -> asyncio.AbstractEventLoop:
            loop = parent()
            loop.set_exception_handler(self.edge_state.exception_handler)
            return loop

        return new_loop
