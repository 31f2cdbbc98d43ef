"""An httpx2 transport whose requests end by one deadline and read a bounded body.

httpx's timeouts are per operation: an endpoint that trickles a byte a second never
trips a 30 s read timeout, and the request runs on as long as the endpoint likes. Here
every socket operation of a request (connect, TLS, each write, each read) gets at most
the time left before the request's end, so a request ends when its time is up whatever
the endpoint does, and httpcore closes the connection whose read timed out (the server
sees the hang-up). The end is set per call with ``request_deadline(seconds)``, a context
variable, so concurrent chunk requests in worker threads each keep their own.

The response body is counted as it arrives: past ``max_bytes`` the read stops with
``AnswerTooLarge`` (a 10 MB "answer" is never held in memory).
"""

from __future__ import annotations

import ssl
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from typing import Any

# openai sends through httpx2 (its fork of httpx, on httpcore2), not through httpx.
import httpcore2 as httpcore
import httpx2 as httpx

_end: ContextVar[float | None] = ContextVar("mlens_llm_request_end", default=None)


class AnswerTooLarge(Exception):
    """The endpoint's response body is larger than the bound."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the answer is larger than {limit} bytes")
        self.limit = limit


@contextmanager
def request_deadline(seconds: float) -> Iterator[None]:
    """Every socket operation inside the block ends ``seconds`` from now at the latest."""
    token = _end.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _end.reset(token)


def _left(timeout: float | None, error: type[Exception]) -> float | None:
    end = _end.get()
    if end is None:
        return timeout
    left = end - time.monotonic()
    if left <= 0:
        raise error("the request's deadline has passed")
    return left if timeout is None else min(timeout, left)


class _Stream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _left(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        timeout = _left(timeout, httpcore.ConnectTimeout)
        return _Stream(self._inner.start_tls(ssl_context, server_hostname, timeout))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _Backend(httpcore.NetworkBackend):
    def __init__(self, inner: httpcore.NetworkBackend) -> None:
        self._inner = inner

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        timeout = _left(timeout, httpcore.ConnectTimeout)
        return _Stream(self._inner.connect_tcp(host, port, timeout, local_address, socket_options))

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        timeout = _left(timeout, httpcore.ConnectTimeout)
        return _Stream(self._inner.connect_unix_socket(path, timeout, socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class _BoundedBody(httpx.SyncByteStream):
    def __init__(self, inner: httpx.SyncByteStream, limit: int) -> None:
        self._inner = inner
        self._limit = limit

    def __iter__(self) -> Iterator[bytes]:
        seen = 0
        for chunk in self._inner:
            seen += len(chunk)
            if seen > self._limit:
                raise AnswerTooLarge(self._limit)
            yield chunk

    def close(self) -> None:
        self._inner.close()


@cache
def shared_ssl_context() -> ssl.SSLContext:
    """httpx's default TLS context (certifi's authorities, or ``SSL_CERT_FILE`` /
    ``SSL_CERT_DIR`` when set), built once per process: building one reads the whole
    certificate bundle, about a tenth of a second of CPU, and a transport is built per
    endpoint and settings. A context is safe to share between connections and threads."""
    return httpx.create_ssl_context()


class DeadlineTransport(httpx.HTTPTransport):
    """``httpx.HTTPTransport`` with the request deadline on every socket operation and a
    bound on the response body."""

    def __init__(self, *, max_bytes: int, **kwargs: Any) -> None:
        """Args: the largest body read, then ``httpx.HTTPTransport``'s own arguments
        (``verify`` defaults to the process's ``shared_ssl_context``)."""
        kwargs.setdefault("verify", shared_ssl_context())
        super().__init__(**kwargs)
        self.max_bytes = max_bytes
        pool = self._pool
        # httpx takes no network backend argument; its pool does (httpcore's public API).
        pool._network_backend = _Backend(pool._network_backend)  # type: ignore[union-attr]

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """Send the request; the body it answers with is read within the bound."""
        response = super().handle_request(request)
        length = response.headers.get("content-length", "")
        if length.isdigit() and int(length) > self.max_bytes:
            response.close()
            raise AnswerTooLarge(self.max_bytes)
        assert isinstance(response.stream, httpx.SyncByteStream)
        response.stream = _BoundedBody(response.stream, self.max_bytes)
        return response
