"""The summary entry points the Workspace calls for every face, one request object each.

``summarize_period`` (a ``SummaryRequest``) selects the messages of
``[started_at, ended_at)``; ``summarize_source`` (a ``SourceSummaryRequest``) reads
``messages_limit`` of the source's messages, a sample spread over its whole life when it
has more (``coverage``, ``sample``). Of either, the engine may read fewer (``reads``: an
LLM reads a spread sample within its prompt budget, one request for a source), and the
summary says so (``Summary.sampled``). Both pick the engine the request names, else the
settings', composed by ``registry.select_engine`` (``auto``: the LLM when an endpoint
is configured, else extractive), look
in the store's cache first, and cache what they compute under (source, language, prompt
version, engine, content hash of the messages read and how many were selected: a
period by its content, not its raw bounds, ``cache``). Before it
leaves, a source summary loses every sentence with period wording (but the one that
says what it read), and every summary every e-mail address and phone number
(``personal``), whatever engine wrote it.

A summary not in the cache is computed in a turn of ``turns`` when given (the
Workspace's, ``MLENS_SUMMARY_CONCURRENCY`` at once): it waits at most
``MLENS_SUMMARY_WAIT_SECONDS`` for one, then fails with ``Busy``. A cached answer needs no turn.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import replace
from datetime import UTC, datetime, timedelta, tzinfo

from toolkit.config import Settings
from toolkit.embeddings import Embedder
from toolkit.errors import InvalidRequest
from toolkit.lang import find, pack
from toolkit.lang.names import normalise_language
from toolkit.models import Message, MessageFilter, Source, SourceRef, Summary, iso_z, utc
from toolkit.refs import message_link, resolve_source
from toolkit.requests import MAX_SOURCE_MESSAGES, SourceSummaryRequest, SummaryRequest
from toolkit.store.base import MessageStore
from toolkit.summarize.cache import cache_key, load_cached, store_cached
from toolkit.summarize.context import SummaryContext
from toolkit.summarize.coverage import note, read_source
from toolkit.summarize.engine import SummaryJob
from toolkit.summarize.period_wording import remove_period_phrases, remove_period_sentences
from toolkit.summarize.personal import marks_for, mask_summary
from toolkit.summarize.registry import check_name, select_engine
from toolkit.timeparse import zone_of
from toolkit.turns import Turns
from toolkit.zones import zone_label


def _linker(source: Source, messages: Sequence[Message]) -> Callable[[int], str]:
    if source.handle is None and source.internal_id is None:
        return lambda _: ""
    topics = {m.messenger_message_id: m.topic_id for m in messages}
    return lambda message_id: message_link(source, message_id, topic_id=topics.get(message_id))


def _zone(source: Source) -> tzinfo:
    """The source's own time zone; UTC when it has none, or one this machine does not
    know (a store copied from a machine with a newer time zone database)."""
    try:
        return zone_of(source.timezone)
    except InvalidRequest:
        return UTC


def _in_zone(start: datetime, end: datetime, source: Source, zone: tzinfo) -> None:
    """Refuse a period whose bounds the source's zone cannot show (``0001-01-01T00:00Z``
    at ``-05:00`` is in year 0): every summary names its period in that zone.

    Raises:
        InvalidRequest: naming the bound.
    """
    last = end - timedelta(microseconds=1)
    for field, moment, shown in (("started_at", start, start), ("ended_at", last, end)):
        try:
            moment.astimezone(zone)
        except (OverflowError, ValueError):
            raise InvalidRequest(
                f"{field} {iso_z(shown)} is out of range in the source's time zone "
                f"{source.timezone} (years 1 to 9999); give a later start or an earlier end",
                field=field,
            ) from None


def _inferred(source: Source) -> str | None:
    """The label of the source's zone ("UTC+2") when it was inferred from activity."""
    return zone_label(source.timezone) if source.timezone_origin == "inferred" else None


