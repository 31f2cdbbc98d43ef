"""Typer's help, drawn by Typer's own code, without two Rich modules ``mlens`` never uses.

``typer.rich_utils``, which draws every ``--help`` page, imports ``rich.markdown``
(markdown-it-py, Pygments) and ``rich.traceback`` (attrs, Pygments) at its top: the
first for the ``markdown`` markup mode, the second for pretty tracebacks. ``mlens`` uses
neither (``rich`` markup, ``pretty_exceptions_enable=False``), yet importing them is about
a third of the time ``mlens --help`` takes. ``load_help_renderer`` imports
``typer.rich_utils`` with a stand-in for each, which imports the real class the moment
Typer touches it; the stand-in modules are gone from ``sys.modules`` once Typer's module
is loaded, so any later ``import rich.markdown`` gets the real one. Should a Typer
release import more from them, the plain import is done instead: the help is the same
either way, only its start is slower.

``LeanHelpCommand`` and ``LeanHelpGroup`` call it before they draw their help.
"""

from __future__ import annotations

import sys
from importlib import import_module
from types import ModuleType
from typing import Any

from typer.core import TyperCommand, TyperGroup

# typer.rich_utils does ``from <module> import <name>`` for each.
DEFERRED = {"rich.markdown": "Markdown", "rich.traceback": "Traceback"}
"""The modules ``typer.rich_utils`` is given stand-ins for, and the name it takes of each."""


class _Deferred(type):
    """The stand-ins' type: a class attribute (``Traceback.from_exception``) is the real one's."""

    def __getattr__(cls, attr: str) -> Any:
        real: type = cls.real()  # type: ignore[attr-defined]
        return getattr(real, attr)


def stand_in(module: str, name: str) -> type:
    """A class that imports ``module`` and gives its ``name`` when it is called or read."""

    def real() -> type:
        found: type = getattr(import_module(module), name)
        return found

    def new(cls: type, *args: Any, **kwargs: Any) -> Any:
        return real()(*args, **kwargs)

    return _Deferred(name, (), {"__new__": new, "real": staticmethod(real)})


def load_help_renderer() -> None:
    """Import ``typer.rich_utils`` without importing what ``DEFERRED`` names (once)."""
    if "typer.rich_utils" in sys.modules:
        return
    stand_ins = {}
    for module, name in DEFERRED.items():
        if module not in sys.modules:
            stand_ins[module] = ModuleType(module)
            setattr(stand_ins[module], name, stand_in(module, name))
    sys.modules.update(stand_ins)
    try:
        import_module("typer.rich_utils")
        return
    except ImportError:  # pragma: no cover - a Typer that takes more from them
        pass
    finally:
        for module, stand_in_module in stand_ins.items():
            if sys.modules.get(module) is stand_in_module:
                del sys.modules[module]
    import_module("typer.rich_utils")  # pragma: no cover - with the real modules


class LeanHelpCommand(TyperCommand):
    """A Typer command whose help is drawn as Typer draws it, loaded lean."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        """Load the help renderer lean, then draw the help as Typer does."""
        load_help_renderer()
        super().format_help(ctx, formatter)


class LeanHelpGroup(TyperGroup):
    """A Typer group whose help is drawn as Typer draws it, loaded lean."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        """Load the help renderer lean, then draw the help as Typer does."""
        load_help_renderer()
        super().format_help(ctx, formatter)
