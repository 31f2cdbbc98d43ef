"""The /v1 routers, in the order ``create_app`` includes them.

A new route module makes its router with ``APIRouter(..., route_class=GuardedRoute)``
(authentication before the body, see ``service.routing``), takes its dependencies from
``service.deps`` (``WorkspaceDep``: the app's one Workspace, whose verbs do the work),
and adds its import and one entry to ``ROUTERS``.
"""

from fastapi import APIRouter

from service.routes import alerts, health, schedules, search, sources, summaries

ROUTERS: list[APIRouter] = [
    health.router,
    sources.router,
    summaries.router,
    search.router,
    schedules.router,
    alerts.router,
]
