"""How fast an HTML export imports (``make bench``, the HTML line), and in what memory.

A synthetic Telegram Desktop HTML export (``synthetic_html``: the exporter's pages of
1,000 messages, joined messages, replies into earlier pages, reactions, service
messages, English, Russian and Ukrainian text, a ``+03:00`` offset) of ``MESSAGES``
messages is imported into a fresh SQLite store as ``mlens import FOLDER`` does
(``import_export``, no embedding): messages per second, best of ``RUNS``, beside the
same chat's JSON export imported the same way (their ratio holds on a busy machine,
where both slow down alike). Memory is
bounded when the import's peak of Python allocations (``tracemalloc``, a separate run)
does not grow with the export: it is measured for ``MESSAGES`` and for four times as
many, and must stay within ``MEMORY_GROWTH`` of the smaller one.

``python -m benchmarks.bench_html`` runs it alone and prints the import report.
"""

from __future__ import annotations

import json
import tempfile
import time
import tracemalloc
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from benchmarks.synthetic_html import write_html
from toolkit.ingest.export.read import import_export
from toolkit.ingest.export.report import ImportReport
from toolkit.store import SQLiteStore

MESSAGES = 10_000
TARGET = 20_000.0  # messages/s
MEMORY_GROWTH = 1.5  # the peak for 4× the messages, at most this many times the peak
RUNS = 3
_T0 = datetime(2024, 1, 8, 6, 0, tzinfo=UTC)
_OFFSET = timedelta(hours=3)
_PEOPLE = [("Anna Lee", "user1"), ("Олег Петренко", "user2"), ("Тарас Шевчук", "user3")]
_TEXTS = [
    "The build for release {n} is green, please review the notes.",
    "Сборка {n} прошла, завтра выкатываем на сервер.",
    "Перевірю реліз {n} ввечері й напишу сюди.",
    "Lunch at noon? The usual place, table {n}.",
]


def synthetic_chat(count: int) -> dict[str, Any]:
    """A JSON-shaped supergroup of ``count`` messages (services every 500)."""
    messages: list[dict[str, Any]] = []
    for n in range(1, count + 1):
        moment = _T0 + timedelta(seconds=40 * n)
        who = _PEOPLE[(n // 3) % 3]
        raw: dict[str, Any] = {
            "id": n,
            "date": (moment + _OFFSET).replace(tzinfo=None).isoformat(),
            "date_unixtime": str(int(moment.timestamp())),
        }
        if n % 500 == 0:
            raw |= {"type": "service", "actor": who[0], "action": "invite_members"}
            raw["members"] = ["Mike"]
        else:
            raw |= {"type": "message", "from": who[0], "from_id": who[1]}
            raw["text"] = _TEXTS[n % 4].format(n=n)
            if n % 7 == 3:
                raw["reply_to_message_id"] = max(1, n - 1500)
            if n % 11 == 5:
                raw["reactions"] = [{"type": "emoji", "emoji": "👍", "count": n % 5 + 1}]
        messages.append(raw)
    return {"name": "Release Team", "type": "private_supergroup", "id": 1, "messages": messages}


@dataclass(frozen=True)
class HtmlImport:
    """One measurement: messages, pages, best seconds, peaks of Python memory, report."""

    messages: int
    pages: int
    seconds: float
    peak_bytes: int
    peak_bytes_4x: int
    report: ImportReport
    json_seconds: float
    """The same chat's JSON export, imported the same way (best of the same runs)."""

    @property
    def rate(self) -> float:
        """Messages stored per second."""
        return self.messages / self.seconds


def _import(folder: Path, work: Path, tag: str) -> tuple[float, ImportReport]:
    store = SQLiteStore(work / f"{tag}.sqlite3")
    try:
        started = time.perf_counter()
        report = import_export(store, folder, ref=None if folder.suffix == ".json" else "c/1")
        return time.perf_counter() - started, report
    finally:
        store.close()


def _peak(folder: Path, work: Path, tag: str) -> int:
    tracemalloc.start()
    try:
        _import(folder, work, tag)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def bench_html(messages: int = MESSAGES, runs: int = RUNS) -> HtmlImport:
    """Write the exports, import them, measure (see the module's docstring)."""
    with tempfile.TemporaryDirectory(prefix="mlens-html-") as tmp:
        work = Path(tmp)
        chat = synthetic_chat(messages)
        folder = write_html(work / "ChatExport", chat)
        as_json = work / "result.json"
        as_json.write_text(json.dumps(chat, ensure_ascii=False), encoding="utf-8")
        json_best = min(_import(as_json, work, f"json{i}")[0] for i in range(runs))
        larger = write_html(work / "ChatExport4x", synthetic_chat(4 * messages))
        best, report = min(
            (_import(folder, work, f"run{i}") for i in range(runs)), key=lambda r: r[0]
        )
        return HtmlImport(
            messages=report.total.inserted,
            pages=len(list(folder.glob("messages*.html"))),
            seconds=best,
            peak_bytes=_peak(folder, work, "peak"),
            peak_bytes_4x=_peak(larger, work, "peak4x"),
            report=report,
            json_seconds=json_best,
        )


def html_rows(result: HtmlImport) -> list[tuple[str, str, str, bool | None]]:
    """The ``make bench`` row: rate and memory of the HTML import."""
    mb, mb4 = result.peak_bytes / 1e6, result.peak_bytes_4x / 1e6
    bounded = result.peak_bytes_4x <= MEMORY_GROWTH * result.peak_bytes
    return [
        (
            f"HTML export of {result.messages:,} messages ({result.pages} pages): store",
            f"{result.seconds:.2f} s = {result.rate:,.0f} msg/s (its JSON export: "
            f"{result.messages / result.json_seconds:,.0f} msg/s, "
            f"{result.json_seconds / result.seconds:.2f}×); peak Python memory "
            f"{mb:.1f} MB ({4 * result.messages:,} messages: {mb4:.1f} MB)",
            f"≥ {TARGET:,.0f} msg/s, memory bounded",
            result.rate >= TARGET and bounded,
        )
    ]


def main() -> None:
    """Run the HTML import benchmark alone and print its row and the import report."""
    result = bench_html()
    for name, value, target, ok in html_rows(result):
        print(f"{name}: {value} (target {target}: {'ok' if ok else 'MISSED'})")
    print(result.report.line())


if __name__ == "__main__":
    main()
