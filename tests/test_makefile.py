"""The Makefile's ports and install sets: ``make serve`` on PORT (8000), ``make app`` on
PORT when given, else on APP_PORT (8501); ``make serve`` installs the package alone,
``make test-fast`` the ready wheels (``[prebuilt,dev]``), every other target those and
the local LLM, each once per pyproject.toml; ``make test`` hands the installs to
``scripts/run_tests.py``. Checked with ``make -n``
(nothing runs)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def port(target: str, *args: str, **env: str) -> str:
    """The port ``make -n target`` would give the server."""
    clean = {k: v for k, v in os.environ.items() if k not in {"PORT", "APP_PORT", "HOST"}}
    dry = subprocess.run(
        ["make", "-n", "-C", str(ROOT), target, *args],
        capture_output=True,
        text=True,
        check=True,
        env={**clean, **env},
    )
    found = re.search(r"--(?:server\.)?port (\S+)", dry.stdout)
    assert found, dry.stdout
    return found.group(1)


def test_serve_listens_on_port() -> None:
    assert port("serve") == "8000"
    assert port("serve", "PORT=9000") == "9000"


def test_app_honours_port_when_given() -> None:
    assert port("app") == "8501"
    assert port("app", "PORT=9000") == "9000"
    assert port("app", PORT="9001") == "9001"
    assert port("app", "APP_PORT=9100") == "9100"


def dry(target: str, venv: Path) -> str:
    """What ``make -n target`` would run with its environment at ``venv``."""
    clean = {k: v for k, v in os.environ.items() if k not in {"PORT", "APP_PORT", "HOST"}}
    done = subprocess.run(
        ["make", "-n", "-C", str(ROOT), target, f"VENV={venv}"],
        capture_output=True,
        text=True,
        check=True,
        env=clean,
    )
    return done.stdout


def installs(commands: str) -> list[str]:
    """The installs into the environment (``scripts/install.py``: uv with pip's
    configuration) among ``commands``."""
    return [line for line in commands.splitlines() if "scripts/install.py" in line]


def test_serve_installs_only_what_serving_needs_with_its_output(tmp_path: Path) -> None:
    venv = tmp_path / ".venv"
    commands = dry("serve", venv)
    assert f"-m venv {venv}" in commands
    assert f"{venv}/bin/python -m pip install uv" in commands  # pip installs uv, uv the rest
    (line,) = installs(commands)
    assert line.endswith(f"scripts/install.py {venv}/bin/python -e .")  # no extras
    assert "--quiet" not in line
    assert " -q" not in line
    # Then the bytecode of what the commands and the server load at start.
    warm = f"{venv}/bin/python scripts/warm_bytecode.py"
    assert warm in commands
    assert commands.index(warm) > commands.index(line)


@pytest.mark.parametrize("target", ["lint", "eval", "app", "bench"])
def test_the_other_targets_install_everything(target: str, tmp_path: Path) -> None:
    venv = tmp_path / ".venv"
    commands = dry(target, venv)
    ready, local_llm = installs(commands)
    assert ready.endswith('-e ".[prebuilt,dev]"')  # every ready wheel first
    assert f"--find-links {venv}/wheels" in local_llm  # then the compiled one
    assert "extra_requirement.py llm-local)" in local_llm  # the extra, not the project again
    assert "--quiet" not in ready + local_llm


def test_the_compiled_wheel_is_built_beside_the_ready_wheels_with_only_what_serving_needs(
    tmp_path: Path,
) -> None:
    venv = tmp_path / ".venv"
    commands = dry("venv", venv)
    assert f"-j2 {venv}/.installed-prebuilt {venv}/wheels/.built" in commands
    build = next(line for line in commands.splitlines() if "pip wheel" in line)
    assert 'CMAKE_ARGS="-DLLAVA_BUILD=OFF -DCMAKE_PROJECT_llama.cpp_INCLUDE=' in build
    include = build.split("CMAKE_PROJECT_llama.cpp_INCLUDE=")[1].split('"')[0]
    assert Path(include).read_text().count("set(LLAMA_BUILD_COMMON OFF)") == 1
    assert f"-w {venv}/wheels" in build
    assert "extra_requirement.py llm-local llama-cpp-python" in commands
    assert "tail -30" in commands  # its failure stops the install, with its log


def test_make_test_runs_the_two_test_runs_and_test_fast_needs_no_compiled_wheel(
    tmp_path: Path,
) -> None:
    venv = tmp_path / ".venv"
    (venv / "bin").mkdir(parents=True)
    for tool in ("python", "uv"):
        (venv / "bin" / tool).touch(mode=0o755)
    commands = dry("test", venv)
    assert f'scripts/run_tests.py --make "make" --venv {venv}' in commands
    assert installs(commands) == []  # scripts/run_tests.py installs, beside the tests
    fast = dry("test-fast", venv)
    (ready,) = installs(fast)
    assert ready.endswith('-e ".[prebuilt,dev]"')
    assert "pip wheel" not in fast


def test_each_install_set_is_done_once_and_redone_when_pyproject_changes(tmp_path: Path) -> None:
    venv = tmp_path / ".venv"
    (venv / "bin").mkdir(parents=True)
    for tool in ("python", "uv"):
        (venv / "bin" / tool).touch(mode=0o755)
    (venv / ".installed-serve").touch()
    assert installs(dry("serve", venv)) == []
    assert len(installs(dry("lint", venv))) == 2  # serving's set lacks the extras
    (venv / ".installed-prebuilt").touch()
    assert len(installs(dry("lint", venv))) == 1  # the local LLM is still missing
    (venv / ".installed-all").touch()
    assert installs(dry("lint", venv)) == []
    long_ago = (ROOT / "pyproject.toml").stat().st_mtime - 3600
    for stamp in (".installed-serve", ".installed-prebuilt", ".installed-all"):
        os.utime(venv / stamp, (long_ago, long_ago))
    assert len(installs(dry("serve", venv))) == 1
    assert len(installs(dry("lint", venv))) == 2  # ready wheels, then the compiled one
