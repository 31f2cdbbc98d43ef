"""The LLM engine's answer as a ``Summary`` in the offline digest's shape, every line grounded.

The model answers in the digest's sections (``prompts.SUMMARY_SCHEMA``): the summary
paragraph, threads with titles, decisions and agreements, open questions, plans and
dates, shared links; each item with the ids of the messages it rests on. Each item is
checked against those messages (``grounding``): one that fails is dropped, and the
counts are in the summary (``items_kept``, ``items_dropped``) and the log. A summary
paragraph that fails is replaced by the offline engine's (``summary_offline``). An
answer left with nothing grounded is ``UpstreamInvalidOutput`` (a 502 problem).

The links under each item are made here from its ids (``refs.message_link``), never
copied from the model, as the extractive engine writes them: `` (link, link)``.

The engine takes the LLM settings section. What stands in for a summary paragraph that
is not grounded, and what answers when the endpoint fails (``MLENS_LLM_FALLBACK``), is
composed in ``toolkit.summarize.registry``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace

from toolkit.config import LLMSettings, Settings
from toolkit.embeddings import Embedder
from toolkit.errors import UpstreamInvalidOutput
from toolkit.lang import find
from toolkit.models import Message, Section, SectionItem, SectionKind, Summary
from toolkit.summarize.context import SummaryContext
from toolkit.summarize.coverage import note
from toolkit.summarize.engine import SummaryJob
from toolkit.summarize.llm.answer import LLMSection, LLMSummary
from toolkit.summarize.llm.client import LLMClient
from toolkit.summarize.llm.grounding import (
    Echo,
    Grounding,
    Window,
    item_problem,
    summary_problem,
)
from toolkit.summarize.llm.mapreduce import MapReduce
from toolkit.summarize.llm.prompts import PROMPT_VERSION, system_prompt
from toolkit.summarize.llm.pseudonyms import Known, known_people
from toolkit.summarize.personal import marks_for, mask_summary

log = logging.getLogger(__name__)

ENGINE = "llm"
LINKS_PER_ITEM = 3
UNGROUNDED = "ungrounded"
"""``details["reason"]`` of the ``UpstreamInvalidOutput`` of an answer with nothing grounded."""

SECTION_TITLES = {
    SectionKind.DECISIONS: ("sec_decisions", "Decisions and agreements"),
    SectionKind.OPEN_QUESTIONS: ("sec_open", "Open questions"),
    SectionKind.PLANS: ("sec_plans", "Plans and dates"),
    SectionKind.LINKS: ("sec_links", "Shared links"),
}
"""A function section's title: the language pack's phrase, else the English one."""


def engine_for(llm: LLMSettings) -> MapReduce:
    """The map-reduce for the endpoint the LLM settings configure (``ConfigError`` if none)."""
    return MapReduce(
        LLMClient.from_settings(llm),
        chunk_tokens=llm.chunk_tokens,
        max_concurrency=llm.max_concurrency,
        pseudonymise=llm.pseudonymise,
        max_prompt_tokens=llm.max_prompt_tokens,
    )


def section_title(kind: SectionKind, language: str) -> str:
    """The title of a function section in ``language`` (English without a pack)."""
    key, english = SECTION_TITLES[kind]
    book = find(language)
    return book.say(key) if book is not None else english


def cite(text: str, ids: Sequence[str], link: Callable[[int], str]) -> str:
    """``text`` with the links of its first messages, as the extractive engine cites."""
    links = [link(int(i)) for i in ids[:LINKS_PER_ITEM] if i.isdigit()]
    links = [url for url in links if url]
    return f"{text} ({', '.join(links)})" if links else text


def grounded(
    answer: LLMSummary, messages: Sequence[Message], ctx: SummaryContext
) -> tuple[LLMSummary, Grounding, str | None]:
    """The answer with only its grounded items (``grounding``), the counts, and why its
    summary paragraph is not grounded (``None`` when it is)."""
    window = Window(messages, timezone=ctx.timezone)
    echo = Echo([system_prompt(ctx), system_prompt(ctx, merge=True)])
    counts = Grounding()
    counts.dropped = counts.reasons["malformed"] = answer.malformed
    if not counts.reasons["malformed"]:
        del counts.reasons["malformed"]
    seen: set[str] = set()
    sections = []
    for section in answer.sections:
        items = []
        for item in section.items:
            problem = item_problem(
                item, window, ctx.language, echo=echo, seen=seen, kind=section.kind
            )
            if problem is None:
                items.append(item)
            else:
                counts.drop(problem, item.text)
        counts.kept += len(items)
        if items:
            sections.append(section.model_copy(update={"items": items}))
    problem = summary_problem(
        answer.summary,
        window,
        ctx.language,
        echo=echo,
        bounds=(ctx.started_at, ctx.ended_at),
        hosts=answer.summary_hosts,
    )
    return answer.model_copy(update={"sections": sections}), counts, problem


def _section(section: LLMSection, language: str, link: Callable[[int], str]) -> Section:
    kind = SectionKind(section.kind) if section.kind in set(SectionKind) else SectionKind.THREAD
    title = section.title.strip() if kind is SectionKind.THREAD else section_title(kind, language)
    items = tuple(
        SectionItem(cite(i.text.strip(), i.ids, link), tuple(i.ids)) for i in section.items
    )
    body = "\n".join(f"— {item.text}" for item in items)
    return Section(title=title or "—", body=body, kind=kind, items=items)


def to_summary(
    answer: LLMSummary, *, source_ref: str, language: str, link: Callable[[int], str]
) -> Summary:
    """The contract's shape: threads first, then the function sections in the offline
    digest's order, each item ending with the links of the messages it cites;
    ``important_messenger_message_ids`` are the cited messages, in order."""
    threads = [s for s in answer.sections if s.kind not in SECTION_KINDS]
    functions = [s for kind in SECTION_KINDS for s in answer.sections if s.kind == kind]
    sections = [_section(s, language, link) for s in [*threads, *functions]]
    cited = [i for s in sections for item in s.items for i in item.messenger_message_ids]
    return Summary(
        source_ref=source_ref,
        summary=answer.summary.strip(),
        sections=sections,
        important_messenger_message_ids=list(dict.fromkeys(cited)),
        engine=ENGINE,
        language=language,
    )


SECTION_KINDS = tuple(k.value for k in SECTION_TITLES)


def summarize_with_llm(
    llm: LLMSettings,
    messages: Sequence[Message],
    ctx: SummaryContext,
    *,
    source_ref: str,
    link: Callable[[int], str],
    known: Known | None = None,
    offline: Callable[[], Summary | None] | None = None,
) -> Summary:
    """Summarise ``messages`` with the configured LLM endpoint, every line grounded. A
    source summary that read a sample ends with the sentence that says so
    (``coverage.note``, where the language has a pack); no e-mail address or phone
    number the model writes leaves (``personal``).

    Args:
        offline: the offline engine's summary of the same messages, asked for only when
            the model's summary paragraph is not grounded (``None``: its place is taken
            by the first grounded lines).

    Raises:
        ConfigError: no endpoint configured.
        UpstreamTimeout, UpstreamRateLimited, UpstreamError: the endpoint failed.
        UpstreamInvalidOutput: an unusable answer, or one with nothing grounded.
    """
    answer = engine_for(llm).summarize(messages, ctx, known=known)
    answer, counts, problem = grounded(answer, messages, ctx)
    log.info("llm digest of %s: %s", source_ref, counts.note())
    if messages and counts.kept == 0 and (counts.dropped or problem is not None):
        raise UpstreamInvalidOutput(
            f"nothing the LLM wrote is grounded in its messages ({counts.note()}; "
            f"summary: {problem or 'grounded'})",
            reason=UNGROUNDED,
        )
    summary = to_summary(answer, source_ref=source_ref, language=ctx.language, link=link)
    summary = replace(summary, items_kept=counts.kept, items_dropped=counts.dropped)
    if problem is not None:
        log.info("llm digest of %s: summary replaced (%s)", source_ref, problem)
        summary = replace(summary, summary=_replacement(summary, offline), summary_offline=True)
    read = note(find(ctx.language), ctx.coverage, ctx.kind, ctx.timezone)
    if read and read not in summary.summary:  # the offline paragraph already says it
        summary = replace(summary, summary=f"{summary.summary} {read}".strip())
    return mask_summary(summary, marks_for(ctx.language))


def _replacement(summary: Summary, offline: Callable[[], Summary | None] | None) -> str:
    """The offline engine's summary paragraph, else the first grounded lines."""
    written = offline() if offline is not None else None
    if written is not None and written.summary.strip():
        return written.summary
    lines = [item.text for s in summary.sections for item in s.items][:2]
    return " ".join(lines) or "—"


