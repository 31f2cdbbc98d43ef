"""The published evaluation: ``docs/results/eval.json``, written by ``make eval``.

``make eval`` (``toolkit.notebook.report``) measures on the whole dev sets and writes
what it measured here, in three parts, each with the engine that produced it:

- ``ranking``: every method on every dev retrieval set with the default weights, and
  nDCG@10 over the weight simplex (the heat map); engine: the embedder and the
  default ``SearchWeights``;
- ``candidates``: the candidates for the last points of ranking quality against the
  hybrid, with bootstrap intervals (``toolkit.evaluate.candidates``); engine: as
  ``ranking``;
- ``summaries``: ROUGE of the ``summary`` field and the baselines on each summary dev
  set; engine: the embedder and ``EXTRACTIVE_VERSION``;
- ``digests``: the labelled digest windows (``digest_acts``): precision and recall of
  each scored section, key facts and the must-be-0 counts, same- and cross-language,
  and the calibration cases; engine: as ``summaries``, and the labels' content hash.

The app's Evaluation page shows this file at once; ``scripts/gen_docs.py`` renders
its tables into the README and ``docs/``; ``make eval``'s claim "published ranking
table = measured" compares it with a fresh measurement before rewriting it. A part
whose engine is not today's is *stale* (``stale_parts``): the page says so and a test
fails until ``make eval`` has been run again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from toolkit.evaluate.results import Results
from toolkit.weights import SearchWeights

RESULTS_FILE = Path(__file__).resolve().parents[2] / "docs" / "results" / "eval.json"
"""Where ``make eval`` writes its measurements (committed with the code)."""
PARTS = ("ranking", "summaries", "candidates", "digests")
"""The parts of the file, each written by the claims that measure it."""
DIGITS = 4
"""Decimals kept of each measured value."""


def ranking_engine(model_name: str) -> dict[str, Any]:
    """What the ranking numbers depend on: the embedder and the default weights."""
    return {"embedder": model_name, "weights": SearchWeights().model_dump()}


def summary_engine(model_name: str) -> dict[str, Any]:
    """What the summary numbers depend on: the embedder and the extractive engine's version."""
    from toolkit.summarize.extractive.engine import EXTRACTIVE_VERSION

    return {"embedder": model_name, "extractive": EXTRACTIVE_VERSION}


def digests_engine(model_name: str) -> dict[str, Any]:
    """What the labelled-set numbers depend on: the summary engine and the labels."""
    from toolkit.evaluate.digests.windows import DATA_FILE

    labels = hashlib.sha256(DATA_FILE.read_bytes()).hexdigest()[:12]
    return {**summary_engine(model_name), "labels": labels}


def current_engines(model_name: str) -> dict[str, dict[str, Any]]:
    """The engine of every part as the code stands, for an embedder's ``model_name``."""
    return {
        "ranking": ranking_engine(model_name),
        "summaries": summary_engine(model_name),
        "candidates": ranking_engine(model_name),
        "digests": digests_engine(model_name),
    }


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, DIGITS)
    if isinstance(value, Mapping):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_rounded(v) for v in value]
    return value


def ranking_part(
    results: Results,
    *,
    grid: Sequence[Mapping[str, Any]],
    grid_step: float,
    queries: Mapping[str, int],
    model_name: str,
) -> dict[str, Any]:
    """The ``ranking`` part: ``results[method][set][metric]`` with the default weights
    on every query, and the simplex grid's rows (``results.candidate_rows``)."""
    return {
        "engine": ranking_engine(model_name),
        "queries": dict(queries),
        "results": _rounded(results),
        "grid": {"step": grid_step, "rows": _rounded(list(grid))},
    }


def candidates_part(rows: Sequence[Mapping[str, Any]], *, model_name: str) -> dict[str, Any]:
    """The ``candidates`` part: each candidate against the hybrid (default weights) on
    each dev set (``candidates.candidate_rows``)."""
    return {"engine": ranking_engine(model_name), "rows": _rounded([dict(r) for r in rows])}


