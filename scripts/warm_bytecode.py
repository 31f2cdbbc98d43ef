"""Write the bytecode of what every ``mlens`` command and ``mlens serve`` import at start.

``python scripts/warm_bytecode.py`` (the Makefile runs it after each install, with the
environment's Python) compiles the project's packages and imports what the command line
and the server load at start, with ``PYTHONDONTWRITEBYTECODE`` lifted for its own run.

Why: uv, unlike pip, compiles no bytecode at install (``scripts/install.py``), and where
``PYTHONDONTWRITEBYTECODE`` is set, as on this project's machines, Python never writes
it either, so every ``mlens`` run would compile Typer, Rich and the app again: about
0.9 s for ``mlens --help`` instead of 0.25 s. Compiling all 22,000 installed files took
2.5 minutes; this takes a few seconds. Standard library only.
"""

from __future__ import annotations

import compileall
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("cli", "toolkit", "service", "mcp_face")
"""The project's own packages: compiled whole."""
AT_START = (
    [sys.executable, "-m", "cli", "--help"],
    [sys.executable, "-c", "import uvicorn, service.app, cli.asgi, mcp_face.server"],
)
"""What ``mlens --help`` and ``mlens serve`` load: imported once, so that every module
they reach, installed libraries included, gets its bytecode."""


def main() -> int:
    """Compile the packages, run the imports; 1 if either failed."""
    compiled = all(
        compileall.compile_dir(ROOT / package, quiet=1, force=False) for package in PACKAGES
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for command in AT_START:
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            sys.stderr.write(done.stderr[-2000:])
            return 1
    return 0 if compiled else 1


if __name__ == "__main__":
    sys.exit(main())
