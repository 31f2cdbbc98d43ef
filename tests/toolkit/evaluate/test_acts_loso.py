"""The act scorers' evaluation: thresholds chosen for precision, and the loso command
without the real corpus (as in CI)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from toolkit.evaluate.acts import fit, loso


def test_the_threshold_is_the_lowest_that_keeps_precision() -> None:
    scores = np.array([0.99, 0.98, 0.97, 0.96, 0.95, 0.94, 0.5, 0.4, 0.3])
    labels = np.array([1, 1, 1, 1, 1, 1, 0, 1, 0], dtype=float)
    # 6 of 6 at 0.94; 6 of 7 (0.86) at 0.5, 7 of 8 (0.875) at 0.4: below 0.9.
    assert fit.choose_threshold(scores, labels) == pytest.approx(0.94)
    labels[1:] = 0  # one true item is no evidence
    assert fit.choose_threshold(scores, labels) is None


def test_precision_must_hold_within_each_group() -> None:
    scores = np.linspace(0.99, 0.9, 10)
    labels = np.array([1] * 9 + [0], dtype=float)
    groups = np.array([1] * 9 + [0])
    # Pooled 9 of 10 is enough; the one real item is false: the threshold stops before it.
    assert fit.choose_threshold(scores, labels) == pytest.approx(0.9)
    assert fit.choose_threshold(scores, labels, groups) == pytest.approx(0.91)


def test_loso_runs_without_the_real_corpus(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MLENS_REAL_CACHE", str(tmp_path / "nowhere"))
    assert loso.main(["--dev-dir", str(tmp_path / "no-dev")]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "real corpus not cached: skipped"
    assert "19 windows" in out
    assert "threshold decisions:" in out
    assert "real corpus  " not in out  # no row of the real corpus
