"""Import a Telegram Desktop JSON export into a ``MessageStore`` (``mlens import FILE``).

Both export shapes are read (a single chat, or a full account whose every chat is
imported). The file is streamed with ijson, one message object at a time, so a 1 GB
export needs no 1 GB of Python objects, and nesting or strings beyond sane limits are
refused before anything is built (``export_stream``). Messages go in batches to the
store's import sink (``MessageStore.staging``): staged aside while the file is read and
published together at the end, so a truncated or malformed file raises
``ImportFormatError`` saying where it broke and the store is left exactly as it was,
while other readers and writers never wait for the whole file. Upserts are idempotent, so
importing the same file again changes nothing.

An export carries a chat's numeric id but not its public handle. ``ref="@handle"``
names the source as public (its links then use the handle); without it the source is
known as ``t.me/c/<id>``.

Doubtful input is refused or reported, never silently changed: a second message with
an id already seen in the chat, or with an impossible date, is skipped and counted by
reason; a chat without a name, ``null`` texts, numeric sender ids and dates without
``date_unixtime`` are named in the report (``ImportReport.line()``). A file that is not
UTF-8 is refused with the offset of its first bad byte.
"""

from __future__ import annotations

from collections import Counter
from datetime import tzinfo
from pathlib import Path

import ijson
from tqdm import tqdm

from toolkit.errors import ImportFormatError, InvalidRequest
from toolkit.ingest.export_errors import READ_BYTES, ByteCounter, json_error
from toolkit.ingest.export_limits import export_events
from toolkit.ingest.export_messages import (
    UNNAMED_TITLES,
    ChatContext,
    chat_title,
    source_kind,
    to_message,
)
from toolkit.ingest.export_report import (
    SKIP_DATE,
    SKIP_DUPLICATE,
    SKIP_UNSUPPORTED,
    ImportedSource,
    ImportReport,
    SeenIds,
)
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
from toolkit.ingest.export_times import ImpossibleDate, LocalTimes, zone
from toolkit.models import Message, Source, UpsertResult
from toolkit.refs import parse_ref
from toolkit.store.base import ImportSink, MessageStore


def _messages(count: int) -> str:
    return f"{count} message" if count == 1 else f"{count} messages"


