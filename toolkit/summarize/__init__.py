"""Period and source summaries: the extractive engine (default) and any OpenAI-compatible LLM.

Entry points (``pipeline.py``) for the service, the CLI and notebooks::

    summarize_period(store, embedder, settings, "@handle", started_at, ended_at, "en")
    summarize_source(store, embedder, settings, "@handle", "ru", messages_limit=500)

Modules: ``prompts`` (the two prompt families), ``llm`` / ``llm_engine`` / ``llm_summary``
(the openai client, map-reduce, links in code), ``extractive`` / ``compose`` /
``clusters`` / ``terms`` (the offline engine), ``wording`` (period wording check and
repair), ``chunking``, ``output``, ``cache``, ``vectors``, ``languages``, ``phrases``.
"""

from toolkit.summarize.pipeline import summarize_period, summarize_source
from toolkit.summarize.registry import engine_name

__all__ = ["engine_name", "summarize_period", "summarize_source"]
