"""The extractive engine: the embedded default, no network and no LLM, no word of any
language (the words are the language packs', ``toolkit.lang``).

In three stages, each a package that imports only the ones before it, composed by
``engine`` (the ``SummaryEngine``: detection, the stages in order, the result):

1. ``draft``: what the engine knows about the messages (vectors, content words,
   clusters and importance, facts, dates, recurring texts and adverts, quotes; the
   ``Draft``).
2. ``choose``: what the digest says (acts, turns and conversations, the act scorers,
   threads, key phrases, the exchanges it tells).
3. ``compose``: how it is written (the opening, the digest, the sections, the citations
   that make the important messages).

A digest's walk enters them in order: the engine makes the draft, the choice reads the
draft as turns (``choose.turns``) and scores and selects them, the composition writes.
"""

from toolkit.summarize.extractive.engine import ExtractiveEngine, summarize_extractive

__all__ = ["ExtractiveEngine", "summarize_extractive"]
