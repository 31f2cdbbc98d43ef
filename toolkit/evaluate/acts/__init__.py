"""The act scorers' training and leave-one-source-out evaluation (issue 40).

``examples`` turns every labelled window (the real chats of ``data/real_acts*.jsonl``,
the hand-written ``data/digest_windows.jsonl``, the dev cases of ``digest_acts.jsonl``)
into feature rows and labels; ``fit`` fits a logistic model per act, scores each source
with the models fitted on the others and picks the thresholds; ``train`` writes
``toolkit/summarize/extractive/choose/scoring/weights.json``; ``loso`` prints the table.
"""
