"""``run_server``: the /v1 service on its connection edge, in one process or N.

``mlens serve`` calls it once the store opens (and the demo and a development key are
ready). The app is named by its import string (``app``: ``cli.asgi.APP``, the service
with the MCP tools, which the service does not import): each worker process builds its
own from ``Settings`` of the same environment, so the model is loaded once per process
and the store opened once per process. The connections go through ``service.edge``;
N workers each get a socket of their own (``service.workers``).
"""

from __future__ import annotations

import os
import sys

from toolkit.config import Settings


def run_server(settings: Settings, *, app: str, host: str, port: int, workers: int = 1) -> None:
    """Serve the app ``app`` names on ``host:port`` until SIGINT/SIGTERM; exit with
    uvicorn's startup-failure status when it cannot start.

    Args:
        settings: the edge's bounds and timeouts (``MLENS_*``); the app reads its own.
        app: the import string of the app's factory (``module:function``), called with
            no argument in each worker process.
        host, port: the address to bind.
        workers: processes serving requests, each with its own socket (``SO_REUSEPORT``).
    """
    # Imported here: uvicorn and the edge are for serving only.
    import uvicorn
    from uvicorn.config import STARTUP_FAILURE

    from service.edge import EdgeConfig, EdgeLimits, accept_burst, raise_fd_limit
    from service.workers import serve_workers

    if settings.service.background_embedding and workers > 1:
        # Every worker would embed the same messages: the workers' searches embed what
        # their windows lack instead (the environment is what each worker's Settings read).
        os.environ["MLENS_BACKGROUND_EMBEDDING"] = "false"
    fd_limit = raise_fd_limit()  # workers inherit it
    limits = EdgeLimits.from_settings(settings, fd_limit=fd_limit)
    config = EdgeConfig(
        app,
        limits=limits,
        factory=True,
        host=host,
        port=port,
        workers=workers,
        # On SIGTERM, in-flight requests get this long to finish; the rest are abandoned
        # (their work runs in daemon threads, see service.middleware), so a stop takes
        # seconds.
        timeout_graceful_shutdown=settings.service.shutdown_timeout_seconds,
        timeout_keep_alive=settings.edge.keep_alive_timeout_seconds,
        backlog=accept_burst(settings.edge.listen_backlog, fd_limit, limits.max_connections),
        h11_max_incomplete_event_size=settings.edge.max_header_bytes,
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