def _with_zone_note(summary: Summary, ctx: SummaryContext) -> Summary:
    """``summary`` saying, last, that its times are in a zone inferred from activity (a
    period digest that cites messages, in a language with a pack)."""
    book = find(ctx.language)
    if ctx.family != "period" or not ctx.inferred_zone or book is None:
        return summary
    if not summary.important_messenger_message_ids:
        return summary
    # "UTC" inferred means the times as written are the people's own (an HTML export
    # without a zone, exported where the chat lives): saying "UTC" would be false.
    said = (
        book.sentence("zone_inferred_local")
        if ctx.inferred_zone == "UTC"
        else book.sentence("zone_inferred", zone=ctx.inferred_zone)
    )
    return replace(summary, summary=f"{summary.summary.rstrip()} {said}".strip())


def _with_text(messages: Sequence[Message]) -> list[Message]:
    return [m for m in messages if not m.is_service and m.text.strip()]


def _topic(
    store: MessageStore, source: Source, topic_id: int | None, language: str
) -> tuple[str | None, tuple[tuple[int, str], ...]]:
    """The title of the forum topic a summary is limited to (``None``: the whole source),
    and the forum's topics (empty for other sources); a topic the store does not name is
    titled in ``language``'s pack (English for a language without one)."""
    topics = tuple((t.topic_id, t.title) for t in store.list_topics(source.id))
    if topic_id is None:
        return None, topics
    titles = dict(topics)
    if topic_id in titles:
        return titles[topic_id], topics
    return (find(language) or pack("en")).topic_title(topic_id), topics


def _scope(
    store: MessageStore, request: SummaryRequest | SourceSummaryRequest
) -> tuple[Source, SourceRef, MessageFilter]:
    """The request's source, its reference, and the checked filter of what it reads (a
    topic link's topic unless the request names one)."""
    source, source_ref = resolve_source(store, request.source_ref)
    return source, source_ref, request.message_filter(source_ref.topic_id)


def _run(
    store: MessageStore,
    embedder: Embedder,
    settings: Settings,
    source: Source,
    ref: SourceRef,
    messages: list[Message],
    ctx: SummaryContext,
    request: SummaryRequest | SourceSummaryRequest,
    turns: Turns | None,
) -> Summary:
    engine = select_engine(settings, request.engine)
    engine.check(ctx)  # e.g. an unsupported language fails before any work
    selected = len(messages)
    messages = engine.reads(messages, ctx, settings)  # all, or a sample within its budget
    if ctx.family == "source" and ctx.coverage is not None:
        ctx = replace(ctx, coverage=ctx.coverage.of(messages))
    key = cache_key(source, ctx, engine.identity(settings, embedder), messages, selected=selected)
    cached = load_cached(store, key, ref.raw) if request.use_cache else None
    if cached is not None:
        # Masked again on the way out (masking twice changes nothing): a secret the
        # masking learnt to find after the summary was cached never leaves with it.
        return mask_summary(cached, marks_for(ctx.language))
    job = SummaryJob(
        store, embedder, settings, source, messages, ctx, ref.raw, _linker(source, messages)
    )
    with turns.turn(settings.summary.wait_seconds) if turns is not None else nullcontext():
        summary = engine.summarize(job)
    if ctx.family == "source":
        read = note(find(ctx.language), ctx.coverage, ctx.kind, ctx.timezone)
        summary = without_period_wording(summary, keep=read)
    summary = _with_zone_note(mask_summary(summary, marks_for(ctx.language)), ctx)
    summary = replace(summary, sampled=_sampled(ctx, len(messages), selected))
    # A fallback's answer is not the engine's to cache, nor one written before the
    # embedder reached every message (the next request will read their vectors).
    if summary.engine == engine.name and not summary.messages_without_vector:
        store_cached(store, key, summary, settings)
    return summary


def _sampled(ctx: SummaryContext, read: int, selected: int) -> tuple[int, int] | None:
    """What a summary read of its messages, when not all: of the source's (coverage),
    else of the window's."""
    if ctx.family == "source" and ctx.coverage is not None and ctx.coverage.sampled:
        return ctx.coverage.read, ctx.coverage.total
    return (read, selected) if read < selected else None


