"""The hybrid engine (``MLENS_SUMMARY_ENGINE=hybrid``): the offline digest, written by a model.

The extractive engine chooses and structures: which threads, decisions, open questions,
plans and links, which messages each line rests on, the titles and the counts. The
model only rewrites its lines, the summary paragraph's sentences first and then each
section's first lines, in the requested language, translating what they quote, in
small requests (``MLENS_LLM_HYBRID_BATCH_ITEMS`` lines each, one by default: a small model
given five numbered lines answers them shifted; ``max_tokens`` bounded by what the lines
need), at most ``MLENS_LLM_HYBRID_MAX_ITEMS`` lines a summary, so that a small local model
answers a day in seconds. The request's shape is ``llm.rewrites``'.

A rewrite replaces its line only when the grounding check accepts it
(``llm.grounding.rewrite_problem``): it names no number, time, @handle, host or
participant that the line and its messages do not hold, it is in the requested
language, its quotations translated, and it is no echo of the instructions, no loop and
no markup. Otherwise the offline line stays. The message links of a line are taken
out before it is sent and put back after it, built in code as ever. The summary counts
the lines rewritten, rejected and left as they were (``items_rewritten``,
``items_dropped``, ``items_offline``, ``summary_offline``); the log says why each
rewrite was rejected.

A failing endpoint stops the rewriting with an ``UpstreamError``: with
``MLENS_LLM_FALLBACK=extractive`` the registry answers with the draft as it is
(``engine``: ``extractive (llm fallback: …)``), else the error (502/503). One unusable
answer (no JSON) leaves its lines offline and the others go on; a request that times
out, or a deadline that passes, leaves the lines not yet rewritten offline (``engine``:
``hybrid (partial: timeout)``, not cached).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any

from toolkit import deadline
from toolkit.config import LLMSettings, Settings
from toolkit.embeddings import Embedder
from toolkit.errors import DeadlineExceeded, UpstreamInvalidOutput, UpstreamTimeout
from toolkit.lang import find
from toolkit.models import Message, Section, SectionItem, Summary
from toolkit.summarize.context import SummaryContext
from toolkit.summarize.engine import SummaryEngine, SummaryJob
from toolkit.summarize.llm.client import LLMClient
from toolkit.summarize.llm.grounding import Echo, Evidence, Grounding, Window, rewrite_problem
from toolkit.summarize.llm.messages import estimate_tokens
from toolkit.summarize.llm.plaintext import without_loops
from toolkit.summarize.llm.prompts import PROMPT_VERSION
from toolkit.summarize.llm.pseudonyms import Pseudonyms, known_people
from toolkit.summarize.llm.rewrites import (
    quoted_language,
    rewrite_echoes,
    rewrite_prompt,
    rewrite_schema,
)
from toolkit.summarize.period_wording import split_sentences
from toolkit.summarize.personal import marks_for, mask, mask_summary

log = logging.getLogger(__name__)

ENGINE = "hybrid"
MIN_LINE_TOKENS = 24
"""The least room one rewritten line gets in ``max_tokens``."""
LINE_ROOM = 2.0
"""A rewritten line's room, in estimated tokens of the line (a translation is longer)."""
_LINKS_RE = re.compile(r"\s*\((https?://[^\s(),]+(?:,\s*https?://[^\s(),]+)*)\)")
_NUMBERING_RE = re.compile(r"^\s*\d{1,2}\s*[:.)]\s+")


@dataclass
class Line:
    """One line of the digest to rewrite: where it is, its text without its message
    links, those links, and the messages it rests on."""

    section: int | None  # None: a sentence of the summary paragraph
    index: int
    text: str
    links: str
    ids: tuple[str, ...]
    rewrite: str | None = None


def split_links(text: str) -> tuple[str, str]:
    """A line without its message links ``(link, link)``, and the links (``""``: none)."""
    links = [m.group(1) for m in _LINKS_RE.finditer(text)]
    return _LINKS_RE.sub("", text).strip(), ", ".join(links)


def with_links(text: str, links: str) -> str:
    """A rewritten line with its message links put back, before its last punctuation."""
    text = text.strip()
    if not links:
        return text
    body = text.rstrip(".!?…")
    return f"{body} ({links}){text[len(body) :]}"


def _lines(summary: Summary, keep: Collection[str], limit: int) -> list[Line]:
    """The lines to rewrite, in the order the reader meets them: the summary's sentences,
    then each section's first line, then each one's second … (``limit`` at most); the
    sentences ``keep`` (the engine's own notes: what a source summary read, that quotes
    are in their original language) are not rewritten."""
    kept = {k.strip() for k in keep if k.strip()}
    out: list[Line] = []
    for n, sentence in enumerate(_sentences(summary.summary)):
        if sentence.strip() and sentence.strip() not in kept:
            text, links = split_links(sentence)
            out.append(Line(None, n, text, links, ()))
    depth = max((len(s.items) for s in summary.sections), default=0)
    for k in range(depth):
        for s, section in enumerate(summary.sections):
            if k < len(section.items):
                text, links = split_links(section.items[k].text)
                out.append(Line(s, k, text, links, section.items[k].messenger_message_ids))
    return [line for line in out if line.text][:limit]


