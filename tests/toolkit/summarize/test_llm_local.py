"""The LLM path against a real llama.cpp server (llama-cpp-python) on the bundled
SmolLM2-135M model: chat, channel and source summaries of the demo through the toolkit
pipeline, and the CLI. A 135M model writes poor summaries; what is checked is what the
code guarantees whatever the model writes: an answer, ids from the window only, and no
link but those built in code.

Small windows and a small ``max_tokens`` keep the whole module near a minute on 2 cores.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from llama_server import MODEL, LlamaServer, llama_server  # noqa: F401 (a fixture)
from summary_data import about_source, in_period

from toolkit.config import Settings, nested
from toolkit.embeddings import Embedder
from toolkit.errors import UpstreamInvalidOutput
from toolkit.models import MessageFilter, Section, SectionItem, SectionKind, Summary
from toolkit.store.base import MessageStore
from toolkit.summarize.llm.plaintext import URL_ANYWHERE
from toolkit.summarize.pipeline import summarize_period, summarize_source
from toolkit.workspace import Workspace

if TYPE_CHECKING:
    from httpx2 import Response

pytestmark = [pytest.mark.slow, pytest.mark.llm_local]

CHAT = "@mlens_demo_en"
CHANNEL = "@mlens_demo_ru"
# Hours of the demo chat of 10 to 15 messages each (a short prompt: seconds on 2 cores),
# its busy hour (75 messages: the hybrid engine sends lines, not messages), and an hour
# of the channel.
CHAT_HOUR = datetime(2026, 10, 20, 0, tzinfo=UTC)  # 11 messages
V1_HOUR = datetime(2026, 10, 20, 2, tzinfo=UTC)  # 10 messages
CLI_HOUR = datetime(2026, 10, 21, 4, tzinfo=UTC)  # 15 messages
BUSY_HOUR = datetime(2026, 10, 20, 22, tzinfo=UTC)  # 75 messages
CHANNEL_FROM = datetime(2026, 10, 22, 16, tzinfo=UTC)
HOUR = timedelta(hours=1)


def nothing_grounded(detail: str) -> None:
    """The outcome when the 135M model wrote no line its messages hold: the grounding
    check judged the answer and dropped every line, and the reader gets the 502 the
    contract names (``MLENS_LLM_FALLBACK=extractive`` would give the offline digest).
    The check worked; the model is too small to be right. Marked xfail, counts shown."""
    assert "nothing the LLM wrote is grounded in its messages" in detail, detail
    pytest.xfail(f"the local 135M model wrote nothing grounded: {detail}")


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    folder: Path = tmp_path_factory.mktemp("llm-local")
    workspace = Workspace.open(settings=Settings(_env_file=None, data_dir=folder))  # type: ignore[call-arg]
    workspace.load_demo(embed=False)
    yield workspace
    workspace.close()


def local_settings(server: LlamaServer, **overrides: object) -> Settings:
    """Settings of the local model at ``server``, with ``overrides`` named as their
    variables (``llm_timeout`` for ``MLENS_LLM_TIMEOUT``)."""
    values: dict[str, object] = {
        "llm_base_url": server.url,
        "llm_model": MODEL,
        # 200 tokens: two or three cited lines (they come first in the answer); a
        # summary paragraph cut short is the offline engine's. make test runs this module
        # beside the rest of the suite, so each answer's tokens count twice.
        "llm_max_tokens": 200,
        "llm_timeout": 120.0,
        "llm_max_retries": 0,
        "summary_engine": "llm",
    }
    return Settings(_env_file=None, **nested(**{**values, **overrides}))  # type: ignore[call-arg]


def window_ids(store: MessageStore, ref: str, start: datetime, end: datetime) -> set[str]:
    source = next(s.source for s in store.list_sources() if f"@{s.source.handle}" == ref)
    return {
        str(m.messenger_message_id)
        for m in store.messages_in_period(source.id, MessageFilter(since=start, before=end))
    }


def period_summary(
    demo: Workspace,
    embedder: Embedder,
    server: LlamaServer,
    ref: str,
    start: datetime,
    end: datetime,
) -> Summary:
    """The local model's English summary of ``ref`` from ``start`` to ``end``, uncached."""
    return summarize_period(
        demo.store,
        embedder,
        local_settings(server),
        in_period(ref, start, end, "en", use_cache=False),
    )


