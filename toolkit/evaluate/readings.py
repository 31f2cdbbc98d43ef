"""Digests of real chats graded by readers (issue 40): each round's grades in
``data/reading_grades*.jsonl`` (a window, the digest's language, four grades 1-5 and the
false lines a reader counted by kind; ids and numbers only), summed up per scope.

A digest is same-language when it is written in (one of) its source's languages, across
otherwise; held-out rows are those of the sources no rule was tuned on.
"""

from __future__ import annotations

import json
import statistics
from collections import Counter
from pathlib import Path
from typing import Any

DATA = Path(__file__).with_name("data")
GRADES = ("faithful", "informative", "fluent", "sections")
"""The four grades a reader gives a digest (1-5)."""


def rounds(folder: Path = DATA) -> dict[str, list[dict[str, Any]]]:
    """Each reading round's rows by its name (``round 1``, ``round 2`` …), in order."""
    files = sorted(folder.glob("reading_grades*.jsonl"), key=lambda p: (len(p.stem), p.stem))
    return {
        f"round {n}": [json.loads(line) for line in p.read_text("utf-8").splitlines() if line]
        for n, p in enumerate(files, 1)
    }


def scope(row: dict[str, Any]) -> tuple[str, bool]:
    """``("same language" | "across languages", held_out)`` of one graded digest."""
    from toolkit.evaluate.corpus.sources import BY_KEY

    source = BY_KEY[row["window"].split(":", 1)[0]]
    same = row["lang"] in source.language.split("+")
    return ("same language" if same else "across languages"), source.held_out


def table(folder: Path = DATA) -> list[dict[str, Any]]:
    """Per round and scope: how many digests, each grade's mean and the false lines."""
    out = []
    for name, rows in rounds(folder).items():
        groups: dict[str, list[dict[str, Any]]] = {}
        for row in rows:
            kind, held_out = scope(row)
            groups.setdefault(kind, []).append(row)
            if held_out:
                groups.setdefault(f"{kind}, held-out", []).append(row)
        for kind in sorted(groups, key=lambda k: (k.split(",")[0], "," in k)):
            chosen = groups[kind]
            false = Counter[str]()
            for row in chosen:
                false.update(row.get("false_lines", {}))
            out.append(
                {
                    "round": name,
                    "version": "/".join(sorted({r.get("extractive_version", "?") for r in chosen})),
                    "scope": kind,
                    "digests": len(chosen),
                    **{g: statistics.fmean(r[g] for r in chosen) for g in GRADES},
                    "false lines": sum(false.values()),
                }
            )
    return out


def main() -> None:
    """Print the table."""
    for row in table():
        grades = " ".join(f"{g} {row[g]:.2f}" for g in GRADES)
        print(
            f"{row['round']} (v{row['version']}) {row['scope']}: {row['digests']} digests, "
            f"{grades}, false lines {row['false lines']}"
        )


if __name__ == "__main__":
    main()
