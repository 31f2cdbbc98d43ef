"""A ``.env`` in the working folder that sets the LLM endpoint is said, never silent."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from toolkit.config import Settings, dotenv_endpoint


def test_an_endpoint_set_by_dotenv_is_warned_about(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("MLENS_LLM_BASE_URL", "MLENS_LLM__BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / ".env").write_text("MLENS_LLM_BASE_URL=http://127.0.0.1:9/v1\n")
    assert dotenv_endpoint() == "http://127.0.0.1:9/v1"
    with caplog.at_level(logging.WARNING, logger="toolkit.config"):
        settings = Settings()
    assert settings.llm.base_url == "http://127.0.0.1:9/v1"
    assert "http://127.0.0.1:9/v1" in caplog.text
    assert ".env" in caplog.text


def test_the_environment_wins_and_nothing_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MLENS_LLM_BASE_URL", "http://127.0.0.1:8/v1")
    (tmp_path / ".env").write_text("MLENS_LLM_BASE_URL=http://127.0.0.1:9/v1\n")
    with caplog.at_level(logging.WARNING, logger="toolkit.config"):
        assert Settings().llm.base_url == "http://127.0.0.1:8/v1"
    assert dotenv_endpoint() is None
    assert "9/v1" not in caplog.text
