"""``mlens sync REF``: fetch a source's new messages live over the messenger API."""

from __future__ import annotations

from typing import Annotated

import typer

from toolkit.cli.app import app, console, index, settings, store
from toolkit.ingest.live import TelethonMessengerClient
from toolkit.ingest.sync import run_sync
from toolkit.models import Message
from toolkit.refs import parse_ref


def _embed_batch(source_id: int, _messages: list[Message]) -> None:
    # Each committed batch is embedded at once, so searches never wait for it.
    index(source_id, progress=False)


@app.command()
def sync(
    ref: Annotated[str, typer.Argument(help="Source: @handle, t.me link or t.me/c/<id>.")],
    full: Annotated[
        bool, typer.Option("--full", help="Refetch from the first message to pick up old edits.")
    ] = False,
    limit: Annotated[
        int | None, typer.Option(min=1, help="Fetch at most N messages in this run.")
    ] = None,
) -> None:
    """Fetch new messages of a source, oldest first, from where the last sync stopped.

    Needs MLENS_MESSENGER_API_ID, MLENS_MESSENGER_API_HASH and MLENS_MESSENGER_SESSION.
    """
    cfg = settings()
    source_ref = parse_ref(ref)
    # Credentials are checked before the store is opened: a missing one is one clear line.
    client = TelethonMessengerClient.from_settings(cfg)
    report = run_sync(
        store(),
        client,
        source_ref,
        batch_size=cfg.sync_batch_size,
        flood_sleep_threshold=cfg.flood_sleep_threshold,
        progress=True,
        full=full,
        limit=limit,
        on_batch=_embed_batch,
    )
    result = report.result
    waits = (
        f", slept {report.slept_seconds:g} s over {report.flood_waits} FloodWaits"
        if report.flood_waits
        else ""
    )
    console.print(
        f"{report.source.key} ({report.source.title}): fetched {report.fetched} messages in "
        f"{report.batches} batches — {result.inserted} new, {result.updated} edited, "
        f"{result.unchanged} unchanged; watermark {report.watermark_after or 0}{waits}.",
        highlight=False,
    )