class LLMSummaryEngine:
    """The ``SummaryEngine`` of an OpenAI-compatible endpoint (``MLENS_SUMMARY_ENGINE=llm``).

    Args:
        offline: the offline engine's summary of a job (``None`` for a language it cannot
            write), asked for only when the model's summary paragraph is not grounded.
    """

    name = ENGINE

    def __init__(self, offline: Callable[[SummaryJob], Summary | None] | None = None) -> None:
        self.offline = offline

    def available(self, settings: Settings) -> bool:
        """Whether an endpoint is configured."""
        return settings.llm.configured

    def check(self, ctx: SummaryContext) -> None:
        """Nothing to check: a model writes any language."""

    def reads(
        self, messages: Sequence[Message], ctx: SummaryContext, settings: Settings
    ) -> list[Message]:
        """``messages``, or the largest spread sample of them that fits the prompt budget
        (a source summary: one request)."""
        return engine_for(settings.llm).sample(messages, ctx)

    def identity(self, settings: Settings, embedder: Embedder) -> str:
        """Endpoint, model, prompt version, and whether what is sent is pseudonymised."""
        llm = settings.llm
        pseudonymised = "|pseudonymised" if llm.pseudonymise else ""
        return f"llm|{llm.base_url}|{llm.model}|{PROMPT_VERSION}{pseudonymised}"

    def summarize(self, job: SummaryJob) -> Summary:
        """The endpoint's summary of the job's messages.

        Raises:
            UpstreamError: the endpoint failed (the registry falls back, as configured).
        """
        llm = job.settings.llm
        known = known_people(job.store, job.source) if llm.pseudonymise else None
        offline = self.offline
        return summarize_with_llm(
            llm,
            job.messages,
            job.ctx,
            source_ref=job.source_ref,
            link=job.link,
            known=known,
            offline=(lambda: offline(job)) if offline is not None else None,
        )
