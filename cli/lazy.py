"""Commands named in a table, built the first time one runs or shows its own help.

Typer builds every command of an application when it starts: it imports each command
module, reads every signature and makes each option, which was a tenth of what
``mlens --help`` took for a page that shows only each command's name and the first
paragraph of its help. A ``LazyGroup`` holds its commands as a table of ``Lazy``
entries (module, function, that paragraph): its help page lists them from the table,
and a command is imported and built by Typer, as Typer would have built it at start,
when it is looked up for anything else (run, its ``--help``, a usage error of its own).
``tests/cli/test_cli_lazy_imports.py`` checks every summary against its docstring and
every help page against Typer's eager build, byte for byte.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, MutableMapping, Sequence
from importlib import import_module
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

import typer
import typer.main

from cli.lean_help import LeanHelpCommand, LeanHelpGroup
from cli.state import print_error

if TYPE_CHECKING:
    from typer._click import Command, Context


class Lazy(NamedTuple):
    """A command of a ``LazyGroup``: where its function is, and its help's first paragraph
    (what the group's help page shows of it; the function's docstring starts with it).
    A named tuple: a dataclass would cost ``mlens --help`` a millisecond to define."""

    module: str
    function: str
    summary: str

    def load(self) -> Callable[..., None]:
        """The command's function, its module imported."""
        found: Callable[..., None] = getattr(import_module(self.module), self.function)
        return found


def guarded(command: Callable[..., None]) -> Callable[..., None]:
    """``command``, with a ``ToolkitError`` shown as one line on stderr and exit status 1
    (for the console script and for callers of the app: tests, scripts)."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> None:
        from toolkit.errors import ToolkitError  # when it runs: not for its ``--help``

        try:
            command(*args, **kwargs)
        except ToolkitError as exc:
            print_error(exc)
            raise typer.Exit(1) from None

    return run


def build(name: str, entry: Lazy, *, rich_markup_mode: Any) -> Command:
    """The command ``name`` of ``entry``, registered and built as Typer does at start."""
    registry = typer.Typer()
    registry.command(name, cls=LeanHelpCommand)(guarded(entry.load()))
    return typer.main.get_command_from_info(
        registry.registered_commands[0],
        pretty_exceptions_short=registry.pretty_exceptions_short,
        rich_markup_mode=rich_markup_mode,
    )


class LazyCommands(MutableMapping[str, "Command"]):
    """A group's commands by name: the table's, each built on first lookup, then the
    ones added as built commands (a sub-group), in that order."""

    def __init__(
        self, table: Sequence[tuple[str, Lazy]], added: dict[str, Command], *, markup: Any
    ) -> None:
        self.table = dict(table)
        self.built = dict(added)
        self.markup = markup

    def __getitem__(self, name: str) -> Command:
        if name not in self.built:
            entry = self.table[name]  # KeyError: no such command
            self.built[name] = build(name, entry, rich_markup_mode=self.markup)
        return self.built[name]

    def listed(self, name: str) -> Command | None:
        """What the group's help page shows of ``name``: the command if it is built, else
        a command of its name and summary, which is all the page reads of it."""
        if name in self.built or name not in self.table:
            return self.built.get(name)
        summary = self.table[name].summary
        return LeanHelpCommand(name=name, help=summary, rich_markup_mode=self.markup)

    def __contains__(self, name: object) -> bool:
        return name in self.table or name in self.built

    def __setitem__(self, name: str, command: Command) -> None:
        self.built[name] = command

    def __delitem__(self, name: str) -> None:
        if name not in self:
            raise KeyError(name)
        self.table.pop(name, None)
        self.built.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        yield from self.table
        yield from (name for name in self.built if name not in self.table)

    def __len__(self) -> int:
        return len(self.table) + sum(name not in self.table for name in self.built)


class LazyGroup(LeanHelpGroup):
    """A Typer group whose commands are the ``table`` of its class, built when used."""

    table: ClassVar[Sequence[tuple[str, Lazy]]] = ()
    """Each command's name and entry, in the order the help lists them."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.commands = LazyCommands(self.table, dict(self.commands), markup=self.rich_markup_mode)
        self.listing = False

    def list_commands(self, ctx: Context) -> list[str]:
        """The commands' names, in order, without building any."""
        return list(self.commands)

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        """The command ``cmd_name`` (built), or while the help page is drawn, its row."""
        if self.listing and isinstance(self.commands, LazyCommands):
            return self.commands.listed(cmd_name)
        return super().get_command(ctx, cmd_name)

    def format_help(self, ctx: Context, formatter: Any) -> None:
        """The group's help, which lists its commands from the table."""
        self.listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self.listing = False