def post_chat_summary(
    demo: Workspace, embedder: Embedder, settings: Settings, start: datetime, language: str
) -> Response:
    """``POST /v1/summaries/chat`` of the demo chat's hour from ``start`` in ``language``,
    by a service of ``settings`` over the demo's store, with a key of ``summary.run``."""
    from fastapi.testclient import TestClient

    from service.app import create_app
    from toolkit.apikeys import create_api_key

    token, _ = create_api_key(demo.store, name="llm-local", scopes=["summary.run"])
    body = {
        "source_ref": CHAT,
        "language": language,
        "started_at": start.isoformat(),
        "ended_at": (start + HOUR).isoformat(),
    }
    app = create_app(settings, store=demo.store, embedder=embedder)
    with TestClient(app, headers={"Authorization": f"Bearer {token}"}) as client:
        return client.post("/v1/summaries/chat", json=body)


def assert_sound(
    summary: Summary, ref: str, ids: set[str], engine: str = "llm", *, counted: bool = True
) -> None:
    """The digest's shape whatever the model wrote: the engine, a summary, sections of the
    offline digest's kinds whose every item cites messages of the window, links to those
    messages only, no markup."""
    assert summary.engine == engine
    assert summary.summary.strip()
    assert set(summary.important_messenger_message_ids) <= ids
    for section in summary.sections:
        assert section.kind in set(SectionKind)
        assert section.title.strip()
        for item in section.items:
            assert item.messenger_message_ids
            assert set(item.messenger_message_ids) <= ids
    handle = ref.lstrip("@")
    texts = [summary.summary] + [t for s in summary.sections for t in (s.title, s.body)]
    for text in texts:
        for url in URL_ANYWHERE.findall(text):
            url = url.rstrip(").,")
            assert url.startswith(f"https://t.me/{handle}/"), text
            assert url.rsplit("/", 1)[1] in ids, text
        assert "<" not in text or ">" not in text  # no markup
    if not counted:  # a wire without the grounding counts
        return
    if engine == "llm":
        kept = sum(len(s.items) for s in summary.sections)
        assert summary.items_kept == kept
    else:
        lines = sum(len(s.items) for s in summary.sections)
        assert summary.items_rewritten + summary.items_offline == lines


def test_a_chat_period_summary(
    llama_server: LlamaServer,  # noqa: F811
    demo: Workspace,
    embedder: Embedder,
) -> None:
    end = CHAT_HOUR + HOUR
    ids = window_ids(demo.store, CHAT, CHAT_HOUR, end)
    assert len(ids) >= 10  # a window with messages to summarise
    started = time.monotonic()
    try:
        summary = period_summary(demo, embedder, llama_server, CHAT, CHAT_HOUR, end)
    except UpstreamInvalidOutput as exc:
        nothing_grounded(str(exc))
    print(f"chat hour: {time.monotonic() - started:.1f} s")
    assert_sound(summary, CHAT, ids)


def test_a_channel_period_summary(
    llama_server: LlamaServer,  # noqa: F811
    demo: Workspace,
    embedder: Embedder,
) -> None:
    end = CHANNEL_FROM + HOUR  # 5 posts
    try:
        summary = period_summary(demo, embedder, llama_server, CHANNEL, CHANNEL_FROM, end)
    except UpstreamInvalidOutput as exc:
        # The 135M model often answers the Russian channel in Russian: that answer is
        # rejected (a 502 problem, never a Russian digest for an English reader).
        if "answered in" not in str(exc):
            nothing_grounded(str(exc))
        pytest.xfail(str(exc))
    assert_sound(summary, CHANNEL, window_ids(demo.store, CHANNEL, CHANNEL_FROM, end))


