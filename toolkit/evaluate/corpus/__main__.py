"""``python -m toolkit.evaluate.corpus``: the real-chat corpus for labelling.

    python -m toolkit.evaluate.corpus status            which sources are cached
    python -m toolkit.evaluate.corpus status --counts   + messages stored vs HTML blocks
    python -m toolkit.evaluate.corpus show blitz-01     a labelled window, every message
    python -m toolkit.evaluate.corpus show blitz:1234-1290
    python -m toolkit.evaluate.corpus labels            the labelled windows per source
    python -m toolkit.evaluate.corpus zones [--refresh] each source's inferred time zone

Without the cache (a fresh clone, CI) each command says so in one line and exits 0.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter

from toolkit.evaluate.corpus.labels import find_window, read_rows
from toolkit.evaluate.corpus.show import render_window
from toolkit.evaluate.corpus.sources import SOURCES, cache_root, is_cached
from toolkit.evaluate.corpus.store import CorpusMissing, counts, opened
from toolkit.timeparse import offset_name
from toolkit.zones import infer_offset, trough, zone_label


def _status(args: argparse.Namespace) -> int:
    root = cache_root()
    cached = [s for s in SOURCES if is_cached(s, root)]
    if not cached:
        print(f"real corpus: not cached at {root} (python scripts/real_corpus.py fetch)")
        return 0
    print(f"real corpus at {root}: {len(cached)} of {len(SOURCES)} sources cached")
    for s in SOURCES:
        state = "cached " if s in cached else "MISSING"
        line = f"  {s.key:10} {state} {s.language:6} {s.kind:11} {s.format:5}"
        if s.held_out:
            line += " held-out"
        if args.counts and s in cached:
            stored, blocks = counts(s, root)
            seen = "" if blocks is None else f" of {blocks} HTML blocks"
            line += f"  {stored} stored{seen}"
        print(line, flush=True)
    return 0


def _show(args: argparse.Namespace) -> int:
    try:
        window = find_window(args.window)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    try:
        with opened(window.source) as (store, source):
            ids = list(range(window.first_id, window.last_id + 1))
            messages = store.get_messages(source.id, ids)
            timezone = source.timezone
    except CorpusMissing as exc:
        print(exc)
        return 0
    regular = sum(not m.is_service for m in messages)
    print(
        f"== {window.source}:{window.first_id}-{window.last_id}: {len(messages)} messages "
        f"({regular} not service), times in {timezone or 'UTC'}\n"
    )
    print(render_window(messages, timezone))
    return 0


def _zones(args: argparse.Namespace) -> int:
    """Each source's zone as an import records it (``toolkit.zones``), and the activity
    it was inferred from; held-out sources are left out (nobody looks at them)."""
    root = cache_root()
    print("key        lang   kind        slots  days  trough  activity  recorded (origin)")
    for s in SOURCES:
        if s.held_out or not is_cached(s, root):
            continue
        with opened(s.key, root, refresh=args.refresh) as (store, source):
            hours, days = store.activity_hours(source.id)
        offset = infer_offset(hours, days)
        inferred = zone_label(offset_name(offset)) if offset is not None else "-"
        recorded = f"{zone_label(source.timezone)} ({source.timezone_origin or 'none'})"
        print(
            f"{s.key:10} {s.language:6} {s.kind:11} {sum(hours):5} {days:5} "
            f"{trough(hours):6.2f}  {inferred:8}  {recorded}",
            flush=True,
        )
    return 0


def _labels(_: argparse.Namespace) -> int:
    rows = read_rows()
    per_source = Counter(str(row.get("source")) for row in rows)
    print(f"{len(rows)} labelled windows")
    for key, n in sorted(per_source.items()):
        print(f"  {key:10} {n}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """The command line (``status``, ``show``, ``labels``, ``zones``)."""
    parser = argparse.ArgumentParser(prog="python -m toolkit.evaluate.corpus")
    commands = parser.add_subparsers(dest="command", required=True)
    status = commands.add_parser("status", help="which sources are cached")
    status.add_argument("--counts", action="store_true", help="import and count messages")
    status.set_defaults(run=_status)
    show = commands.add_parser("show", help="print a window for labelling")
    show.add_argument("window", help="a labelled window's id, or key:first-last")
    show.set_defaults(run=_show)
    commands.add_parser("labels", help="labelled windows per source").set_defaults(run=_labels)
    zones = commands.add_parser("zones", help="each source's inferred time zone")
    zones.add_argument("--refresh", action="store_true", help="import every source again")
    zones.set_defaults(run=_zones)
    args = parser.parse_args(argv)
    code: int = args.run(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
