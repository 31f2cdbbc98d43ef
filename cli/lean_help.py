"""Typer's help, drawn by Typer's own code, without the Rich modules it never uses.

``typer.rich_utils``, which draws every ``--help`` page, imports ``rich.markdown``
(markdown-it-py, Pygments) and ``rich.traceback`` (attrs, Pygments) at its top: the
first for the ``markdown`` markup mode, the second for pretty tracebacks. ``mlens`` uses
neither (``rich`` markup, ``pretty_exceptions_enable=False``), yet importing them took
over a quarter of the time ``mlens --help`` takes. ``load_help_renderer`` imports
``typer.rich_utils`` with a stand-in for each (``cli.stand_ins``), which imports the
real class the moment Typer touches it; the stand-in modules are gone from
``sys.modules`` once Typer's module is loaded, so any later ``import rich.markdown``
gets the real one. Should a Typer release take more from them, what it takes is read
from the real module, imported then: the help is the same either way, only its start
is slower. Rich's table of emoji codes (thousands of entries), which Rich imports to
draw any text with markup, gets a stand-in too, left in place until a text holds an
emoji code (``:name:``), which no help page does.

``LeanHelpCommand`` and ``LeanHelpGroup`` call it before they draw their help; their
``--help`` is a ``HelpFlag``, which spares ``mlens <command> --help`` the import of
pydantic (Typer's coercion) for the group's ``--help`` that was not given.
"""

from __future__ import annotations

import sys
from typing import Any

import typer.core
from typer.core import TyperCommand, TyperGroup, TyperOption

from cli.stand_ins import import_with_stand_ins, stand_in_module

# typer.rich_utils does ``from <module> import <name>`` for each.
DEFERRED = {"rich.markdown": ("Markdown",), "rich.traceback": ("Traceback",)}
"""The modules ``typer.rich_utils`` is given stand-ins for, and the names it takes of each."""

EMOJI_CODES = "rich._emoji_codes"
"""Rich's table of emoji codes, which it imports to draw any text with markup (it looks
for ``:name:`` codes) and reads only when the text holds one."""


def load_help_renderer() -> None:
    """Import ``typer.rich_utils`` without importing what ``DEFERRED`` names (once), and
    leave a stand-in for Rich's emoji codes until a code is looked up."""
    import_with_stand_ins("typer.rich_utils", DEFERRED)
    if EMOJI_CODES not in sys.modules:
        sys.modules[EMOJI_CODES] = stand_in_module(EMOJI_CODES, mappings=("EMOJI",))


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
