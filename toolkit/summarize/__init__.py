"""Period and source summaries: the extractive engine (default) and any OpenAI-compatible LLM.

``toolkit.workspace.Workspace`` calls ``summarize_period`` and ``summarize_source``
(``pipeline.py``) for every face, each with one request object (``toolkit.requests``)::

    summarize_period(store, embedder, settings, SummaryRequest(source_ref="@handle", ...))
    summarize_source(store, embedder, settings, SourceSummaryRequest(source_ref="@handle", ...))

The engine is the one the request names, else the settings'.

Modules: ``pipeline`` (select the messages, pick the engine, cache the result),
``registry`` (the engines by name, composed with their draft and fallback, and the
settings' choice), ``engine`` (the
``SummaryEngine`` protocol and one request's job), ``context`` (what an engine knows of a
request), ``cache`` (the cache key and a result's stored form), ``period_wording``
(period wording found and removed in source summaries); the engines' packages
``extractive`` (offline, the default) and ``llm`` (the openai client, map-reduce, links
built in code). Languages live in ``toolkit.lang``.
"""

from toolkit.summarize.pipeline import summarize_period, summarize_source
from toolkit.summarize.registry import engine_name

__all__ = ["engine_name", "summarize_period", "summarize_source"]
