"""The PostgreSQL store, for teams (``MLENS_DATABASE_URL=postgresql://…``): its dialect alone.

Same behaviour as the SQLite store (the store test suite runs against both): times in
Unix seconds, vectors as float32 bytes scored in numpy. What differs is said here:

- **Connections**: one pool of autocommit connections (``pool_size``), named ``mlens``;
  a read is one round trip with no transaction open; one the server closed (or
  began to close: a stopping server writes to its idle sessions) is replaced before it
  is used, with every idle one beside it. Connecting and waiting for a pooled
  connection each give up after about two seconds (``StoreError``: a 503).
- **A server that stops answering**: every connection has TCP keepalives and a
  ``tcp_user_timeout`` (a host that vanished is noticed in ~10 s, idle or not); a
  server whose processes are stopped still has a kernel that acknowledges all that, so
  a ``watchdog.Watchdog`` asks it something on a fresh connection once a statement has
  waited half the answer time (``connect_timeout``) and, when it does not answer within
  the other half, ends every statement waiting for it (``StoreTimeout``: a 503 within
  about ``connect_timeout`` s). Statements of the request path also have a deadline
  (``statement_timeout``): on the server (``statement_timeout``) and on the client
  (the server's cancel request, then the socket). An import's and a migration's
  session lift it (``unbounded``).
- **SQL**: ``%s`` placeholders, lists as one array parameter (``= ANY(%s)``), BIGINT,
  BOOLEAN, BYTEA and identity columns; an import's staging table is a temporary one of
  its own session (``pg_temp``).
- **Locks**: migrations and imports take turns on advisory locks, across every process
  on the database.
- **Neighbours**: one statement for all of a search's hits (``LATERAL`` walks of the
  indexes from each anchor).
- **Rate limits**: token buckets that service replicas share (``take_rate_token``).

Everything else is the shared store (``store.SQLStore``). psycopg is imported with
this module, which ``open_store`` imports only when asked for PostgreSQL.
"""

from __future__ import annotations

import contextlib
import select
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar, TypedDict, Unpack

import psycopg

from toolkit.config import redact_url
from toolkit.models import Walk
from toolkit.store.dialect import Connection, Dialect, OnWait, Params, waiting
from toolkit.store.pg_liveness import connection_params, pg_watchdog
from toolkit.store.rows import MSG_COLUMNS
from toolkit.store.store import SQLStore

# Advisory lock keys: "mlens" and "mlens-im" in ASCII, so other applications' locks
# do not collide.
_MIGRATION_LOCK = 0x6D6C656E73
_IMPORT_LOCK = 0x6D6C656E732D696D

# Every anchor's two walks of an index, in one statement: a LATERAL subquery per side.
_WALK = (
    "(SELECT {side} AS side, "
    + ", ".join("m." + c for c in MSG_COLUMNS.split(", "))
    + " FROM messages m WHERE m.source_id = a.source_id AND NOT m.is_service AND {where}"
    " {order})"
)
_SIDES = (
    (0, "(m.posted_at, m.message_id) < (a.posted_at, a.message_id)",
     "ORDER BY m.posted_at DESC, m.message_id DESC LIMIT %(before)s"),
    (1, "(m.posted_at, m.message_id) > (a.posted_at, a.message_id)",
     "ORDER BY m.posted_at, m.message_id LIMIT %(after)s"),
)  # fmt: skip
_ANCHORS = (
    "SELECT a.message_id, n.* FROM messages a CROSS JOIN LATERAL ({}) n "
    "WHERE a.source_id = %(s)s AND a.message_id = ANY(%(ids)s)"
)
NEIGHBOURS_OF = _ANCHORS.format(
    " UNION ALL ".join(_WALK.format(side=s, where=w, order=o) for s, w, o in _SIDES)
)
# Within the anchor's topic. ``IS NOT DISTINCT FROM`` would use no index, so an anchor
# with a topic walks ``messages_by_topic`` (equal topic) and one without (a non-forum
# source) walks ``messages_by_time`` keeping those without a topic; the branch that
# does not apply stops at its one-time test of ``a.topic_id``.
NEIGHBOURS_OF_TOPIC = _ANCHORS.format(
    " UNION ALL ".join(
        _WALK.format(side=s, where=topic + w, order=o)
        for topic in (
            "m.topic_id = a.topic_id AND ",
            "a.topic_id IS NULL AND m.topic_id IS NULL AND ",
        )
        for s, w, o in _SIDES
    )
)

