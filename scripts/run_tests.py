"""``make test``: every test and notebook, in two runs at once.

1. When the full environment is not ready, llama-cpp-python's wheel starts compiling in
   the background (``make LLAMA_STAMP``: minutes on 2 cores), and the ready wheels are
   installed meanwhile (``make venv-prebuilt``).
2. Every test but the local model's (``-m "not llm_local"``) runs from the ready
   environment while the wheel compiles, on two workers (pytest-xdist, ``WORKERS``: the
   tests wait on servers and processes as much as they compute, and once the other run
   ends a core would sit idle), Python writing bytecode as it imports (even where
   ``PYTHONDONTWRITEBYTECODE`` is set: the tests start hundreds of processes).
3. Beside them: once the wheel is built, ``make venv`` adds the local LLM's requirements
   (not the project: the first run keeps importing it), and the tests against the local
   llama.cpp server run (``-m llm_local``, only the files that mark one collected), their
   output kept in ``VENV/test-llm.log`` and printed when they end.
4. The notebooks (``--nbval-lax``, ``MLENS_NB_FAST=1`` unless set) run after whichever
   of the two runs ends first.

On a fresh machine the compile and the tests overlap instead of following each other; on
a ready one the local model's slow answers overlap the rest of the suite. The exit status
is the first failure's (the install's, a run's), 0 when all passed.

Standard library only.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import TextIO

ROOT = Path(__file__).resolve().parent.parent


WORKERS = ("-n", "2", "--dist", "worksteal")
"""The main run's pytest-xdist workers (each starts its own PostgreSQL cluster); work
stealing evens out files whose tests take seconds beside files of milliseconds."""

NO_NOTEBOOKS = ("-p", "no:nbval")
"""The runs that collect no notebook leave nbval out: loading it (nbformat, jsonschema and
its URI grammar) took 5 of a pytest start's 9 seconds."""


def _make(make: list[str], venv: Path, *targets: str, question: bool = False) -> list[str]:
    """The command ``make [-q] VENV=venv targets…``."""
    return [*make, "--no-print-directory", *(["-q"] if question else []), f"VENV={venv}", *targets]


def _ready(make: list[str], venv: Path, target: str) -> bool:
    """Whether ``target`` is up to date (``make -q``)."""
    return subprocess.call(_make(make, venv, target, question=True), cwd=ROOT) == 0


def _elapsed(started: float) -> str:
    return f"{time.monotonic() - started:.0f} s"


def marked_files(marker: str = "llm_local") -> list[str]:
    """The test files that mark a test with ``marker`` (``pytest.mark.<marker>``)."""
    return sorted(
        str(path.relative_to(ROOT))
        for path in (ROOT / "tests").rglob("test_*.py")
        if f"mark.{marker}" in path.read_text(encoding="utf-8")
    )


class Notebooks:
    """The notebooks' run (``--nbval-lax``, ``MLENS_NB_FAST=1`` unless set), taken by
    whichever test run ends first."""

    def __init__(self, python: str) -> None:
        self.python = python
        self.status = 0
        self._lock = threading.Lock()
        self._taken = False

    def take(self) -> bool:
        """Whether the caller runs them (the first to ask does)."""
        with self._lock:
            taken, self._taken = self._taken, True
        return not taken

    def run(self, out: TextIO | None = None) -> None:
        """Run them, their output to ``out`` (the terminal when None)."""
        env = {**os.environ, "MLENS_NB_FAST": os.environ.get("MLENS_NB_FAST", "1")}
        command = [self.python, "-m", "pytest", "--nbval-lax", "-p", "no:cacheprovider"]
        chosen = [str(path.relative_to(ROOT)) for path in sorted(NOTEBOOKS.glob("*.ipynb"))]
        if not DEV_DIR.is_dir():  # as the tests that read it are skipped, with the reason
            needs = [n for n in chosen if _reads_dev_data(ROOT / n)]
            chosen = [n for n in chosen if n not in needs]
            print(f"skipped {', '.join(needs)}: dev data not found at {DEV_DIR}", file=out)
        self.status = subprocess.call(
            [*command, *chosen], cwd=ROOT, env=env, stdout=out, stderr=out
        )


