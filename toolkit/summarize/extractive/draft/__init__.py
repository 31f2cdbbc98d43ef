"""Stage 1 of the extractive engine, the draft: what the engine knows about a summary's
messages before it chooses anything.

``vectors`` (message vectors from the store; ``lexical``: from words when too many are
missing), ``tokens`` (content words), ``clusters`` (centred vectors, topic clusters,
centrality, importance), ``facts`` (how many facts a message carries), ``dates`` (the
day and time a message names), ``recurrence`` and ``adverts`` (texts that recur,
adverts, copies), ``quotes`` (passages of a message, cut on word boundaries) and
``draft`` (``Draft``: the messages in the source's zone with their texts, terms,
vectors, languages, packs, importance and hygiene marks; how each is quoted).

Hands ``choose`` a ``Draft``. Imports no other stage.
"""
