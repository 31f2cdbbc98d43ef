"""Which sentence of a long message a quote should carry, labelled on real chats.

A digest quotes a long message by a part of it (``summarize.extractive.draft.quotes.passage``);
readers of real chats found that part was often the wrong sentence (a statement beside the
question, the advice dropped). Here messages of the labelled real-chat windows with more
than one sentence are sampled, a reader marks the sentence that carries each one's point
(``data/real_key_sentences.jsonl``: sentence hashes, never text), and ``measure`` counts how
often a quote holds it, per source, at both quote lengths the engine uses.
"""