def _linked_ids(links: str) -> tuple[str, ...]:
    """The message ids of a line's links (``https://t.me/x/12, …`` -> ``("12", …)``)."""
    return tuple(m.group(1) for m in re.finditer(r"/(\d+)(?=$|[,\s])", links))


def _sentences(text: str) -> list[str]:
    """The sentences of a summary paragraph, a fragment without a letter (the links and
    full stop after a quotation that ends in "…»") joined to the sentence before it."""
    out: list[str] = []
    for sentence in split_sentences(text):
        if out and not any(ch.isalpha() for ch in split_links(sentence)[0]):
            out[-1] = f"{out[-1].rstrip()} {sentence.strip()}"
        else:
            out.append(sentence)
    return out


def _answer_lines(text: str, count: int) -> list[str | None]:
    """The rewritten lines of an answer (``None`` where one is missing).

    Raises:
        ValueError: the answer holds no JSON object.
    """
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        raise ValueError("no JSON object")
    data: Any = json.loads(text[start : end + 1], strict=False)
    if isinstance(data, dict) and isinstance(data.get("lines"), list):
        data = {str(n): v for n, v in enumerate(data["lines"], 1)}
    if not isinstance(data, dict):
        raise ValueError("not an object")
    out: list[str | None] = []
    for n in range(1, count + 1):
        value = data.get(str(n))
        out.append(_NUMBERING_RE.sub("", value).strip() if isinstance(value, str) else None)
    return out


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


class Rewriter:
    """The rewrites of one summary's lines by one endpoint."""

    def __init__(self, llm: LLMSettings, job: SummaryJob) -> None:
        self.llm = llm
        self.client = LLMClient.from_settings(llm)
        self.language = job.ctx.language
        self.window = Window(job.messages, timezone=job.ctx.timezone)
        # The source's people and the chat's title too: a sender filter narrows the
        # messages, but the lines still name the others.
        self.pseudonyms = (
            Pseudonyms.for_messages(
                job.messages, known=known_people(job.store, job.source), ctx=job.ctx
            )
            if llm.pseudonymise
            else None
        )
        self.echo = Echo(rewrite_echoes(self.language))
        self.marks = marks_for(self.language)
        self.counts = Grounding()

    def _room(self, texts: Sequence[str]) -> int:
        rate = self.client.letters_per_token
        need = sum(
            max(MIN_LINE_TOKENS, int(estimate_tokens(t, letters_per_token=rate) * LINE_ROOM))
            for t in texts
        )
        return min(self.llm.max_tokens, need + 16)

    def batch(self, lines: Sequence[Line]) -> None:
        """Ask for one batch's rewrites and keep those the check accepts (on ``line.rewrite``).

        Raises:
            UpstreamError: the endpoint failed (an unusable answer is not raised: its
                lines stay offline).
        """
        texts = [line.text for line in lines]
        sent = [self.pseudonyms.text(t) for t in texts] if self.pseudonyms else texts
        schema = rewrite_schema(len(sent))
        try:
            answer = self.client.complete_json(
                rewrite_prompt(sent, self.language, quoted=quoted_language(sent, self.language)),
                schema=schema,
                name="rewrite",
                grammar_schema=schema,
                max_tokens=self._room(sent),
            )
            rewrites = _answer_lines(answer, len(lines))
        except (UpstreamInvalidOutput, ValueError, RecursionError) as exc:
            for line in lines:
                if line.section is not None:
                    self.counts.drop("invalid output", line.text)
            log.info("hybrid: an unusable rewrite answer (%s)", type(exc).__name__)
            return
        for line, rewrite in zip(lines, rewrites, strict=True):
            self._judge(line, rewrite)

    def _judge(self, line: Line, rewrite: str | None) -> None:
        if rewrite is not None and self.pseudonyms is not None:
            rewrite = self.pseudonyms.restore_text(rewrite)
        if rewrite is not None:
            rewrite = " ".join(mask(rewrite, self.marks).split())
        if rewrite is None or not rewrite:
            problem: str | None = "missing"
        elif _same(rewrite, line.text):
            return  # the line as it was: nothing rewritten, nothing rejected
        elif without_loops(rewrite) != rewrite:
            problem = "loop"
        else:
            # A line's messages: a section line's ids, a summary sentence's links (a
            # sentence without links, such as "Ann and Bob discuss …", has only itself).
            ids = line.ids or _linked_ids(line.links)
            evidence = self.window.of(ids) if ids else Evidence()
            problem = rewrite_problem(
                rewrite,
                line.text,
                evidence,
                self.language,
                names=self.window.names,
                echo=self.echo,
                window=self.window,
            )
        if problem is None:
            line.rewrite = rewrite
            if line.section is not None:
                self.counts.kept += 1
        elif line.section is not None:
            self.counts.drop(problem, line.text)
        else:
            log.info("hybrid: a summary sentence kept offline (%s)", problem)