def test_a_source_summary(
    llama_server: LlamaServer,  # noqa: F811
    demo: Workspace,
    embedder: Embedder,
) -> None:
    settings = local_settings(llama_server)
    try:
        summary = summarize_source(
            demo.store, embedder, settings, about_source(CHAT, "en", 12, use_cache=False)
        )
    except UpstreamInvalidOutput as exc:
        nothing_grounded(str(exc))
    source = next(s.source for s in demo.store.list_sources() if s.source.handle == "mlens_demo_en")
    # A source summary reads a sample spread over the source's life, not its newest 12.
    from toolkit.summarize.coverage import read_source

    sample, _ = read_source(demo.store, source.id, 12)
    assert_sound(summary, CHAT, {str(m.messenger_message_id) for m in sample})


def test_the_v1_chat_summary(
    llama_server: LlamaServer,  # noqa: F811
    demo: Workspace,
    embedder: Embedder,
) -> None:
    # No background embedding: on 2 cores it would race the local model for the CPU.
    settings = local_settings(
        llama_server, data_dir=demo.settings.data_dir, background_embedding=False
    )
    start, end = V1_HOUR, V1_HOUR + HOUR  # another hour: not the cached one
    assert window_ids(demo.store, CHAT, start, end)
    response = post_chat_summary(demo, embedder, settings, start, "en")
    if response.status_code == 502:
        assert response.headers["content-type"].startswith("application/problem+json")
        nothing_grounded(response.json()["detail"])
    assert response.status_code == 200, response.text
    assert response.headers["x-summary-engine"] == "llm"
    assert_sound(from_wire(response.json(), "llm"), CHAT, window_ids(demo.store, CHAT, start, end))


def from_wire(data: dict[str, Any], engine: str) -> Summary:
    """A /v1 summary body as a ``Summary`` (the engine is the header's)."""
    sections = [
        Section(
            s["title"],
            s["body"],
            SectionKind(s["kind"]),
            tuple(SectionItem(i["text"], tuple(i["messenger_message_ids"])) for i in s["items"]),
        )
        for s in data["sections"]
    ]
    counts = {
        k: data[k]
        for k in ("items_kept", "items_dropped", "items_rewritten", "items_offline")
        if k in data
    }
    return Summary(
        source_ref=data["source_ref"],
        summary=data["summary"],
        sections=sections,
        important_messenger_message_ids=data["important_messenger_message_ids"],
        engine=engine,
        **counts,
    )


def test_the_v1_hybrid_digest(
    llama_server: LlamaServer,  # noqa: F811
    demo: Workspace,
    embedder: Embedder,
) -> None:
    """The hybrid engine through /v1 in Russian (the English chat's lines translated or
    kept): a 200, the offline digest's sections, ids of the window only, in seconds."""
    settings = local_settings(
        llama_server,
        data_dir=demo.settings.data_dir,
        background_embedding=False,
        summary_engine="hybrid",
        llm_hybrid_max_items=4,
    )
    start, end = BUSY_HOUR, BUSY_HOUR + HOUR
    started = time.monotonic()
    response = post_chat_summary(demo, embedder, settings, start, "ru")
    print(f"hybrid hour: {time.monotonic() - started:.1f} s")
    assert response.status_code == 200, response.text
    assert response.headers["x-summary-engine"] == "hybrid"
    data = response.json()
    summary = from_wire(data, "hybrid")
    assert summary.sections
    ids = window_ids(demo.store, CHAT, start, end)
    assert_sound(summary, CHAT, ids, engine="hybrid", counted="items_offline" in data)


@pytest.fixture
def cli_summary(
    llama_server: LlamaServer,  # noqa: F811
    demo: Workspace,
    clean_env: pytest.MonkeyPatch,
) -> Callable[..., dict[str, Any]]:
    """``cli_summary(start, options, **env)``: ``mlens summarize`` of the chat's hour from
    ``start`` with ``options`` and ``--json``, the LLM at ``llama_server`` (no retries,
    120 s: a busy 2-core machine) and the settings ``env``; its JSON answer (an xfail when
    the model wrote nothing grounded)."""
    return partial(_cli_summary, llama_server, demo, clean_env)


