"""The LLM engine: any OpenAI-compatible endpoint, map-reduce over token-budgeted chunks.

Modules: ``engine`` (the ``SummaryEngine`` and the answer as a ``Summary``), ``client``
(the openai client, errors mapped at the edge), ``mapreduce`` (chunks, merges, retries),
``prompts`` (the period and source families), ``messages`` (messages as prompt data),
``answer`` (the answer's shape, parsing and cleaning), ``pseudonyms`` (placeholders for
who and how to reach them), ``budget`` (the prompt tokens one summary may send, the time
its fallback needs), ``language`` (whether an answer is in the language asked for).
"""

from toolkit.summarize.llm.engine import LLMSummaryEngine, summarize_with_llm

__all__ = ["LLMSummaryEngine", "summarize_with_llm"]
