"""What one database is to the store: the ``Dialect``, the only thing a backend writes.

Everything else in ``toolkit.store`` (the SQL, the row mapping, transactions, the
connection pool, staged imports, migrations) is written once, over this object. A
dialect says, mostly as data:

- **SQL**: the driver's placeholder (shared SQL is written with ``?`` and rewritten
  once per statement), whether a list travels as one array parameter or as ``IN (...)``
  lists (``id_lists``), the null-safe equality, the schema's type names (``types``:
  BLOB or BYTEA, ``INTEGER PRIMARY KEY`` or an identity column ...), and the schema an
  import's staging tables live in; upserts are ``INSERT ... ON CONFLICT`` everywhere;
- **bulk writes**: ``insert`` (many rows per ``VALUES`` statement; PostgreSQL COPYs);
- **transactions**: how a write begins (``BEGIN IMMEDIATE`` takes SQLite's write lock
  at once), which errors mean "busy, try again", whether a lone write may run on its
  own (autocommit), a session lock around migrations;
- **connections**: ``connect`` opens one; ``watch`` bounds a statement's wait for a
  server that may stop answering; how many writers the store may keep, whether
  readers have a pool of their own, how long a caller waits for one, whether a
  connection died (``broken``);
- **errors**: the driver's error classes, which the store turns into ``StoreError``;
- **imports**: how imports take turns (``import_turn``) and the place their staging
  tables need (``staging_area``);
- and, when it has one, a better statement for ``neighbours_of`` than the portable one.
"""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from functools import lru_cache
from typing import Any, ClassVar, Protocol

from toolkit.models import Walk
from toolkit.store.rows import MSG_COLUMNS
from toolkit.store.watchdog import Watchdog

OnWait = Callable[[str], None]
WAITING = "waiting for another import to finish…"

Params = Sequence[Any] | Mapping[str, Any]


"""Positional parameters (for SQL written with ``?``) or named ones (the driver's own
style, for a statement one dialect writes for itself)."""


class Connection(Protocol):
    """What the store asks of a DB-API connection (``sqlite3``, ``psycopg``)."""

    def execute(self, sql: Any, params: Any = ..., /) -> Any:
        """Run one statement; a cursor."""
        ...

    def cursor(self) -> Any:
        """A cursor (for ``executemany``)."""
        ...

    def rollback(self) -> None:
        """End the open transaction, if any, undoing it."""
        ...

    def close(self) -> None:
        """Close the connection."""
        ...


@lru_cache(maxsize=1024)
def rewrite(sql: str, mark: str) -> str:
    """``sql`` written with ``?`` placeholders, in a driver's ``mark`` (``%s``: ``%`` doubled)."""
    if mark == "?":
        return sql
    return sql.replace("%", "%%").replace("?", mark)


def waiting(on_wait: OnWait | None) -> Callable[[], None]:
    """A callable that tells ``on_wait`` (once, however often it is called) that an
    import waits for its turn."""
    told = False

    def tell() -> None:
        nonlocal told
        if on_wait is not None and not told:
            on_wait(WAITING)
        told = True

    return tell


DIALECTS: tuple[str, ...] = ("sqlite", "postgres")
"""Every dialect's ``name``: a dialect is registered here, and every migration names its
variant for each (``migrations.Migration``)."""


