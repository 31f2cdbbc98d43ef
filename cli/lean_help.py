"""Typer's help, drawn by Typer's own code, without two Rich modules ``mlens`` never uses.

``typer.rich_utils``, which draws every ``--help`` page, imports ``rich.markdown``
(markdown-it-py, Pygments) and ``rich.traceback`` (attrs, Pygments) at its top: the
first for the ``markdown`` markup mode, the second for pretty tracebacks. ``mlens`` uses
neither (``rich`` markup, ``pretty_exceptions_enable=False``), yet importing them took
over a quarter of the time ``mlens --help`` takes. ``load_help_renderer`` imports
``typer.rich_utils`` with a stand-in for each, which imports the real class the moment
Typer touches it; the stand-in modules are gone from ``sys.modules`` once Typer's module
is loaded, so any later ``import rich.markdown`` gets the real one. Should a Typer
release import more from them, the plain import is done instead: the help is the same
either way, only its start is slower.

``LeanHelpCommand`` and ``LeanHelpGroup`` call it before they draw their help; their
``--help`` is a ``HelpFlag``, which spares ``mlens <command> --help`` the import of
pydantic (Typer's coercion) for the group's ``--help`` that was not given.
"""

from __future__ import annotations

import sys
from importlib import import_module
from types import ModuleType
from typing import Any

import typer.core
from typer.core import TyperCommand, TyperGroup, TyperOption

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


class HelpFlag(TyperOption):
    """``--help``, which Typer need not coerce when it is not given."""

    def process_value(self, ctx: Any, value: Any) -> Any:
        """The flag's value; not given (``None``) is off, as Typer's coercion would say.

        Typer coerces every value through its pydantic adapters, importing pydantic for
        the ``None`` of a group's ``--help`` when a subcommand is run (``mlens search
        --help``); a flag needs no adapter.
        """
        return super().process_value(ctx, False if value is None else value)


class _LeanHelp:
    """What ``LeanHelpCommand`` and ``LeanHelpGroup`` change of a Typer command."""

    def get_help_option(self, ctx: Any) -> Any:
        """Typer's ``--help`` option, as a ``HelpFlag``."""
        option = super().get_help_option(ctx)  # type: ignore[misc]
        if type(option) is TyperOption:
            option.__class__ = HelpFlag  # the same option; only its coercion differs
        return option

    def format_help(self, ctx: Any, formatter: Any) -> None:
        """Load the help renderer lean (if Typer draws with Rich), then draw the help as
        Typer does."""
        if typer.core.HAS_RICH and getattr(self, "rich_markup_mode", None) is not None:
            load_help_renderer()
        super().format_help(ctx, formatter)  # type: ignore[misc]


class LeanHelpCommand(_LeanHelp, TyperCommand):
    """A Typer command whose help is drawn as Typer draws it, loaded lean."""


class LeanHelpGroup(_LeanHelp, TyperGroup):
    """A Typer group whose help is drawn as Typer draws it, loaded lean."""