def without_period_wording(summary: Summary, *, keep: str = "") -> Summary:
    """A source summary with every sentence that carries period wording removed, but
    ``keep``: the sentence that says what the summary read (its span has dates)."""
    sections = []
    for section in summary.sections:
        title = remove_period_phrases(section.title) or "—"
        body = remove_period_sentences(section.body)
        if body or title != "—":
            items = tuple(
                item for item in section.items if remove_period_sentences(item.text) == item.text
            )
            sections.append(replace(section, title=title, body=body, items=items))
    text = remove_period_sentences(summary.summary, keep=keep)
    text = text or "; ".join(s.title for s in sections)
    return replace(summary, summary=text or "—", sections=sections)


def summarize_period(
    store: MessageStore,
    embedder: Embedder,
    settings: Settings,
    request: SummaryRequest,
    *,
    turns: Turns | None = None,
) -> Summary:
    """Summarise the messages a source posted in ``[request.started_at, request.ended_at)``.

    Args:
        store: the message store.
        embedder: the embedder whose vectors the extractive engine uses.
        settings: engine choice, LLM endpoint and limits.
        request: the source, the period (naive means UTC), the language, the chat or
            channel variant (by default the source's own kind), the engine, the topic
            and sender filters, and whether a cached result may answer (the result is
            cached anyway).
        turns: the turns summaries take (``None``: no waiting for one).

    Returns:
        The summary (``engine`` names the engine that wrote it).

    Raises:
        InvalidRequest: a period that is empty or reversed, or out of range in the
            source's time zone; an unknown language code, a bad topic id or sender id,
            an unknown engine.
        UnsupportedLanguage: a language the extractive engine cannot write.
        SourceNotFound: no such source in the store.
        UpstreamError: the LLM endpoint failed (timeout, rate limit, invalid output).
        Busy: no turn came free within ``settings.summary.wait_seconds``.
    """
    language = normalise_language(request.language)
    start, end = utc(request.started_at), utc(request.ended_at)
    if start >= end:
        raise InvalidRequest("ended_at must be after started_at", field="ended_at")
    check_name(request.engine)
    source, source_ref, where = _scope(store, request)
    zone = _zone(source)
    _in_zone(start, end, source, zone)
    messages = _with_text(store.messages_in_period(source.id, where))
    topic, topics = _topic(store, source, where.topic_id, language)
    kind = request.kind or source.kind
    ctx = SummaryContext("period", kind, source.title, language, start, end, topic, topics, zone)
    ctx = replace(ctx, inferred_zone=_inferred(source))
    return _run(store, embedder, settings, source, source_ref, messages, ctx, request, turns)


def summarize_source(
    store: MessageStore,
    embedder: Embedder,
    settings: Settings,
    request: SourceSummaryRequest,
    *,
    turns: Turns | None = None,
) -> Summary:
    """Say what a source is about, from a sample spread over its whole life, with no
    period wording (but the sentence that says what it read, when it read a sample).

    Args:
        store, embedder, settings, turns: as for ``summarize_period``.
        request: the source, the language, how many messages to read at most (1..5000;
            default from settings: all of them when the source has no more, else a
            sample spread over its time, ``coverage``), the engine, the topic and sender
            filters (the sample is taken after them), and whether a cached result may
            answer.

    Raises:
        InvalidRequest: ``messages_limit`` out of bounds, an unknown language code or
            engine.
        UnsupportedLanguage, SourceNotFound, UpstreamError, Busy: as for ``summarize_period``.
    """
    language = normalise_language(request.language)
    limit = request.messages_limit
    limit = settings.summary.source_messages if limit is None else limit
    if not 1 <= limit <= MAX_SOURCE_MESSAGES:
        raise InvalidRequest(
            f"messages_limit must be between 1 and {MAX_SOURCE_MESSAGES}", field="messages_limit"
        )
    check_name(request.engine)
    source, source_ref, where = _scope(store, request)
    messages, coverage = read_source(store, source.id, limit, where)
    messages = _with_text(messages)
    topic, topics = _topic(store, source, where.topic_id, language)
    ctx = SummaryContext(
        "source",
        source.kind,
        source.title,
        language,
        topic=topic,
        topics=topics,
        timezone=_zone(source),
        coverage=coverage,
    )
    return _run(store, embedder, settings, source, source_ref, messages, ctx, request, turns)
