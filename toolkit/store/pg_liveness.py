"""How a PostgreSQL session notices a server that stops answering (``postgres.py``'s).

- **TCP keepalives and ``tcp_user_timeout``** on every connection: an idle pooled
  connection to a host that vanished is closed by the kernel after
  ``KEEPALIVE_IDLE + KEEPALIVE_INTERVAL * KEEPALIVE_COUNT`` seconds, and data sent to it
  and never acknowledged fails as soon.
- **A statement deadline on the server** (``statement_timeout``, set at connect time).
- **A watchdog** (``watchdog.Watchdog``) for what neither sees: a server whose processes
  are stopped still has a kernel that acknowledges everything. Its probe is a fresh
  connection's ``SELECT 1`` bounded by an asyncio timeout (libpq's own connect timeout
  counts whole seconds, two at least); it cancels through the server's cancel request
  and ends a wait by shutting the connection's socket down.
"""

from __future__ import annotations

import asyncio
import math
import os
import socket
from collections.abc import Callable
from typing import Any

import psycopg

from toolkit.store.watchdog import Watchdog

KEEPALIVE_IDLE = 5
"""Seconds a connection is idle before the kernel asks the server whether it is there."""
KEEPALIVE_INTERVAL = 2
"""Seconds between two such questions."""
KEEPALIVE_COUNT = 3
"""Questions unanswered before the kernel closes the connection."""
TCP_USER_TIMEOUT_MS = (KEEPALIVE_IDLE + KEEPALIVE_INTERVAL * KEEPALIVE_COUNT) * 1000
"""Milliseconds data sent may stay unacknowledged before the connection is closed."""


def connection_params(connect_timeout: float, statement_timeout: float | None) -> dict[str, Any]:
    """libpq parameters of every store connection: autocommit, its name, the connect
    timeout (whole seconds, two at least, as libpq counts), keepalives,
    ``tcp_user_timeout`` and the server's statement deadline (0: none)."""
    deadline_ms = round((statement_timeout or 0) * 1000)
    return {
        "autocommit": True,
        "application_name": "mlens",
        "connect_timeout": max(2, math.ceil(connect_timeout)),
        "keepalives": 1,
        "keepalives_idle": KEEPALIVE_IDLE,
        "keepalives_interval": KEEPALIVE_INTERVAL,
        "keepalives_count": KEEPALIVE_COUNT,
        "tcp_user_timeout": TCP_USER_TIMEOUT_MS,
        "options": f"-c statement_timeout={deadline_ms}",
    }


def prober(url: str, params: dict[str, Any]) -> Callable[[float], bool]:
    """A probe of the server at ``url``: whether a fresh connection's ``SELECT 1`` is
    answered within the seconds given (an error the server sends back, such as "too many
    clients", is an answer too: the server is alive)."""

    async def ask() -> None:
        conn = await psycopg.AsyncConnection.connect(url, **params)
        try:
            await conn.execute("SELECT 1")
        finally:
            await conn.close()

    def answers(budget_s: float) -> bool:
        try:
            asyncio.run(asyncio.wait_for(ask(), budget_s))
        except TimeoutError:
            return False
        except (psycopg.Error, OSError):
            return True
        return True

    return answers


def cancel(conn: Any) -> None:
    """Ask the server to cancel the statement running on ``conn`` (a server that does
    not take the request within two seconds is the watchdog's other case)."""
    conn.cancel_safe(timeout=2.0)


def abort(conn: Any) -> None:
    """End the wait of the statement running on ``conn`` at once: the connection's socket
    is shut down, so the driver's wait returns with an error and the pool drops it."""
    with socket.socket(fileno=os.dup(conn.pgconn.socket)) as sock:
        sock.shutdown(socket.SHUT_RDWR)


def pg_watchdog(
    url: str, label: str, *, answer_s: float, deadline_s: float | None, params: dict[str, Any]
) -> Watchdog:
    """The watchdog of one PostgreSQL database (see the module's notes)."""
    probe_params = params | {"options": "-c statement_timeout=0"}
    return Watchdog(
        label,
        answer_s=answer_s,
        deadline_s=deadline_s,
        probe=prober(url, probe_params),
        cancel=cancel,
        abort=abort,
    )
