"""Fixtures shared by the service tests.

- ``settings``: isolated Settings (in-memory store, no ``MLENS_*`` from the
  environment, rate limits and background embedding off; the delivery runner too in a
  module marked ``delivery_by_hand``); ``app``:
  ``create_app(settings, **app_state)`` of ``cli.asgi`` (the app ``mlens serve`` serves:
  /v1 and the MCP tools at /mcp); ``store``: its store; ``client``: a
  ``TestClient`` with the lifespan running.
- ``make_key(*scopes)``: a bearer token with those scopes (every scope when none given);
  ``auth(*scopes)``: the ``Authorization`` header dict for such a key.
- ``sources``: a public channel ``@lens_public`` and a private chat ``t.me/c/1987654321``
  with a few messages each, a daily digest schedule of the channel (``SCHEDULE_ID``,
  to an Atom feed) and an alert on it (``ALERT_ID``, to e-mail; nothing new to post).
- ``app_state``: keyword arguments of ``create_app`` (a store, an embedder, a searcher);
  override it in a test module
  (``@pytest.fixture def app_state(embedder): return {"embedder": embedder}``).
- The live messenger is an offline ``FakeMessenger`` (``fake_messenger`` fixture).
- ``bot_api``: a fake Telegram Bot API on 127.0.0.1 the app posts to (``Received``).
- ``llm``: a scripted LLM endpoint on 127.0.0.1; ``llm_clients(**overrides)``: clients of
  apps over the seeded summary store whose LLM it is (``LlmClients``).

``PROTECTED_ROUTES`` is the registry of every authenticated route, checked by the auth
matrix in ``test_auth.py``: append ``(method, path, scope, example)`` for a new route,
where ``example`` (query params for GET, JSON body otherwise) must succeed (2xx) with a
key that has the scope, against the ``sources`` fixture.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from delivery_rows import daily_feed_schedule, email_alert
from delivery_servers import Received, http_server
from fake_llm import FakeLLM
from fastapi import FastAPI
from fastapi.testclient import TestClient
from summary_data import seed

from cli.asgi import create_app
from service.deps import get_messenger_client_factory
from service.state import state_of
from toolkit.apikeys import SCOPES, create_api_key
from toolkit.config import Settings, nested
from toolkit.embeddings import Embedder
from toolkit.errors import SourceNotFound, UpstreamRateLimited
from toolkit.ingest.live.client import ResolvedSource
from toolkit.models import Message, Source, SourceKind, SourceRef
from toolkit.store import SQLiteStore
from toolkit.store.base import MessageStore
from toolkit.workspace import Workspace

LlmClients = Callable[..., TestClient]
"""``llm_clients``: ``make(**settings overrides)`` → a client of an app over its LLM."""

PUBLIC_HANDLE = "lens_public"
PUBLIC_INTERNAL_ID = 1001234567
PRIVATE_INTERNAL_ID = 1987654321
BASE_TIME = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
SCHEDULE_ID = 1
"""The digest schedule of ``@lens_public`` (an Atom feed) the ``sources`` fixture adds."""
ALERT_ID = 1
"""The alert on ``@lens_public`` (to e-mail) the ``sources`` fixture adds."""

PROTECTED_ROUTES: list[tuple[str, str, str, dict[str, Any] | None]] = [
    ("GET", "/v1/sources/by-ref", "sources.read", {"source_ref": "@lens_public"}),
    ("POST", "/v1/sources/by-ref/sync", "sources.write", {"source_ref": "@lens_public"}),
    (
        "POST",
        "/v1/summaries/chat",
        "summary.run",
        {
            "source_ref": "t.me/c/1987654321",
            "started_at": "2024-03-01T00:00:00Z",
            "ended_at": "2024-03-02T00:00:00Z",
            "language": "en",
        },
    ),
    (
        "POST",
        "/v1/summaries/channel",
        "summary.run",
        {
            "source_ref": "@lens_public",
            "started_at": "2024-03-01T00:00:00Z",
            "ended_at": "2024-04-01T00:00:00Z",
            "language": "ru",
        },
    ),
    (
        "POST",
        "/v1/sources/by-ref/summary",
        "summary.run",
        {"source_ref": "@lens_public", "language": "en"},
    ),
    (
        "POST",
        "/v1/search/messages",
        "search.read",
        {"source_ref": "@lens_public", "query": "post"},
    ),
    ("POST", "/v1/search/all", "search.read", {"query": "post"}),
    ("GET", "/v1/schedules", "schedule.read", None),
    (
        "POST",
        "/v1/schedules",
        "schedule.write",
        {
            "source_ref": "@lens_public",
            "cadence": "daily",
            "at": "08:00",
            "destinations": [{"kind": "feed"}],
        },
    ),
    ("POST", "/v1/schedules/{schedule_id}/run", "schedule.write", None),
    ("POST", "/v1/schedules/{schedule_id}/resend", "schedule.write", None),
    ("GET", "/v1/schedules/{schedule_id}/feed.atom", "schedule.read", None),
    ("GET", "/v1/alerts", "schedule.read", None),
    (
        "POST",
        "/v1/alerts",
        "schedule.write",
        {
            "query": "post",
            "source_refs": ["@lens_public"],
            "min_score": 0.3,
            "destinations": [{"kind": "email", "to": ["ops@example.org"]}],
        },
    ),
    ("GET", "/v1/alerts/{alert_id}", "schedule.read", None),
    ("POST", "/v1/alerts/{alert_id}/run", "schedule.write", None),
    ("POST", "/v1/alerts/{alert_id}/resend", "schedule.write", None),
    ("DELETE", "/v1/alerts/{alert_id}", "schedule.write", None),
    # Last: a test that calls every route in turn on one store removes the schedule the
    # routes above read.
    ("DELETE", "/v1/schedules/{schedule_id}", "schedule.write", None),
]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Run every test that asks for ``protected_route`` once per registered route."""
    if "protected_route" in metafunc.fixturenames:
        metafunc.parametrize(
            "protected_route", PROTECTED_ROUTES, ids=[f"{m} {p}" for m, p, _, _ in PROTECTED_ROUTES]
        )