NOTEBOOKS = ROOT / "notebooks"
DEV_DIR = ROOT.parent / "shared" / "data" / "eval" / "dev"
"""The shared dev files (``toolkit.evaluate.retrieval.DEV_DIR``), beside the clone."""


def _reads_dev_data(notebook: Path) -> bool:
    """Whether ``notebook`` evaluates on the shared dev files."""
    text = notebook.read_text(encoding="utf-8")
    return any(name in text for name in ("dev_sets", "DEV_DIR", "dev_dir", "eval/dev"))


class LocalModelRun(threading.Thread):
    """The second run: wait for the compiled wheel, add the local LLM, run its tests
    (then the notebooks, if the first run is still going)."""

    def __init__(
        self,
        make: list[str],
        venv: Path,
        build: subprocess.Popen[bytes] | None,
        notebooks: Notebooks,
    ) -> None:
        super().__init__(name="llm-local-tests", daemon=True)
        self.make, self.venv, self.build, self.notebooks = make, venv, build, notebooks
        self.log = venv / "test-llm.log"
        self.status = 0
        self.took = ""

    def run(self) -> None:
        started = time.monotonic()
        with self.log.open("w", encoding="utf-8") as log:
            if self.build is not None and self.build.wait() != 0:
                log.write("llama-cpp-python did not build (its log above)\n")
                self.status = 1
                return
            log.flush()
            self.status = subprocess.call(
                _make(self.make, self.venv, "venv"), cwd=ROOT, stdout=log, stderr=log
            )
            if self.status != 0:
                return
            log.flush()
            python = str(self.venv / "bin" / "python")
            command = [python, "-m", "pytest", "-m", "llm_local", *NO_NOTEBOOKS]
            command += ["-p", "no:cacheprovider"]
            command += marked_files()  # collect only these (the first run collects all)
            self.status = subprocess.call(command, cwd=ROOT, stdout=log, stderr=log)
            self.took = _elapsed(started)
            if self.notebooks.take():
                log.flush()
                self.notebooks.run(log)


def main(argv: list[str]) -> int:
    """Install what is missing and run both test runs; the first failure's status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--make", default="make", help="the make command (the Makefile passes its own)"
    )
    parser.add_argument("--venv", default=".venv", type=Path, help="the environment's folder")
    args = parser.parse_args(argv)
    make, venv = shlex.split(args.make), args.venv
    python = str(venv / "bin" / "python")
    started = time.monotonic()

    build: subprocess.Popen[bytes] | None = None
    if not _ready(make, venv, "venv"):
        stamp = str(venv / "wheels" / ".built")
        build = subprocess.Popen(_make(make, venv, stamp), cwd=ROOT)
    try:
        installed = subprocess.call(_make(make, venv, "venv-prebuilt"), cwd=ROOT)
    except KeyboardInterrupt:
        installed = 130
    if installed != 0:
        if build is not None:
            build.terminate()
        return installed

    # Bytecode written as modules are first imported (uv compiles none at install): with
    # PYTHONDONTWRITEBYTECODE set, each of the hundreds of CLI and server processes the
    # tests start would compile every module it imports again.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    notebooks = Notebooks(python)
    local = LocalModelRun(make, venv, build, notebooks)
    local.start()
    print(f"tests against the local model: in the background (log: {local.log})", flush=True)
    status = subprocess.call(
        [python, "-m", "pytest", "-m", "not llm_local", *WORKERS, *NO_NOTEBOOKS], cwd=ROOT
    )
    if notebooks.take():
        notebooks.run()
    if local.is_alive():
        print(f"waiting for the tests against the local model ({local.log})…", flush=True)
    local.join()
    print(local.log.read_text(encoding="utf-8"), end="", flush=True)
    print(f"make test: {_elapsed(started)} (local-model run {local.took or 'not run'})")
    return status or notebooks.status or local.status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
