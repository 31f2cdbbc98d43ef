"""``mlens serve``: what ``make serve`` runs on a fresh machine.

It answers as soon as the store is open: the demo is imported without its vectors,
and the service embeds them in the background (``MLENS_BACKGROUND_EMBEDDING``), each
source's default scan window first. With ``--workers N`` (or that setting off) the
demo is embedded before serving and each search embeds what its window lacks, as no
worker embeds in the background (each would embed the same messages). The server
itself, its connection edge and its workers are the service's (``service.server``); the
app it serves is ``cli.asgi``'s, the service with the MCP tools at ``/mcp``.
"""

from typing import Annotated

import typer

from cli.state import console, reset, settings, store, workspace


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
    # Imported here: the server and the key helpers are for this command only.
    import shlex

    from cli.asgi import APP
    from cli.config import sources_line
    from service.server import run_server
    from toolkit.apikeys import ensure_dev_key

    cfg = settings()
    store()  # a store that cannot be opened is the one line said, before anything else
    # Before anything is served or sent: a .env in this folder may set the endpoint.
    console().print(sources_line(), highlight=False, markup=False, soft_wrap=True)
    bind_host = host or cfg.service.host
    bind_port = port or cfg.service.port
    background = cfg.service.background_embedding and workers == 1
    if with_demo:
        workspace().load_demo(only_if_empty=True, embed=not background, progress=True)
    if dev_key:
        key = ensure_dev_key(store(), cfg.dev_key_file)
        base = f"http://{bind_host}:{bind_port}"
        console().print(f"\n[bold]Development API key[/] (kept in {cfg.dev_key_file}):\n{key}\n")
        console().print("Try:")
        auth = shlex.quote(f"Authorization: Bearer {key}")
        console().print(
            f"curl -H {auth} '{base}/v1/sources/by-ref?source_ref=@mlens_demo_en'",
            soft_wrap=True,
            highlight=False,
        )
        body = (
            '{"source_ref": "@mlens_demo_ru", "query": "Франция", '
            '"limit": 3, "scan_messages_limit": 3000}'
        )
        console().print(
            f"curl -H {auth} -H 'Content-Type: application/json' "
            f"-d '{body}' {base}/v1/search/messages\n",
            soft_wrap=True,
            highlight=False,
        )
    store()  # a store that cannot open (a file that is no store, no server) stops here
    if background:
        console().print(
            "Searches answer now; messages without a vector are embedded in the background, "
            f"newest first (progress: http://{bind_host}:{bind_port}/healthz).",
            soft_wrap=True,
            highlight=False,
        )
    reset()  # the service opens its own store
    run_server(cfg, app=APP, host=bind_host, port=bind_port, workers=workers)