# One statement per request: refill the key's bucket for the time since its last
# request, take a token when one is there, and say whether it was taken. ``now()`` is
# the database's clock, so replicas with skewed clocks still share one budget.
_TAKE_TOKEN = """
INSERT INTO rate_buckets AS b (key, tokens, updated_at, allowed)
VALUES (%(key)s, %(burst)s - 1, EXTRACT(EPOCH FROM now()), TRUE)
ON CONFLICT (key) DO UPDATE SET
    allowed = LEAST(%(burst)s, b.tokens + (EXTRACT(EPOCH FROM now()) - b.updated_at) * %(rate)s)
        >= 1 - 1e-9,
    tokens = GREATEST(0, LEAST(%(burst)s,
        b.tokens + (EXTRACT(EPOCH FROM now()) - b.updated_at) * %(rate)s)
        - CASE WHEN LEAST(%(burst)s,
            b.tokens + (EXTRACT(EPOCH FROM now()) - b.updated_at) * %(rate)s) >= 1 - 1e-9
          THEN 1 ELSE 0 END),
    updated_at = EXTRACT(EPOCH FROM now())
RETURNING allowed, tokens
"""


class PostgresDialect(Dialect):
    """PostgreSQL through psycopg 3.

    Args:
        url: ``postgresql://user:password@host:port/database``.
        pool_size: most connections this process keeps open.
        connect_timeout: seconds to wait for the server when connecting; also how long
            a statement waits for a server that does not answer a probe.
        pool_wait: seconds a caller waits for a free pooled connection (then ``StoreError``).
        statement_timeout: seconds a statement of the request path may run (on the
            server and on the client; ``None``: no bound).
    """

    name = "postgres"
    mark = "%s"
    arrays = True
    # Not ``= ANY(?)``: before a table has statistics (a first import) the planner
    # filters the whole source through the array; a set to join keeps to the index.
    ids_in = "{} IN (SELECT unnest(?::bigint[]))"
    types: ClassVar[dict[str, str]] = {
        "id": "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
        "int": "BIGINT",
        "bool": "BOOLEAN NOT NULL DEFAULT FALSE",
        "blob": "BYTEA",
        "float": "DOUBLE PRECISION",
        "norowid": "",
        "stamp": "TIMESTAMPTZ NOT NULL DEFAULT now()",
    }
    stage = "pg_temp"
    errors = (psycopg.Error,)
    snapshot_begin = "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY"
    lift_deadline = ("SET statement_timeout = 0", "SET statement_timeout = DEFAULT")
    migration_lock = (
        f"SELECT pg_advisory_lock({_MIGRATION_LOCK})",
        f"SELECT pg_advisory_unlock({_MIGRATION_LOCK})",
    )
    max_anchors = 10_000

    def __init__(
        self,
        url: str,
        *,
        pool_size: int = 8,
        connect_timeout: float = 2.0,
        pool_wait: float = 2.0,
        statement_timeout: float | None = 30.0,
    ) -> None:
        self.url = url
        self.label = redact_url(url)
        self.pool_size = max(1, pool_size)
        self.connect_timeout = connect_timeout
        self.wait_s = pool_wait
        self.params = connection_params(connect_timeout, statement_timeout)
        self.watchdog = pg_watchdog(
            url,
            self.label,
            answer_s=connect_timeout,
            deadline_s=statement_timeout,
            params=self.params,
        )

    def connect(self, *, read_only: bool = False) -> Connection:
        """An autocommit connection (``read_only`` changes nothing: readers share the pool)."""
        return psycopg.connect(self.url, **self.params)

    def broken(self, conn: Connection) -> bool:
        """Whether the server closed the connection, or said something to it while it
        was idle: an idle autocommit session is sent nothing but its end (a server
        stopping or restarting), so one that can be read from is not reused."""
        if getattr(conn, "closed", False):
            return True
        pgconn = getattr(conn, "pgconn", None)
        if pgconn is None or pgconn.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            return False
        try:
            readable, _, _ = select.select([pgconn.socket], [], [], 0)
        except (OSError, ValueError, psycopg.OperationalError):
            return True
        return bool(readable)

    @contextlib.contextmanager
    def import_turn(self, conn: Connection, on_wait: OnWait | None) -> Iterator[None]:
        """The import advisory lock of the database, on the import's session."""
        with self.watch(conn, bounded=False):
            row = conn.execute("SELECT pg_try_advisory_lock(%s)", (_IMPORT_LOCK,)).fetchone()
        if not (row and row[0]):
            waiting(on_wait)()
            with self.watch(conn, bounded=False):  # another import's turn may be long
                conn.execute("SELECT pg_advisory_lock(%s)", (_IMPORT_LOCK,))
        try:
            yield
        finally:
            with self.watch(conn, bounded=False):
                conn.execute("SELECT pg_advisory_unlock(%s)", (_IMPORT_LOCK,))

    def insert(
        self, conn: Connection, table: str, columns: str, rows: Sequence[Sequence[Any]], tail: str
    ) -> None:
        """Many rows by COPY into a temporary table like ``table``, then one ``INSERT ...
        SELECT``; a few by ``VALUES`` lists."""
        if len(rows) < 100:
            super().insert(conn, table, columns, rows, tail)
            return
        bulk = f"bulk_{table.split('.')[-1]}"
        conn.execute(f"CREATE TEMP TABLE IF NOT EXISTS {bulk} (LIKE {table} INCLUDING DEFAULTS)")
        with conn.cursor() as cur, cur.copy(f"COPY {bulk} ({columns}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
        conn.execute(f"INSERT INTO {table} ({columns}) SELECT {columns} FROM {bulk} {tail}")
        conn.execute(f"TRUNCATE {bulk}")

    def neighbours(self, source_id: int, anchors: Sequence[int], walk: Walk) -> tuple[str, Params]:
        """Every anchor's walks in one statement (``LATERAL``), with named parameters."""
        sql = NEIGHBOURS_OF_TOPIC if walk.same_topic else NEIGHBOURS_OF
        ids = list(anchors)
        return sql, {"s": source_id, "ids": ids, "before": walk.before, "after": walk.after}


class PostgresOptions(TypedDict, total=False):
    """How a ``PostgresStore`` connects (the defaults are ``PostgresDialect``'s).

    Attributes:
        pool_size: most connections this process keeps open.
        connect_timeout: seconds to wait for the server when opening a connection.
        pool_wait: seconds a caller waits for a free pooled connection.
        statement_timeout: seconds a statement of the request path may run (``None``: no
            bound); a server that stops answering ends a statement within about
            ``connect_timeout`` s whatever this is.
    """

    pool_size: int
    connect_timeout: float
    pool_wait: float
    statement_timeout: float | None


class PostgresStore(SQLStore):
    """The PostgreSQL ``MessageStore``.

    Args:
        url: ``postgresql://user:password@host:port/database`` (created tables are migrated).
        options: how it connects (``PostgresOptions``).
    """

    def __init__(self, url: str, **options: Unpack[PostgresOptions]) -> None:
        super().__init__(PostgresDialect(url, **options))

    def take_rate_token(self, key: str, *, per_minute: float, burst: int) -> float | None:
        """Take one token from ``key``'s shared bucket in one atomic statement.

        Returns:
            ``None`` when the request is admitted, else the seconds until a token is back.
        """
        rate = per_minute / 60.0
        params = {"key": key, "burst": float(burst), "rate": rate}
        allowed, tokens = self.connections.write(_TAKE_TOKEN, params)[0]
        return None if allowed else max(0.0, (1.0 - float(tokens)) / rate)
