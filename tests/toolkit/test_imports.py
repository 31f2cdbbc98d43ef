"""Imports that cost nothing: the core and the ``mlens`` command line load no heavy library.

Each import runs in a fresh interpreter, and the test reads which modules it loaded
(deterministic, unlike a timing): a heavy library there is one imported at module level
where a function that uses it should import it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("sklearn", "pandas", "polars", "openai", "torch", "scipy", "telethon", "rouge_score")


def loaded_after(statement: str) -> list[str]:
    """The ``HEAVY`` top-level modules a fresh interpreter holds after ``statement``."""
    report = f"print(json.dumps(sorted(set({HEAVY!r}) & set(sys.modules))))"
    probe = f"{statement}\nimport json, sys\n{report}"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize(
    "statement",
    [
        "import toolkit, toolkit.errors, toolkit.config",
        "import cli",  # what ``mlens --help`` imports before it answers
    ],
)
def test_import_loads_no_heavy_library(statement: str) -> None:
    assert loaded_after(statement) == []


def test_public_names_still_import_from_the_package() -> None:
    import toolkit

    assert toolkit.Settings.__module__ == "toolkit.config"
    assert toolkit.Table.__module__ == "toolkit.notebook.table"
    assert {"Workspace", "SearchWeights", "HitList", "SummaryView"} <= set(dir(toolkit))
    with pytest.raises(AttributeError):
        _ = toolkit.NoSuchName  # type: ignore[attr-defined]
