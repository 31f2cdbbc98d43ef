"""Import a Telegram Desktop JSON export into a ``MessageStore`` (``mlens import FILE``).

Both export shapes are read (a single chat, or a full account whose every chat is
imported). The file is streamed with ijson, one message object at a time, so a 1 GB
export needs no 1 GB of Python objects; messages go to the store in batches, all inside
ONE store transaction: a truncated or malformed file raises ``ImportFormatError`` saying
where it broke, and the store is left exactly as it was. Upserts are idempotent, so
importing the same file again changes nothing.

An export carries a chat's numeric id but not its public handle. ``ref="@handle"``
names the source as public (its links then use the handle); without it the source is
known as ``t.me/c/<id>``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import reduce
from pathlib import Path
from typing import IO

import ijson
from tqdm import tqdm

from toolkit.errors import ImportFormatError, InvalidRequest
from toolkit.ingest.export_messages import chat_title, source_kind, to_message
from toolkit.ingest.export_stream import (
    ChatClosed,
    ChatHeader,
    ChatOpened,
    Cursor,
    ExportedMessage,
    Item,
    chat_label,
    walk,
)
from toolkit.models import Message, Source, UpsertResult
from toolkit.refs import parse_ref
from toolkit.store.base import MessageStore

# Small read buffers keep the byte position in error messages close to the fault.
_READ_BYTES = 16 * 1024


@dataclass(frozen=True, slots=True)
class ImportedSource:
    """One source an import touched: what changed, and entries skipped (``unsupported``)."""

    source: Source
    result: UpsertResult
    skipped: int = 0


@dataclass(frozen=True, slots=True)
class ImportReport:
    """What an import did, per source in the order the export lists them."""

    path: Path
    sources: tuple[ImportedSource, ...]

    @property
    def total(self) -> UpsertResult:
        """Inserted, updated and unchanged messages over every source."""
        return reduce(lambda a, b: a + b, (s.result for s in self.sources), UpsertResult())


class _ByteCounter:
    """A read-only binary file that reports how far it has been read (and moves a bar)."""

    def __init__(self, raw: IO[bytes], bar: tqdm) -> None:
        self._raw = raw
        self._bar = bar
        self.position = 0

    def read(self, size: int = -1) -> bytes:
        chunk = self._raw.read(size)
        self.position += len(chunk)
        self._bar.update(len(chunk))
        return chunk


class _Importer:
    """Consumes walked items: creates sources, converts messages, upserts in batches."""

    def __init__(
        self, store: MessageStore, *, file_name: str, handle: str | None, batch_size: int
    ) -> None:
        self._store = store
        self._file = file_name
        self._handle = handle
        self._batch_size = batch_size
        self._pending: list[Message] = []
        self._source: Source | None = None
        self._sources: dict[int, Source] = {}
        self._results: dict[int, UpsertResult] = {}
        self._skipped: dict[int, int] = {}

    def take(self, item: Item) -> None:
        if isinstance(item, ChatOpened):
            if self._handle is not None and item.chat.in_account_export:
                raise InvalidRequest(
                    "a ref (--ref) names one source, but a full-account export holds "
                    "every chat; import it without one",
                    field="ref",
                )
            self._open(item.chat)
        elif isinstance(item, ExportedMessage):
            self._message(item)
        elif isinstance(item, ChatClosed):
            self._flush()
            # Name and type may follow the messages (sorted keys): settle them now.
            assert self._source is not None
            if (self._source.title, self._source.kind) != (
                chat_title(item.chat.name, item.chat.type, item.chat.id or 0),
                source_kind(item.chat.type),
            ):
                self._open(item.chat)
            self._source = None

    def _open(self, chat: ChatHeader) -> None:
        assert chat.id is not None
        self._source = self._store.upsert_source(
            title=chat_title(chat.name, chat.type, chat.id),
            kind=source_kind(chat.type),
            internal_id=chat.id,
            handle=self._handle,
        )
        self._sources[self._source.id] = self._source
        self._results.setdefault(self._source.id, UpsertResult())
        self._skipped.setdefault(self._source.id, 0)

    def _message(self, item: ExportedMessage) -> None:
        assert self._source is not None
        assert item.chat.id is not None
        try:
            message = to_message(item.data, source_id=self._source.id, chat=item.chat.id)
        except ValueError as exc:
            mid = item.data.get("id") if isinstance(item.data, dict) else None
            raise ImportFormatError(
                f"{self._file}: in {chat_label(item.chat)}, message #{item.index + 1} "
                f"(id {mid}): {exc}",
                file=self._file,
                message_index=item.index,
                message_id=mid,
            ) from None
        if message is None:
            self._skipped[self._source.id] += 1
            return
        self._pending.append(message)
        if len(self._pending) >= self._batch_size:
            self._flush()

    def _flush(self) -> None:
        if self._pending and self._source is not None:
            result = self._store.upsert_messages(self._pending)
            self._results[self._source.id] += result
            self._pending = []

    def report(self, path: Path) -> ImportReport:
        return ImportReport(
            path=path,
            sources=tuple(
                ImportedSource(source, self._results[sid], self._skipped[sid])
                for sid, source in self._sources.items()
            ),
        )


def _json_error(name: str, cursor: Cursor, position: int, size: int, exc: Exception) -> str:
    reason = exc.args[0] if exc.args else exc
    if isinstance(reason, bytes):
        reason = reason.decode("utf-8", "replace")
    reason = str(reason).strip().splitlines()[0] if str(reason).strip() else "invalid JSON"
    if "premature EOF" in reason:
        return f"{name} is truncated: the JSON ends early at byte {size}, {cursor.describe()}"
    if not cursor.export_keys and cursor.chats_seen == 0 and position <= _READ_BYTES:
        return (
            f"{name} is not JSON ({reason}); Telegram Desktop's export must be made "
            "in the 'Machine-readable JSON' format"
        )
    return f"{name}: invalid JSON at or before byte {position}, {cursor.describe()}: {reason}"


def _public_handle(ref: str | None) -> str | None:
    if ref is None:
        return None
    parsed = parse_ref(ref)
    if parsed.handle is None or parsed.message_id is not None:
        raise InvalidRequest(
            f"a ref (--ref) must name a public source by its handle (@handle), not {ref!r}",
            field="ref",
        )
    return parsed.handle


def import_export(
    store: MessageStore,
    path: str | Path,
    *,
    ref: str | None = None,
    progress: bool = False,
    batch_size: int = 1000,
) -> ImportReport:
    """Import a Telegram Desktop JSON export (``result.json``) into ``store``.

    Args:
        store: the message store to write to.
        path: the export file (a single-chat or a full-account export).
        ref: the public handle of the exported chat (``"@handle"``, ``"t.me/handle"``);
            only for a single-chat export.
        progress: show a progress bar over the file's bytes.
        batch_size: messages per upsert batch (all batches share one transaction).

    Returns:
        An ``ImportReport`` with each source and what changed in it.

    Raises:
        ImportFormatError: the file is not JSON, not an export, truncated, or has a
            malformed message; the store is left unchanged.
        InvalidRequest: ``ref`` is not a public handle, or is given with a full-account
            export; the file cannot be read.
        InvalidSourceRef: ``ref`` cannot be parsed.
    """
    handle = _public_handle(ref)
    path = Path(path)
    try:
        size = path.stat().st_size
        raw = path.open("rb")
    except OSError as exc:
        raise InvalidRequest(f"cannot read {path}: {exc.strerror or exc}", field="path") from exc
    importer = _Importer(store, file_name=path.name, handle=handle, batch_size=batch_size)
    cursor = Cursor()
    bar = tqdm(
        total=size,
        unit="B",
        unit_scale=True,
        unit_divisor=1024,
        desc=f"import {path.name}",
        disable=not progress,
    )
    with raw, bar, store.transaction():
        reader = _ByteCounter(raw, bar)
        events = ijson.parse(reader, buf_size=_READ_BYTES, use_float=True)
        try:
            for item in walk(events, cursor):
                importer.take(item)
        except ijson.JSONError as exc:
            message = _json_error(path.name, cursor, reader.position, size, exc)
            raise ImportFormatError(message, file=path.name, position=reader.position) from None
        except ValueError as exc:
            where = (
                "" if cursor.chat is None and not cursor.chats_seen else f" {cursor.describe()}:"
            )
            raise ImportFormatError(f"{path.name}:{where} {exc}", file=path.name) from None
    return importer.report(path)