class Dialect(ABC):
    """One database backend, as the shared store needs to know it (its ``name`` must be
    in ``DIALECTS``: a class of another name fails when it is defined)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "name" in cls.__dict__ and cls.name not in DIALECTS:
            raise TypeError(f"dialect {cls.name!r} is not in DIALECTS {DIALECTS}")

    name: ClassVar[str]
    """``sqlite``, ``postgres``: picks a migration's variant, names threads."""
    label: str
    """Where the database is, for messages (never with a password)."""
    mark: ClassVar[str] = "?"
    arrays: ClassVar[bool] = False
    """Lists travel as one array parameter (``= ANY(?)``), not as ``IN (?, ?, ...)``."""
    ids_in: ClassVar[str] = "{} = ANY(?)"
    """With ``arrays``: the clause matching a column (``{}``) against a list of ids."""
    in_chunk: ClassVar[int] = 500
    """Ids per ``IN (...)`` list without ``arrays`` (fewer plan better than SQLite's
    32,766 variables)."""
    same: ClassVar[str] = "IS NOT DISTINCT FROM"
    """The null-safe equality (``IS`` in SQLite)."""
    types: ClassVar[Mapping[str, str]]
    """Schema words by role: ``id``, ``int``, ``bool``, ``blob``, ``float``, ``norowid``
    (a table option), ``stamp`` (a migration's time)."""
    stage: ClassVar[str]
    """The schema of an import's staging tables (``staging_area`` provides it)."""
    begin: ClassVar[str] = "BEGIN"
    snapshot_begin: ClassVar[str] = "BEGIN"
    """The statement that opens a read-only transaction seeing one moment (a backup's)."""
    file: str | None = None
    """The database's one file, when it is one (SQLite): a backup copies it with the
    engine's online backup API rather than through a snapshot."""
    busy: ClassVar[tuple[str, ...]] = ()
    """Words of an error that means another writer holds the database: try again."""
    errors: ClassVar[tuple[type[Exception], ...]]
    lone_writes: ClassVar[bool] = True
    """A write outside a transaction runs as one statement on any connection."""
    lift_deadline: ClassVar[tuple[str, str] | None] = None
    """Statements that lift a session's server-side statement deadline and restore it."""
    watchdog: Watchdog | None = None
    """Ends statements waiting for a server that stopped answering (``watchdog.py``)."""
    migration_lock: ClassVar[tuple[str, str] | None] = None
    """Statements that take and release a session lock around migrations."""
    max_anchors: ClassVar[int] = 200
    """Messages per ``neighbours`` statement."""
    pool_size: int = 1
    """Connections that write (and, without ``readers_apart``, read) at once."""
    readers_apart: bool = False
    """Readers take read-only connections of their own pool, never waiting for writers."""
    one_connection: bool = False
    """One connection is the whole database (SQLite ``:memory:``): an import holds it."""
    wait_s: float = 30.0
    """How long a caller waits for a connection, or for another process's writer."""

    @abstractmethod
    def connect(self, *, read_only: bool = False) -> Connection:
        """Open one connection (``read_only``: one that cannot write)."""

    @abstractmethod
    def import_turn(self, conn: Connection, on_wait: OnWait | None) -> AbstractContextManager[None]:
        """Hold the store's import turn (on ``conn``); a waiting import calls
        ``waiting(on_wait)`` first."""

    def watch(self, conn: Connection, *, bounded: bool) -> AbstractContextManager[None]:
        """Watch one statement the block runs on ``conn`` with the dialect's ``watchdog``:
        ended (``StoreTimeout``) when the server stops answering and, when ``bounded``,
        past the statement deadline. Without a watchdog (an embedded database always
        answers), nothing."""
        if self.watchdog is None:
            return contextlib.nullcontext()
        return self.watchdog.watch(conn, bounded=bounded)

    @contextlib.contextmanager
    def unbounded(self, conn: Connection) -> Iterator[None]:
        """A session on ``conn`` whose statements may run as long as they need (an
        import's, a migration's): ``lift_deadline`` run around the block."""
        if self.lift_deadline is None:
            yield
            return
        lift, restore = self.lift_deadline
        with self.watch(conn, bounded=False):
            conn.execute(lift)
        try:
            yield
        finally:
            if not getattr(conn, "closed", False):
                with contextlib.suppress(*self.errors), self.watch(conn, bounded=False):
                    conn.execute(restore)

    def close(self) -> None:
        """Stop the dialect's watchdog, if it has one."""
        if self.watchdog is not None:
            self.watchdog.close()

    def broken(self, conn: Connection) -> bool:
        """Whether ``conn`` died (the server closed it): the pool drops it."""
        return False

    def damaged(self, exc: Exception) -> bool:
        """Whether the driver's error ``exc`` says the database file is corrupted."""
        return False

    def recovery(self, exc: Exception) -> str:
        """One line for the log when the database is damaged: what, and what to do."""
        return f"the store at {self.label} is damaged ({exc}); restore it from a backup"

    def health_check(self, conn: Connection, budget_s: float) -> bool:
        """Ask the database something cheap on ``conn`` (a driver error when it cannot
        answer); whether the check read the whole database (an integrity check)."""
        conn.execute("SELECT count(*) FROM sources").fetchall()
        return False

    def staging_area(self, conn: Connection) -> AbstractContextManager[None]:
        """Make ``stage`` exist on ``conn`` for one import (nothing: it always does)."""
        return contextlib.nullcontext()

    def id_lists(self, column: str, ids: Sequence[int]) -> list[tuple[str, list[Any]]]:
        """Clauses matching ``column`` against ``ids``, with their parameters: one
        ``ids_in`` with the whole list when lists are ``arrays``, else ``IN (?, ...)``
        lists of ``in_chunk`` ids each; none for no ids."""
        values = list(ids)
        if self.arrays:
            return [(self.ids_in.format(column), [values])] if values else []
        step = self.in_chunk
        return [
            (f"{column} IN ({','.join('?' * len(part))})", part)
            for part in (values[i : i + step] for i in range(0, len(values), step))
        ]

    def insert(
        self, conn: Connection, table: str, columns: str, rows: Sequence[Sequence[Any]], tail: str
    ) -> None:
        """``INSERT INTO table (columns) VALUES ... tail`` for every row, a thousand rows
        (at most 30,000 parameters) per statement; inside the caller's transaction."""
        width = len(rows[0])
        step = max(1, min(1000, 30_000 // width))
        marks = f"({', '.join('?' * width)})"
        for start in range(0, len(rows), step):
            part = rows[start : start + step]
            values = ", ".join([marks] * len(part))
            sql = f"INSERT INTO {table} ({columns}) VALUES {values} {tail}"
            conn.execute(rewrite(sql, self.mark), [value for row in part for value in row])

    def neighbours(self, source_id: int, anchors: Sequence[int], walk: Walk) -> tuple[str, Params]:
        """The statement of ``neighbours_of`` for up to ``max_anchors`` messages, and its
        parameters: rows of ``(anchor id, 0 older | 1 newer, *MSG_COLUMNS)``.

        The portable statement: per anchor and side, a walk of an index from the anchor
        (row values, so that the walk starts at the anchor rather than scanning the
        source), the walks joined with ``UNION ALL``.
        """
        anchor = "(SELECT {} FROM messages WHERE source_id = ? AND message_id = ?)"
        topic = f"AND topic_id {self.same} {anchor.format('topic_id')} " if walk.same_topic else ""
        template = (
            f"SELECT * FROM (SELECT ? AS anchor, {{}} AS side, {MSG_COLUMNS} "
            f"FROM messages WHERE source_id = ? AND NOT is_service {topic}"
            f"AND (posted_at, message_id) {{}} ({anchor.format('posted_at')}, ?) "
            "ORDER BY posted_at {}, message_id {} LIMIT ?) AS w{}"
        )
        walks: list[str] = []
        params: list[Any] = []
        sides = ((0, "<", "DESC", walk.before), (1, ">", "ASC", walk.after))
        for mid in anchors:
            for side, op, order, limit in sides:
                walks.append(template.format(side, op, order, order, len(walks)))
                params += [mid, source_id, *((source_id, mid) if walk.same_topic else ())]
                params += [source_id, mid, mid, limit]
        return " UNION ALL ".join(walks), params
