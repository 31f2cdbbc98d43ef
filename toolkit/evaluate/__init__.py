"""Quality on labelled data: what the notebooks, the app and ``make eval`` measure.

Speed and load are measured in ``benchmarks/``, beside the tests, not here.

Modules: ranking: ``retrieval`` (the dev sets and their cached vectors), ``rankers``
(BM25, dense, RRF and the hybrid over one pool), ``metrics`` (nDCG, MRR, recall),
``compare`` (every method on every set), ``results`` (what a run produces, as rows),
``ablation``, ``tuning`` (the weight grid), ``candidates`` (the changes measured for the
last points of ranking quality, against the hybrid); summaries: ``summaries`` (ROUGE beside
baselines), ``summary_outputs`` (every system's text, side by side), ``bootstrap``
(paired intervals); ``digests`` (the labelled windows of ``data/``, their sections'
precision and recall, the act cases of ``digest_acts.jsonl``;
``python -m toolkit.evaluate.digests.main``);
``corpus`` (the real-chat corpus: cached exports, labelled windows); ``claims`` (the claims of
docs/evaluation.md, checked);
``published`` (what ``make eval`` writes to docs/results/eval.json).
"""
