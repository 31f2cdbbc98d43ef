"""The shared plots: simplex coordinates and figures that draw what they are given."""

from __future__ import annotations

import math
from datetime import date

import pytest

from toolkit.notebook.plots import messages_per_day, simplex_heatmap, simplex_xy, sweep_lines


def test_simplex_corners_and_centre() -> None:
    assert simplex_xy(1, 0, 0) == pytest.approx((0.0, 0.0))
    assert simplex_xy(0, 2, 0) == pytest.approx((1.0, 0.0))
    assert simplex_xy(0, 0, 5) == pytest.approx((0.5, math.sqrt(3) / 2))
    assert simplex_xy(1, 1, 1) == pytest.approx((0.5, math.sqrt(3) / 6))
    with pytest.raises(ValueError, match="positive"):
        simplex_xy(0, 0, 0)


@pytest.mark.slow
def test_heatmap_rings_the_best_point() -> None:
    grid = [(1, 0, 0), (0, 1, 0), (0, 0, 1), (0.5, 0.5, 0), (0.5, 0, 0.5)]
    values = [0.5, 0.4, 0.1, 0.7, 0.3]
    figure = simplex_heatmap(grid, values)
    axes = figure.axes[0]
    best = axes.collections[-1].get_offsets()[0]
    assert tuple(best) == pytest.approx(simplex_xy(0.5, 0.5, 0))
    assert "best 0.700" in " ".join(t.get_text() for t in axes.texts)
    with pytest.raises(ValueError, match="three"):
        simplex_heatmap(grid[:2], values[:2])


def test_bar_and_line_figures_hold_the_data() -> None:
    bars = messages_per_day([date(2026, 3, 1), date(2026, 3, 2)], [3, 5]).axes[0]
    assert [p.get_height() for p in bars.patches] == [3, 5]
    lines = sweep_lines([1, 2, 4], {"floor 0.5": [0.1, 0.2, 0.3], "floor 1": [0.2, 0.2, 0.2]},
                        xlabel="short_scale").axes[0]  # fmt: skip
    assert [list(line.get_ydata()) for line in lines.lines] == [[0.1, 0.2, 0.3], [0.2, 0.2, 0.2]]