def call(client: TestClient, method: str, path: str, example: Any, **kwargs: Any) -> Any:
    """Send ``example`` as query params (GET) or as a JSON body (anything else); a
    ``{schedule_id}`` (``{alert_id}``) in the path is the schedule (the alert) the
    ``sources`` fixture made."""
    path = path.replace("{schedule_id}", str(SCHEDULE_ID)).replace("{alert_id}", str(ALERT_ID))
    if method == "GET":
        return client.request(method, path, params=example, **kwargs)
    return client.request(method, path, json=example, **kwargs)


@dataclass
class FakeMessenger:
    """An offline ``MessengerClient``: one public channel whose history is ``ids``.

    ``flood_after`` raises a FloodWait of ``flood_seconds`` after that many messages.
    """

    ids: list[int] = field(default_factory=lambda: list(range(1, 26)))
    flood_after: int | None = None
    flood_seconds: float = 3600.0
    connected: bool = False

    async def connect(self) -> None:
        self.connected = True

    async def disconnect(self) -> None:
        self.connected = False

    async def resolve(self, ref: SourceRef) -> ResolvedSource:
        if ref.handle != PUBLIC_HANDLE:
            raise SourceNotFound(f"the messenger knows no source {ref.key}")
        return ResolvedSource(
            internal_id=PUBLIC_INTERNAL_ID,
            title="Lens Public",
            kind=SourceKind.CHANNEL,
            handle=PUBLIC_HANDLE,
        )

    async def iter_messages(
        self, source: ResolvedSource, *, source_id: int, min_id: int = 0, limit: int | None = None
    ) -> AsyncIterator[Message]:
        sent = 0
        for i in self.ids:
            if i <= min_id or (limit is not None and sent >= limit):
                continue
            if self.flood_after is not None and sent >= self.flood_after:
                # What ``toolkit.ingest.live.client`` makes of a Telethon FloodWaitError.
                raise UpstreamRateLimited("FloodWait", retry_after=self.flood_seconds)
            sent += 1
            yield Message(
                source_id=source_id,
                messenger_message_id=i,
                posted_at=BASE_TIME + timedelta(hours=i),
                text=f"live message {i}",
                sender_peer_id="user101",
            )


@dataclass(frozen=True)
class SeededSources:
    """The sources the ``sources`` fixture put in the store."""

    public: Source
    private: Source


@pytest.fixture
def settings(
    tmp_path: Any, clean_env: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> Settings:
    """Settings isolated from the environment: in-memory store, no rate limits; the
    background delivery runner off in a test marked ``delivery_by_hand``."""
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        database={"path": ":memory:"},
        data_dir=tmp_path / "data",
        service={
            "rate_limit_per_minute": 0,
            "auth_failures_per_minute": 0,
            # Searches embed what they scan, as each test expects
            # (test_background_embedding turns it on).
            "background_embedding": False,
        },
    )
    if request.node.get_closest_marker("delivery_by_hand") is None:
        return settings
    return settings.replace(delivery={"runner": False})


@pytest.fixture
def protected_routes() -> list[tuple[str, str, str, dict[str, Any] | None]]:
    """The registry (test modules take it from here, not by importing conftest)."""
    return PROTECTED_ROUTES


@pytest.fixture
def send() -> Callable[..., Any]:
    """``send(client, method, path, example, **kwargs)``: see ``call``."""
    return call


