"""What the hybrid engine's rewrites by the bundled local model are worth, per language pair.

Three hybrid digests of a demo day, each one run, the summary cache off:

- ``en->ru``: the English demo chat's day, written in Russian (the model translates),
- ``ru->en``: the Russian demo channel's day, written in English,
- ``en->en``: the English demo chat's day in English (the model only rewrites).

For each: the seconds, the lines rewritten (kept by the grounding check), rejected (by
kind of reason) and left offline, and the summary paragraph's sentences kept. With
``--pairs FILE`` the original line, the model's rewrite and the check's verdict are
written there as JSON lines (demo text only; for reading, never for the repository).

``python -m benchmarks.bench_rewrites [--url http://127.0.0.1:PORT/v1] [--only en-ru]``
uses a running server at ``--url`` or starts ``benchmarks.llama_server.LlamaServer``.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks.llama_server import MODEL, LlamaServer, missing
from toolkit.config import Settings
from toolkit.requests import summary_request
from toolkit.workspace import Workspace

DAY_EN = (datetime(2026, 10, 20, tzinfo=UTC), datetime(2026, 10, 21, tzinfo=UTC))
DAY_RU = (datetime(2026, 10, 10, tzinfo=UTC), datetime(2026, 10, 11, tzinfo=UTC))
CASES: dict[str, tuple[str, tuple[datetime, datetime], str]] = {
    "en-ru": ("@mlens_demo_en", DAY_EN, "ru"),
    "ru-en": ("@mlens_demo_ru", DAY_RU, "en"),
    "en-en": ("@mlens_demo_en", DAY_EN, "en"),
}


@contextmanager
def recorded(pairs: list[dict[str, Any]]) -> Iterator[None]:
    """Record every rewrite the check judged (original, rewrite, verdict) in ``pairs``."""
    from toolkit.summarize import hybrid

    check: Callable[..., str | None] = hybrid.rewrite_problem  # type: ignore[attr-defined]

    def judged(rewrite: str, original: str, *args: Any, **kwargs: Any) -> str | None:
        problem = check(rewrite, original, *args, **kwargs)
        pairs.append({"line": original, "rewrite": rewrite, "problem": problem})
        return problem

    hybrid.rewrite_problem = judged  # type: ignore[attr-defined]
    try:
        yield
    finally:
        hybrid.rewrite_problem = check  # type: ignore[attr-defined]


def run(url: str, names: list[str], out: Path | None) -> list[str]:
    """One hybrid digest per case of ``names`` at the endpoint ``url``; one row each."""
    rows: list[str] = []
    with tempfile.TemporaryDirectory(prefix="mlens-rewrites-") as folder:
        settings = Settings(
            _env_file=None,  # type: ignore[call-arg]
            data_dir=Path(folder),
            llm={"base_url": url, "model": MODEL, "timeout": 300.0, "max_retries": 0},
            summary={"engine": "hybrid", "cache_max_entries": 0},
            service={"background_embedding": False},
        )
        workspace = Workspace.open(settings=settings)
        try:
            workspace.load_demo(embed=False)
            for name in names:
                ref, period, language = CASES[name]
                pairs: list[dict[str, Any]] = []
                request = summary_request(ref, period=period, language=language, engine="hybrid")
                started = time.perf_counter()
                with recorded(pairs):
                    summary = workspace.summarize(request)
                seconds = time.perf_counter() - started
                reasons = Counter(
                    str(p["problem"]).split(" (")[0] for p in pairs if p["problem"] is not None
                )
                sentences = sum(1 for p in pairs if p["problem"] is None) - summary.items_rewritten
                rows.append(
                    f"{name}: {seconds:.1f} s, {summary.items_rewritten} lines rewritten, "
                    f"{summary.items_dropped} rejected, {summary.items_offline} offline, "
                    f"{max(0, sentences)} summary sentences rewritten, {summary.engine}; "
                    f"rejections: {dict(reasons)}"
                )
                if out is not None:
                    with out.open("a", encoding="utf-8") as sink:
                        for pair in pairs:
                            sink.write(json.dumps({"case": name, **pair}, ensure_ascii=False))
                            sink.write("\n")
        finally:
            workspace.close()
    return rows


def main(argv: list[str]) -> None:
    """Parse ``argv`` and print one row per case."""
    url = argv[argv.index("--url") + 1] if "--url" in argv[:-1] else None
    names = [argv[argv.index("--only") + 1]] if "--only" in argv[:-1] else list(CASES)
    out = Path(argv[argv.index("--pairs") + 1]) if "--pairs" in argv[:-1] else None
    if url is None and missing() is not None:
        print(f"skipped: {missing()}")
        return
    server = LlamaServer() if url is None else nullcontext()
    with server as started:
        endpoint = url or started.url  # type: ignore[union-attr]
        for row in run(endpoint, names, out):
            print(row, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
