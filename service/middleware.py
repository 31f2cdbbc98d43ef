"""Pure ASGI middleware: the body limit (413), the request deadline (503), the last 500.

Pure ASGI rather than ``BaseHTTPMiddleware`` so that request bodies keep streaming and
exceptions are not wrapped in task groups.
"""

from __future__ import annotations

import asyncio
import logging

from starlette.datastructures import Headers
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.problems import TYPE_BASE, problem_response
from toolkit import deadline

log = logging.getLogger("service")


class BodyTooLarge(StarletteHTTPException):
    """Raised from ``receive`` when a streamed body passes the limit.

    An ``HTTPException`` on purpose: FastAPI re-raises those from body parsing (any other
    error there becomes a 400), so the app's problem handler answers with the 413.
    """

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the request body is larger than {limit} bytes")


class _TrackingSend:
    """A ``send`` that remembers whether the response has started."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self.started = False

    async def __call__(self, message: Message) -> None:
        """Pass ``message`` on, noting a response start."""
        if message["type"] == "http.response.start":
            self.started = True
        await self._send(message)


class _HttpMiddleware:
    """Passes other scopes (lifespan, websockets) straight to the app; HTTP to ``http``."""

    app: ASGIApp

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run ``http`` for an HTTP request, the bare app for anything else."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.http(scope, receive, send)

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Handle one HTTP request."""
        raise NotImplementedError


class BodyLimitMiddleware(_HttpMiddleware):
    """Refuse request bodies over ``max_body_bytes`` with a 413 problem.

    A declared ``Content-Length`` over the limit is refused before the app runs; a body
    without one (chunked) is counted as it streams and cut off when it passes the limit.
    """

    def __init__(self, app: ASGIApp, *, max_body_bytes: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the app with a counting ``receive``."""
        declared = Headers(scope=scope).get("content-length")
        if declared is not None:
            if not declared.strip().isdigit():
                response = problem_response(
                    Request(scope), 400, detail="Content-Length is not a number"
                )
                await response(scope, receive, send)
                return
            if int(declared) > self.max_body_bytes:
                error = BodyTooLarge(self.max_body_bytes)
                response = problem_response(Request(scope), 413, detail=error.detail)
                await response(scope, receive, send)
                return

        received = 0

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body_bytes:
                    raise BodyTooLarge(self.max_body_bytes)
            return message

        tracking_send = _TrackingSend(send)
        try:
            await self.app(scope, counting_receive, tracking_send)
        except BodyTooLarge as exc:
            # Reached only when the body was read outside FastAPI's request handling.
            if tracking_send.started:
                raise
            response = problem_response(Request(scope), 413, detail=exc.detail)
            await response(scope, receive, send)


class DeadlineMiddleware(_HttpMiddleware):
    """Answer a 503 problem when a request has not started its answer after ``seconds``
    (``long_seconds`` for a path that starts with one of ``long_paths``: summaries, which
    an LLM on the same machine may take a minute to write).

    The app runs in its own task; on expiry the client gets its answer at once, the task
    is cancelled, and anything it sends later is dropped. A route's worker thread cannot
    be interrupted, but it carries the deadline (``toolkit.deadline``): the toolkit's
    long loops (embedding) stop at their next check with ``DeadlineExceeded``.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        seconds: float,
        long_seconds: float | None = None,
        long_paths: tuple[str, ...] = (),
    ) -> None:
        self.app = app
        self.seconds = seconds
        self.long_seconds = seconds if long_seconds is None else long_seconds
        self.long_paths = long_paths

    def seconds_for(self, path: str) -> float:
        """The deadline of a request for ``path``."""
        return self.long_seconds if path.startswith(self.long_paths) else self.seconds

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the app against the clock."""
        started = expired = False
        seconds = self.seconds_for(str(scope.get("path", "")))

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if expired:
                return  # the 503 went out; a late answer has nowhere to go
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        # The task (and the worker threads it starts) inherit the deadline, so that
        # toolkit loops stop at their next ``deadline.check()`` once it has passed.
        with deadline.within(seconds):
            task = asyncio.ensure_future(self.app(scope, receive, guarded_send))
        try:
            done, _ = await asyncio.wait({task}, timeout=seconds)
        except asyncio.CancelledError:
            # The server is stopping and its grace period is over: say so, then go.
            if not started:
                expired = True
                task.cancel()
                task.add_done_callback(_log_late_failure)
                await _abandoned(scope, receive, send, "the server is stopping; try again")
            raise
        if task in done or started:
            await task  # finished (or re-raise), or already answering: let it end
            return
        expired = True
        task.cancel()
        task.add_done_callback(_log_late_failure)
        log.warning(
            "%s %s exceeded the %g s deadline", scope.get("method"), scope.get("path"), seconds
        )
        detail = f"the request did not finish within {seconds:g} s; it was abandoned"
        await _abandoned(scope, receive, send, detail)


async def _abandoned(scope: Scope, receive: Receive, send: Send, detail: str) -> None:
    response = problem_response(
        Request(scope),
        503,
        title="Request abandoned",
        type_=TYPE_BASE + "deadline-exceeded",
        detail=detail,
    )
    await response(scope, receive, send)


def _log_late_failure(task: asyncio.Future[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.warning("abandoned request failed later", exc_info=task.exception())


class UnhandledErrorMiddleware(_HttpMiddleware):
    """Turn any exception that escaped the app into a logged 500 problem, with no trace."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the app; answer 500 if it raises before it started its response."""
        tracking_send = _TrackingSend(send)
        try:
            await self.app(scope, receive, tracking_send)
        except Exception:
            log.exception("unhandled error on %s %s", scope.get("method"), scope.get("path"))
            if tracking_send.started:
                raise
            response = problem_response(
                Request(scope),
                500,
                detail="An unexpected error occurred; it has been logged.",
            )
            await response(scope, send=send, receive=receive)
