"""The labelled-set claim (docs/evaluation.md, issue 28): what a digest's sections claim holds.

On every window of ``toolkit/evaluate/data/digest_windows.jsonl`` (``digest_acts``),
asked in the window's language and across languages:

- the precision of open questions, decisions and plans is at least ``PRECISION`` (a
  section with no item says nothing false);
- in the window's language, key-fact recall is at least ``KEY_FACTS`` (across languages
  it is shown, counted on the language-neutral anchors);
- no digest copies an e-mail address or a phone number, or names the addressee twice
  in reported speech ("Kai asks Ugo whether Ugo is …"): each count is 0.

The calibration cases of ``digest_acts.jsonl`` are shown beside them, with the false
claims and the misses by act. The labelled set is small: it always runs whole.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolkit.evaluate.claims.base import Evidence, Finding, Run, Verdict
from toolkit.evaluate.digests.acts import SHORT, ZERO, Measured, false_items, measure, rows
from toolkit.evaluate.digests.calibration import CASES_FILE, case_rows, load_cases
from toolkit.evaluate.digests.windows import SCORED, load_windows

PRECISION = 0.9
"""The least precision of open questions, decisions and plans."""
KEY_FACTS = 0.6
"""The least key-fact recall in the window's own language."""
SHOWN_FALSE = 12
"""False items ``make eval`` lists (``python -m toolkit.evaluate.digests.main`` lists all)."""
CASE_COLUMNS = ["act", "cases", "right", "false claims", "missed"]


def digest_measurement(run: Run) -> Measured:
    """The labelled windows' digests and the calibration cases, once per run."""

    def compute() -> Measured:
        cases_file = run.dev_dir / CASES_FILE.name
        return measure(
            load_windows(dev_dir=run.dev_dir),
            run.embedder,
            cases=load_cases(cases_file) if cases_file.is_file() else [],
            cache_dir=run.cache_dir,
        )

    return run.measure("digests", compute)


def _share(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


SHOWN_COLUMNS = [
    "scope", "windows", *(f"{short} P (n) / R" for short in SHORT.values()),
    "no false item", "key facts", " / ".join(ZERO), "wrong dates",
]  # fmt: skip
"""The columns ``make eval`` prints (``shown_rows``)."""


def shown_rows(table: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The table (``digest_acts.rows``) as ``make eval`` prints it: each section's
    precision, item count and recall in one cell (``0.55 (11) / 0.36``), the zeros in one."""
    out = []
    for row in table:
        shown = {"scope": row["scope"], "windows": row["windows"]}
        for short in SHORT.values():
            p, n, r = row[f"{short} P"], row[f"{short} n"], row[f"{short} R"]
            shown[f"{short} P (n) / R"] = f"{_share(p)} ({n}) / {_share(r)}"
        shown["no false item"] = _share(row["no false item"])
        shown["key facts"] = _share(row["key facts"])
        shown[" / ".join(ZERO)] = " / ".join(str(row[name]) for name in ZERO)
        shown["wrong dates"] = row["wrong dates"]
        out.append(shown)
    return out


def row_verdicts(row: Mapping[str, Any]) -> list[Verdict]:
    """The verdicts of one scope's row (``"same language"`` or ``"across languages"``)."""
    scope, verdicts = row["scope"], []
    for kind in SCORED:
        short = SHORT[kind]
        precision, n = row[f"{short} P"], row[f"{short} n"]
        verdicts.append(
            Verdict(
                precision is None or precision >= PRECISION,
                f"{scope}: {short} precision {_share(precision)} of {n} items "
                f"(need ≥ {PRECISION:.2f})",
            )
        )
    facts = row["key facts"]
    if scope == "same language":
        verdicts.append(
            Verdict(
                facts is not None and facts >= KEY_FACTS,
                f"{scope}: key-fact recall {_share(facts)} (need ≥ {KEY_FACTS:.2f})",
            )
        )
    counts = {name: row[name] for name in ZERO}
    shown = ", ".join(f"{name} {n}" for name, n in counts.items())
    verdicts.append(Verdict(not any(counts.values()), f"{scope}: must be 0: {shown}"))
    return verdicts


def verdicts(table: Sequence[Mapping[str, Any]]) -> list[Verdict]:
    """Every verdict of the claim, from the table's scope rows (not the per-language ones)."""
    return [v for row in table if not row["scope"].startswith(" ") for v in row_verdicts(row)]


def labelled_set_holds(run: Run) -> Finding:
    """Precision ≥ 0.9 of each scored section, key facts ≥ 0.6, the must-be-0 counts 0."""
    measured = digest_measurement(run)
    table = rows(measured.digests)
    windows = len({d.window.id for d in measured.digests})
    title = f"Labelled digest windows ({windows}): precision P of n items, recall R"
    evidence = [Evidence(title, shown_rows(table), SHOWN_COLUMNS)]
    notes = []
    if measured.cases:
        right = sum(r.right for r in measured.cases)
        title = f"Calibration cases ({CASES_FILE.name}): {right} of {len(measured.cases)} right"
        evidence.append(Evidence(title, case_rows(measured.cases), CASE_COLUMNS))
    wrong = false_items(measured.digests)
    notes += [
        f"false: {w['window']} → {w['asked']}, {w['section']} "
        f"{', '.join(map(str, w['ids']))}: {w['text'][:140]}"
        for w in wrong[:SHOWN_FALSE]
    ]
    if len(wrong) > SHOWN_FALSE:
        notes.append(f"… {len(wrong) - SHOWN_FALSE} more: python -m toolkit.evaluate.digests.main")
    claim = f"digest sections: precision ≥ {PRECISION}, key facts ≥ {KEY_FACTS}, no copied contacts"
    return Finding(claim, verdicts(table), evidence, notes)


def calibration_summary(measured: Measured) -> dict[str, Any]:
    """The calibration cases as published: how many, how many right, rows by act."""
    return {
        "cases": len(measured.cases),
        "right": sum(r.right for r in measured.cases),
        "rows": case_rows(measured.cases),
    }


__all__ = [
    "KEY_FACTS",
    "PRECISION",
    "calibration_summary",
    "digest_measurement",
    "labelled_set_holds",
    "row_verdicts",
    "shown_rows",
    "verdicts",
]
