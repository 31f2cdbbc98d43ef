"""Local servers for the delivery tests, each on 127.0.0.1 and stopped by its test: a
fake Telegram Bot API, a webhook receiver, and an SMTP server (aiosmtpd). What the
service then says of a delivery: ``delivery_checks``."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = tuple[int, dict[str, Any], dict[str, str]]
"""(status, JSON body, headers) a fake answers."""


@dataclass
class Received:
    """What one fake HTTP server was sent."""

    requests: list[tuple[str, dict[str, str], bytes]] = field(default_factory=list)
    replies: list[Reply] = field(default_factory=list)
    """Answers to give, in order; then 200 ``{"ok": true}``."""
    hold: threading.Event | None = None
    """When given, a request is recorded and its answer waits until it is set (up to
    30 s): the sender is caught mid-send."""
    arrived: threading.Event = field(default_factory=threading.Event)
    """Set on every request recorded."""

    def json(self) -> list[Any]:
        return [json.loads(body) for _, _, body in self.requests]


@contextmanager
def http_server(received: Received) -> Iterator[str]:
    """An HTTP server on 127.0.0.1 recording every POST; yields its base URL."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            received.requests.append((self.path, dict(self.headers.items()), body))
            received.arrived.set()
            if received.hold is not None:
                received.hold.wait(30)
            status, payload, headers = (
                received.replies.pop(0) if received.replies else (200, {"ok": True}, {})
            )
            data = json.dumps(payload).encode()
            self.send_response(status)
            for name, value in {"Content-Type": "application/json", **headers}.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *_args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@contextmanager
def smtp_server() -> Iterator[tuple[int, list[Message]]]:
    """An aiosmtpd server on 127.0.0.1; yields its port and the messages it received."""
    from aiosmtpd.controller import Controller

    got: list[Message] = []

    class Handler:
        async def handle_DATA(self, _server: Any, _session: Any, envelope: Any) -> str:
            got.append(message_from_bytes(envelope.content, policy=policy.default))
            return "250 OK"

    with socket.socket() as probe:  # aiosmtpd checks its port by connecting: not 0
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    controller = Controller(Handler(), hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield port, got
    finally:
        controller.stop()
