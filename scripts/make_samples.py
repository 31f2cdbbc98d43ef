"""Regenerate ``docs/samples/``: 24 summaries of the demo sources, for readers and tests.

Each demo source (an English chat, a Russian channel) is summarised in English, Russian
and Ukrainian (same- and cross-language), over one day, three days, a week and as a
whole source. Each output is a Markdown file a reviewer reads in the repository;
``index.json`` holds them all as data (with the engine's version) for the tests in
``tests/toolkit/summarize/test_samples.py``.

    .venv/bin/python scripts/make_samples.py [--data-dir DIR] [--out docs/samples]

Without ``--data-dir`` the demo is loaded into a temporary folder first (about three
minutes on 2 cores, most of it embedding).
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

from toolkit import Workspace
from toolkit.requests import AnySummaryRequest, SourceSummaryRequest, SummaryRequest
from toolkit.summarize.extractive.engine import EXTRACTIVE_VERSION
from toolkit.timeparse import summary_period

SOURCES = {"chat": "@mlens_demo_en", "channel": "@mlens_demo_ru"}
LANGUAGES = ("en", "ru", "uk")
PERIODS = {
    "day": ("2026-10-20", "2026-10-20"),
    "3days": ("2026-10-20", "2026-10-22"),
    "week": ("2026-10-20", "2026-10-26"),
}


def _request(ref: str, language: str, span: tuple[str, str] | None) -> AnySummaryRequest:
    """The request ``mlens summarize`` makes of these options."""
    if span is None:
        return SourceSummaryRequest(source_ref=ref, language=language)
    started_at, ended_at = summary_period(*span)
    return SummaryRequest(
        source_ref=ref, started_at=started_at, ended_at=ended_at, language=language
    )


def _markdown(entry: dict[str, Any]) -> str:
    lines = [
        f"# {entry['name']}",
        "",
        f"`{entry['command']}`",
        "",
        f"Source language: {entry['source_language']} · requested: {entry['language']} · "
        f"engine: {entry['engine']}",
        "",
        "## Summary",
        "",
        entry["summary"],
        "",
    ]
    for section in entry["sections"]:
        lines += [f"## {section['title']}", "", section["body"].replace("\n", "  \n"), ""]
    ids = ", ".join(entry["important_messenger_message_ids"]) or "none"
    lines += [f"Important messages: {ids}", ""]
    return "\n".join(lines)


def generate(workspace: Workspace, out: Path) -> list[dict[str, Any]]:
    """Write the 24 samples and ``index.json`` to ``out``; return the index entries."""
    out.mkdir(parents=True, exist_ok=True)
    entries = []
    for kind, ref in SOURCES.items():
        source_language = "en" if kind == "chat" else "ru"
        for language in LANGUAGES:
            jobs: list[tuple[str, str, tuple[str, str] | None]] = [
                (period, f"mlens summarize {ref} --from {a} --to {b} --language {language}", (a, b))
                for period, (a, b) in PERIODS.items()
            ]
            jobs.append(("source", f"mlens summarize {ref} --source --language {language}", None))
            for period, command, span in jobs:
                summary = workspace.summarize(_request(ref, language, span))
                name = f"{kind}-{period}-{language}"
                entry = {
                    "name": name,
                    "kind": kind,
                    "period": period,
                    "source_ref": ref,
                    "source_language": source_language,
                    "language": language,
                    "command": command,
                    "engine": summary.engine,
                    "summary": summary.summary,
                    "sections": [{"title": s.title, "body": s.body} for s in summary.sections],
                    "important_messenger_message_ids": summary.important_messenger_message_ids,
                }
                (out / f"{name}.md").write_text(_markdown(entry), encoding="utf-8")
                entries.append(entry)
    index = {"extractive_version": EXTRACTIVE_VERSION, "samples": entries}
    text = json.dumps(index, ensure_ascii=False, indent=1) + "\n"
    (out / "index.json").write_text(text, encoding="utf-8")
    return entries


def main() -> None:
    """Parse the arguments and regenerate the samples."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", type=Path, help="a data folder with the demo loaded")
    parser.add_argument("--out", type=Path, default=Path("docs/samples"))
    args = parser.parse_args()
    if args.data_dir is not None:
        workspace = Workspace.open(args.data_dir)
        if not any(s.source.handle == "mlens_demo_en" for s in workspace.store.list_sources()):
            workspace.load_demo(progress=True)
        entries = generate(workspace, args.out)
    else:
        with tempfile.TemporaryDirectory() as folder:
            workspace = Workspace.open(folder)
            workspace.load_demo(progress=True)
            entries = generate(workspace, args.out)
    print(f"{len(entries)} samples in {args.out}")


if __name__ == "__main__":
    main()
