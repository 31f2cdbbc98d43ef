"""Summaries by the bundled local model: what a newcomer's ``make llm`` gives, timed.

Starts the local llama.cpp server (``benchmarks.llama_server``: SmolLM2-135M-Instruct,
``--n_ctx 8192``) and, on a fresh store with the demo sources, times through the
Workspace (what every face calls) with the summary cache off:

- a chat summary of a 4-hour demo window (issue 18's target: ≤ 60 s),
- the same window in Russian (a cross-language summary),
- a one-day window of the Russian channel,
- a source summary of the English chat (its default 500 messages, sampled).

Then the hybrid engine (issue 29: the offline digest, its lines rewritten by the model
in small requests) on a one-day window of the English chat (target: ≤ 20 s) and on a
week, both written in Russian (the model translates what the offline lines quote), and
the share of the model's rewrites the grounding check kept.

Each row gives the seconds and whether the answer came back (it always should: an
unusable answer is an error, not a row). Without the ``[llm-local]`` extra the rows say
why they were skipped. ``python -m benchmarks.bench_llm`` runs them alone
(``--hybrid``: the hybrid rows only; ``--write`` puts them into
``docs/results/bench.json``); ``make bench`` adds them to its table.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from benchmarks.llama_server import MODEL, LlamaServer, missing
from toolkit.config import Settings
from toolkit.requests import summary_request
from toolkit.workspace import Workspace

TARGET_4H_SECONDS = 60.0
WINDOW_4H = (datetime(2026, 10, 15, 0, 0, tzinfo=UTC), datetime(2026, 10, 15, 4, 0, tzinfo=UTC))
CHANNEL_DAY = (datetime(2026, 10, 10, tzinfo=UTC), datetime(2026, 10, 11, tzinfo=UTC))

Row = tuple[str, str, str, bool | None]

DUMP = (
    Path(sys.argv[sys.argv.index("--dump") + 1])
    if "--dump" in sys.argv[:-1] and __name__ == "__main__"
    else None
)
HYBRID_ROWS = "local model: hybrid"
TARGET_HYBRID_DAY_SECONDS = 20.0
HYBRID_DAY = (datetime(2026, 10, 20, tzinfo=UTC), datetime(2026, 10, 21, tzinfo=UTC))
HYBRID_WEEK = (datetime(2026, 10, 20, tzinfo=UTC), datetime(2026, 10, 27, tzinfo=UTC))
HYBRID_CASES: tuple[tuple[str, tuple[datetime, datetime], float | None], ...] = (
    ("hybrid digest of a one-day demo window (English chat, in Russian)", HYBRID_DAY,
     TARGET_HYBRID_DAY_SECONDS),
    ("hybrid digest of a week (English chat, in Russian)", HYBRID_WEEK, None),
)  # fmt: skip

CASES: tuple[tuple[str, str, tuple[datetime, datetime] | None, str, float | None], ...] = (
    ("chat summary, 4-hour demo window (140 messages)", "@mlens_demo_en", WINDOW_4H, "en",
     TARGET_4H_SECONDS),
    ("  the same window in Russian", "@mlens_demo_en", WINDOW_4H, "ru", None),
    ("channel summary, one day of the Russian demo channel", "@mlens_demo_ru", CHANNEL_DAY,
     "en", None),
    ("source summary, English demo chat (500 messages, sampled)", "@mlens_demo_en", None,
     "en", None),
)  # fmt: skip


def llm_rows(*, cases: bool = True) -> list[Row]:
    """The rows of the local model's summaries (one skipped row without the extra);
    ``cases=False``: the hybrid engine's rows only (``--hybrid``)."""
    reason = missing()
    if reason is not None:
        return [("summaries by the local model (make llm)", f"skipped: {reason}", "—", None)]
    rows: list[Row] = []
    with LlamaServer() as server, tempfile.TemporaryDirectory(prefix="mlens-llm-") as folder:
        settings = Settings(
            data_dir=Path(folder),
            llm={
                "base_url": server.url,
                "model": MODEL,
                "timeout": 300.0,  # a busy shared machine: a request may take minutes
            },
            summary={"engine": "llm", "cache_max_entries": 0},
            service={"background_embedding": False},
        )
        workspace = Workspace.open(settings=settings)
        try:
            workspace.load_demo(embed=False)
            for name, ref, period, language, target in CASES if cases else ():
                request = summary_request(ref, period=period, language=language)
                started = time.perf_counter()
                summary = workspace.summarize(request)
                seconds = time.perf_counter() - started
                result = f"{seconds:.1f} s ({len(summary.sections)} sections, {summary.engine})"
                if target is None:
                    rows.append((f"local model: {name}", result, "—", None))
                else:
                    ok = seconds <= target
                    rows.append((f"local model: {name}", result, f"≤ {target:.0f} s", ok))
            rows += hybrid_rows(workspace)
        finally:
            workspace.close()
    return rows


