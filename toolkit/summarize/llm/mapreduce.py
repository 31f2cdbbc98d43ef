"""The LLM engine: map-reduce over token-budgeted chunks, validated and cleaned.

One chunk is one request. Several chunks get a partial summary each (at most
``max_concurrency`` requests in flight), then merge steps until one summary is left.
Every request honours the caller's deadline (``toolkit.deadline``, carried into the
worker threads): once it has passed, no further chunk or merge request starts and the
summary fails with ``DeadlineExceeded``; the first failing chunk cancels those not
yet started.
A source summary reads one request's worth: an even sample of its messages (``sample``).
A chunk the endpoint finds larger than its context (``UpstreamContextExceeded``: the
estimate cannot know every tokenizer) is split in two, and the map runs again on the halves.
Each answer is parsed and validated; an invalid one is asked again once with the
reason, and one still invalid is ``UpstreamInvalidOutput``. A source summary that uses
period wording is asked again once with the reason, then repaired by removing the
sentences that still carry it.
With ``pseudonymise``, what is sent carries placeholders for names, handles, phone
numbers and e-mail addresses (``pseudonyms``), and the final answer is mapped back.
"""

from __future__ import annotations

import contextvars
import json
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import TypeVar

from toolkit.errors import UpstreamContextExceeded, UpstreamInvalidOutput
from toolkit.models import Message
from toolkit.summarize.context import SummaryContext
from toolkit.summarize.llm.answer import (
    InvalidOutput,
    LLMSummary,
    clean_summary,
    parse_summary,
)
from toolkit.summarize.llm.client import ChatMessage, LLMClient
from toolkit.summarize.llm.messages import chunk_messages, estimate_tokens, render_chunk
from toolkit.summarize.llm.prompts import (
    RETRY_INVALID,
    RETRY_PERIOD_WORDING,
    SUMMARY_SCHEMA,
    grammar_schema,
    merge_prompt,
    source_data,
    system_prompt,
    user_prompt,
)
from toolkit.summarize.llm.pseudonyms import Pseudonyms
from toolkit.summarize.period_wording import (
    find_period_wording,
    remove_period_phrases,
    remove_period_sentences,
)
from toolkit.summarize.personal import marks_for

# Tokens kept free in each request's prompt budget for the chat framing. The answer's
# room is max_tokens, outside the budget: the budget is what the endpoint must read
# before it writes (on a local model, what the wait is made of).
T = TypeVar("T")

FRAMING_TOKENS = 100
MIN_CHUNK_TOKENS = 256
# A partial summary (one chunk of several) is asked for in half the final answer's room:
# the merge reads partials, and what a model writes is, token for token, the slowest
# part of a local request.
MIN_PARTIAL_TOKENS = 128