@pytest.fixture
def app_state() -> dict[str, Any]:
    """Extra ``create_app`` arguments; override in a module to share costly resources."""
    return {}


@pytest.fixture
def fake_messenger() -> FakeMessenger:
    """The live client the app uses (no network)."""
    return FakeMessenger()


@pytest.fixture
def app(settings: Settings, app_state: dict[str, Any], fake_messenger: FakeMessenger) -> FastAPI:
    """The service on an in-memory store, with the offline messenger."""
    application = create_app(settings, **app_state)
    application.dependency_overrides[get_messenger_client_factory] = lambda: lambda: fake_messenger
    return application


@pytest.fixture
def store(app: FastAPI) -> MessageStore:
    """The app's store."""
    return state_of(app).workspace.store


@pytest.fixture
def app_workspace(app: FastAPI) -> Workspace:
    """The app's workspace (its store, settings and runners)."""
    return state_of(app).workspace


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    """A client of the app, its lifespan running."""
    with TestClient(app) as test_client:
        yield test_client


@pytest.fixture
def make_key(store: MessageStore) -> Callable[..., str]:
    """``make_key(*scopes)``: a new bearer token (every scope when none are given)."""

    def make(*scopes: str) -> str:
        token, _ = create_api_key(store, name="test", scopes=scopes or SCOPES)
        return token

    return make


@pytest.fixture
def auth(make_key: Callable[..., str]) -> Callable[..., dict[str, str]]:
    """``auth(*scopes)``: an ``Authorization`` header for a new key with those scopes."""

    def headers(*scopes: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {make_key(*scopes)}"}

    return headers


@pytest.fixture
def llm() -> Iterator[FakeLLM]:
    """A scripted OpenAI-compatible endpoint on 127.0.0.1 (``fake_llm.FakeLLM``)."""
    with FakeLLM() as server:
        yield server


@pytest.fixture
def bot_api(app_workspace: Workspace) -> Iterator[Received]:
    """A fake Telegram Bot API on 127.0.0.1 that the app's deliveries post to: what it
    was sent."""
    received = Received()
    with http_server(received) as url:
        app_workspace.assembly.settings.delivery.telegram_api_url = url
        yield received


@pytest.fixture
def llm_clients(settings: Settings, embedder: Embedder, llm: FakeLLM) -> Iterator[LlmClients]:
    """``make(**overrides)``: a client, with a ``summary.run`` key, of an app over its own
    seeded store (``summary_data.seed``) whose LLM is ``llm`` (5 s timeout and no retries
    unless ``overrides`` of the settings say otherwise); every one closed after the test."""
    stores: list[SQLiteStore] = []
    clients: list[TestClient] = []

    def make(**overrides: Any) -> TestClient:
        values = {"llm_base_url": llm.url, "llm_timeout": 5.0, "llm_max_retries": 0}
        configured = settings.replace(**nested(**{**values, **overrides}))
        store = SQLiteStore(":memory:")
        seed(store)
        stores.append(store)
        token, _ = create_api_key(store, name="t", scopes=["summary.run"])
        client = TestClient(create_app(configured, store=store, embedder=embedder))
        client.headers["Authorization"] = f"Bearer {token}"
        clients.append(client.__enter__())
        return client

    yield make
    for client in clients:
        client.__exit__(None, None, None)
    for store in stores:
        store.close()


@pytest.fixture
def sources(store: MessageStore) -> SeededSources:
    """A public channel (5 messages + 1 service) and a private chat (3 messages)."""
    public = store.upsert_source(
        title="Lens Public",
        kind=SourceKind.CHANNEL,
        internal_id=PUBLIC_INTERNAL_ID,
        handle=PUBLIC_HANDLE,
    )
    private = store.upsert_source(
        title="Team Room", kind=SourceKind.CHAT, internal_id=PRIVATE_INTERNAL_ID
    )
    messages = [
        Message(public.id, i, BASE_TIME + timedelta(days=i), f"post {i}") for i in range(1, 6)
    ]
    messages.append(
        Message(public.id, 6, BASE_TIME + timedelta(days=9), "pinned a message", is_service=True)
    )
    messages += [
        Message(private.id, i, BASE_TIME + timedelta(hours=i), f"hello {i}", sender_peer_id="user7")
        for i in range(1, 4)
    ]
    store.upsert_messages(messages)
    store.add_schedule(daily_feed_schedule(public.id, "@lens_public", BASE_TIME))
    store.add_alert(
        email_alert(
            "post",
            ["@lens_public"],
            max_per_hour=10,
            to="ops@example.org",
            created_at=BASE_TIME,
            watermarks={public.id: 6},
        )
    )
    return SeededSources(public=public, private=private)
