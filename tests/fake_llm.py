"""A small OpenAI-compatible chat-completions server for tests, on 127.0.0.1.

It answers ``POST /v1/chat/completions`` from a script of ``Reply`` objects (or from a
handler that computes a reply from the request), records every request body, and can
stall, trickle its body a byte at a time, fail with any status, or return text that is
not JSON (or a body that is not JSON at all, an HTML page say). A client that hangs up
while a reply stalls is noticed: ``hung_up`` is set (the client gave up on it). Tests drive the real
``openai`` client against it::

    with FakeLLM([Reply(content='{"summary": ...}')]) as llm:
        settings = Settings(llm={"base_url": llm.url}, ...)
"""

from __future__ import annotations

import html
import json
import os
import re
import select
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from toolkit.config import Settings, nested


@dataclass
class Reply:
    """One scripted answer: an assistant message, or a raw status/body, after a delay."""

    content: str | None = None
    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    # Seconds between the bytes of the body (headers go at once): a trickling endpoint.
    trickle: float = 0.0
    content_type: str = "application/json"
    # Send the body with Transfer-Encoding: chunked, in chunks of this many bytes (no
    # Content-Length: the client learns the size only by reading); 0: one plain body.
    chunked: int = 0


Handler = Callable[[dict[str, Any]], Reply]


def completion(content: str, model: str = "fake-model") -> dict[str, Any]:
    """A chat-completion body whose one choice says ``content``."""
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def summary_json(
    summary: str = "A summary.",
    sections: list[tuple[str, str, list[str]]] | None = None,
    important: list[str] | None = None,
) -> str:
    """The JSON text of a well-formed summary answer."""
    return json.dumps(
        {
            "summary": summary,
            "sections": [
                {"title": t, "body": b, "message_ids": ids} for t, b, ids in (sections or [])
            ],
            "important_message_ids": important or [],
        },
        ensure_ascii=False,
    )


Item = tuple[str, list[str]]

_MESSAGE_RE = re.compile(r"<message [^>]*>(.*?)</message>", re.S)


def message_texts(user: str) -> list[str]:
    """The texts of the ``<message>`` elements of a request's user message, unescaped: what
    a scripted model retells when its line must rest on the messages it cites."""
    return [html.unescape(text) for text in _MESSAGE_RE.findall(user)]


def digest_json(
    summary: str = "A summary.",
    threads: list[tuple[str, list[Item]]] | None = None,
    **lists: list[Item],
) -> str:
    """The JSON text of a digest answer in the order of ``prompts.SUMMARY_SCHEMA``:
    threads with titles and items, the function lists given by name (``decisions=[…]``),
    and last the summary."""
    answer: dict[str, Any] = {
        "threads": [
            {"title": title, "items": [{"text": t, "ids": ids} for t, ids in items]}
            for title, items in (threads or [])
        ],
    }
    for name in ("decisions", "open_questions", "plans", "links"):
        answer[name] = [{"text": t, "ids": ids} for t, ids in lists.pop(name, [])]
    assert not lists, f"unknown lists: {sorted(lists)}"
    answer["summary"] = summary
    return json.dumps(answer, ensure_ascii=False)


class FakeLLM:
    """The server: start it (or use it as a context manager), script it, read ``requests``."""

    def __init__(self, script: list[Reply] | None = None, handler: Handler | None = None) -> None:
        self.script: list[Reply] = list(script or [])
        self.handler = handler
        self.requests: list[dict[str, Any]] = []
        self.hung_up = threading.Event()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        # A short poll interval keeps stop() quick (shutdown waits for the next poll).
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        """The base URL to give the openai client (``.../v1``)."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def push(self, *replies: Reply) -> None:
        """Append replies to the script."""
        with self._lock:
            self.script.extend(replies)

    def _next(self, request: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(request)
            if self.script:
                return self.script.pop(0)
        if self.handler is not None:
            return self.handler(request)
        return Reply(status=500, body={"error": {"message": "no scripted reply left"}})

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class _Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                request = json.loads(self.rfile.read(length) or b"{}")
                if not self.path.endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}}, {})
                    return
                reply = fake._next(request)
                if reply.delay and self._stalled(reply.delay):
                    return
                body = reply.body
                if body is None and reply.content is not None:
                    body = completion(reply.content, request.get("model", "fake-model"))
                self._send(reply.status, body, reply.headers, reply)

            def _stalled(self, seconds: float) -> bool:
                """Wait ``seconds``; ``True`` when the server stops or the client hangs up."""
                end = time.monotonic() + seconds
                while (left := end - time.monotonic()) > 0:
                    if fake._stop.wait(min(0.02, left)):
                        return True
                    if self._client_gone():
                        fake.hung_up.set()
                        return True
                return False

            def _client_gone(self) -> bool:
                # The request is read, so anything readable now is the client's EOF.
                readable, _, _ = select.select([self.connection], [], [], 0)
                if not readable:
                    return False
                try:
                    return self.connection.recv(1, socket.MSG_PEEK) == b""
                except OSError:
                    return True

            def _send(
                self, status: int, body: Any, headers: dict[str, str], reply: Reply | None = None
            ) -> None:
                raw = body if isinstance(body, bytes) else json.dumps(body).encode()
                try:
                    self.send_response(status)
                    self.send_header(
                        "Content-Type", reply.content_type if reply else "application/json"
                    )
                    if reply is not None and reply.chunked:
                        self.send_header("Transfer-Encoding", "chunked")
                    else:
                        self.send_header("Content-Length", str(len(raw)))
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    if reply is not None and reply.chunked:
                        self._send_chunked(raw, reply.chunked)
                        return
                    if reply is None or not reply.trickle:
                        self.wfile.write(raw)
                        return
                    for i in range(len(raw)):
                        self.wfile.write(raw[i : i + 1])
                        self.wfile.flush()
                        if fake._stop.wait(reply.trickle):
                            return
                except (BrokenPipeError, ConnectionResetError):
                    fake.hung_up.set()  # the client gave up (a timeout test)

            def _send_chunked(self, raw: bytes, size: int) -> None:
                for start in range(0, len(raw), size):
                    piece = raw[start : start + size]
                    self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                self.wfile.write(b"0\r\n\r\n")

        return _Handler

    def start(self) -> FakeLLM:
        """Start serving in a daemon thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; stalled handlers are woken and answer nothing."""
        self._stop.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> FakeLLM:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def with_llm(settings: Settings, server: FakeLLM, **overrides: Any) -> Settings:
    """``settings`` with the LLM at ``server``, and ``overrides`` (named as their variables:
    ``llm_timeout`` for ``MLENS_LLM_TIMEOUT``)."""
    return settings.replace(**nested(llm_base_url=server.url, **overrides))


def llm_settings(server: FakeLLM, **overrides: Any) -> Settings:
    """Settings with the LLM at ``server`` (no retries, 5 s timeout unless overridden),
    read with no ``MLENS_`` variable of the environment; ``overrides`` are named as their
    variables (``llm_timeout`` for ``MLENS_LLM_TIMEOUT``)."""
    values: dict[str, Any] = {
        "database": ":memory:",
        "llm_base_url": server.url,
        "llm_api_key": "test-key",
        "llm_model": "fake-model",
        "llm_timeout": 5.0,
        "llm_max_retries": 0,
    }
    values.update(overrides)
    env = {k: v for k, v in os.environ.items() if k.startswith("MLENS_")}
    for name in env:
        os.environ.pop(name)
    try:
        return Settings(_env_file=None, **nested(**values))  # type: ignore[call-arg]
    finally:
        os.environ.update(env)
