"""The one place summary engines are composed: which engine runs for a name, what the
hybrid is made of, and what answers when an endpoint fails.

===========  ===================================================================
name         engine, as composed here
===========  ===================================================================
extractive   ``ExtractiveEngine``: offline, always available.
llm          ``LLMSummaryEngine``; a summary paragraph that is not grounded is the
             offline digest's. Fallback: the offline digest.
hybrid       ``HybridEngine``: the offline digest (its draft) with its lines
             rewritten by the LLM. Fallback: the draft as it is.
===========  ===================================================================

The fallback runs with ``MLENS_LLM_FALLBACK=extractive`` when the endpoint fails
(``UpstreamError`` and its kinds), for a language the offline engine writes; the
summary's ``engine`` says so: ``extractive (llm fallback: invalid output)``. The LLM's
requests leave the fallback its time (``budget.fallback_room``); the hybrid stops its
own rewriting at a deadline.

A new engine is one class implementing ``SummaryEngine`` and one entry in ``ENGINES``.
``MLENS_SUMMARY_ENGINE=auto`` picks the first available engine of ``AUTO_ORDER``;
``"hybrid"`` is chosen by name only. Engines are composed per request: the offline
digest of a job is written once, whether it is the hybrid's draft or the fallback.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import replace

from toolkit.config import Settings
from toolkit.embeddings import Embedder
from toolkit.errors import (
    ConfigError,
    InvalidRequest,
    ToolkitError,
    UpstreamError,
    UpstreamInvalidOutput,
    UpstreamRateLimited,
    UpstreamTimeout,
)
from toolkit.models import Message, Summary
from toolkit.summarize.context import SummaryContext
from toolkit.summarize.engine import SummaryEngine, SummaryJob
from toolkit.summarize.extractive import ExtractiveEngine
from toolkit.summarize.hybrid import HybridEngine
from toolkit.summarize.llm import LLMSummaryEngine
from toolkit.summarize.llm.budget import fallback_room
from toolkit.summarize.llm.engine import UNGROUNDED

OFFLINE = ExtractiveEngine()
"""The offline engine (it keeps no state: one serves every request)."""


class Draft(ExtractiveEngine):
    """The offline engine writing one job's digest once: the hybrid's draft is also its
    fallback's answer (built per request, so the one job it remembers is its own)."""

    def __init__(self) -> None:
        super().__init__()
        self._written: tuple[SummaryJob, Summary] | None = None

    def summarize(self, job: SummaryJob) -> Summary:
        """The offline digest of ``job`` (written on the first call)."""
        if self._written is None or self._written[0] is not job:
            self._written = (job, super().summarize(job))
        return self._written[1]

    def written(self, job: SummaryJob) -> Summary | None:
        """The offline digest of ``job``, ``None`` for a language it cannot write."""
        try:
            self.check(job.ctx)
        except ToolkitError:
            return None
        return self.summarize(job)


def fallback_reason(exc: UpstreamError) -> str:
    """A few ASCII words for the ``engine`` field (it travels in an HTTP header)."""
    if exc.details.get("reason") == UNGROUNDED:
        return "nothing grounded"
    if isinstance(exc, UpstreamInvalidOutput):
        return "invalid output"
    if isinstance(exc, UpstreamTimeout):
        return "timeout"
    if isinstance(exc, UpstreamRateLimited):
        return "rate limited"
    return "endpoint error"


