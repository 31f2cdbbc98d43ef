"""``python -m toolkit.evaluate.digests.main``: the labelled set's table and every false item.

The inner loop of whoever changes the summary engine: it prints the table ``make eval``
checks (``digest_acts.rows``), the calibration cases, then each false item with its
window, the language asked and the line the digest wrote; ``--missed`` adds the labelled
acts no item claimed and the key facts not found, ``--show`` the whole digests.
Plain text, so that it reads in a terminal, a log or a diff.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from toolkit.evaluate.digests.acts import COLUMNS, SHORT, Digest, false_items, measure, rows
from toolkit.evaluate.digests.calibration import CASES_FILE, CaseResult, case_rows, load_cases
from toolkit.evaluate.digests.windows import DATA_FILE, SCORED, load_windows
from toolkit.evaluate.retrieval import DEV_DIR


def cell(value: Any) -> str:
    """A table cell: ratios with two decimals, ``—`` for none."""
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def text_table(records: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> str:
    """``records`` as a fixed-width table."""
    cells = [[cell(r.get(c)) for c in columns] for r in records]
    widths = [max(len(c), *(len(row[n]) for row in cells)) for n, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))]
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)) for row in cells]
    return "\n".join(line.rstrip() for line in lines)


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _missed(digests: Sequence[Digest]) -> list[str]:
    lines = []
    for d in digests:
        for kind in SCORED:
            for i in d.score.sections[kind].missed:
                message = d.window.message(i)
                text = message.text if message else "?"
                lines.append(f"{d.window.id} → {d.asked}, {SHORT[kind]} {i}: {_short(text, 120)}")
        for fact in d.score.facts_missed:
            if fact.alternatives(same_language=d.asked == d.window.language):
                lines.append(f"{d.window.id} → {d.asked}, fact: {' | '.join(fact.any)}")
    return lines


def report(digests: Sequence[Digest], cases: Sequence[CaseResult], *, missed: bool) -> str:
    """The whole report as text."""
    out = ["Labelled digest windows: precision (P, of n items), recall (R) by section", ""]
    out += [text_table(rows(digests), COLUMNS), ""]
    if cases:
        right = sum(r.right for r in cases)
        out += [f"Calibration cases ({CASES_FILE.name}): {right} of {len(cases)} right", ""]
        out += [text_table(case_rows(cases), ["act", "cases", "right", "false claims", "missed"])]
        out += [""]
    wrong = false_items(digests)
    out.append(f"False items ({len(wrong)}):")
    out += [
        f"{w['window']} → {w['asked']}, {w['section']} {', '.join(map(str, w['ids']))}: "
        f"{_short(w['text'])}"
        for w in wrong
    ]
    for d in digests:
        bad = d.score.emails + d.score.phones + d.score.repeated_addressee
        out += [f"{d.window.id} → {d.asked}, must be 0: {_short(b)}" for b in bad]
        out += [
            f"{d.window.id} → {d.asked}, wrong date: {_short(i.text)}" for i in d.score.dates_wrong
        ]
    if missed:
        out += ["", "Missed:", *_missed(digests)]
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; prints the report, returns 0 (2 when a data file is missing)."""
    parser = argparse.ArgumentParser(prog="python -m toolkit.evaluate.digests.main")
    parser.add_argument("--data", type=Path, default=DATA_FILE, help="the labelled windows")
    parser.add_argument("--dev-dir", type=Path, default=DEV_DIR, help="folder of the dev files")
    parser.add_argument("--window", action="append", help="only these windows (repeatable)")
    parser.add_argument("--lang", help="only windows in this language")
    parser.add_argument("--no-cross", action="store_true", help="same language only")
    parser.add_argument("--missed", action="store_true", help="list missed acts and facts")
    parser.add_argument("--show", action="store_true", help="print every digest")
    args = parser.parse_args(argv)
    from toolkit.config import Settings
    from toolkit.embeddings import get_embedder

    started = time.perf_counter()
    dev_dir = args.dev_dir if args.dev_dir.is_dir() else None
    windows = [
        w for w in load_windows(args.data, dev_dir=dev_dir)
        if (not args.window or w.id in args.window) and (not args.lang or w.language == args.lang)
    ]  # fmt: skip
    cases = load_cases(dev_dir / CASES_FILE.name) if dev_dir and not args.window else []
    settings = Settings()
    measured = measure(
        windows, get_embedder(settings), cases=cases,
        cache_dir=settings.data_dir / "cache", cross=not args.no_cross,
    )  # fmt: skip
    if args.show:
        for d in measured.digests:
            print(f"===== {d.window.id} → {d.asked}\n{d.summary.summary}")
            for s in d.summary.sections:
                print(f"--- {s.kind.value}: {s.title}\n{s.body}")
            print()
    print(report(measured.digests, measured.cases, missed=args.missed))
    if dev_dir is None:
        print(f"(dev data not found at {args.dev_dir}: dev dialogues and calibration left out)")
    print(f"({time.perf_counter() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
