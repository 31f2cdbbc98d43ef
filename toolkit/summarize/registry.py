"""The summary engines by name, and the choice the settings make among them.

A new engine is one class implementing ``SummaryEngine`` and one entry in ``ENGINES``.
``MLENS_SUMMARY_ENGINE=auto`` picks the first available engine of ``AUTO_ORDER``;
``"hybrid"`` (the offline digest, its lines rewritten by the LLM) is chosen by name only.
"""

from __future__ import annotations

from toolkit.config import Settings
from toolkit.errors import ConfigError
from toolkit.summarize.engine import SummaryEngine
from toolkit.summarize.extractive import ExtractiveEngine
from toolkit.summarize.hybrid import HybridEngine
from toolkit.summarize.llm import LLMSummaryEngine

ENGINES: dict[str, SummaryEngine] = {
    engine.name: engine for engine in (ExtractiveEngine(), LLMSummaryEngine(), HybridEngine())
}
"""Every engine, by the name ``MLENS_SUMMARY_ENGINE`` selects it with."""

AUTO_ORDER = ("llm", "extractive")
"""``auto``: the LLM when an endpoint is configured, else the extractive engine."""


def select_engine(settings: Settings) -> SummaryEngine:
    """The engine the settings select.

    Raises:
        ConfigError: the named engine is unknown or cannot run with these settings
            (``MLENS_SUMMARY_ENGINE=llm`` with no endpoint configured).
    """
    name = settings.summary.engine
    if name == "auto":
        return next(ENGINES[n] for n in AUTO_ORDER if ENGINES[n].available(settings))
    engine = ENGINES.get(name)
    if engine is None:
        raise ConfigError(f"unknown summary_engine {name!r}; known: {', '.join(ENGINES)}")
    if not engine.available(settings):
        raise ConfigError(f"summary_engine is {name!r} but no LLM endpoint is configured")
    return engine


def engine_name(settings: Settings) -> str:
    """The name of the engine the settings select (``"llm"``, ``"hybrid"`` or ``"extractive"``).

    Raises:
        ConfigError: as for ``select_engine``.
    """
    return select_engine(settings).name


def summary_languages(settings: Settings) -> tuple[str, ...]:
    """The output languages the settings' engine can write: every ISO 639-1 code with an
    LLM endpoint, the language packs' codes (``en``, ``ru``, ``uk``) offline and hybrid
    (the offline engine structures the hybrid digest).

    Raises:
        ConfigError: as for ``select_engine``.
    """
    from toolkit.lang import CODES
    from toolkit.lang.names import LANGUAGES

    return tuple(LANGUAGES) if select_engine(settings).name == "llm" else CODES
