"""Settings: env prefix, nested weights, weights file, and clear errors for bad values."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from toolkit.config import Settings
from toolkit.errors import ConfigError, InvalidWeights
from toolkit.weights import SearchWeights


def test_env_prefix_and_nested_weights(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MLENS_DATA_DIR", "/tmp/somewhere")
    monkeypatch.setenv("MLENS_SEARCH__SEMANTIC", "0.25")
    monkeypatch.setenv("MLENS_LLM_API_KEY", "sk-secret")
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert settings.data_dir == Path("/tmp/somewhere")
    assert settings.database_path == "/tmp/somewhere/mlens.sqlite3"
    assert settings.search.semantic == 0.25
    assert "sk-secret" not in repr(settings)  # secrets stay secret
    assert settings.llm_api_key is not None
    assert settings.llm_api_key.get_secret_value() == "sk-secret"


def test_weights_file_overrides_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "weights.json"
    SearchWeights(semantic=0.1, lexical=0.8, phrase=0.1).to_file(path)
    monkeypatch.setenv("MLENS_SEARCH__SEMANTIC", "0.9")
    settings = Settings(_env_file=None, weights_file=path)  # type: ignore[call-arg]
    assert settings.search.lexical == 0.8
    assert settings.search.semantic == 0.1


def test_unreadable_weights_file_is_a_config_error(tmp_path: Path) -> None:
    bad = tmp_path / "w.json"
    bad.write_text("{not json")
    with pytest.raises(ConfigError, match="cannot read weights file"):
        SearchWeights.from_file(bad)


@pytest.mark.parametrize(
    "values",
    [
        {"semantic": -0.1},
        {"semantic": 0.0, "lexical": 0.0, "phrase": 0.0},
        {"lexical": math.nan},
        {"phrase": math.inf},
        {"short_floor": 1.5},
        {"short_scale": 0.0},
    ],
)
def test_invalid_weights_are_a_clear_error(values: dict[str, float]) -> None:
    with pytest.raises(InvalidWeights, match="invalid search weights"):
        SearchWeights.build(**values)


def test_replace_validates() -> None:
    weights = SearchWeights()
    assert weights.replace(lexical=0.5).lexical == 0.5
    with pytest.raises(InvalidWeights):
        weights.replace(lexical=-1)
