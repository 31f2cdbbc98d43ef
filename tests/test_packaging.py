"""Packaging invariants: conda users get the same environment as pip users."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

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
