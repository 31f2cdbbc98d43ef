"""The plots the notebooks and the app share (matplotlib, imported lazily).

Each function draws on a given ``Axes`` or on a new ``Figure`` (built without pyplot,
so the Streamlit app can draw from any thread) and returns the figure.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from datetime import date
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

# Corners of the weight simplex in the plane: semantic (left), lexical (right), phrase (top).
_CORNERS = ((0.0, 0.0), (1.0, 0.0), (0.5, math.sqrt(3) / 2))


def _axes(ax: Axes | None, size: tuple[float, float]) -> tuple[Figure, Axes]:
    if ax is not None:
        figure = ax.get_figure()
        assert figure is not None
        return figure, ax  # type: ignore[return-value]
    from matplotlib.figure import Figure

    figure = Figure(figsize=size, layout="constrained")
    return figure, figure.add_subplot()


def simplex_xy(semantic: float, lexical: float, phrase: float) -> tuple[float, float]:
    """Plane coordinates of a weight triple (normalised to sum 1) in the simplex triangle."""
    total = semantic + lexical + phrase
    if total <= 0:
        raise ValueError("at least one weight must be positive")
    parts = (semantic / total, lexical / total, phrase / total)
    x = sum(p * corner[0] for p, corner in zip(parts, _CORNERS, strict=True))
    y = sum(p * corner[1] for p, corner in zip(parts, _CORNERS, strict=True))
    return x, y


def messages_per_day(
    days: Sequence[date], counts: Sequence[int], *, title: str = "", ax: Axes | None = None
) -> Figure:
    """A bar chart of messages per day."""
    import numpy as np

    figure, axes = _axes(ax, (8, 2.8))
    axes.bar(np.array(days, dtype="datetime64[D]"), list(counts), width=0.9, color="#4c78a8")
    axes.set_ylabel("messages")
    axes.set_title(title or "Messages per day")
    # Rotate this axes' dates only (autofmt_xdate would hide the labels of upper rows).
    axes.tick_params(axis="x", labelrotation=30)
    return figure


def simplex_heatmap(
    weights: Sequence[tuple[float, float, float]],
    values: Sequence[float],
    *,
    label: str = "nDCG@10",
    title: str = "",
    vmin: float | None = None,
    ax: Axes | None = None,
) -> Figure:
    """A heat map of ``values`` over (semantic, lexical, phrase) weight triples.

    The triangle's corners are the pure weightings; the best point is ringed. Colours
    start at ``vmin`` (default: the values' lowest decile).
    """
    import matplotlib.tri as mtri
    import numpy as np

    if len(weights) != len(values) or len(values) < 3:
        raise ValueError("need at least three weight triples, each with a value")
    figure, axes = _axes(ax, (5.5, 4.8))
    xs, ys = zip(*(simplex_xy(*w) for w in weights), strict=True)
    # A few very poor corners (e.g. phrase match alone) would flatten the colour scale;
    # the lowest decile and below share one colour instead.
    floor = float(np.quantile(values, 0.1)) if vmin is None else vmin
    grid = mtri.Triangulation(xs, ys)
    mesh = axes.tripcolor(
        grid, list(values), shading="gouraud", cmap="viridis", vmin=floor, vmax=max(values)
    )
    axes.scatter(xs, ys, s=6, c="white", alpha=0.6)
    best = max(range(len(values)), key=values.__getitem__)
    axes.scatter([xs[best]], [ys[best]], s=120, facecolors="none", edgecolors="red", linewidths=2)
    axes.annotate(
        f"best {values[best]:.3f}\n" + "/".join(f"{v:.2f}" for v in weights[best]),
        (xs[best], ys[best]),
        textcoords="offset points",
        xytext=(8, 8),
        fontsize=8,
        color="red",
    )
    for (x, y), name in zip(_CORNERS, ("semantic", "lexical", "phrase"), strict=True):
        axes.annotate(
            name,
            (x, y),
            textcoords="offset points",
            xytext=(0, -12 if y == 0 else 6),
            ha="center",
            fontsize=9,
        )
    axes.set_aspect("equal")
    axes.axis("off")
    axes.set_title(title or f"{label} over the weight simplex")
    figure.colorbar(mesh, ax=axes, label=label, shrink=0.8, extend="min")
    return figure


def sweep_lines(
    xs: Sequence[float],
    series: dict[str, Sequence[float]],
    *,
    xlabel: str,
    ylabel: str = "nDCG@10",
    title: str = "",
    ax: Axes | None = None,
) -> Figure:
    """Line plot of one or more named series over a swept parameter."""
    figure, axes = _axes(ax, (6, 3.2))
    for name, ys in series.items():
        axes.plot(list(xs), list(ys), marker="o", label=name)
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.set_title(title)
    axes.grid(alpha=0.3)
    if len(series) > 1:
        axes.legend(fontsize=8)
    return figure


def simplex_means(
    grid: Iterable[Mapping[str, Any]], column: str = "mean"
) -> tuple[list[tuple[float, float, float]], list[float]]:
    """The (semantic, lexical, phrase) points of a ``quality.candidates_table`` and their
    ``column`` (the best where several short-factor shapes share a point), ready for
    ``simplex_heatmap``."""
    best: dict[tuple[float, float, float], float] = {}
    for row in grid:
        point = (row["semantic"], row["lexical"], row["phrase"])
        best[point] = max(best.get(point, float("-inf")), row[column])
    return list(best), list(best.values())
