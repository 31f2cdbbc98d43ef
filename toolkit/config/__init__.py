"""The one ``Settings`` object (pydantic-settings), in sections, read from ``MLENS_*``.

Settings come in sections: ``settings.database.url``, ``settings.llm.base_url``,
``settings.search.weights``, ``settings.summary.engine``,
``settings.edge.max_connections`` … (``toolkit.config.sections``). Each keeps one flat
environment variable, the contract that docs/configuration.md lists: ``MLENS_DATABASE_URL``,
``MLENS_LLM_BASE_URL``, ``MLENS_SEARCH__SEMANTIC``, ``MLENS_SUMMARY_ENGINE``,
``MLENS_PORT``, ``MLENS_MAX_CONNECTIONS``; the nested form (``MLENS_LLM__BASE_URL``) works
too. A ``.env`` file in the working folder is read the same way (the environment wins);
since it can send a summary's messages elsewhere, an LLM endpoint that only a ``.env``
sets is said: one warning naming the file and the endpoint, logged when the settings
are read, before any request leaves.

Nothing here is instantiated at import time. In code a section is given as a mapping (laid
over the environment) or a model (taken whole)::

    Settings(llm={"base_url": url}, summary={"engine": "llm"})
    settings.replace(search={"default_limit": 5})   # a validated copy
    settings.replace(**nested(llm_timeout=5))       # keywords named as the variables

An unknown setting is a ``TypeError``; a bad value is a ``ConfigError`` of one line naming
its variable (``invalid settings: MLENS_PORT: Input should be a valid integer …``).
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, ValidationError
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
)
from pydantic_settings.sources import EnvSettingsSource

from toolkit.config.delivery import DeliverySettings
from toolkit.config.sections import (
    DatabaseSettings,
    EdgeSettings,
    EmbeddingSettings,
    LLMSettings,
    MessengerSettings,
    SearchSettings,
    ServiceSettings,
    SummarySettings,
    cores,
)
from toolkit.config.variables import PREFIX, FlatVariables, config_error, merge, put, variables
from toolkit.errors import ConfigError

log = logging.getLogger(__name__)
ENV_FILE = Path(".env")
_ENDPOINT_VARIABLES = ("MLENS_LLM_BASE_URL", "MLENS_LLM__BASE_URL")
_warned: set[tuple[str, str]] = set()

__all__ = [
    "DatabaseSettings",
    "DeliverySettings",
    "EdgeSettings",
    "EmbeddingSettings",
    "LLMSettings",
    "MessengerSettings",
    "SearchSettings",
    "ServiceSettings",
    "Settings",
    "SummarySettings",
    "cores",
    "nested",
    "redact_url",
    "variables",
]


def nested(**values: Any) -> dict[str, Any]:
    """Settings named as their variables, without ``MLENS_`` (``llm_base_url`` for
    ``MLENS_LLM_BASE_URL``, ``database`` for ``MLENS_DATABASE``), grouped in the sections
    ``Settings(...)`` and ``Settings.replace`` take::

        nested(llm_base_url=url, summary_engine="llm")
        # {"llm": {"base_url": url}, "summary": {"engine": "llm"}}

    An unknown name is a ``TypeError``."""
    paths = variables(Settings)
    out: dict[str, Any] = {}
    for name, value in values.items():
        path = paths.get(PREFIX + name.upper())
        if path is None:
            raise TypeError(f"no setting is named MLENS_{name.upper()}")
        put(out, path, value)
    return out


def redact_url(url: str) -> str:
    """A database URL with its password replaced by ``***`` (for messages and titles)."""
    return re.sub(r"//([^:/@]+):[^@]*@", r"//\1:***@", url)


class Settings(BaseSettings):
    """Every setting of the toolkit, the service and the app, in one place: ``data_dir``
    and one section per concern (``toolkit.config.sections``)."""

    model_config = SettingsConfigDict(
        env_prefix="MLENS_",
        env_nested_delimiter="__",
        env_file=".env",
        extra="ignore",
    )

    data_dir: Path = Field(Path("data"), description="Folder for the store, keys and caches.")
    database: DatabaseSettings = Field(default_factory=DatabaseSettings)
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    search: SearchSettings = Field(default_factory=SearchSettings)
    summary: SummarySettings = Field(default_factory=SummarySettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    messenger: MessengerSettings = Field(default_factory=MessengerSettings)
    service: ServiceSettings = Field(default_factory=ServiceSettings)
    edge: EdgeSettings = Field(default_factory=EdgeSettings)
    delivery: DeliverySettings = Field(default_factory=DeliverySettings)

    if not TYPE_CHECKING:  # mypy keeps the signature the pydantic plugin gives

        def __init__(self, **values: Any) -> None:
            """Read the environment and ``.env``, with ``values`` over them (``_env_file=None``
            skips ``.env``); an unknown setting is a ``TypeError``, a bad value a
            ``ConfigError``."""
            fields = type(self).model_fields
            unknown = sorted(k for k in values if not k.startswith("_") and k not in fields)
            if unknown:
                raise TypeError(f"Settings has no setting {', '.join(unknown)}")
            try:
                super().__init__(**values)
            except ValidationError as exc:
                raise config_error(type(self), exc) from None
            except SettingsError as exc:
                raise ConfigError(f"invalid settings: {exc}") from None
            if values.get("_env_file", ENV_FILE) is not None and "llm" not in values:
                _say_dotenv_endpoint(self)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """The default sources, the environment and ``.env`` also read by flat name."""
        assert isinstance(env_settings, EnvSettingsSource)
        assert isinstance(dotenv_settings, EnvSettingsSource)
        return (
            init_settings,
            FlatVariables(settings_cls, env_settings),
            FlatVariables(settings_cls, dotenv_settings),
            file_secret_settings,
        )

    def replace(self, **changes: Any) -> Settings:
        """A validated copy with ``changes``: a section's mapping is laid over the section
        (``replace(llm={"timeout": 5})``; mappings within merge too), any other value
        replaces the setting. The environment is not read again. An unknown setting is a
        ``TypeError``, a bad value a ``ConfigError``."""
        unknown = sorted(k for k in changes if k not in type(self).model_fields)
        if unknown:
            raise TypeError(f"Settings has no setting {', '.join(unknown)}")
        # Sections left alone are passed as they are (pydantic does not validate them
        # again: a weights file is not read again for a summary's engine).
        data = {name: getattr(self, name) for name in type(self).model_fields}
        for name, change in changes.items():
            if isinstance(change, Mapping) and isinstance(data[name], BaseModel):
                change = merge(data[name].model_dump(), change)
            data[name] = change
        try:
            return type(self).model_validate(data)
        except ValidationError as exc:
            raise config_error(type(self), exc) from None

    @property
    def database_path(self) -> str:
        """The SQLite database to open: the configured one, or one under ``data_dir``."""
        if self.database.path:
            return self.database.path
        return str(self.data_dir / "mlens.sqlite3")

    @property
    def store_label(self) -> str:
        """Where the store lives, for people: the SQLite path or the URL without password."""
        url = self.database.url_text
        if url is None:
            return self.database_path
        return redact_url(url)

    @property
    def dev_key_file(self) -> Path:
        """Where ``make serve`` keeps the development API key it created."""
        return self.data_dir / "dev-api-key"


def dotenv_endpoint(path: Path = ENV_FILE) -> str | None:
    """The LLM endpoint the ``.env`` at ``path`` sets and the environment does not (the
    one the settings then use), or ``None``."""
    if any(os.environ.get(name) for name in _ENDPOINT_VARIABLES) or not path.is_file():
        return None
    from dotenv import dotenv_values

    values = {k.upper(): v for k, v in dotenv_values(path).items()}
    return next((values[n] for n in _ENDPOINT_VARIABLES if values.get(n)), None)


def _say_dotenv_endpoint(settings: Settings) -> None:
    """Warn once per file and endpoint that a ``.env`` chose where summaries are sent."""
    endpoint = dotenv_endpoint()
    if endpoint is None or settings.llm.base_url != endpoint:
        return
    where = str(ENV_FILE.resolve())
    if (where, endpoint) not in _warned:
        _warned.add((where, endpoint))
        log.warning(
            "settings: the LLM endpoint %s is set by %s (not the environment)", endpoint, where
        )
