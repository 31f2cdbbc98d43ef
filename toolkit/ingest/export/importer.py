"""The state of one export import: chats opened and closed, messages checked and batched
into the import sink, and the report (``ImportReport``) they add up to."""

from __future__ import annotations

from collections import Counter
from datetime import tzinfo
from pathlib import Path
from typing import Any

from toolkit.errors import ImportFormatError, InvalidRequest
from toolkit.ingest.export.json.messages import (
    NO_HANDLE_TYPES,
    UNNAMED_TITLES,
    ChatContext,
    chat_title,
    source_kind,
    to_message,
)
from toolkit.ingest.export.json.stream import (
    ChatClosed,
    ChatHeader,
    ChatOpened,
    ExportedMessage,
    Item,
    chat_label,
)
from toolkit.ingest.export.report import (
    SKIP_DATE,
    SKIP_DUPLICATE,
    SKIP_UNSUPPORTED,
    ImportedSource,
    ImportReport,
    SeenIds,
)
from toolkit.ingest.export.times import ImpossibleDate, LocalTimes
from toolkit.models import Message, Source, UpsertResult
from toolkit.store.base import ImportSink
from toolkit.store.rows import source_fields


def _messages(count: int) -> str:
    return f"{count} message" if count == 1 else f"{count} messages"


def _kept_times(result: UpsertResult, source: Source) -> tuple[str, ...]:
    """The note on stored messages that came again with another posting time."""
    if not result.times_kept:
        return ()
    return (
        f"{_messages(result.times_kept)} of {source.key} came with another posting time "
        "than stored (another file's offset or --timezone): the stored time was kept",
    )


