"""Package docstrings name only modules that exist.

A package's ``__init__.py`` docstring is where a newcomer learns what its modules are
for, so a module that was renamed or removed must leave it too. Read as module names:

- ``name.py`` and ``folder/name.py`` (beside the package, or from the repository root);
- dotted paths from a top-level package (``toolkit.search.scorer``), the last part
  possibly a name the module defines (``toolkit.weights.SearchWeights``);
- every bare ``name`` of a paragraph that starts with ``Modules:`` (outside parentheses,
  which describe), a bullet's head ``- ``name``:``, and a lone ``(``name``)``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("toolkit", "service", "cli", "mcp_face", "benchmarks")
_QUOTED = re.compile(r"``([^`]+)``")
_NAME = re.compile(r"[a-z_][a-z0-9_]*")
_FILE = re.compile(r"[\w/]+\.py")
_DOTTED = re.compile(rf"(?:{'|'.join(PACKAGES)})(?:\.\w+)+")


def package_inits() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("__init__.py"))


def _without_parentheses(text: str) -> str:
    inner = re.compile(r"\([^()]*\)")
    while inner.search(text):
        text = inner.sub("", text)
    return text


def named_modules(doc: str) -> set[str]:
    """The bare module names a docstring gives by the conventions above."""
    names: set[str] = set()
    for paragraph in re.split(r"\n\s*\n", doc):
        if paragraph.lstrip().startswith("Modules:"):
            names |= set(_QUOTED.findall(_without_parentheses(paragraph)))
    names |= set(re.findall(r"^\s*- ``([^`]+)``:", doc, flags=re.MULTILINE))
    names |= set(re.findall(r"\(``([^`]+)``\)", doc))
    return {n for n in names if _NAME.fullmatch(n)}


def _module_path(dotted: str) -> Path | None:
    path = ROOT.joinpath(*dotted.split("."))
    if (path / "__init__.py").is_file():
        return path / "__init__.py"
    if path.with_suffix(".py").is_file():
        return path.with_suffix(".py")
    return None


def _is_file(name: str, folder: Path) -> bool:
    """True when ``name`` is a file beside the package or from the repository root."""
    return (folder / name).is_file() or (ROOT / name).is_file()


def missing(doc: str, folder: Path) -> list[str]:
    """What ``doc``, the docstring of the package in ``folder``, names that does not exist."""
    gone = [
        name
        for name in sorted(named_modules(doc))
        if not (folder / f"{name}.py").is_file() and not (folder / name / "__init__.py").is_file()
    ]
    for quoted in _QUOTED.findall(doc):
        gone += [f for f in _FILE.findall(quoted) if not _is_file(f, folder)]
        gone += [d for d in _DOTTED.findall(quoted) if not _defined(d)]
    return gone


def _defined(dotted: str) -> bool:
    """True when ``dotted`` is a module, or a module and one name its source mentions."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        module = _module_path(".".join(parts[:cut]))
        if module is not None:
            rest = parts[cut:]
            text = module.read_text(encoding="utf-8")
            return not rest or (len(rest) == 1 and re.search(rf"\b{rest[0]}\b", text) is not None)
    return False


@pytest.mark.parametrize("init", package_inits(), ids=lambda p: str(p.parent.relative_to(ROOT)))
def test_package_docstring_names_only_modules_that_exist(init: Path) -> None:
    doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
    assert missing(doc, init.parent) == []


def test_the_check_catches_what_is_gone() -> None:
    doc = (
        "Search.\n\nModules: ``signals`` (the ``four`` signals), ``ranker``.\n\n"
        "- ``scorer``: fusion;\n- ``fusion``: gone;\n\nSee ``searcher.py``, "
        "``toolkit.search.nothing.deep``, ``toolkit.weights.SearchWeights``, "
        "``toolkit.weights.NoSuchName``, ``gone.py``, ``scripts/make_demo.py`` and (``vanished``)."
    )
    assert sorted(missing(doc, ROOT / "toolkit" / "search")) == [
        "fusion",
        "gone.py",
        "ranker",
        "toolkit.search.nothing.deep",
        "toolkit.weights.NoSuchName",
        "vanished",
    ]