class Fallback:
    """``engine`` answered by the offline digest when its endpoint fails.

    Args:
        leave_room: run ``engine`` under a deadline that leaves the offline digest its
            time (``budget.fallback_room``).
    """

    def __init__(self, engine: SummaryEngine, offline: Draft, *, leave_room: bool) -> None:
        self.engine, self.offline, self.leave_room = engine, offline, leave_room
        self.name = engine.name

    def available(self, settings: Settings) -> bool:
        """The engine's."""
        return self.engine.available(settings)

    def check(self, ctx: SummaryContext) -> None:
        """The engine's."""
        self.engine.check(ctx)

    def reads(
        self, messages: Sequence[Message], ctx: SummaryContext, settings: Settings
    ) -> list[Message]:
        """The engine's."""
        return self.engine.reads(messages, ctx, settings)

    def identity(self, settings: Settings, embedder: Embedder) -> str:
        """The engine's (a fallback's answer is never cached)."""
        return self.engine.identity(settings, embedder)

    def summarize(self, job: SummaryJob) -> Summary:
        """The engine's summary, else the offline digest saying why.

        Raises:
            UpstreamError: the endpoint failed and the offline engine cannot write the
                requested language.
        """
        room = fallback_room(job.settings.llm) if self.leave_room else nullcontext()
        try:
            with room:
                return self.engine.summarize(job)
        except UpstreamError as exc:
            offline = self.offline.written(job)
            if offline is None:  # a language it has no pack for
                raise exc from None
            reason = fallback_reason(exc)
            return replace(offline, engine=f"{offline.engine} (llm fallback: {reason})")


def _extractive(settings: Settings) -> SummaryEngine:
    return OFFLINE


def _llm(settings: Settings) -> SummaryEngine:
    draft = Draft()
    engine = LLMSummaryEngine(offline=draft.written)
    if settings.llm.fallback != "extractive":
        return engine
    return Fallback(engine, draft, leave_room=True)


def _hybrid(settings: Settings) -> SummaryEngine:
    draft = Draft()
    engine = HybridEngine(draft)
    if settings.llm.fallback != "extractive":
        return engine
    # The hybrid gives up on its own at a deadline (the lines not yet rewritten stay
    # offline), so its requests need no shortened one.
    return Fallback(engine, draft, leave_room=False)


ENGINES: dict[str, Callable[[Settings], SummaryEngine]] = {
    "extractive": _extractive,
    "llm": _llm,
    "hybrid": _hybrid,
}
"""Every engine, by the name ``MLENS_SUMMARY_ENGINE`` selects it with: how it is composed."""

AUTO_ORDER = ("llm", "extractive")
"""``auto``: the LLM when an endpoint is configured, else the extractive engine."""


def check_name(name: str | None) -> None:
    """Refuse an engine name a request gives that is neither ``auto`` nor an engine's.

    Raises:
        InvalidRequest: naming the field ``engine``.
    """
    if name is not None and name != "auto" and name not in ENGINES:
        names = ", ".join(("auto", *ENGINES))
        raise InvalidRequest(f"engine must be one of {names}", field="engine")


def select_engine(settings: Settings, name: str | None = None) -> SummaryEngine:
    """The engine ``name`` selects (``None``: the settings'), composed for these settings.

    Raises:
        ConfigError: the named engine is unknown or cannot run with these settings
            (``MLENS_SUMMARY_ENGINE=llm`` with no endpoint configured).
    """
    name = settings.summary.engine if name is None else name
    if name == "auto":
        built = (ENGINES[n](settings) for n in AUTO_ORDER)
        return next(engine for engine in built if engine.available(settings))
    build = ENGINES.get(name)
    if build is None:
        raise ConfigError(f"unknown summary_engine {name!r}; known: {', '.join(ENGINES)}")
    engine = build(settings)
    if not engine.available(settings):
        raise ConfigError(f"summary_engine is {name!r} but no LLM endpoint is configured")
    return engine


def engine_name(settings: Settings, name: str | None = None) -> str:
    """The name of the engine selected (``"llm"``, ``"hybrid"`` or ``"extractive"``).

    Raises:
        ConfigError: as for ``select_engine``.
    """
    return select_engine(settings, name).name


def summary_languages(settings: Settings, name: str | None = None) -> tuple[str, ...]:
    """The output languages the selected engine can write: every ISO 639-1 code with an
    LLM endpoint, the language packs' codes (``en``, ``ru``, ``uk``) offline and hybrid
    (the offline engine structures the hybrid digest).

    Raises:
        ConfigError: as for ``select_engine``.
    """
    from toolkit.lang import CODES
    from toolkit.lang.names import LANGUAGES

    return tuple(LANGUAGES) if select_engine(settings, name).name == "llm" else CODES