class _Importer:
    """Consumes walked items: creates sources, converts messages, upserts in batches."""

    def __init__(
        self,
        store: ImportSink,
        *,
        file_name: str,
        handle: str | None,
        batch_size: int,
        tz: tzinfo | None = None,
    ) -> None:
        self._store = store
        self._file = file_name
        self._handle = handle
        self._batch_size = batch_size
        self.times = LocalTimes(tz=tz)
        self._pending: list[Message] = []
        self._source: Source | None = None
        self._chat: ChatContext | None = None
        self._seen = SeenIds()
        self._sources: dict[int, Source] = {}
        self._results: dict[int, UpsertResult] = {}
        self._skipped: dict[int, Counter[str]] = {}
        self._notes: dict[int, list[str]] = {}

    def take(self, item: Item) -> None:
        if isinstance(item, ChatOpened):
            if self._handle is not None and item.chat.in_account_export:
                raise InvalidRequest(
                    "a ref (--ref) names one source, but a full-account export holds "
                    "every chat; import it without one",
                    field="ref",
                )
            self._open(item.chat)
            assert item.chat.id is not None
            self._chat = ChatContext(item.chat.id, item.chat.type, times=self.times)
            self._seen = SeenIds()
        elif isinstance(item, ExportedMessage):
            self._message(item)
        elif isinstance(item, ChatClosed):
            self._flush()
            self._close(item.chat)

    def _close(self, chat: ChatHeader) -> None:
        source, ctx = self._source, self._chat
        assert source is not None
        assert ctx is not None
        assert chat.id is not None
        # Name and type may follow the messages (sorted keys): settle them now.
        if (source.title, source.kind, source.chat_type) != (
            chat_title(chat.name, chat.type, chat.id),
            source_kind(chat.type),
            chat.type,
        ):
            self._open(chat)
            assert self._source is not None
            source = self._source
        self._store.upsert_topics(source.id, ctx.topics.titles.items())
        notes = self._notes[source.id]
        if not chat.name and chat.type not in UNNAMED_TITLES:
            notes.append(f"chat {chat.id} has no name: titled {source.title!r}")
        if ctx.null_texts:
            notes.append(f"{_messages(ctx.null_texts)} of {source.key} had a null text")
        if ctx.numeric_senders:
            notes.append(
                f"{_messages(ctx.numeric_senders)} of {source.key} gave a bare number as "
                "sender (older export): read as user<id>, or channel<id> for the channel itself"
            )
        self._source = self._chat = None

    def _open(self, chat: ChatHeader) -> None:
        assert chat.id is not None
        self._source = self._store.upsert_source(
            title=chat_title(chat.name, chat.type, chat.id),
            kind=source_kind(chat.type),
            internal_id=chat.id,
            handle=self._handle,
            chat_type=chat.type,
        )
        self._sources[self._source.id] = self._source
        self._results.setdefault(self._source.id, UpsertResult())
        self._skipped.setdefault(self._source.id, Counter())
        self._notes.setdefault(self._source.id, [])

    def _message(self, item: ExportedMessage) -> None:
        assert self._source is not None
        assert self._chat is not None
        skipped = self._skipped[self._source.id]
        mid = item.data.get("id") if isinstance(item.data, dict) else None
        if isinstance(mid, int) and not isinstance(mid, bool) and not self._seen.add(mid):
            skipped[SKIP_DUPLICATE] += 1
            return
        try:
            message = to_message(item.data, source_id=self._source.id, chat=self._chat)
        except ImpossibleDate:
            skipped[SKIP_DATE] += 1
            return
        except ValueError as exc:
            raise ImportFormatError(
                f"{self._file}: in {chat_label(item.chat)}, message #{item.index + 1} "
                f"(id {mid}): {exc}",
                file=self._file,
                message_index=item.index,
                message_id=mid,
            ) from None
        if message is None:
            skipped[SKIP_UNSUPPORTED] += 1
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
                ImportedSource(
                    self._store.final(source),
                    self._results[sid],
                    dict(self._skipped[sid]),
                    tuple(self._notes[sid]),
                )
                for sid, source in self._sources.items()
            ),
            notes=tuple(self.times.notes()),
        )


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
    timezone: str | tzinfo | None = None,
) -> ImportReport:
    """Import a Telegram Desktop JSON export (``result.json``) into ``store``.

    Args:
        store: the message store to write to.
        path: the export file (a single-chat or a full-account export).
        ref: the public handle of the exported chat (``"@handle"``, ``"t.me/handle"``);
            only for a single-chat export.
        progress: show a progress bar over the file's bytes.
        batch_size: messages per upsert batch (all batches land together).
        timezone: the zone (an IANA name such as ``"Europe/Moscow"``) in which the
            exporting machine wrote dates that lack ``date_unixtime`` (older exports);
            without it their offset is learned from messages that have both fields,
            or they are read as UTC and the report says how many.

    Returns:
        An ``ImportReport`` with each source and what changed in it.

    Raises:
        ImportFormatError: the file is not JSON, not an export, truncated, or has a
            malformed message; the store is left unchanged.
        InvalidRequest: ``ref`` is not a public handle, or is given with a full-account
            export; the file cannot be read; ``timezone`` is unknown.
        InvalidSourceRef: ``ref`` cannot be parsed.
    """
    handle = _public_handle(ref)
    tz = zone(timezone) if isinstance(timezone, str) or timezone is None else timezone
    path = Path(path)
    try:
        size = path.stat().st_size
        raw = path.open("rb")
    except OSError as exc:
        raise InvalidRequest(f"cannot read {path}: {exc.strerror or exc}", field="path") from exc
    cursor = Cursor()
    bar = tqdm(
        total=size,
        unit="B",
        unit_scale=True,
        unit_divisor=1024,
        desc=f"import {path.name}",
        disable=not progress,
    )
    with raw, bar, store.staging(on_wait=bar.write if progress else None) as sink:
        importer = _Importer(sink, file_name=path.name, handle=handle, batch_size=batch_size, tz=tz)
        reader = ByteCounter(raw, bar)
        events = export_events(reader, buf_size=READ_BYTES)
        try:
            for item in walk(events, cursor):
                importer.take(item)
        except ijson.JSONError as exc:
            message = json_error(path, cursor, reader.position, size, exc)
            raise ImportFormatError(message, file=path.name, position=reader.position) from None
        except ValueError as exc:
            where = (
                "" if cursor.chat is None and not cursor.chats_seen else f" {cursor.describe()}:"
            )
            raise ImportFormatError(f"{path.name}:{where} {exc}", file=path.name) from None
    return importer.report(path)
