"""Install into the project's environment with uv, configured as this machine's pip is.

``python scripts/install.py VENV_PYTHON ARGS…`` runs ``uv pip install --python VENV_PYTHON
ARGS…`` (``ARGS`` as pip takes them: ``-e ".[prebuilt,dev]"``, ``--find-links DIR``) with
the indexes, find-links, constraints, certificate and timeout that ``pip config list``
shows (its files and ``PIP_*`` variables), and prints what it installs.

Why uv: pip resolves and downloads one distribution after another; for the ~220 of the
full environment that took 9 of a fresh machine's 11 install minutes, uv takes under two
(it fetches in parallel). Pip stays the source of truth for where packages come from: uv
reads no pip configuration, so this script hands it over, with
``--index-strategy unsafe-best-match`` (pip's rule: the best version across every index).
Unlike pip, uv compiles no bytecode at install (22,000 files, 2.5 minutes here): Python
writes a module's ``.pyc`` when it first imports it (``scripts/run_tests.py`` lets the
tests do so even where ``PYTHONDONTWRITEBYTECODE`` is set).
uv's cache sits in ``PIP_CACHE_DIR/uv`` when ``PIP_CACHE_DIR`` is set (and
``UV_CACHE_DIR`` is not), so an empty pip cache means an empty uv cache too. Without uv
in the environment (``make`` installs it first, with pip) this runs ``pip install``.

Standard library only: it runs before anything else is installed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

# pip's option → uv's (each may repeat; pip writes lists space- or newline-separated).
_LIST_OPTIONS = {
    "extra-index-url": "--extra-index-url",
    "find-links": "--find-links",
    "constraint": "--constraint",
}
# Which section wins: the environment over `install.` over `global.` (pip's precedence).
_RANK = {":env:": 2, "install": 1, "global": 0}


def pip_config(python: str) -> dict[str, str]:
    """``pip config list`` of ``python``'s pip, as ``{option: value}``, the option named
    without its section (``extra-index-url``), the highest-precedence value kept."""
    shown = subprocess.run(
        [python, "-m", "pip", "config", "list"], capture_output=True, text=True, check=True
    ).stdout
    return parse_config(shown)


def parse_config(shown: str) -> dict[str, str]:
    """``pip config list``'s lines (``global.find-links='/opt/wheels'``) as
    ``{option: value}``: the environment's value over ``install.``'s over ``global.``'s."""
    ranked: dict[str, tuple[int, str]] = {}
    for line in shown.splitlines():
        key, sep, value = line.partition("=")
        if not sep or "." not in key:
            continue
        section, _, option = key.rpartition(".")
        rank = _RANK.get(section, 0)
        if option not in ranked or rank >= ranked[option][0]:
            ranked[option] = (rank, value.strip().strip("'\""))
    return {option: value for option, (_, value) in ranked.items()}


def uv_command(uv: Path, python: str, config: dict[str, str], args: list[str]) -> list[str]:
    """The ``uv pip install`` command for ``args`` with pip's ``config``."""
    command = [str(uv), "pip", "install", "--python", python]
    command += ["--index-strategy", "unsafe-best-match"]
    if "index-url" in config:
        command += ["--index-url", config["index-url"]]
    if config.get("no-index", "").lower() in {"1", "true", "yes", "on"}:
        command.append("--no-index")
    for option, flag in _LIST_OPTIONS.items():
        for value in config.get(option, "").split():
            command += [flag, value]
    return command + args


def uv_environment(config: dict[str, str]) -> dict[str, str]:
    """The environment for uv: its cache beside pip's, pip's certificate and timeout."""
    env = dict(os.environ)
    if env.get("PIP_CACHE_DIR") and not env.get("UV_CACHE_DIR"):
        env["UV_CACHE_DIR"] = str(Path(env["PIP_CACHE_DIR"]) / "uv")
    if "cert" in config and not env.get("SSL_CERT_FILE"):
        env["SSL_CERT_FILE"] = config["cert"]
    if "default-timeout" in config and not env.get("UV_HTTP_TIMEOUT"):
        env["UV_HTTP_TIMEOUT"] = config["default-timeout"].split(".")[0]
    return env


def main(argv: list[str]) -> int:
    """Install ``argv[1:]`` into the environment of the interpreter ``argv[0]``."""
    if len(argv) < 2:
        print("usage: install.py VENV_PYTHON PIP_INSTALL_ARGS…", file=sys.stderr)
        return 2
    python, args = argv[0], argv[1:]
    uv = Path(python).parent / "uv"
    if not uv.exists():
        return subprocess.call([python, "-m", "pip", "install", *args])
    config = pip_config(python)
    command = uv_command(uv, python, config, args)
    print("uv pip install", *args, flush=True)
    return subprocess.call(command, env=uv_environment(config))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
