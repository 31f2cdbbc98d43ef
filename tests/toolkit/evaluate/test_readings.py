"""Reader grades summed up per round and scope (toolkit/evaluate/readings.py)."""

from __future__ import annotations

import json
from pathlib import Path

from toolkit.evaluate.readings import rounds, table


def _write(path: Path, rows: list[dict[str, object]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def test_rounds_are_summed_per_scope(tmp_path: Path) -> None:
    grade = {"faithful": 4, "informative": 2, "fluent": 3, "sections": 1}
    _write(
        tmp_path / "reading_grades.jsonl",
        [
            {"window": "blitz:1-9", "lang": "en", **grade, "false_lines": {"fragment": 2}},
            {"window": "blitz:1-9", "lang": "ru", **grade, "faithful": 2, "false_lines": {}},
            {"window": "traders:5-8", "lang": "en", **grade, "false_lines": {"other": 1}},
        ],
    )
    _write(tmp_path / "reading_grades_round2.jsonl", [{"window": "tsj:1-2", "lang": "ru", **grade}])
    assert list(rounds(tmp_path)) == ["round 1", "round 2"]
    rows = {(r["round"], r["scope"]): r for r in table(tmp_path)}
    same = rows["round 1", "same language"]
    assert (same["digests"], same["faithful"], same["false lines"]) == (2, 4.0, 3)
    assert rows["round 1", "same language, held-out"]["digests"] == 1  # traders is held out
    assert rows["round 1", "across languages"]["faithful"] == 2.0
    assert rows["round 2", "same language"]["digests"] == 1
