"""The LLM engine: map-reduce over token-budgeted chunks, validated and cleaned.

One chunk is one request. Several chunks get a partial summary each (at most
``max_concurrency`` requests in flight), then merge steps until one summary is left.
Every request honours the caller's deadline (``toolkit.deadline``, carried into the
worker threads): once it has passed, no further chunk or merge request starts and the
summary fails with ``DeadlineExceeded``; the first failing chunk cancels those not
yet started.
A source summary reads one request's worth: a spread sample of its messages (``sample``).
A chunk the endpoint finds larger than its context (``UpstreamContextExceeded``: the
estimate cannot know every tokenizer) is split in two, and the map runs again on the halves.
Each answer is parsed and validated; an invalid one is asked again once with the
reason, and one still invalid is ``UpstreamInvalidOutput``. A source summary that uses
period wording is asked again once with the reason, then repaired by removing the
sentences that still carry it.
With ``pseudonymise``, what is sent carries placeholders for names, handles, phone
numbers and e-mail addresses (``pseudonyms``: of the whole source's people, not only the
window's senders), and the final answer is mapped back.

A summary sends at most ``max_prompt_tokens`` prompt tokens in all (``budget``): a window
whose requests (its chunks and the merges of their partials) would pass it is read as
the largest spread sample that fits (``sample``, the rule of ``toolkit.summarize.sample``;
the pipeline says so in the summary's ``sampled``), a partial summary is cut to the room
the plan gave it, and a retry is asked only while the budget has room for it.
An empty window asks nothing: its summary says there are no messages.
The final answer must be in the requested language (``answer_language``): one in another
language is asked again once, budget permitting, then is ``UpstreamInvalidOutput``.
"""

from __future__ import annotations

import contextvars
import json
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from functools import partial
from typing import TypeVar

from toolkit.errors import UpstreamContextExceeded, UpstreamInvalidOutput
from toolkit.lang import find
from toolkit.lang.names import language_name
from toolkit.models import Message
from toolkit.summarize.context import SummaryContext
from toolkit.summarize.llm import budget
from toolkit.summarize.llm.answer import (
    InvalidOutput,
    LLMSummary,
    clean_summary,
    parse_summary,
)
from toolkit.summarize.llm.budget import PromptBudgetSpent, chat_tokens
from toolkit.summarize.llm.client import ChatMessage, LLMClient
from toolkit.summarize.llm.language import RETRY_LANGUAGE, answer_language, language_called
from toolkit.summarize.llm.messages import (
    MAX_MESSAGE_CHARS,
    chunk_messages,
    estimate_tokens,
    render_chunk,
    trim_text,
)
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
from toolkit.summarize.llm.pseudonyms import Known, Pseudonyms
from toolkit.summarize.period_wording import (
    find_period_wording,
    remove_period_phrases,
    remove_period_sentences,
)
from toolkit.summarize.personal import marks_for
from toolkit.summarize.sample import spread

# Tokens kept free in each request's prompt budget for the chat framing. The answer's
# room is max_tokens, outside the budget: the budget is what the endpoint must read
# before it writes (on a local model, what the wait is made of).
T = TypeVar("T")

FRAMING_TOKENS = budget.FRAMING_TOKENS
MIN_CHUNK_TOKENS = 256
MAX_ECHO_CHARS = 2000
"""Characters of an invalid answer echoed back when asking again."""
MIN_MESSAGE_TOKENS = 8
"""The fewest tokens a rendered message costs (its element's markup and id)."""
PARTIAL_ESTIMATE_RATIO = 2
"""A partial summary, as a merge reads it, is planned (and cut) at this many estimated
tokens per token of its answer bound: the estimate leans high for JSON and Cyrillic."""
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
            # The reason says what is wrong; the invalid answer is echoed only in part (a
            # runaway one would cost the retry its whole length again).
            {"role": "assistant", "content": trim_text(text, MAX_ECHO_CHARS)},
            {"role": "user", "content": RETRY_INVALID.format(reason=first)},
        ]
        try:
            text = complete(chat)
        except PromptBudgetSpent as spent:
            raise UpstreamInvalidOutput(
                f"the LLM's answer is invalid ({first}), and the summary's prompt budget "
                "leaves no room to ask again"
            ) from spent
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


