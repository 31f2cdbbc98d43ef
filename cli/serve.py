"""``mlens serve``: what ``make serve`` runs on a fresh machine."""

from __future__ import annotations

import shlex
from typing import Annotated, Any

import typer
import uvicorn

from cli.state import console, reset, settings, store, workspace
from cli.workers import serve_workers
from toolkit.apikeys import ensure_dev_key

APP = "service.app:create_app"


def serve(
    with_demo: Annotated[
        bool,
        typer.Option("--demo/--no-demo", help="Import the demo sources when the store is empty."),
    ] = False,
    dev_key: Annotated[
        bool,
        typer.Option(
            "--dev-key/--no-dev-key",
            help="Create (once) and print a development API key with every scope.",
        ),
    ] = False,
    host: Annotated[str | None, typer.Option(help="Bind address (MLENS_HOST).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (MLENS_PORT).")] = None,
    workers: Annotated[
        int,
        typer.Option(
            min=1,
            help="Processes serving requests (uvicorn workers), each with its own model "
            "and store connections; set it to the number of cores.",
        ),
    ] = 1,
) -> None:
    """Serve the /v1 HTTP API (uvicorn; --workers N processes on one store)."""
    cfg = settings()
    bind_host = host or cfg.host
    bind_port = port or cfg.port
    if with_demo:
        workspace().load_demo(only_if_empty=True, progress=True)
    if dev_key:
        key = ensure_dev_key(store(), cfg.dev_key_file)
        base = f"http://{bind_host}:{bind_port}"
        console.print(f"\n[bold]Development API key[/] (kept in {cfg.dev_key_file}):\n{key}\n")
        console.print("Try:")
        auth = shlex.quote(f"Authorization: Bearer {key}")
        console.print(
            f"curl -H {auth} '{base}/v1/sources/by-ref?source_ref=@mlens_demo_en'",
            soft_wrap=True,
            highlight=False,
        )
        body = (
            '{"source_ref": "@mlens_demo_ru", "query": "Франция", '
            '"limit": 3, "scan_messages_limit": 3000}'
        )
        console.print(
            f"curl -H {auth} -H 'Content-Type: application/json' "
            f"-d '{body}' {base}/v1/search/messages\n",
            soft_wrap=True,
            highlight=False,
        )
    reset()  # the service opens its own store
    # The service is named by its import string so that toolkit never imports it.
    # Each worker process builds its own app (Settings from the same environment), so
    # the model is loaded once per process and the store opened once per process.
    options: dict[str, Any] = {
        "factory": True,
        "host": bind_host,
        "port": bind_port,
        # On SIGTERM, in-flight requests get this long to finish; the rest are abandoned
        # (their work runs in daemon threads, see service.middleware), so a stop takes
        # seconds.
        "timeout_graceful_shutdown": cfg.shutdown_timeout_seconds,
    }
    if workers == 1:
        uvicorn.run(APP, **options)
    else:  # one socket per worker, so that connections spread over all of them
        serve_workers(uvicorn.Config(APP, workers=workers, **options))
