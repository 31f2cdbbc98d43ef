"""Import a Telegram Desktop export into a ``MessageStore`` (``mlens import FILE``).

JSON exports are read here; HTML exports (the exporter's default) by
``export_html_import``, which feeds the same ``Importer``; a ``.zip`` of either is read in
place (``export_archive``: refused whole when unsafe).

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
``date_unixtime`` are named in the report (``ImportReport.line()``), and so are texts
whose control characters or lone surrogates were cleaned (``toolkit.controls``: the
same characters reach SQLite and PostgreSQL). A file that is not UTF-8 is refused with
the offset of its first bad byte; one re-saved as UTF-8 with a byte-order mark, or as
UTF-16 or UTF-32, is decoded as such (``export_encoding``) and the report says so.
"""

from __future__ import annotations

import dataclasses
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import tzinfo
from functools import partial
from pathlib import Path, PurePosixPath
from typing import IO, Any

import ijson
from tqdm import tqdm

from toolkit.errors import (
    ImportFormatError,
    InvalidRequest,
    StoreError,
    StoreFull,
    is_disk_full,
)
from toolkit.ingest.export.archive import is_archive, open_archive
from toolkit.ingest.export.encoding import decoded
from toolkit.ingest.export.errors import READ_BYTES, ByteCounter, import_bar, json_error
from toolkit.ingest.export.file import open_export
from toolkit.ingest.export.html.chats import HtmlChat, archive_chats, folder_chats
from toolkit.ingest.export.html.identity import html_target
from toolkit.ingest.export.html.importer import import_html_chats
from toolkit.ingest.export.html.page import page_number
from toolkit.ingest.export.importer import Importer
from toolkit.ingest.export.json.stream import (
    Cursor,
    walk,
)
from toolkit.ingest.export.limits import export_events
from toolkit.ingest.export.report import (
    ImportReport,
)
from toolkit.ingest.export.times import zone
from toolkit.refs import parse_ref
from toolkit.store.base import ImportSink, MessageStore
from toolkit.zones import settle_zone


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


def _read(
    importer: Importer,
    events: Iterator[tuple[str, str, Any]],
    cursor: Cursor,
    path: Path,
    reader: ByteCounter,
    size: int,
) -> None:
    """Feed the export's walked items to ``importer``; a malformed file is an
    ``ImportFormatError`` saying where it broke."""
    try:
        for item in walk(events, cursor):
            importer.take(item)
    except ijson.JSONError as exc:
        message = json_error(path, cursor, reader.position, size, exc)
        raise ImportFormatError(message, file=path.name, position=reader.position) from None
    except ValueError as exc:
        where = "" if cursor.chat is None and not cursor.chats_seen else f" {cursor.describe()}:"
        raise ImportFormatError(f"{path.name}:{where} {exc}", file=path.name) from None


def import_export(
    store: MessageStore,
    path: str | Path,
    *,
    ref: str | None = None,
    progress: bool = False,
    batch_size: int = 1000,
    timezone: str | tzinfo | None = None,
) -> ImportReport:
    """Import a Telegram Desktop export into ``store``: JSON, HTML, or a ``.zip`` of either.

    Args:
        store: the message store to write to.
        path: the export: a JSON export's ``result.json`` (a single-chat or a
            full-account export); an HTML export's folder or any of its
            ``messages*.html`` pages (every page of the chat is read, in order); a
            full-account export's folder; or a ``.zip`` of any of these.
        ref: the exported chat as the messenger knows it: its public handle
            (``"@handle"``, ``"t.me/handle"``), or for an HTML export (which carries no
            chat id) also ``"c/<id>"``; only for a single-chat export.
        progress: show a progress bar over the file's bytes.
        batch_size: messages per upsert batch (all batches land together).
        timezone: the zone (an IANA name such as ``"Europe/Moscow"``, or an offset such
            as ``"+03:00"``) in which the exporting machine wrote dates that lack
            ``date_unixtime`` (older JSON exports) or a UTC offset (older HTML exports);
            without it their offset is learned from messages that have both, or they are
            read as UTC and the report says how many. It is also recorded as each
            imported source's own zone (``Source.timezone``); without it the exporter's
            most common offset is.

    Returns:
        An ``ImportReport`` with each source and what changed in it.

    Raises:
        ImportFormatError: the file is not JSON, not an export, truncated, or has a
            malformed message; the store is left unchanged.
        StoreFull: the disk of the store or of the import's staging file filled up; the
            store is left unchanged and the staging file removed.
        InvalidRequest: ``ref`` is not a public handle, or is given with a full-account
            export; the file cannot be read, or is a named pipe or a device (refused at
            once, never waited on); a folder holds no export; an archive is unsafe (a
            member outside it, a symbolic link, a zip bomb); ``timezone`` is unknown.
        InvalidSourceRef: ``ref`` cannot be parsed.
    """
    tz = zone(timezone) if isinstance(timezone, str) or timezone is None else timezone
    path = Path(path)
    if is_archive(path):
        return _import_archive(
            store, path, ref=ref, progress=progress, batch_size=batch_size, tz=tz
        )
    if path.is_dir() and (path / "result.json").is_file():
        path = path / "result.json"  # a JSON export (or both formats: JSON carries more)
    if path.is_dir() or (path.is_file() and page_number(path.name) is not None):
        return _import_html(store, path, folder_chats(path), ref, progress, batch_size, tz)
    handle = _public_handle(ref)
    raw, size = open_export(path)  # a pipe, a device or a folder: one line, at once
    with raw:
        return _import_json(store, raw, size, path, handle, progress, batch_size, tz)