def partial_tokens(max_tokens: int) -> int:
    """The answer bound of a partial summary when the final answer's is ``max_tokens``."""
    return min(max_tokens, max(MIN_PARTIAL_TOKENS, max_tokens // 2))


def ask(
    client: LLMClient,
    chat: list[ChatMessage],
    *,
    max_tokens: int | None = None,
    ids: Sequence[str] = (),
) -> tuple[LLMSummary, list[ChatMessage]]:
    """One validated answer to ``chat``, retried once with the reason when invalid
    (``max_tokens``: this request's answer bound, the client's when ``None``; ``ids``:
    the message ids the chat shows, the only ones a grammar lets the model write).

    Returns:
        The answer, and the chat that produced it (with the answer appended), so that a
        follow-up question can continue it.

    Raises:
        UpstreamInvalidOutput: when the retry is invalid too.
    """

    def complete(chat: list[ChatMessage]) -> str:
        return client.complete_json(
            chat, schema=SUMMARY_SCHEMA, grammar_schema=grammar_schema(ids), max_tokens=max_tokens
        )

    text = complete(chat)
    try:
        answer = parse_summary(text)
    except InvalidOutput as first:
        chat = [
            *chat,
            {"role": "assistant", "content": text},
            {"role": "user", "content": RETRY_INVALID.format(reason=first)},
        ]
        text = complete(chat)
        try:
            answer = parse_summary(text)
        except InvalidOutput as second:
            raise UpstreamInvalidOutput(
                f"the LLM's answer stayed invalid after a retry: {second}"
            ) from second
    return answer, [*chat, {"role": "assistant", "content": text}]


def _wording_in(answer: LLMSummary) -> list[str]:
    texts = [answer.summary] + [f"{s.title}\n{s.body}" for s in answer.sections]
    return [w for t in texts for w in find_period_wording(t)]


def repair_period_wording(answer: LLMSummary) -> LLMSummary:
    """Remove the sentences (and title phrases) that carry period wording."""
    sections = []
    for section in answer.sections:
        title = remove_period_phrases(section.title)
        body = remove_period_sentences(section.body)
        if title or body:
            sections.append(section.model_copy(update={"title": title or "—", "body": body}))
    summary = remove_period_sentences(answer.summary)
    if not summary:
        summary = "; ".join(s.title for s in sections if s.title != "—") or "—"
    return answer.model_copy(update={"summary": summary, "sections": sections})


def _halves(chunk: list[Message]) -> list[list[Message]]:
    """A chunk split in two (a single message stays whole)."""
    middle = len(chunk) // 2
    return [chunk[:middle], chunk[middle:]] if middle else [chunk]


def _cited(parts: Sequence[LLMSummary]) -> list[str]:
    """The ids partial summaries cite (what a merge of them may cite), each once."""
    ids = [i for p in parts for s in p.sections for i in s.message_ids]
    ids += [i for p in parts for i in p.important_message_ids]
    return list(dict.fromkeys(ids))


def _partials_text(parts: Sequence[LLMSummary]) -> str:
    return "\n".join(
        json.dumps({"part": i, **p.model_dump()}, ensure_ascii=False)
        for i, p in enumerate(parts, 1)
    )


class MapReduce:
    """Summaries of message lists by one LLM endpoint."""

    def __init__(
        self,
        client: LLMClient,
        *,
        chunk_tokens: int,
        max_concurrency: int,
        pseudonymise: bool = False,
    ) -> None:
        """Args: the client, the token budget of one request, requests in flight, and
        whether names, handles, phone numbers and e-mail addresses are sent as placeholders."""
        self.client = client
        self.chunk_tokens = chunk_tokens
        self.max_concurrency = max_concurrency
        self.pseudonymise = pseudonymise

    def _budget(self, system: str) -> int:
        return max(MIN_CHUNK_TOKENS, self.chunk_tokens - estimate_tokens(system) - FRAMING_TOKENS)

    def chunks(self, messages: Sequence[Message], ctx: SummaryContext) -> list[list[Message]]:
        """The chunks this engine splits ``messages`` into for ``ctx``."""
        budget = self._budget(system_prompt(ctx) + source_data(ctx))
        return chunk_messages(
            messages, budget, with_time=ctx.family == "period", topics=dict(ctx.topics)
        )

    def _run(self, calls: Sequence[Callable[[], T]]) -> list[T]:
        """The calls' results in order, at most ``max_concurrency`` at once."""
        if len(calls) == 1:
            return [calls[0]()]
        with ThreadPoolExecutor(max_workers=min(self.max_concurrency, len(calls))) as pool:
            # Worker threads start with an empty context: each call runs in a copy of the
            # caller's, so that it carries the deadline.
            futures = [pool.submit(contextvars.copy_context().run, call) for call in calls]
            try:
                return [future.result() for future in futures]
            except BaseException:
                for future in futures:
                    future.cancel()  # the summary has failed: start no more calls
                raise

    def _map(
        self,
        chats: list[list[ChatMessage]],
        ids: list[list[str]],
        *,
        max_tokens: int | None = None,
    ) -> list[tuple[LLMSummary, list[ChatMessage]]]:
        """Each chat's answer (``ids``: the message ids each chat shows)."""
        calls = [
            partial(ask, self.client, chat, max_tokens=max_tokens, ids=shown)
            for chat, shown in zip(chats, ids, strict=True)
        ]
        return self._run(calls)

    def _merge(
        self, parts: list[LLMSummary], ctx: SummaryContext
    ) -> tuple[LLMSummary, list[ChatMessage]]:
        system = system_prompt(ctx, merge=True)
        budget = self._budget(system + source_data(ctx))
        while True:
            groups: list[list[LLMSummary]] = [[]]
            for part in parts:
                size = estimate_tokens(_partials_text([*groups[-1], part]))
                # At least two partials per group, so every round shrinks the list.
                if len(groups[-1]) >= 2 and size > budget:
                    groups.append([])
                groups[-1].append(part)
            if len(groups) > 1 and len(groups[-1]) == 1:
                groups[-2].extend(groups.pop())
            chats = [
                [
                    {"role": "system", "content": system},
                    {"role": "user", "content": merge_prompt(_partials_text(group), ctx)},
                ]
                for group in groups
            ]
            # A round that leaves several partials writes partials.
            room = None if len(chats) == 1 else partial_tokens(self.client.max_tokens)
            shown = [_cited(group) for group in groups]
            results = self._map(chats, shown, max_tokens=room)
            if len(results) == 1:
                return results[0]
            parts = [answer for answer, _ in results]

    def summarize(self, messages: Sequence[Message], ctx: SummaryContext) -> LLMSummary:
        """Summarise ``messages`` (posting order, at least one) as ``ctx`` asks.

        Returns:
            The cleaned answer: input ids only, no foreign URLs, and for the source
            family no period wording; real names where placeholders were sent.
        """
        if not self.pseudonymise:
            return self._summarize(messages, ctx)
        pseudonyms = Pseudonyms.for_messages(messages)
        answer = self._summarize(pseudonyms.messages(messages), pseudonyms.context(ctx))
        allowed_ids = {str(m.messenger_message_id) for m in messages}
        marks = marks_for(ctx.language)
        return clean_summary(pseudonyms.restore(answer), allowed_ids=allowed_ids, marks=marks)

    def _chunk_chat(
        self, chunk: list[Message], ctx: SummaryContext, part: int, parts: int
    ) -> list[ChatMessage]:
        rendered = render_chunk(chunk, with_time=ctx.family == "period", topics=dict(ctx.topics))
        return [
            {"role": "system", "content": system_prompt(ctx)},
            {"role": "user", "content": user_prompt(rendered, ctx, part=part, parts=parts)},
        ]

    def _answer_chunk(
        self, chunk: list[Message], ctx: SummaryContext, part: int, parts: int, room: int | None
    ) -> list[tuple[LLMSummary, list[ChatMessage], list[Message]]]:
        """The chunk's answer, or its halves' answers (partials) when it exceeds the context."""
        try:
            ids = [str(m.messenger_message_id) for m in chunk]
            chat = self._chunk_chat(chunk, ctx, part, parts)
            answer, chat = ask(self.client, chat, max_tokens=room, ids=ids)
        except UpstreamContextExceeded:
            halves = _halves(chunk)
            if len(halves) == 1:
                raise
            room = partial_tokens(self.client.max_tokens)
            return [r for half in halves for r in self._answer_chunk(half, ctx, part, parts, room)]
        return [(answer, chat, chunk)]

    def _map_chunks(
        self, chunks: list[list[Message]], ctx: SummaryContext
    ) -> list[tuple[LLMSummary, list[ChatMessage], list[Message]]]:
        """Each chunk's answer with its chat and messages, in order (a chunk that exceeded
        the context answered by its halves)."""
        room = None if len(chunks) == 1 else partial_tokens(self.client.max_tokens)
        calls = [
            partial(self._answer_chunk, chunk, ctx, i, len(chunks), room)
            for i, chunk in enumerate(chunks, 1)
        ]
        return [r for answers in self._run(calls) for r in answers]

    def sample(self, messages: Sequence[Message], ctx: SummaryContext) -> list[Message]:
        """What a source summary reads: every k-th message, the smallest k whose sample
        fits one request. What a source is about shows in a spread sample as well as in
        all of it, and a local model reads ~170 tokens/s: 500 messages in several
        requests and a merge would take minutes."""
        step = max(1, len(self.chunks(messages, ctx)))  # about right; then up to fit
        while True:
            sample = list(messages[::step])
            if len(sample) <= 1 or len(self.chunks(sample, ctx)) <= 1:
                return sample
            step += 1

    def _summarize(self, messages: Sequence[Message], ctx: SummaryContext) -> LLMSummary:
        if ctx.family == "source":
            messages = self.sample(messages, ctx)
        allowed_ids = {str(m.messenger_message_id) for m in messages}
        results = self._map_chunks(self.chunks(messages, ctx) or [[]], ctx)
        if len(results) == 1:
            answer, chat, _ = results[0]
        else:
            partials = [
                clean_summary(a, allowed_ids={str(m.messenger_message_id) for m in chunk})
                for a, _, chunk in results
            ]
            answer, chat = self._merge(partials, ctx)
        answer = clean_summary(answer, allowed_ids=allowed_ids, marks=marks_for(ctx.language))
        if ctx.family == "source":
            answer = self._without_period_wording(answer, chat, allowed_ids, ctx.language)
        return answer

    def _without_period_wording(
        self,
        answer: LLMSummary,
        chat: list[ChatMessage],
        allowed_ids: set[str],
        language: str,
    ) -> LLMSummary:
        found = _wording_in(answer)
        if not found:
            return answer
        reason = ", ".join(f'"{w}"' for w in dict.fromkeys(found))
        retry_chat = [
            *chat,
            {"role": "user", "content": RETRY_PERIOD_WORDING.format(reason=reason)},
        ]
        retried, _ = ask(self.client, retry_chat)
        retried = clean_summary(retried, allowed_ids=allowed_ids, marks=marks_for(language))
        return repair_period_wording(retried) if _wording_in(retried) else retried
