"""Settings: env prefix, nested weights, weights file, and clear errors for bad values."""

from __future__ import annotations

from pathlib import Path

import pytest
from search_reference import INVALID_WEIGHTS

from toolkit.config import LLMSettings, Settings, nested, variables
from toolkit.errors import ConfigError, InvalidWeights
from toolkit.weights import SearchWeights


def test_env_prefix_and_nested_weights(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MLENS_DATA_DIR", "/tmp/somewhere")
    monkeypatch.setenv("MLENS_SEARCH__SEMANTIC", "0.25")
    monkeypatch.setenv("MLENS_LLM_API_KEY", "sk-secret")
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert settings.data_dir == Path("/tmp/somewhere")
    assert settings.database_path == "/tmp/somewhere/mlens.sqlite3"
    assert settings.search.weights.semantic == 0.25
    assert "sk-secret" not in repr(settings)  # secrets stay secret
    assert settings.llm.api_key is not None
    assert settings.llm.api_key.get_secret_value() == "sk-secret"


def test_weights_file_overrides_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "weights.json"
    SearchWeights(semantic=0.1, lexical=0.8, phrase=0.1).to_file(path)
    monkeypatch.setenv("MLENS_SEARCH__SEMANTIC", "0.9")
    settings = Settings(_env_file=None, search={"weights_file": path})  # type: ignore[call-arg]
    assert settings.search.weights.lexical == 0.8
    assert settings.search.weights.semantic == 0.1


def test_unreadable_weights_file_is_a_config_error(tmp_path: Path) -> None:
    bad = tmp_path / "w.json"
    bad.write_text("{not json")
    with pytest.raises(ConfigError, match="cannot read weights file"):
        SearchWeights.from_file(bad)


@pytest.mark.parametrize("values", INVALID_WEIGHTS)
def test_invalid_weights_are_a_clear_error(values: dict[str, float]) -> None:
    with pytest.raises(InvalidWeights, match="invalid search weights"):
        SearchWeights.build(**values)


def test_replace_validates() -> None:
    weights = SearchWeights()
    assert weights.replace(lexical=0.5).lexical == 0.5
    with pytest.raises(InvalidWeights):
        weights.replace(lexical=-1)


def test_every_section_reads_its_flat_variable(clean_env: pytest.MonkeyPatch) -> None:
    values = {
        "MLENS_DATABASE": "/tmp/store.sqlite3",
        "MLENS_DATABASE_URL": "postgresql://me:pw@db/x",
        "MLENS_EMBEDDER": "sentence-transformers",
        "MLENS_EMBED_BATCH_SIZE": "7",
        "MLENS_DEFAULT_LIMIT": "9",
        "MLENS_SEARCH_ALL_MAX_SCAN": "500",
        "MLENS_SUMMARY_ENGINE": "extractive",
        "MLENS_SOURCE_SUMMARY_MESSAGES": "60",
        "MLENS_LLM_BASE_URL": "http://127.0.0.1:9/v1",
        "MLENS_LLM_PSEUDONYMISE": "true",
        "MLENS_MESSENGER_API_ID": "42",
        "MLENS_FLOOD_SLEEP_THRESHOLD": "3",
        "MLENS_PORT": "9001",
        "MLENS_HEALTH_TIMEOUT_SECONDS": "0.5",
        "MLENS_MAX_CONNECTIONS": "77",
        "MLENS_EDGE_LOG_INTERVAL_SECONDS": "5",
    }
    for name, value in values.items():
        clean_env.setenv(name, value)
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert settings.database.path == settings.database_path == "/tmp/store.sqlite3"
    assert settings.database.url_text == "postgresql://me:pw@db/x"
    assert settings.store_label == "postgresql://me:***@db/x"
    assert settings.embedding.backend == "sentence-transformers"
    assert settings.embedding.batch_size == 7
    assert (settings.search.default_limit, settings.search.all_max_scan) == (9, 500)
    assert (settings.summary.engine, settings.summary.source_messages) == ("extractive", 60)
    assert settings.llm.configured
    assert settings.llm.pseudonymise
    assert settings.messenger.api_id == 42
    assert settings.messenger.flood_sleep_threshold == 3
    assert (settings.service.port, settings.service.health_timeout_seconds) == (9001, 0.5)
    assert (settings.edge.max_connections, settings.edge.log_interval_seconds) == (77, 5)


def test_every_variable_names_one_setting() -> None:
    names = variables(Settings)
    assert len(set(names.values())) == len(names)  # no two variables set one setting
    assert all(name == name.upper() and name.startswith("MLENS_") for name in names)
    assert names["MLENS_LLM_BASE_URL"] == ("llm", "base_url")
    assert names["MLENS_SEARCH__SEMANTIC"] == ("search", "weights", "semantic")
    assert names["MLENS_DATA_DIR"] == ("data_dir",)


def test_nested_form_works_and_the_flat_name_wins(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("MLENS_LLM__MODEL", "nested-model")
    clean_env.setenv("MLENS_LLM__TIMEOUT", "3")
    clean_env.setenv("MLENS_LLM_TIMEOUT", "4")
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert settings.llm.model == "nested-model"
    assert settings.llm.timeout == 4


def test_env_file_uses_the_flat_names(tmp_path: Path, clean_env: pytest.MonkeyPatch) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("MLENS_LLM_BASE_URL=http://127.0.0.1:9/v1\nMLENS_DATABASE=:memory:\n")
    clean_env.setenv("MLENS_LLM_MODEL", "from-env")
    settings = Settings(_env_file=env_file)  # type: ignore[call-arg]
    assert settings.llm.base_url == "http://127.0.0.1:9/v1"
    assert settings.llm.model == "from-env"
    assert settings.database.path == ":memory:"


def test_keywords_lay_sections_over_the_environment(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("MLENS_LLM_MODEL", "from-env")
    settings = Settings(_env_file=None, llm={"timeout": 5})  # type: ignore[call-arg]
    assert (settings.llm.model, settings.llm.timeout) == ("from-env", 5)
    whole = Settings(_env_file=None, llm=LLMSettings(timeout=6))  # type: ignore[call-arg]
    assert (whole.llm.model, whole.llm.timeout) == ("gpt-4o-mini", 6)
    with pytest.raises(TypeError, match="llm_base_url"):
        Settings(_env_file=None, llm_base_url="http://x")  # type: ignore[call-arg]


def test_replace_is_a_validated_copy() -> None:
    settings = Settings(_env_file=None, llm={"model": "m"})  # type: ignore[call-arg]
    changed = settings.replace(llm={"timeout": 5}, data_dir=Path("/tmp/x"))
    assert (changed.llm.model, changed.llm.timeout, changed.data_dir) == ("m", 5, Path("/tmp/x"))
    assert settings.llm.timeout == 90  # the original is untouched
    weighted = settings.replace(**nested(search__lexical=0.5))
    assert weighted.search.weights.lexical == 0.5
    assert weighted.search.weights.semantic == settings.search.weights.semantic
    with pytest.raises(ConfigError, match=r"^invalid settings: MLENS_LLM_TIMEOUT: .*greater"):
        settings.replace(llm={"timeout": 0})
    with pytest.raises(TypeError):
        settings.replace(llm_timeout=5)
    with pytest.raises(TypeError, match="MLENS_LLM_TIMEOUTS"):
        nested(llm_timeouts=5)


@pytest.mark.parametrize(
    ("variable", "value", "expected"),
    [
        ("MLENS_PORT", "abc", "MLENS_PORT: Input should be a valid integer"),
        ("MLENS_DATABASE_POOL_SIZE", "0", "MLENS_DATABASE_POOL_SIZE: Input should be greater"),
        ("MLENS_SUMMARY_ENGINE", "magic", "MLENS_SUMMARY_ENGINE: Input should be"),
        ("MLENS_SEARCH__LEXICAL", "-1", "MLENS_SEARCH__*: weight lexical must not be negative"),
        ("MLENS_LLM__NO_SUCH", "1", "MLENS_LLM__NO_SUCH: no such setting"),
    ],
)
def test_a_bad_value_is_one_line_naming_its_variable(
    clean_env: pytest.MonkeyPatch, variable: str, value: str, expected: str
) -> None:
    clean_env.setenv(variable, value)
    with pytest.raises(ConfigError) as info:
        Settings(_env_file=None)  # type: ignore[call-arg]
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"invalid settings: {expected}")


def test_a_bad_keyword_is_named_by_its_variable(clean_env: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError, match=r"^invalid settings: MLENS_LLM_API_KEY: "):
        Settings(_env_file=None, llm={"api_key": ["sk-in-a-list"]})  # type: ignore[call-arg]
    with pytest.raises(ConfigError, match=r"^invalid settings: MLENS_DATABASE\*: "):
        Settings(_env_file=None, database=":memory:")  # type: ignore[call-arg]


def test_the_cli_says_a_bad_variable_in_one_line(
    clean_env: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from cli import app, state

    clean_env.chdir(tmp_path)
    clean_env.setenv("MLENS_DATA_DIR", str(tmp_path / "data"))
    clean_env.setenv("MLENS_PORT", "eighty")
    state.reset()
    try:
        result = CliRunner().invoke(app, ["sources"])
    finally:
        state.reset()
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("error: invalid settings: MLENS_PORT: ")


def test_replace_reads_a_weights_file_only_for_a_new_search_section(tmp_path: Path) -> None:
    path = tmp_path / "weights.json"
    SearchWeights(semantic=0.2, lexical=0.7, phrase=0.1).to_file(path)
    settings = Settings(_env_file=None, search={"weights_file": path})  # type: ignore[call-arg]
    path.unlink()
    engine = settings.replace(summary={"engine": "extractive"})
    assert engine.search.weights.lexical == 0.7
    with pytest.raises(ConfigError, match="cannot read weights file"):
        settings.replace(search={"default_limit": 5})
