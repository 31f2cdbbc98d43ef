"""``SQLStore``: the one ``MessageStore``, over a ``Dialect`` (``sqlite.py``, ``postgres.py``).

The parts, each written once for every backend:

- ``sources.py``: look-ups, upserts and stats of sources;
- ``reads.py``: the message readers (windows, periods, neighbours, paging);
- ``writes.py``: message upserts, forum topics, sync watermarks;
- ``records.py``: vectors, API keys and the result cache;
- ``schedules.py``: digest schedules, their runs (leases) and results;
- ``alerts.py``: alerts (saved searches), their posts (leased the same way) and results;
- ``delivery_copy.py``: schedules and alerts as rows, for ``copy.copy_store``;
- ``staging.py``: staged imports; ``background.py``: writes off the request path;
- ``connections.py`` (over ``pool.py``): statements, transactions, errors;
- ``migrations.py``: the schema, versioned.

A backend is its dialect alone: ``SQLiteStore`` and ``PostgresStore`` are this class
over theirs (the PostgreSQL one adds the token buckets replicas share).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextlib import AbstractContextManager

from toolkit.errors import StoreDamaged, StoreError
from toolkit.store.alerts import Alerts
from toolkit.store.background import BackgroundWriter, BackgroundWrites
from toolkit.store.base import ImportSink
from toolkit.store.connections import Connections, one_line
from toolkit.store.delivery_copy import DeliveryRows
from toolkit.store.dialect import Dialect, OnWait
from toolkit.store.migrations import migrate
from toolkit.store.records import Records
from toolkit.store.schedules import Schedules
from toolkit.store.sources import Sources
from toolkit.store.staging import staged_import
from toolkit.store.writes import MessageWrites


class SQLStore(MessageWrites, Records, Sources, Schedules, Alerts, DeliveryRows, BackgroundWrites):
    """The ``MessageStore`` of every SQL backend, over its dialect.

    Opening it migrates the schema (a damaged SQLite file is opened anyway, to answer
    ``StoreDamaged`` wherever the damage is met). Reads never wait for a writer and read paths never
    write (``write_behind``); writes queue behind other writers; imports stage aside and
    take turns (see ``MessageStore``).

    Args:
        dialect: the backend (its database, connections and words).
    """

    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect
        self.database = dialect.label
        self.connections = Connections(dialect)
        failures: tuple[type[Exception], ...] = (StoreError, OSError, *dialect.errors)
        try:
            migrate(self.connections)
        except StoreDamaged:
            # Served as it is: whatever meets the damage fails with StoreDamaged (a 503),
            # the health check says so, and the log has said once how to recover it.
            pass
        except failures as exc:
            self.connections.close()
            cause = exc.__cause__ if isinstance(exc, StoreError) and exc.__cause__ else exc
            raise StoreError(
                f"cannot open the store at {dialect.label}: {one_line(cause)}"
            ) from exc
        self._background = BackgroundWriter(f"store-writer:{dialect.name}")

    def transaction(self) -> AbstractContextManager[None]:
        """One write transaction: everything inside commits together or not at all;
        nested calls in the same thread join the outer one."""
        return _discard_value(self.connections.transaction())

    def snapshot(self) -> AbstractContextManager[None]:
        """For the block, the calling thread's reads see the store as it was at one
        moment (a read-only transaction on a connection of its own: PostgreSQL's
        ``REPEATABLE READ``; SQLite's writer, so keep it short there)."""
        return _discard_value(self.connections.transaction(begin=self.dialect.snapshot_begin))

    def staging(self, *, on_wait: OnWait | None = None) -> AbstractContextManager[ImportSink]:
        """An import's sink: staged aside, published on a clean exit, discarded on an error.

        Imports into this store take turns (threads and processes alike); a waiting one
        calls ``on_wait("waiting for another import to finish…")`` once.
        """
        return staged_import(self, on_wait)

    def check_health(self, budget_s: float) -> None:
        """Ask the database something cheap (and, for SQLite, check the file's integrity
        for up to ``budget_s``); ``StoreError`` when it cannot answer, ``StoreDamaged``
        while its file is known to be corrupted."""
        self.connections.check(budget_s)

    def close(self) -> None:
        """Finish background writes (a few seconds at most) and close every connection."""
        self._background.close(timeout=5.0)
        self.connections.close()


@contextlib.contextmanager
def _discard_value(block: AbstractContextManager[object]) -> Iterator[None]:
    with block:
        yield
