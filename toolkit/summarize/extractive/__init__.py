"""The extractive engine: the embedded default, no network and no LLM.

Modules: ``engine`` (the ``SummaryEngine``: sections and the result), ``digest`` (the
``summary`` field: who asked, decided and shared what), ``keyphrases`` (section and
topic phrases in dictionary form), ``templates`` (the connective sentences, en and ru),
``clusters`` (topics, centrality, importance), ``tokens`` (content words, quotes),
``vectors`` (message vectors from the store).
"""

from toolkit.summarize.extractive.engine import ExtractiveEngine, summarize_extractive

__all__ = ["ExtractiveEngine", "summarize_extractive"]
