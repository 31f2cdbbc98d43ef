"""Usage errors in two lines: what is wrong, then the usage and where the help is.

Typer draws a usage error (a missing argument, a bad option value, an unknown command)
as a five-line box. ``mlens`` prints instead::

    error: Missing argument 'ref'.
    usage: mlens search [OPTIONS] {ref} {query} (mlens search --help for more)

``LineErrorsGroup`` is the class of the ``mlens`` group: it runs click's main loop
without its own error display and shows the errors it raises in that form; exit
statuses stay click's (2 for usage, 1 for other errors).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any, NoReturn

import typer

from cli.lazy import LazyGroup
from cli.state import err_console, print_error

# The click exceptions Typer raises: Typer 0.2x vendors click as ``typer._click``; older
# Typer raises click's own.
try:
    from typer._click import exceptions as _errors
except ImportError:  # pragma: no cover - older Typer
    from click import exceptions as _errors  # type: ignore[no-redef]


MissingParameter = _errors.MissingParameter
"""The error of a missing argument or option (a command that finds one missing itself)."""


def show_usage_error(exc: _errors.UsageError) -> None:
    """The error on one line, the usage and the help option on the next."""
    from rich.markup import escape

    print_error(exc.format_message())
    ctx = exc.ctx
    if ctx is None:
        return
    usage = ctx.get_usage().removeprefix("Usage: ")
    hint = f" ({ctx.command_path} {ctx.help_option_names[0]} for more)"
    err_console().print(f"usage: {escape(usage)}{escape(hint)}", highlight=False, soft_wrap=True)


def _exit(code: int) -> NoReturn:
    sys.exit(code)


class LineErrorsGroup(LazyGroup):
    """A Typer group whose usage and click errors are one or two plain lines."""

    def main(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        """Run the command line; in standalone mode, show errors as lines and exit."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except _errors.NoArgsIsHelpError as exc:
            if exc.format_message():  # Typer without Rich: the help is the message
                exc.show()
            _exit(exc.exit_code)  # with Rich, the help is already printed
        except _errors.UsageError as exc:
            show_usage_error(exc)
            _exit(exc.exit_code)
        except _errors.ClickException as exc:
            print_error(exc.format_message())
            _exit(exc.exit_code)
        except typer.Abort:
            err_console().print("aborted")
            _exit(1)
        _exit(code if isinstance(code, int) else 0)
