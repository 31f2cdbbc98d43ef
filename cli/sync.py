"""``mlens sync REF``: fetch a source's new messages live over the messenger API."""

from typing import Annotated

import typer

from cli.render import literal
from cli.state import console, settings, workspace


def sync(
    ref: Annotated[str, typer.Argument(help="Source: @handle, t.me link or t.me/c/<id>.")],
    full: Annotated[
        bool, typer.Option("--full", help="Refetch from the first message to pick up old edits.")
    ] = False,
    limit: Annotated[
        int | None, typer.Option(min=1, help="Fetch at most N messages in this run.")
    ] = None,
    with_comments: Annotated[
        bool,
        typer.Option(
            "--with-comments",
            help="For a channel with a discussion group: also store the comments of the "
            "posts fetched, as messages of the group replying to their post.",
        ),
    ] = False,
) -> None:
    """Fetch new messages of a source, oldest first, from where the last sync stopped.

    Needs MLENS_MESSENGER_API_ID, MLENS_MESSENGER_API_HASH and MLENS_MESSENGER_SESSION.
    """
    from toolkit.workspace import messenger_client

    # Credentials are checked before the store is opened: a missing one is one clear line.
    client = messenger_client(settings())
    report = workspace().sync(
        ref, client, full=full, limit=limit, progress=True, with_comments=with_comments
    )
    result = report.result
    waits = (
        f", slept {report.slept_seconds:g} s over {report.flood_waits} FloodWaits"
        if report.flood_waits
        else ""
    )
    console().print(
        literal(f"{report.source.key} ({report.source.title})", one_line=True) + ": fetched"
        f" {report.fetched} messages in "
        f"{report.batches} batches — {result.inserted} new, {result.updated} edited, "
        f"{result.unchanged} unchanged; watermark {report.watermark_after or 0}{waits}.",
        highlight=False,
    )
    if report.discussion is not None:
        group = report.discussion
        console().print(
            literal(f"{group.key} ({group.title})", one_line=True) + f": {report.comments} "
            f"comments and post copies — {report.comments_result.inserted} new, "
            f"{report.comments_result.updated} edited, "
            f"{report.comments_result.unchanged} unchanged.",
            highlight=False,
        )
    for line in report.notes:
        console().print(literal(line, one_line=True), highlight=False, soft_wrap=True)
