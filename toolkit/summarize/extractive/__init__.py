"""The extractive engine: the embedded default, no network and no LLM, no word of any
language (the words are the language packs', ``toolkit.lang``).

Modules: ``engine`` (the ``SummaryEngine``: detection, threads, digest, sections, the
result), ``threads`` (which messages form one conversation), ``digest`` (the
``summary`` field), ``opening`` (its first sentence), ``selection`` (which exchanges
the digest tells), ``sections`` (threads, decisions, open questions, plans, links),
``cite`` (quotes, names and links; what the text rests on), ``acts`` (what a message
does), ``conversations`` (turns, answered questions), ``keyphrases`` (titles and topics
in dictionary form), ``quotes`` (passages of messages), ``clusters`` (topics,
centrality, importance), ``draft`` (what the engine knows of the messages),
``tokens`` (content words), ``vectors`` (message vectors from the store).
"""

from toolkit.summarize.extractive.engine import ExtractiveEngine, summarize_extractive

__all__ = ["ExtractiveEngine", "summarize_extractive"]
