"""The /v1 routers, in the order ``create_app`` includes them.

A new route module adds its import and one entry to ``ROUTERS``.
"""

from fastapi import APIRouter

from service.routes import health, search, sources, summaries

ROUTERS: list[APIRouter] = [
    health.router,
    sources.router,
    summaries.router,
    search.router,
]
