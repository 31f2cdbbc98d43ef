"""Stage 3 of the extractive engine, the composition: how the digest is written.

``opening`` (its first sentence), ``digest`` (the ``summary`` field: the opening and the
chosen exchanges, retold or quoted), ``sections`` (main threads, decisions, open
questions, plans and dates, links) and ``cite`` (``Citer``: each quote's link; every
message a statement rests on, which ``engine`` ranks into the important messages).

Reads the draft and what ``choose`` chose; hands ``engine`` the text, the sections and
the cited messages. Imports ``draft`` and ``choose``, never the engine.
"""
