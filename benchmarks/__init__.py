"""Benchmarks of the toolkit and the service, beside the tests and outside the library.

``make bench`` runs ``bench`` (speed and memory: import, search latency, summaries,
service memory, a large import, embedding threads); ``make bench-load`` runs
``bench_load`` (searches/s under load, SQLite and PostgreSQL) and ``bench_concurrency``
(searches while a large import runs). Their helpers live here too: ``bench_service``
(a real ``mlens serve`` process and its memory), ``bench_import``, ``bench_embed``,
``bench_summary``, ``synthetic`` (exports of any size) and ``pg_server`` (a throwaway
PostgreSQL server, which the tests use as well).
"""
