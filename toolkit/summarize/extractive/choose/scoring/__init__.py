"""Acts decided by evidence: which messages a digest names as decisions, plans and open
questions (issue 40).

``features`` computes language-neutral evidence per message, ``rules`` keeps the old
cue-word verdicts as evidence, ``model`` applies the shipped logistic scorers
(``weights.json``, trained by ``python -m toolkit.evaluate.acts.train``) with their
thresholds: below a threshold the engine names nothing.
"""
