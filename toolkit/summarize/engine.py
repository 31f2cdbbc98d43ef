"""The ``SummaryEngine`` protocol every summary engine implements, and one request's job.

An engine is a small object with a ``name`` (the ``engine`` field of its summaries and
the value of ``MLENS_SUMMARY_ENGINE`` that selects it), a way to say whether the settings let
it run, an early check of a request (before any work), what it reads of a source
summary's messages, an identity for the cache key, and ``summarize``.
``toolkit.summarize.registry`` composes the engines by name (the hybrid's draft, the
fallback on the offline digest); the pipeline asks it for the selected one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from toolkit.config import Settings
from toolkit.embeddings import Embedder
from toolkit.models import Message, Source, Summary
from toolkit.store.base import MessageStore
from toolkit.summarize.context import SummaryContext


@dataclass(frozen=True)
class SummaryJob:
    """Everything an engine may use for one request.

    ``messages`` are the selected messages with text, in posting order; ``link`` builds
    a message's link from its id (summaries carry only links built in code).
    """

    store: MessageStore
    embedder: Embedder
    settings: Settings
    source: Source
    messages: Sequence[Message]
    ctx: SummaryContext
    source_ref: str
    link: Callable[[int], str]


class SummaryEngine(Protocol):
    """A summary engine (extractive, LLM, …)."""

    name: str

    def available(self, settings: Settings) -> bool:
        """Whether the settings let this engine run (e.g. an endpoint is configured)."""
        ...

    def check(self, ctx: SummaryContext) -> None:
        """Fail fast on a request the engine cannot serve (e.g. an unsupported language)."""
        ...

    def reads(
        self, messages: Sequence[Message], ctx: SummaryContext, settings: Settings
    ) -> list[Message]:
        """Which of a source summary's messages (posting order) the engine reads: all of
        them, or a spread sample of them that fits what it can read at once."""
        ...

    def identity(self, settings: Settings, embedder: Embedder) -> str:
        """What, besides the input, determines the output: part of the cache key."""
        ...

    def summarize(self, job: SummaryJob) -> Summary:
        """The summary of ``job.messages`` for ``job.ctx``."""
        ...