def _import_html(
    store: MessageStore,
    path: Path,
    chats: list[HtmlChat],
    ref: str | None,
    progress: bool,
    batch_size: int,
    tz: tzinfo | None,
) -> ImportReport:
    """Import the chats of an HTML export (a folder's or an archive's) through the JSON
    path's guarded importer."""
    target = html_target(store, ref)
    return _guarded(
        path,
        lambda sink: import_html_chats(
            sink, chats, path=path, target=target, progress=progress, batch_size=batch_size, tz=tz
        ),
        store,
        progress,
    )


def _guarded(
    path: Path,
    run: Callable[[ImportSink], Callable[[], ImportReport]],
    store: MessageStore,
    progress: bool,
) -> ImportReport:
    """``run`` inside the store's import staging, then its report once all landed; a
    full disk is ``StoreFull``."""
    with _full_disk_refused(path), store.staging(on_wait=tqdm.write if progress else None) as sink:
        report = run(sink)
    return _with_zones(store, report())


def _with_zones(store: MessageStore, report: ImportReport) -> ImportReport:
    """The report once each imported source's zone is settled over all its stored
    messages, the new ones included (``toolkit.zones``: set > inferred > export)."""
    sources = tuple(
        dataclasses.replace(s, source=settle_zone(store, s.source)) for s in report.sources
    )
    return dataclasses.replace(report, sources=sources)


@contextmanager
def _full_disk_refused(path: Path) -> Iterator[None]:
    """A full disk inside the block (the store's or its temporary files') as ``StoreFull``
    naming ``path``; every other error as it is."""
    try:
        yield
    except (OSError, StoreError) as exc:
        if not is_disk_full(exc):
            raise
        raise StoreFull(
            f"{path.name}: no space left on the disk of the store or of its temporary files; "
            "nothing was imported and the store is unchanged: free some space and import again"
        ) from exc


def _import_json(
    store: MessageStore,
    raw: IO[bytes],
    size: int,
    path: Path,
    handle: str | None,
    progress: bool,
    batch_size: int,
    tz: tzinfo | None,
) -> ImportReport:
    """Import a JSON export read from ``raw`` (``size`` bytes, named ``path``)."""
    cursor = Cursor()
    bar = import_bar(path, size, progress=progress)
    with (
        _full_disk_refused(path),
        bar,
        store.staging(on_wait=bar.write if progress else None) as sink,
    ):
        importer = Importer(sink, file_name=path.name, handle=handle, batch_size=batch_size, tz=tz)
        reader = ByteCounter(raw, bar)
        text = decoded(reader)
        _read(importer, export_events(text, buf_size=READ_BYTES), cursor, path, reader, size)
        importer.finish()
    report = importer.report(path)
    if text.note is not None:
        report = dataclasses.replace(report, notes=(text.note, *report.notes))
    return _with_zones(store, report)


def _import_archive(
    store: MessageStore,
    path: Path,
    *,
    ref: str | None,
    progress: bool,
    batch_size: int,
    tz: tzinfo | None,
) -> ImportReport:
    """Import the JSON or HTML export inside the zip archive at ``path``."""
    archive = open_archive(path)
    with archive:
        members = {i.filename: i for i in archive.infolist() if not i.is_dir()}
        jsons = sorted(
            (n for n in members if PurePosixPath(n).name == "result.json"),
            key=lambda n: (n.count("/"), n),
        )
        openers = {
            name: (info.file_size, partial(archive.open, info))
            for name, info in members.items()
            if page_number(PurePosixPath(name).name) is not None
        }
        if openers and not jsons:  # both formats in one export: JSON (below) carries more
            listing = next((i for n, i in members.items() if n.endswith("lists/chats.html")), None)
            chats = archive_chats(openers, partial(archive.open, listing) if listing else None)
            return _import_html(store, path, chats, ref, progress, batch_size, tz)
        if not jsons:
            raise InvalidRequest(
                f"cannot import {path.name}: the archive holds no result.json (a JSON "
                "export) and no messages.html (an HTML export)",
                field="path",
            )
        handle = _public_handle(ref)
        info = members[jsons[0]]
        with archive.open(info) as raw:
            try:
                return _import_json(
                    store, raw, info.file_size, path, handle, progress, batch_size, tz
                )
            except zipfile.BadZipFile as exc:
                raise ImportFormatError(f"{path.name}: {info.filename}: {exc}") from None
