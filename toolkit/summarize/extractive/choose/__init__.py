"""Stage 2 of the extractive engine, the choice: what the digest says.

``acts`` (what a message does: chatter, a question, a proposal, a decision, a share),
``conversations`` (``Turn``: a message as the choice sees it; who follows whom, which
questions stay open), ``turns`` (the draft's messages as turns), ``scoring`` (which
messages are decisions, plans and open questions: the shipped act scorers),
``threads`` (which messages form one conversation), ``keyphrases`` (each thread's key
phrase, in dictionary form) and ``selection`` (which exchanges the digest tells, within
its word budget).

Reads a ``Draft`` (the draft stage); hands the compose stage the turns with their decided
acts, the threads, their phrases and the chosen exchanges. Imports only the draft stage.
"""