def _rewritten(summary: Summary, lines: Sequence[Line]) -> Summary:
    """The offline summary with the accepted rewrites in place, links put back."""
    sentences = split_sentences(summary.summary)
    for line in lines:
        if line.section is None and line.rewrite is not None:
            trailing = sentences[line.index][len(sentences[line.index].rstrip()) :]
            sentences[line.index] = with_links(line.rewrite, line.links) + (trailing or " ")
    sections: list[Section] = []
    for s, section in enumerate(summary.sections):
        items = list(section.items)
        body = section.body
        for line in lines:
            if line.section == s and line.rewrite is not None:
                old = items[line.index]
                new = SectionItem(with_links(line.rewrite, line.links), old.messenger_message_ids)
                body = body.replace(f"— {old.text}", f"— {new.text}", 1)
                items[line.index] = new
        sections.append(replace(section, body=body, items=tuple(items)))
    return replace(summary, summary="".join(sentences).strip(), sections=sections)


def rewrite_digest(job: SummaryJob, offline: Summary, *, keep: Collection[str] = ()) -> Summary:
    """``offline`` (the extractive digest of ``job``) with its lines rewritten by the model.

    Raises:
        UpstreamError: the endpoint failed (the registry falls back, as configured).
    """
    llm = job.settings.llm
    rewriter = Rewriter(llm, job)
    lines = _lines(offline, keep, llm.hybrid_max_items)
    size = llm.hybrid_batch_items
    stopped = None
    for start in range(0, len(lines), size):
        left = deadline.remaining()
        if left is not None and left < 1.0:
            stopped = "deadline"
            break
        try:
            rewriter.batch(lines[start : start + size])
        except DeadlineExceeded:
            stopped = "deadline"  # the lines not yet rewritten stay offline
            break
        except UpstreamTimeout:
            stopped = "timeout"  # too slow for this digest: the rest stay offline
            break
    counts = rewriter.counts
    total = sum(len(s.items) for s in offline.sections)
    summary_lines = [line for line in lines if line.section is None]
    log.info("hybrid digest of %s: %s", job.source_ref, counts.note())
    if stopped is not None:
        log.info("hybrid digest of %s: rewriting stopped (%s)", job.source_ref, stopped)
    return replace(
        _rewritten(offline, lines),
        # A digest cut short is not the engine's to cache (the pipeline caches only
        # what ``engine`` names as itself).
        engine=ENGINE if stopped is None else f"{ENGINE} (partial: {stopped})",
        items_rewritten=counts.kept,
        items_dropped=counts.dropped,
        items_offline=total - counts.kept,
        summary_offline=not any(line.rewrite for line in summary_lines),
    )


class HybridEngine:
    """The ``SummaryEngine`` of the offline digest rewritten by an LLM (``"hybrid"``).

    Args:
        draft: the engine that writes the digest to rewrite (the extractive engine, as the
            registry composes it).
    """

    name = ENGINE

    def __init__(self, draft: SummaryEngine) -> None:
        self.draft = draft

    def available(self, settings: Settings) -> bool:
        """Whether an endpoint is configured."""
        return settings.llm.configured

    def check(self, ctx: SummaryContext) -> None:
        """The draft engine's: the requested language needs a pack (its structure and
        words are the pack's; the model rewrites them)."""
        self.draft.check(ctx)

    def reads(
        self, messages: Sequence[Message], ctx: SummaryContext, settings: Settings
    ) -> list[Message]:
        """All of them, as the offline engine."""
        return list(messages)

    def identity(self, settings: Settings, embedder: Embedder) -> str:
        """The draft engine's identity, the endpoint and model, the prompt version, the
        rewrite bounds, and whether what is sent is pseudonymised."""
        offline = self.draft.identity(settings, embedder)
        llm = settings.llm
        pseudonymised = "|pseudonymised" if llm.pseudonymise else ""
        return (
            f"hybrid|{offline}|{llm.base_url}|{llm.model}|{PROMPT_VERSION}"
            f"|{llm.hybrid_batch_items}|{llm.hybrid_max_items}{pseudonymised}"
        )

    def summarize(self, job: SummaryJob) -> Summary:
        """The draft of the job, its lines rewritten (see the module docstring).

        Raises:
            UpstreamError: the endpoint failed (the registry falls back, as configured).
        """
        offline = self.draft.summarize(job)
        if not job.messages:
            return replace(offline, engine=ENGINE, summary_offline=True)
        from toolkit.summarize.coverage import note

        book = find(job.ctx.language)
        read = note(book, job.ctx.coverage, job.ctx.kind, job.ctx.timezone)
        keep = [read, book.say("original_language") if book is not None else ""]
        # Each rewrite is masked as it comes; the whole digest once more, as every
        # engine's answer is (a line the model kept may join a number across lines).
        return mask_summary(rewrite_digest(job, offline, keep=keep), marks_for(job.ctx.language))
