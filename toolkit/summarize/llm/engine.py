"""The LLM engine's answer as a ``Summary``, with message links built in code.

The model names the messages a section draws on by id; the links under each section
are made here from those ids (``refs.message_link``), never copied from the model.

With ``llm_fallback = "extractive"``, an endpoint that fails or answers nothing usable
(``UpstreamError`` and its kinds) is replaced by the extractive engine, when it writes
the requested language, and the summary's ``engine`` says so:
``extractive (llm fallback: invalid output)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from toolkit.config import Settings
from toolkit.embeddings import Embedder
from toolkit.errors import (
    ToolkitError,
    UpstreamError,
    UpstreamInvalidOutput,
    UpstreamRateLimited,
    UpstreamTimeout,
)
from toolkit.models import Message, Section, Summary
from toolkit.summarize.context import SummaryContext
from toolkit.summarize.coverage import note
from toolkit.summarize.engine import SummaryJob
from toolkit.summarize.extractive import ExtractiveEngine
from toolkit.summarize.lang import find
from toolkit.summarize.llm.answer import LLMSummary
from toolkit.summarize.llm.budget import fallback_room
from toolkit.summarize.llm.client import LLMClient
from toolkit.summarize.llm.mapreduce import MapReduce
from toolkit.summarize.llm.prompts import PROMPT_VERSION
from toolkit.summarize.llm.pseudonyms import Known, known_people
from toolkit.summarize.personal import marks_for, mask_summary

ENGINE = "llm"
LINKS_PER_SECTION = 5


def engine_for(settings: Settings) -> MapReduce:
    """The LLM engine for the endpoint the settings configure (``ConfigError`` if none)."""
    client = LLMClient.from_settings(settings)
    return MapReduce(
        client,
        chunk_tokens=settings.llm_chunk_tokens,
        max_concurrency=settings.llm_max_concurrency,
        pseudonymise=settings.llm_pseudonymise,
        max_prompt_tokens=settings.llm_max_prompt_tokens,
    )


def to_summary(
    answer: LLMSummary, *, source_ref: str, language: str, link: Callable[[int], str]
) -> Summary:
    """The contract's shape: each section's body ends with links to the messages it cites."""
    sections = []
    for section in answer.sections:
        links = [link(int(i)) for i in section.message_ids[:LINKS_PER_SECTION] if i.isdigit()]
        links = [url for url in links if url]
        body = section.body.strip()
        if links:
            body = f"{body}\n{' '.join(links)}" if body else " ".join(links)
        sections.append(Section(title=section.title.strip(), body=body))
    return Summary(
        source_ref=source_ref,
        summary=answer.summary.strip(),
        sections=sections,
        important_messenger_message_ids=list(answer.important_message_ids),
        engine=ENGINE,
        language=language,
    )


def summarize_with_llm(
    settings: Settings,
    messages: Sequence[Message],
    ctx: SummaryContext,
    *,
    source_ref: str,
    link: Callable[[int], str],
    known: Known | None = None,
) -> Summary:
    """Summarise ``messages`` with the configured LLM endpoint. A source summary that
    read a sample ends with the sentence that says so (``coverage.note``, where the
    language has a pack); no e-mail address or phone number the model writes leaves
    (``personal``).

    Raises:
        ConfigError: no endpoint configured.
        UpstreamTimeout, UpstreamRateLimited, UpstreamError, UpstreamInvalidOutput.
    """
    answer = engine_for(settings).summarize(messages, ctx, known=known)
    summary = to_summary(answer, source_ref=source_ref, language=ctx.language, link=link)
    read = note(find(ctx.language), ctx.coverage, ctx.kind, ctx.timezone)
    if read:
        summary = replace(summary, summary=f"{summary.summary} {read}".strip())
    return mask_summary(summary, marks_for(ctx.language))


class LLMSummaryEngine:
    """The ``SummaryEngine`` of an OpenAI-compatible endpoint (``summary_engine = "llm"``)."""

    name = ENGINE

    def available(self, settings: Settings) -> bool:
        """Whether an endpoint is configured."""
        return settings.llm_configured

    def check(self, ctx: SummaryContext) -> None:
        """Nothing to check: a model writes any language."""

    def reads(
        self, messages: Sequence[Message], ctx: SummaryContext, settings: Settings
    ) -> list[Message]:
        """``messages``, or the largest spread sample of them that fits the prompt budget
        (a source summary: one request)."""
        return engine_for(settings).sample(messages, ctx)

    def identity(self, settings: Settings, embedder: Embedder) -> str:
        """Endpoint, model, prompt version, and whether what is sent is pseudonymised."""
        pseudonymised = "|pseudonymised" if settings.llm_pseudonymise else ""
        return f"llm|{settings.llm_base_url}|{settings.llm_model}|{PROMPT_VERSION}{pseudonymised}"

    def summarize(self, job: SummaryJob) -> Summary:
        """The endpoint's summary of the job's messages (or the fallback's, as configured).

        Raises:
            UpstreamError: the endpoint failed and no fallback is configured or possible.
        """
        known = known_people(job.store, job.source) if job.settings.llm_pseudonymise else None
        try:
            with fallback_room(job.settings):  # a hang leaves the fallback its time
                return summarize_with_llm(
                    job.settings,
                    job.messages,
                    job.ctx,
                    source_ref=job.source_ref,
                    link=job.link,
                    known=known,
                )
        except UpstreamError as exc:
            if job.settings.llm_fallback != "extractive":
                raise
            return _fallback(job, exc)


def fallback_reason(exc: UpstreamError) -> str:
    """A few ASCII words for the ``engine`` field (it travels in an HTTP header)."""
    if isinstance(exc, UpstreamInvalidOutput):
        return "invalid output"
    if isinstance(exc, UpstreamTimeout):
        return "timeout"
    if isinstance(exc, UpstreamRateLimited):
        return "rate limited"
    return "endpoint error"


def _fallback(job: SummaryJob, exc: UpstreamError) -> Summary:
    extractive = ExtractiveEngine()
    try:
        extractive.check(job.ctx)  # a language it has no pack for
    except ToolkitError:
        raise exc from None
    summary = extractive.summarize(job)
    return replace(summary, engine=f"{summary.engine} (llm fallback: {fallback_reason(exc)})")
