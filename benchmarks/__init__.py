"""Benchmarks of the toolkit and the service, beside the tests and outside the library.

``make bench`` runs ``python -m benchmarks.bench``; ``make bench-load`` runs
``python -m benchmarks.bench_load`` and ``python -m benchmarks.bench_concurrency``.

Modules: ``bench`` (speed and memory: import, search latency, summaries, service
memory, a large import, embedding threads), ``bench_load`` (searches/s under load,
SQLite and PostgreSQL), ``bench_concurrency`` (searches while a large import runs),
``bench_service`` (a real service process and its memory), ``bench_import`` (a large
export, searchable in seconds), ``bench_embed`` (embedding threads), ``bench_summary``
(an extractive summary of 1,000 messages), ``synthetic`` (exports of any size),
``results`` (``docs/results/bench.json``) and ``pg_server`` (a throwaway PostgreSQL
server, which the tests use as well).
"""