class Importer:
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
        self._records: Counter[int] = Counter()
        """Message records given per source (``message``): what a JSON export holds."""
        self._blocks: dict[int, int] = {}
        self._warnings: dict[int, list[str]] = {}
        """Message blocks a reader counted in its files per source (the HTML reader)."""

    def use_handle(self, handle: str | None) -> None:
        """The public handle of the chats opened from now on (an account export's chat
        named by its own ref)."""
        self._handle = handle

    def take(self, item: Item) -> None:
        """Take one walked item: a chat opened, one of its messages, the chat closed."""
        if isinstance(item, ExportedMessage):  # nearly every item
            self.message(item.chat, item.index, item.data)
        elif isinstance(item, ChatOpened):
            if self._handle is not None and item.chat.in_account_export:
                raise InvalidRequest(
                    "a ref (--ref) names one source, but a full-account export holds "
                    "every chat; import it without one",
                    field="ref",
                )
            self._check_ref(item.chat)
            self._open(item.chat)
            assert item.chat.id is not None
            self._chat = ChatContext(item.chat.id, item.chat.type, times=self.times)
            self._seen = SeenIds()
        elif isinstance(item, ChatClosed):
            self._check_ref(item.chat)  # the type may follow the messages
            self._flush()
            self._close(item.chat)

    def _check_ref(self, chat: ChatHeader) -> None:
        """Refuse a ``--ref`` handle that the export's own chat type contradicts."""
        if self._handle is None or chat.type not in NO_HANDLE_TYPES:
            return
        raise InvalidRequest(
            f"--ref @{self._handle} names a public source, but {self._file} is the export of "
            f"{chat_label(chat)}, a {str(chat.type).replace('_', ' ')}, which has no public "
            "handle; import it without --ref",
            field="ref",
        )

    def _check_stored(self, chat: ChatHeader, source: Source) -> None:
        """Refuse a ``--ref`` handle that the store knows as another chat's, or a chat the
        store knows under another handle."""
        if self._handle is None:
            return
        if source.internal_id is not None and source.internal_id != chat.id:
            raise InvalidRequest(
                f"--ref @{self._handle} names another chat in the store (id "
                f"{source.internal_id}), not {chat_label(chat)} of {self._file}",
                field="ref",
            )
        if source.handle is not None and source.handle != self._handle:
            raise InvalidRequest(
                f"--ref @{self._handle} contradicts the store: {chat_label(chat)} of "
                f"{self._file} is stored as @{source.handle}",
                field="ref",
            )

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
        if ctx.cleaned:
            notes.append(
                f"{_messages(ctx.cleaned)} of {source.key} held control characters or broken "
                "UTF-16 (lone surrogates): removed, or replaced by U+FFFD"
            )
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
        self._check_stored(chat, self._source)
        self._sources[self._source.id] = self._source
        self._results.setdefault(self._source.id, UpsertResult())
        self._skipped.setdefault(self._source.id, Counter())
        self._notes.setdefault(self._source.id, [])

    def message(self, chat: ChatHeader, index: int, data: Any) -> None:
        """Take the message object ``data``, the ``index``-th (from 0) of the open chat
        ``chat``: what ``take`` does with an ``ExportedMessage``, for a reader that
        need not build one for each message (the HTML reader)."""
        source, ctx = self._source, self._chat
        assert source is not None
        assert ctx is not None
        self._records[source.id] += 1
        mid = data.get("id") if isinstance(data, dict) else None
        if isinstance(mid, int) and not isinstance(mid, bool) and not self._seen.add(mid):
            self._skipped[source.id][SKIP_DUPLICATE] += 1
            return
        try:
            message = to_message(data, source_id=source.id, chat=ctx)
        except ImpossibleDate:
            self._skipped[source.id][SKIP_DATE] += 1
            return
        except ValueError as exc:
            raise ImportFormatError(
                f"{self._file}: in {chat_label(chat)}, message #{index + 1} (id {mid}): {exc}",
                file=self._file,
                message_index=index,
                message_id=mid,
            ) from None
        if message is None:
            self._skipped[source.id][SKIP_UNSUPPORTED] += 1
            return
        pending = self._pending
        pending.append(message)
        if len(pending) >= self._batch_size:
            self._flush()

    def blocks(
        self,
        seen: int,
        skipped: dict[str, int],
        notes: list[str],
        warnings: tuple[str, ...] = (),
    ) -> None:
        """Count, for the open chat, the message blocks its files hold (``seen``: all of
        them, those given to ``message`` included) and those never given, by reason, named
        in ``notes``: the report then balances blocks, not records. ``warnings``: what
        else of the chat may be lost (a page missing from its set)."""
        source = self._source
        assert source is not None
        self._blocks[source.id] = self._blocks.get(source.id, 0) + seen
        self._skipped[source.id].update({k: n for k, n in skipped.items() if n})
        self._notes[source.id].extend(notes)
        self._warnings.setdefault(source.id, []).extend(warnings)

    def finish(self) -> None:
        """Record the export's zone for each source once the whole file is read: the zone
        the user named, else the exporter's most common offset (``LocalTimes.source_zone``),
        unless the source has a stronger one (set by the user, or inferred from its
        people's activity: ``toolkit.zones``, once the import has landed)."""
        for sid, source in self._sources.items():
            if source.timezone_origin in ("set", "inferred"):
                continue
            zone = self.times.source_zone(source.timezone)
            if zone is not None and zone != source.timezone:
                fields = source_fields(source)
                fields["timezone"], fields["timezone_origin"] = zone, "export"
                self._sources[sid] = self._store.upsert_source(**fields)

    def _flush(self) -> None:
        if self._pending and self._source is not None:
            result = self._store.upsert_messages(self._pending)
            self._results[self._source.id] += result
            self._pending = []

    def report(self, path: Path) -> ImportReport:
        """What the import did, per source: counts, skips by reason, notes."""
        return ImportReport(
            path=path,
            sources=tuple(
                ImportedSource(
                    self._store.final(source),
                    self._results[sid],
                    dict(self._skipped[sid]),
                    (*self._notes[sid], *_kept_times(self._results[sid], source)),
                    seen=self._blocks.get(sid, self._records[sid]),
                    unit="block" if sid in self._blocks else "record",
                    lost=tuple(self._warnings.get(sid, ())),
                )
                for sid, source in self._sources.items()
            ),
            notes=tuple(self.times.notes()),
        )
