"""What the startup tests share: the checkout's root, a probe run in a fresh interpreter,
and which of some modules it loaded.

A probe runs in a fresh interpreter because ``sys.modules`` of the test process holds
everything the other tests imported.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_probe(probe: str, *args: str, cwd: Path, **extra_env: str) -> list[str]:
    """The lines ``probe`` prints in a fresh interpreter, with no ``MLENS_`` or ``TYPER_``
    setting of the shell and a data folder of its own (``cwd / "data"``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MLENS_", "TYPER_"))}
    env |= {"PYTHONPATH": str(ROOT), "MLENS_DATA_DIR": str(cwd / "data"), **extra_env}
    done = subprocess.run(
        [sys.executable, "-c", probe, *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        check=True,
    )
    return done.stdout.splitlines()


def among(modules: set[str], names: tuple[str, ...]) -> list[str]:
    """The ``names`` among ``modules`` (a package counts with its submodules)."""
    return sorted(n for n in names if n in modules or any(m.startswith(n + ".") for m in modules))
