"""``mlens`` starts at once: ``--help`` loads no heavy library and no settings, and a read
command loads no summary engine, web framework or live client (what it loads is checked,
not how long it takes: ``python -m benchmarks.bench_startup`` times it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from startup_support import among, run_probe

# Each costs tens to hundreds of milliseconds to import, or pulls in many modules that do.
HEAVY = (
    "numpy",
    "scipy",
    "sklearn",
    "pandas",
    "polars",
    "openai",
    "httpx",
    "telethon",
    "torch",
    "fastapi",
    "uvicorn",
    "pydantic_settings",
    "tqdm",
    "ijson",
    "toolkit.config",
    "toolkit.workspace",
    "toolkit.notebook",
    "toolkit.summarize",
    "toolkit.store",
)
# What a read command needs (the store, numpy, the settings) may load; not these.
NOT_FOR_READS = (
    "scipy",
    "sklearn",
    "pandas",
    "polars",
    "openai",
    "telethon",
    "torch",
    "fastapi",
    "uvicorn",
    "toolkit.summarize",
    "toolkit.evaluate",
)

PROBE = """
import json, sys
sys.argv = ["mlens", *json.loads(sys.argv[1])]
from cli import main
try:
    main()
except SystemExit as exc:
    assert not exc.code, exc.code
print("\\n" + json.dumps(sorted(sys.modules)))
"""


def loaded(*args: str, data_dir: Path) -> set[str]:
    """The modules loaded by ``mlens <args>`` in a fresh interpreter."""
    return set(json.loads(run_probe(PROBE, json.dumps(args), cwd=data_dir)[-1]))


@pytest.mark.parametrize("args", [("--help",), ("search", "--help"), ("serve", "--help")])
def test_help_imports_nothing_heavy(args: tuple[str, ...], tmp_path: Path) -> None:
    assert among(loaded(*args, data_dir=tmp_path), HEAVY) == []


def test_a_read_command_imports_no_engine_and_no_web_framework(tmp_path: Path) -> None:
    modules = loaded("sources", "--json", data_dir=tmp_path)
    assert "toolkit.workspace" in modules  # it did open the store
    assert among(modules, NOT_FOR_READS) == []
