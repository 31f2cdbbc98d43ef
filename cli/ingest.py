"""``mlens import PATH [--ref @handle]`` and ``mlens demo``: load exports into the store."""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from cli.filters import JsonOption
from cli.render import literal, print_json, print_table
from cli.state import console, workspace

if TYPE_CHECKING:
    from toolkit.notebook import Table
    from toolkit.workspace import Imported

_COUNTS = ("inserted", "updated", "unchanged")


def report_table(imports: list["Imported"], title: str) -> "Table":
    """What imports changed: one row per source, and a total when there are several."""
    from toolkit.notebook import Table
    from toolkit.notebook.tables import IMPORT_COLUMNS, import_table

    imported = Table(
        [row for i in imports for row in import_table(i.report, i.embedded)],
        columns=IMPORT_COLUMNS,
    )
    rows = imported.rows
    if len(rows) > 1:
        rows.append({"ref": "total", **{c: sum(imported[c]) for c in _COUNTS}})
    columns = ["ref", "title", *_COUNTS]
    return Table(rows, columns=imported.columns).view(
        columns, labels={"ref": "source"}, title=title
    )


def import_file(
    file: Annotated[
        Path,
        typer.Argument(
            help="The export: its result.json (JSON), its folder or any messages*.html "
            "(HTML, every page is read), or a .zip of either; a chat or a whole account."
        ),
    ],
    ref: Annotated[
        str | None,
        typer.Option(
            help="The exported chat: its public handle (@handle), or for an HTML export "
            "(which names no chat id) also c/<id>; for a full-account HTML export, each "
            "chat by its folder: chat_003=c/<id>,chat_007=@handle."
        ),
    ] = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
    embed: Annotated[
        bool,
        typer.Option(
            help="Embed now: each chat's newest messages first (searchable in seconds), "
            "then the rest; `mlens index` resumes an interrupted run."
        ),
    ] = True,
    timezone: Annotated[
        str | None,
        typer.Option(
            help="IANA time zone (Europe/Moscow) of dates without date_unixtime or UTC "
            "offset (exports of older Telegram Desktop versions)."
        ),
    ] = None,
    strict: Annotated[
        bool,
        typer.Option(
            help="Exit with status 2 when a message block or record of the export is not "
            "accounted for (seen ≠ stored + skipped) or could not be read."
        ),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Import a Telegram Desktop export, JSON or HTML or a .zip (one transaction, idempotent)."""
    imported = workspace().import_export(
        file, ref=ref, embed=embed, progress=progress and not as_json, timezone=timezone
    )
    report = imported.report
    if as_json:
        print_json(report.record())
    elif not report.sources:
        console().print(f"{literal(file.name)}: the export holds no chats; nothing imported.")
    else:
        print_table(report_table([imported], f"Imported {file.name}"))
        console().print(literal(report.line()), highlight=False, soft_wrap=True)
    for warning in report.warnings():
        typer.echo(warning, err=True)
    if strict and report.warnings():
        raise typer.Exit(2)


def index(
    ref: Annotated[
        str | None, typer.Argument(help="The source to embed; by default every source.")
    ] = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
) -> None:
    """Embed the messages that have no vector yet (resumes an interrupted embedding)."""
    for source, count in workspace().index(ref, progress=progress):
        noun = "message" if count == 1 else "messages"
        label = literal(f"{source.key} ({source.title})", one_line=True)
        console().print(f"{label}: embedded {count} {noun}", highlight=False)


def demo() -> None:
    """Load the demo sources (an English chat and a Russian channel) into the store."""
    imported = workspace().load_demo(only_if_empty=False, progress=True)
    print_table(report_table(imported, "Demo sources"))