def _cli_summary(
    llama_server: LlamaServer,  # noqa: F811
    demo: Workspace,
    monkeypatch: pytest.MonkeyPatch,
    start: datetime,
    options: list[str],
    **env: str,
) -> dict[str, Any]:
    from typer.testing import CliRunner

    from cli import app, state

    env = {
        "MLENS_DATA_DIR": str(demo.settings.data_dir),
        "MLENS_LLM_BASE_URL": llama_server.url,
        "MLENS_LLM_MODEL": MODEL,
        "MLENS_LLM_MAX_RETRIES": "0",
        "MLENS_LLM_TIMEOUT": "120",  # local_settings' timeout: a busy 2-core machine
        **env,
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    state.reset()
    try:
        bounds = ["--from", f"{start:%Y-%m-%dT%H:%M}", "--to", f"{start + HOUR:%Y-%m-%dT%H:%M}"]
        result = CliRunner().invoke(app, ["summarize", CHAT, *bounds, *options, "--json"])
    finally:
        state.reset()
    if result.exit_code != 0 and "nothing the LLM wrote is grounded" in result.output:
        assert len(result.output.strip().splitlines()) == 1  # one line, no traceback
        nothing_grounded(result.output.strip())
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_the_cli_chat_summary(cli_summary: Callable[..., dict[str, Any]], demo: Workspace) -> None:
    ids = window_ids(demo.store, CHAT, CLI_HOUR, CLI_HOUR + HOUR)
    assert len(ids) >= 10
    data = cli_summary(CLI_HOUR, [], MLENS_LLM_MAX_TOKENS="200")
    assert data["engine"] == "llm"
    assert set(data["important_messenger_message_ids"]) <= ids
    for section in data["sections"]:
        assert section["kind"] in set(SectionKind)
        for item in section["items"]:
            assert item["messenger_message_ids"]
            assert set(item["messenger_message_ids"]) <= ids
    assert data["items_kept"] == sum(len(s["items"]) for s in data["sections"])


def test_the_cli_hybrid_digest(cli_summary: Callable[..., dict[str, Any]], demo: Workspace) -> None:
    data = cli_summary(BUSY_HOUR, ["--engine", "hybrid"], MLENS_LLM_HYBRID_MAX_ITEMS="4")
    assert data["engine"] == "hybrid"
    assert data["sections"]
    summary = from_wire(data, "hybrid")
    assert_sound(summary, CHAT, window_ids(demo.store, CHAT, BUSY_HOUR, BUSY_HOUR + HOUR), "hybrid")


def test_the_mcp_hybrid_and_llm_digests(
    llama_server: LlamaServer,  # noqa: F811
    demo: Workspace,
) -> None:
    """The MCP tool ``summarize_period`` with the hybrid engine (the settings') and then
    the LLM engine, on a short window: the same digest shape, ids of the window only."""
    import asyncio

    from mcp import Client

    from mcp_face import build_server

    start = BUSY_HOUR + timedelta(minutes=45)  # 22:45-23:00: 20 messages of the busy hour
    end = start + timedelta(minutes=15)
    ids = window_ids(demo.store, CHAT, start, end)
    assert ids
    for engine in ("hybrid", "llm"):
        settings = local_settings(
            llama_server,
            data_dir=demo.settings.data_dir,
            background_embedding=False,
            summary_engine=engine,
            llm_hybrid_max_items=3,
            llm_timeout=300.0,  # a whole window's request on a busy shared machine
        )
        workspace = Workspace.open(settings=settings)
        arguments = {
            "source_ref": CHAT,
            "started_at": start.isoformat(),
            "ended_at": end.isoformat(),
            "language": "en",
        }

        async def run(tool_args: dict[str, Any] = arguments, ws: Workspace = workspace) -> Any:
            async with Client(build_server(ws)) as client:
                return await client.call_tool("summarize_period", tool_args)

        try:
            result = asyncio.run(run())
        finally:
            workspace.close()
        if result.is_error and engine == "llm":
            nothing_grounded(str(result.content))
        assert not result.is_error, result.content
        data = result.structured_content
        assert data["engine"] == engine
        counted = "items_offline" in data
        assert_sound(from_wire(data, engine), CHAT, ids, engine, counted=counted)