def summaries_part(
    rows: Mapping[str, Sequence[Mapping[str, Any]]], *, model_name: str
) -> dict[str, Any]:
    """The ``summaries`` part: per dev set, one row per system (``claims.summaries``)."""
    return {
        "engine": summary_engine(model_name),
        "sets": {name: _rounded([dict(r) for r in set_rows]) for name, set_rows in rows.items()},
    }


def digests_part(
    rows: Sequence[Mapping[str, Any]],
    *,
    calibration: Mapping[str, Any],
    windows: int,
    model_name: str,
) -> dict[str, Any]:
    """The ``digests`` part: the labelled set's table (``digest_acts.rows``) over
    ``windows`` windows, and the calibration cases (``claims.digests.calibration_summary``)."""
    return {
        "engine": digests_engine(model_name),
        "windows": windows,
        "rows": _rounded([dict(r) for r in rows]),
        "calibration": _rounded(dict(calibration)),
    }


@dataclass(frozen=True, slots=True)
class Published:
    """The results file as read: its parts (``{}`` when absent) and where it is."""

    parts: dict[str, dict[str, Any]] = field(default_factory=dict)
    path: Path = RESULTS_FILE

    @property
    def ranking(self) -> Results:
        """``results[method][set][metric]`` of the ranking part (``{}`` without it)."""
        results: Results = self.parts.get("ranking", {}).get("results", {})
        return results

    @property
    def grid(self) -> list[dict[str, Any]]:
        """The simplex grid's rows of the ranking part."""
        rows: list[dict[str, Any]] = self.parts.get("ranking", {}).get("grid", {}).get("rows", [])
        return rows

    @property
    def candidates(self) -> list[dict[str, Any]]:
        """The rows of the candidates part (``candidates.candidate_rows``; ``[]`` without it)."""
        rows: list[dict[str, Any]] = self.parts.get("candidates", {}).get("rows", [])
        return rows

    @property
    def summaries(self) -> dict[str, list[dict[str, Any]]]:
        """Per summary dev set, its rows (``{}`` without the part)."""
        sets: dict[str, list[dict[str, Any]]] = self.parts.get("summaries", {}).get("sets", {})
        return sets

    @property
    def digests(self) -> list[dict[str, Any]]:
        """The labelled set's rows (``[]`` without the part)."""
        rows: list[dict[str, Any]] = self.parts.get("digests", {}).get("rows", [])
        return rows

    def measured_at(self, part: str) -> str:
        """When ``part`` was measured (``""`` when it is absent)."""
        return str(self.parts.get(part, {}).get("measured_at", ""))

    def stale_parts(self, engines: Mapping[str, Mapping[str, Any]]) -> list[str]:
        """Parts missing or measured with another engine than ``engines`` (``current_engines``)."""
        return [
            name
            for name in PARTS
            if name not in self.parts or self.parts[name].get("engine") != engines[name]
        ]


def read_published(path: Path = RESULTS_FILE) -> Published:
    """The results file (an empty ``Published`` when there is none)."""
    if not path.is_file():
        return Published(path=path)
    document = json.loads(path.read_text(encoding="utf-8"))
    return Published({k: v for k, v in document.items() if k in PARTS}, path)


def write_published(parts: Mapping[str, dict[str, Any]], path: Path = RESULTS_FILE) -> Path:
    """Replace the given parts of the results file (stamped with the time), keep the others."""
    document: dict[str, Any] = {"command": "make eval"}
    document |= read_published(path).parts
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    for name, part in parts.items():
        if name not in PARTS:
            raise ValueError(f"unknown part {name!r} (known: {', '.join(PARTS)})")
        document[name] = {**part, "measured_at": now}
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(document, ensure_ascii=False, indent=1, sort_keys=False)
    path.write_text(text + "\n", encoding="utf-8")
    return path


__all__ = [
    "PARTS",
    "RESULTS_FILE",
    "Published",
    "candidates_part",
    "current_engines",
    "digests_engine",
    "digests_part",
    "ranking_engine",
    "ranking_part",
    "read_published",
    "summaries_part",
    "summary_engine",
    "write_published",
]
