"""Print one requirement of one of pyproject.toml's extras, as pyproject.toml writes it.

``python scripts/extra_requirement.py llm-local llama-cpp-python`` prints
``llama-cpp-python[server]>=0.3.2``: the Makefile builds that wheel first, in the
background, with the version bound written once (in pyproject.toml).
``python scripts/extra_requirement.py llm-local`` prints every requirement of the extra,
one a line: what the Makefile adds to the ready environment once that wheel is built.
Standard library only: it runs before anything is installed.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def requirement(extra: str, name: str, pyproject: Path = PYPROJECT) -> str:
    """The requirement for the distribution ``name`` in the extra ``extra``.

    Raises:
        LookupError: the extra does not exist or does not name the distribution.
    """
    wanted = _normal(name)
    for line in requirements(extra, pyproject):
        match = re.match(r"[A-Za-z0-9._-]+", line)
        if match and _normal(match.group()) == wanted:
            return str(line)
    raise LookupError(f"the extra {extra!r} does not name {name!r}")


def _normal(name: str) -> str:
    """A distribution name as PEP 503 compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()


def requirements(extra: str, pyproject: Path = PYPROJECT) -> list[str]:
    """Every requirement of the extra ``extra``, as pyproject.toml writes them.

    Raises:
        LookupError: the extra does not exist.
    """
    extras = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"][
        "optional-dependencies"
    ]
    if extra not in extras:
        raise LookupError(f"pyproject.toml has no extra {extra!r}")
    return [str(line) for line in extras[extra]]


def main(argv: list[str]) -> int:
    """Print the requirement (every requirement of the extra when no distribution is
    named, one a line); one line on stderr and exit 2 when there is none."""
    if len(argv) not in (1, 2):
        print("usage: extra_requirement.py EXTRA [DISTRIBUTION]", file=sys.stderr)
        return 2
    try:
        print(requirement(argv[0], argv[1]) if len(argv) == 2 else "\n".join(requirements(argv[0])))
    except LookupError as exc:
        print(f"extra_requirement.py: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
