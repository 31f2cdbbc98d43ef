"""``mlens serve``: what ``make serve`` runs on a fresh machine.

It answers as soon as the store is open: the demo is imported without its vectors,
and the service embeds them in the background (``MLENS_BACKGROUND_EMBEDDING``), each
source's default scan window first. With ``--workers N`` (or that setting off) the
demo is embedded before serving and each search embeds what its window lacks, as no
worker embeds in the background (each would embed the same messages).
"""

from __future__ import annotations

import os
import shlex
import sys
from typing import Annotated

import typer

from cli.state import console, reset, settings, store, workspace

APP = "service.app:create_app"


def serve(
    with_demo: Annotated[
        bool,
        typer.Option(
            "--demo/--no-demo",
            help="Import the demo sources when the store is empty (embedded in the background).",
        ),
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
    """Serve the /v1 HTTP API (uvicorn; --workers N processes on one store).

    Answers at once, embedding in the background (/healthz); --workers N embeds first.
    """
    # Imported here: uvicorn, the edge and the key helpers are for this command only.
    import uvicorn
    from uvicorn.config import STARTUP_FAILURE

    from cli.edge import EdgeConfig, EdgeLimits, accept_burst, raise_fd_limit
    from cli.workers import serve_workers
    from toolkit.apikeys import ensure_dev_key

    cfg = settings()
    bind_host = host or cfg.host
    bind_port = port or cfg.port
    background = cfg.background_embedding and workers == 1
    if with_demo:
        workspace().load_demo(only_if_empty=True, embed=not background, progress=True)
    if cfg.background_embedding and workers > 1:
        # Every worker would embed the same messages: the workers' searches embed what
        # their windows lack instead (the environment is what each worker's Settings read).
        os.environ["MLENS_BACKGROUND_EMBEDDING"] = "false"
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
    store()  # a store that cannot open (a file that is no store, no server) stops here
    if background:
        console.print(
            "Searches answer now; messages without a vector are embedded in the background, "
            f"newest first (progress: http://{bind_host}:{bind_port}/healthz).",
            soft_wrap=True,
            highlight=False,
        )
    reset()  # the service opens its own store
    fd_limit = raise_fd_limit()  # workers inherit it
    limits = EdgeLimits.from_settings(cfg, fd_limit=fd_limit)
    # The service is named by its import string so that toolkit never imports it.
    # Each worker process builds its own app (Settings from the same environment), so
    # the model is loaded once per process and the store opened once per process.
    config = EdgeConfig(
        APP,
        limits=limits,
        factory=True,
        host=bind_host,
        port=bind_port,
        workers=workers,
        # On SIGTERM, in-flight requests get this long to finish; the rest are abandoned
        # (their work runs in daemon threads, see service.middleware), so a stop takes
        # seconds.
        timeout_graceful_shutdown=cfg.shutdown_timeout_seconds,
        timeout_keep_alive=cfg.keep_alive_timeout_seconds,
        backlog=accept_burst(cfg.listen_backlog, fd_limit, limits.max_connections),
        h11_max_incomplete_event_size=cfg.max_header_bytes,
        # The app believes X-Forwarded-* from MLENS_TRUSTED_PROXIES only (create_app);
        # uvicorn's own default would believe any peer on 127.0.0.1.
        proxy_headers=False,
    )
    if workers == 1:
        server = uvicorn.Server(config)
        server.run()
        if not server.started:
            sys.exit(STARTUP_FAILURE)
    else:  # one socket per worker, so that connections spread over all of them
        serve_workers(config)