def hybrid_rows(workspace: Workspace) -> list[Row]:
    """The hybrid engine's rows (``HYBRID_CASES``) and the share of rewrites kept."""
    rows: list[Row] = []
    kept = dropped = rewritten = offline = 0
    for name, period, target in HYBRID_CASES:
        request = summary_request("@mlens_demo_en", period=period, language="ru", engine="hybrid")
        started = time.perf_counter()
        summary = workspace.summarize(request)
        seconds = time.perf_counter() - started
        if DUMP is not None:  # --dump DIR: the digests as a reader sees them
            DUMP.mkdir(parents=True, exist_ok=True)
            record = dataclasses.asdict(summary) | {"seconds": round(seconds, 1)}
            out = DUMP / f"hybrid-{period[0]:%m%d}-{period[1]:%m%d}.json"
            out.write_text(json.dumps(record, ensure_ascii=False, indent=1), encoding="utf-8")
        kept, dropped = kept + summary.items_rewritten, dropped + summary.items_dropped
        rewritten, offline = rewritten + summary.items_rewritten, offline + summary.items_offline
        result = (
            f"{seconds:.1f} s ({len(summary.sections)} sections, {summary.items_rewritten} "
            f"lines rewritten, {summary.items_dropped} rejected, {summary.engine})"
        )
        verdict = (f"≤ {target:.0f} s", seconds <= target) if target else ("—", None)
        rows.append((f"local model: {name}", result, *verdict))
    checked = kept + dropped
    share = f"{kept / checked:.0%}" if checked else "—"
    rows.append(
        (
            "local model: hybrid rewrites kept by the grounding check",
            f"{share} ({kept} of {checked}; {offline} of {offline + rewritten} lines offline)",
            "—",
            None,
        )
    )
    return rows


def write_rows(rows: list[Row], *, load_before: float) -> Path:
    """Put ``rows`` in place of the local-model rows of ``docs/results/bench.json``, with
    this run's date and load average (the rest of the file keeps its own)."""
    from benchmarks.results import BENCH_RESULTS, load_average

    document = json.loads(BENCH_RESULTS.read_text(encoding="utf-8"))
    hybrid_only = all(n.startswith(HYBRID_ROWS) for n, *_ in rows)
    before = document.get("local_model") or {"command": document.get("command", "make bench")}
    command = "python -m benchmarks.bench_llm --write"
    if hybrid_only:
        command = (
            "python -m benchmarks.bench_llm --hybrid --write (the hybrid rows; the others: "
            f"{before['command'].split(' (')[0]}, {before.get('date', document.get('date'))})"
        )
    document["local_model"] = {
        "command": command,
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "load_average": {"start": load_before, "end": load_average()},
    }
    replaced = HYBRID_ROWS if hybrid_only else "local model:"
    kept = [r for r in document["rows"] if not r["measurement"].startswith(replaced)]
    new = [{"measurement": n, "result": r, "target": t, "ok": ok} for n, r, t, ok in rows]
    document["rows"] = kept + new
    BENCH_RESULTS.write_text(json.dumps(document, ensure_ascii=False, indent=1) + "\n")
    return BENCH_RESULTS


if __name__ == "__main__":
    from benchmarks.results import load_average

    load_before = load_average()
    measured = llm_rows(cases="--hybrid" not in sys.argv[1:])
    for row in measured:
        print(" | ".join(str(cell) for cell in row))
    if "--write" in sys.argv[1:]:
        written = write_rows(measured, load_before=load_before)
        print(f"wrote {written}; `python scripts/gen_docs.py` puts it into the docs")
