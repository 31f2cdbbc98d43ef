"""What a claim is: a named check that measures, judges and shows its evidence.

A claim is a function ``check(run: Run) -> Finding``. The ``Run`` holds the settings,
where the dev files are, an optional subsample, and a cache that claims measuring the
same thing share (``run.measure(key, compute)``). The ``Finding`` holds one ``Verdict``
per thing checked (pass, fail or skipped, with a one-line message) and the tables of
evidence ``make eval`` prints, as plain rows: presentation stays in the notebook layer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from toolkit.config import Settings
from toolkit.evaluate.published import RESULTS_FILE
from toolkit.evaluate.retrieval import DEV_DIR

if TYPE_CHECKING:
    from toolkit.embeddings import Embedder

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Verdict:
    """One checked statement: ``passed`` is ``None`` when it could not be checked."""

    passed: bool | None
    message: str

    def __str__(self) -> str:
        label = {True: "PASS", False: "FAIL", None: "SKIP"}[self.passed]
        return f"{label} {self.message}"


@dataclass(frozen=True, slots=True)
class Evidence:
    """A table of what was measured.

    Args:
        title: the table's caption.
        rows: the records.
        columns: their order.
        best: columns whose highest value is shown in bold.
        digits: decimals shown for floats.
    """

    title: str
    rows: Sequence[dict[str, Any]]
    columns: Sequence[str]
    best: Sequence[str] = ()
    digits: int = 3


@dataclass(frozen=True, slots=True)
class Finding:
    """A claim's outcome: its verdicts and the evidence behind them."""

    claim: str
    verdicts: Sequence[Verdict]
    evidence: Sequence[Evidence] = ()
    notes: Sequence[str] = ()

    @property
    def failed(self) -> bool:
        """True when any verdict failed (skipped ones do not fail a claim)."""
        return any(v.passed is False for v in self.verdicts)


@dataclass(slots=True)
class Run:
    """The inputs every claim of one ``make eval`` shares, and their measurements.

    Args:
        settings: the settings (embedder, data folder, configured weights …).
        dev_dir: folder of the dev files.
        results_file: the published results (``docs/results/eval.json``).
        limit: only the first N queries or dialogues of each dev file (a subsample:
            claims about the full sets are then skipped).
    """

    settings: Settings
    dev_dir: Path = DEV_DIR
    limit: int | None = None
    results_file: Path = RESULTS_FILE
    _measured: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def cache_dir(self) -> Path:
        """Where evaluation vectors are cached (``<data_dir>/cache``)."""
        return self.settings.data_dir / "cache"

    @property
    def embedder(self) -> Embedder:
        """The configured embedder, loaded once per run."""
        from toolkit.embeddings import get_embedder

        return self.measure("embedder", lambda: get_embedder(self.settings))

    def measure(self, key: str, compute: Callable[[], T]) -> T:
        """``compute()`` once per run and ``key``; later calls return the same value."""
        if key not in self._measured:
            self._measured[key] = compute()
        return cast(T, self._measured[key])


@dataclass(frozen=True, slots=True)
class Claim:
    """A named check (see the module docstring); ``part`` is the part of the published
    results its measurements go to (``toolkit.evaluate.published.PARTS``), if any."""

    name: str
    check: Callable[[Run], Finding]
    part: str | None = None


def run_claims(claims: Sequence[Claim], run: Run) -> list[Finding]:
    """Check every claim in order (later ones reuse what earlier ones measured)."""
    return [claim.check(run) for claim in claims]