def _partial_line(i: int, part: LLMSummary) -> str:
    return json.dumps({"part": i, **part.model_dump()}, ensure_ascii=False)


def _partials_text(parts: Sequence[LLMSummary]) -> str:
    return "\n".join(_partial_line(i, p) for i, p in enumerate(parts, 1))


def bounded_partial(part: LLMSummary, tokens: int, *, letters_per_token: float = 1.0) -> LLMSummary:
    """``part`` cut to ``tokens`` estimated tokens as a merge reads it: its last sections
    go first, then its summary is cut."""
    rate = letters_per_token
    while estimate_tokens(_partial_line(999, part), letters_per_token=rate) > tokens:
        if part.sections:
            part = part.model_copy(update={"sections": part.sections[:-1]})
            continue
        if part.important_message_ids:
            part = part.model_copy(update={"important_message_ids": []})
            continue
        words = part.summary.split()
        if len(words) <= 1:
            return part.model_copy(update={"summary": part.summary[: max(1, tokens // 4)]})
        part = part.model_copy(update={"summary": " ".join(words[: len(words) * 3 // 4])})
    return part


def empty_answer(ctx: SummaryContext) -> LLMSummary:
    """The answer for no messages, written here (no model is asked): the pack's sentence
    in the requested language, or the bare bounds where the language has no pack."""
    book = find(ctx.language)
    start = ctx.started_at.strftime("%Y-%m-%d %H:%M UTC") if ctx.started_at else None
    end = ctx.ended_at.strftime("%Y-%m-%d %H:%M UTC") if ctx.ended_at else None
    if book is None:
        text = f"∅ ({start} – {end})" if start and end else "∅"
    elif ctx.family == "period" and start and end:
        text = book.say("empty_period", start=start, end=end)
    elif ctx.topic is not None:
        text = book.say("empty_topic", topic=book.quote(ctx.topic), title=book.quote(ctx.title))
    else:
        text = book.say("empty_source", title=book.quote(ctx.title))
    return LLMSummary(summary=text, sections=[], important_message_ids=[])


class MapReduce:
    """Summaries of message lists by one LLM endpoint."""

    def __init__(
        self,
        client: LLMClient,
        *,
        chunk_tokens: int,
        max_concurrency: int,
        pseudonymise: bool = False,
        max_prompt_tokens: int | None = None,
    ) -> None:
        """Args: the client, the token budget of one request, requests in flight,
        whether names, handles, phone numbers and e-mail addresses are sent as
        placeholders, and the prompt tokens one summary may send in all (``None``: no
        bound)."""
        self.client = client
        self.chunk_tokens = chunk_tokens
        self.max_concurrency = max_concurrency
        self.pseudonymise = pseudonymise
        self.max_prompt_tokens = max_prompt_tokens

    def _budget(self, system: str) -> int:
        system_tokens = estimate_tokens(system, letters_per_token=self.client.letters_per_token)
        return max(MIN_CHUNK_TOKENS, self.chunk_tokens - system_tokens - FRAMING_TOKENS)

    def chunks(self, messages: Sequence[Message], ctx: SummaryContext) -> list[list[Message]]:
        """The chunks this engine splits ``messages`` into for ``ctx``."""
        budget = self._budget(system_prompt(ctx) + source_data(ctx))
        return chunk_messages(
            messages,
            budget,
            with_time=ctx.family == "period",
            topics=dict(ctx.topics),
            letters_per_token=self.client.letters_per_token,
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

    def _partial_room(self) -> int:
        """The estimated tokens a partial summary may take in a merge's prompt."""
        return PARTIAL_ESTIMATE_RATIO * partial_tokens(self.client.max_tokens)

    def _merge(
        self, parts: list[LLMSummary], ctx: SummaryContext
    ) -> tuple[LLMSummary, list[ChatMessage]]:
        system = system_prompt(ctx, merge=True)
        limit = self._budget(system + source_data(ctx))
        room = self._partial_room()
        rate = self.client.letters_per_token
        parts = [bounded_partial(p, room, letters_per_token=rate) for p in parts]
        while True:
            groups: list[list[LLMSummary]] = [[]]
            for part in parts:
                size = estimate_tokens(_partials_text([*groups[-1], part]), letters_per_token=rate)
                # At least two partials per group, so every round shrinks the list.
                if len(groups[-1]) >= 2 and size > limit:
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
            room_tokens = partial_tokens(self.client.max_tokens)
            shown = [_cited(group) for group in groups]
            answers = self._map(chats, shown, max_tokens=None if len(chats) == 1 else room_tokens)
            if len(answers) == 1:
                return answers[0]
            rate = self.client.letters_per_token
            parts = [bounded_partial(a, room, letters_per_token=rate) for a, _ in answers]

    def summarize(
        self, messages: Sequence[Message], ctx: SummaryContext, *, known: Known | None = None
    ) -> LLMSummary:
        """Summarise ``messages`` (posting order) as ``ctx`` asks.

        Args:
            messages: the window's (or the source sample's) messages with text.
            ctx: the request.
            known: with pseudonymisation, the people of the source beyond the senders
                of ``messages`` (``pseudonyms.known_people``).

        Returns:
            The cleaned answer: input ids only, no foreign URLs, and for the source
            family no period wording; real names where placeholders were sent. No
            messages: the answer that says so, and no request.

        Raises:
            UpstreamInvalidOutput: an answer that stayed invalid, or in another language.
            PromptBudgetSpent: a request the plan needed would pass the budget.
        """
        if not messages:
            return empty_answer(ctx)
        with budget.spending(self.max_prompt_tokens):
            if not self.pseudonymise:
                return self._summarize(messages, ctx)
            pseudonyms = Pseudonyms.for_messages(messages, known=known, ctx=ctx)
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

    def plan_tokens(self, messages: Sequence[Message], ctx: SummaryContext) -> int:
        """The prompt tokens the first pass over ``messages`` sends: each chunk's request,
        then each merge round's requests with every partial at its full room."""
        chunks = self.chunks(messages, ctx)
        if not chunks:
            return 0
        parts = len(chunks)
        rate = self.client.letters_per_token
        total = sum(
            chat_tokens(self._chunk_chat(chunk, ctx, i, parts), letters_per_token=rate)
            for i, chunk in enumerate(chunks, 1)
        )
        return total + (self._merge_tokens(parts, ctx) if parts > 1 else 0)

    def _merge_tokens(self, parts: int, ctx: SummaryContext) -> int:
        """The prompt tokens of the merges of ``parts`` partials, each at its full room
        (the rounds ``_merge`` makes: groups of two or more within one request)."""
        system = system_prompt(ctx, merge=True)
        frame = chat_tokens(
            [
                {"role": "system", "content": system},
                {"role": "user", "content": merge_prompt("", ctx)},
            ],
            letters_per_token=self.client.letters_per_token,
        )
        limit = self._budget(system + source_data(ctx))
        each = self._partial_room() + 1  # and its line break
        total = 0
        while parts > 1:
            groups = [0]
            for _ in range(parts):
                if groups[-1] >= 2 and (groups[-1] + 1) * each > limit:
                    groups.append(0)
                groups[-1] += 1
            if len(groups) > 1 and groups[-1] == 1:
                last = groups.pop()
                groups[-1] += last
            total += len(groups) * frame + parts * each
            parts = len(groups)
        return total

    def _fits(self, messages: Sequence[Message], ctx: SummaryContext) -> bool:
        """Whether ``messages`` can be read as ``ctx`` asks within the prompt budget (a
        source summary: in one request)."""
        limit = self.max_prompt_tokens
        if limit is not None and len(messages) * MIN_MESSAGE_TOKENS > limit:
            return False  # known without rendering them (a 200,000-message range)
        if ctx.family == "source" and len(self.chunks(messages, ctx)) > 1:
            return False
        return self.max_prompt_tokens is None or (
            self.plan_tokens(messages, ctx) <= self.max_prompt_tokens
        )

    def sample(self, messages: Sequence[Message], ctx: SummaryContext) -> list[Message]:
        """What a summary reads: all of ``messages`` when they fit the prompt budget (a
        source summary: one request), else the largest sample spread over their time
        that fits (``toolkit.summarize.sample``, the rule the pipeline's sample of a
        source follows). What a window or a source is about shows in a spread sample as
        well as in all of it, and a local model reads ~170 tokens/s: 500 messages in
        several requests and a merge would take minutes. A single message too large for
        the budget is cut to fit. Deterministic: the same messages give the same sample."""
        messages = list(messages)
        if not messages or self._fits(messages, ctx):
            return messages
        points = [(int(m.posted_at.timestamp()), len(m.text)) for m in messages]
        limit = self.max_prompt_tokens or self.chunk_tokens
        lo, hi = 1, min(len(messages) - 1, max(1, limit // MIN_MESSAGE_TOKENS))
        best: list[Message] | None = None
        while lo <= hi:  # the largest n whose spread sample fits
            n = (lo + hi) // 2
            picked = [messages[i] for i in spread(points, n)]
            if self._fits(picked, ctx):
                best, lo = picked, n + 1
            else:
                hi = n - 1
        return best if best is not None else self._squeezed(messages, points, ctx)

    def _squeezed(
        self, messages: Sequence[Message], points: list[tuple[int, int]], ctx: SummaryContext
    ) -> list[Message]:
        """One message (the sample of one) with its text cut until it fits; none when
        not even an empty one would."""
        message = messages[spread(points, 1)[0]]
        chars = min(len(message.text), MAX_MESSAGE_CHARS)
        while chars > 0:
            cut = replace(message, text=trim_text(message.text, chars))
            if self._fits([cut], ctx):
                return [cut]
            chars //= 2
        return []

    def _summarize(self, messages: Sequence[Message], ctx: SummaryContext) -> LLMSummary:
        messages = self.sample(messages, ctx)
        if not messages:
            raise PromptBudgetSpent(
                "not one message fits the summary's budget of prompt tokens "
                "(MLENS_LLM_MAX_PROMPT_TOKENS)"
            )
        allowed_ids = {str(m.messenger_message_id) for m in messages}
        results = self._map_chunks(self.chunks(messages, ctx), ctx)
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
        return self._in_language(answer, chat, allowed_ids, ctx)

    def _in_language(
        self,
        answer: LLMSummary,
        chat: list[ChatMessage],
        allowed_ids: set[str],
        ctx: SummaryContext,
    ) -> LLMSummary:
        """``answer`` when it is in the requested language; else the answer to asking
        again once (when the budget has room), which must be.

        Raises:
            UpstreamInvalidOutput: the answer stayed in another language.
        """
        found = answer_language(answer, ctx.language)
        if found is None:
            return answer
        asked, wrote = language_name(ctx.language), language_called(found)
        retry_chat = [
            *chat,
            {"role": "user", "content": RETRY_LANGUAGE.format(wrote=wrote, asked=asked)},
        ]
        try:
            retried, _ = ask(self.client, retry_chat)
        except PromptBudgetSpent:
            retried = answer
        retried = clean_summary(retried, allowed_ids=allowed_ids, marks=marks_for(ctx.language))
        if ctx.family == "source" and _wording_in(retried):
            retried = repair_period_wording(retried)
        again = answer_language(retried, ctx.language)
        if again is not None:
            raise UpstreamInvalidOutput(
                f"the LLM answered in {language_called(again)}, not in {asked} as asked"
            )
        return retried

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
        try:
            retried, _ = ask(self.client, retry_chat)
        except PromptBudgetSpent:
            return repair_period_wording(answer)
        retried = clean_summary(retried, allowed_ids=allowed_ids, marks=marks_for(language))
        return repair_period_wording(retried) if _wording_in(retried) else retried
