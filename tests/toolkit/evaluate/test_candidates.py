"""The ranking candidates of issue 21: each candidate's scores, the keep rule, the claim's
verdicts, the latent-terms cosine and cache, and the published part."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from search_reference import BagOfWordsEmbedder

from toolkit.evaluate import candidates as cand
from toolkit.evaluate.candidates import (
    CANDIDATES,
    ENPT,
    LATENT,
    MEDIAN_FLOOR,
    MINILM,
    MINILM_ALONE,
    MINMAX,
    RRF_BM25,
    QueryExtras,
    candidate_rows,
    latent_cosines,
    wins,
)
from toolkit.evaluate.claims.candidates import candidates_evidence, decision_verdicts
from toolkit.evaluate.compare import PreparedQuery, prepare, reshape
from toolkit.evaluate.published import (
    candidates_part,
    current_engines,
    read_published,
    write_published,
)
from toolkit.evaluate.rankers import rrf_scores
from toolkit.evaluate.retrieval import dev_path, load_queries, load_set
from toolkit.search.scorer import fuse
from toolkit.search.signals import semantic
from toolkit.weights import SearchWeights

W = SearchWeights()
TEXTS = {
    "a": "the red apple pie recipe from grandma",
    "b": "apple shares fell on the stock market",
    "c": "a green car engine makes noise",
    "d": "ok",
}


def _write(folder: Path, name: str = "xx_tiny") -> Path:
    rows = [
        {"query_id": "q1", "query": "apple pie recipe", "lang": "en", "relevant": ["a"]},
        {"query_id": "q2", "query": "noisy car engine", "lang": "en", "relevant": ["c"]},
    ]
    for row in rows:
        row["candidates"] = [{"id": k, "text": t} for k, t in TEXTS.items()]
    path = dev_path(name, folder)
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def prepared(tmp_path: Path) -> list[PreparedQuery]:
    _write(tmp_path)
    rset = load_set("xx_tiny", BagOfWordsEmbedder(), dev_dir=tmp_path, cache_dir=tmp_path / "c")
    return prepare(rset, semantic_floor=0.0)


def _extras(n: int, *, english: bool, second: Any = None) -> QueryExtras:
    values = np.asarray(second, dtype=np.float64) if second is not None else None
    return QueryExtras(english=np.full(n, english), minilm=values, enpt=values, latent=values)


def _hybrid(query: PreparedQuery) -> np.ndarray:
    return fuse(reshape(query, W), W)


def test_a_language_gated_candidate_is_the_hybrid_where_not_english(
    prepared: list[PreparedQuery],
) -> None:
    query = prepared[0]
    other = np.linspace(0.0, 1.0, 4)
    for candidate in (MINILM, MINILM_ALONE, ENPT):
        scores = cand.SCORERS[candidate](query, _extras(4, english=False, second=other), W)
        assert np.array_equal(scores, _hybrid(query))
    # Where English, MiniLM's signal is averaged in: its own floor (0), the same exponent.
    mixed = np.array([True, False, True, False])
    extras = dataclasses.replace(_extras(4, english=True, second=other), english=mixed)
    base = reshape(query, W).semantic
    expected = np.where(mixed, (base + semantic(other, floor=0.0, exponent=4.0)) / 2, base)
    signals = dataclasses.replace(reshape(query, W), semantic=expected)
    assert np.allclose(cand.SCORERS[MINILM](query, extras, W), fuse(signals, W))
    alone = np.where(mixed, semantic(other, floor=0.0, exponent=4.0), base)
    signals = dataclasses.replace(reshape(query, W), semantic=alone)
    assert np.allclose(cand.SCORERS[MINILM_ALONE](query, extras, W), fuse(signals, W))
    # Without its input a candidate has no scores.
    assert cand.SCORERS[MINILM](query, _extras(4, english=True), W) is None


def test_latent_terms_are_a_fourth_signal_weighted_like_lexical(
    prepared: list[PreparedQuery],
) -> None:
    query = prepared[0]
    zero = cand.SCORERS[LATENT](query, _extras(4, english=True, second=np.zeros(4)), W)
    s = reshape(query, W)
    total = W.semantic + 2 * W.lexical + W.phrase
    relevance = W.semantic * s.semantic + W.lexical * s.lexical + W.phrase * s.phrase
    assert np.allclose(zero, s.short_factor * relevance / total)
    one = cand.SCORERS[LATENT](query, _extras(4, english=True, second=np.ones(4)), W)
    assert np.allclose(one - zero, s.short_factor * W.lexical / total)


def test_per_query_fusions(prepared: list[PreparedQuery]) -> None:
    query = prepared[0]
    extras = _extras(4, english=True)
    assert np.allclose(
        cand.SCORERS[RRF_BM25](query, extras, W), rrf_scores(_hybrid(query), query.bm25)
    )
    flat = dataclasses.replace(
        query,
        dense=np.full(4, 0.5),
        signals=dataclasses.replace(query.signals, phrase=np.zeros(4)),
    )
    # A signal flat over the window counts for nothing: only lexical coverage is left.
    s = reshape(flat, W)
    lexical = s.lexical
    spread = (lexical - lexical.min()) / (lexical.max() - lexical.min())
    expected = s.short_factor * (W.lexical * spread) / (W.semantic + W.lexical + W.phrase)
    assert np.allclose(cand.SCORERS[MINMAX](flat, extras, W), expected)
    # The window-median floor: half the window maps to a semantic signal of 0.
    spread = dataclasses.replace(query, dense=np.array([0.2, 0.4, 0.6, 0.8]))
    median = semantic(spread.dense, floor=0.5, exponent=W.semantic_exponent)
    signals = dataclasses.replace(reshape(spread, W), semantic=median)
    assert np.allclose(cand.SCORERS[MEDIAN_FLOOR](spread, extras, W), fuse(signals, W))
    assert (median[:2] == 0).all()
    assert (median[2:] > 0).all()


def test_candidate_rows_compare_with_the_hybrid_and_leave_out_what_was_not_measured(
    prepared: list[PreparedQuery],
) -> None:
    extras = [
        QueryExtras(np.zeros(4, dtype=bool), None, np.zeros(4), np.zeros(4)) for _ in prepared
    ]
    rows = candidate_rows({"xx_tiny": prepared}, {"xx_tiny": extras}, W)
    measured = [c for c in CANDIDATES if c not in (MINILM, MINILM_ALONE)]
    assert [r["candidate"] for r in rows] == measured
    enpt = next(r for r in rows if r["candidate"] == ENPT)
    assert enpt["nDCG@10"] == enpt["hybrid"]
    assert (enpt["Δ"], enpt["Δ low"], enpt["Δ high"]) == (0.0, 0.0, 0.0)


def _row(candidate: str, name: str, delta: float, low: float) -> dict[str, Any]:
    return {"candidate": candidate, "set": name, "nDCG@10": 0.9 + delta, "hybrid": 0.9,
            "Δ": delta, "Δ low": low, "Δ high": delta + 0.01}  # fmt: skip


def test_the_keep_rule() -> None:
    clear = [_row("x", "a", 0.01, 0.002), _row("x", "b", 0.0, 0.0)]
    assert wins(clear)
    assert not wins([_row("x", "a", 0.01, 0.002), _row("x", "b", -0.001, -0.01)])
    assert not wins([_row("x", "a", 0.01, -0.002), _row("x", "b", 0.0, 0.0)])
    assert not wins([])


def test_the_claim_fails_when_a_measurement_stops_matching_the_decision(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rows = [_row(LATENT, "a", 0.02, 0.01), _row(MINMAX, "a", -0.01, -0.02)]
    rows += [_row(c, "a", 0.0, 0.0) for c in (ENPT, RRF_BM25)]
    by_name = {v.message.split(":")[0]: v for v in decision_verdicts(rows)}
    assert by_name[LATENT].passed is False  # it wins but is not kept
    assert by_name[MINMAX].passed is True
    assert by_name[ENPT].passed is True
    assert by_name[MINILM].passed is None  # not measured
    monkeypatch.setattr("toolkit.evaluate.claims.candidates.KEPT", (LATENT, MINMAX))
    by_name = {v.message.split(":")[0]: v for v in decision_verdicts(rows)}
    assert by_name[LATENT].passed is True
    assert by_name[MINMAX].passed is False  # kept but loses
    evidence = candidates_evidence(rows)
    assert evidence.columns == ["candidate", "a"]
    assert evidence.rows[0] == {"candidate": "hybrid (defaults)", "a": "0.900"}
    assert evidence.rows[1]["a"] == "0.920 (+0.020 [+0.010, +0.030])"


def test_latent_cosines_read_padded_rows() -> None:
    # Rows are zero-padded: id 0 with weight 0 is no term, a real id 0 is one.
    query = (np.array([0, 5, 0]), np.array([0.6, 0.8, 0.0]))
    pool_ids = np.array([[5, 0, 0], [7, 0, 0], [0, 5, 9]])
    pool_values = np.array([[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.6, 0.8, 0.0]])
    assert np.allclose(latent_cosines(query, pool_ids, pool_values), [0.8, 0.0, 1.0])


def test_latent_terms_are_cached_per_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(tmp_path)
    calls: list[int] = []

    def fake_terms(texts: list[str], top_k: int = 4) -> tuple[np.ndarray, np.ndarray]:
        calls.append(len(texts))
        ids = np.array([[len(t) % 3 + 1, 0] for t in texts], dtype=np.int32)
        values = np.array([[1.0, 0.0] for _ in texts], dtype=np.float32)
        return ids, values

    monkeypatch.setattr(cand, "latent_terms", fake_terms)
    queries = load_queries(dev_path("xx_tiny", tmp_path))
    where = {"dev_dir": tmp_path, "cache_dir": tmp_path / "c", "limit": None}
    first = cand._latent("xx_tiny", queries, **where)  # type: ignore[arg-type]
    assert calls == [4, 2]  # the four distinct texts, then the two queries
    again = cand._latent("xx_tiny", queries, **where)  # type: ignore[arg-type]
    assert calls == [4, 2]
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert set(np.concatenate(first).tolist()) <= {0.0, 1.0}


def test_latent_terms_of_the_bundled_head() -> None:
    ids, values = cand.latent_terms(["apple pie recipe", "a green car engine"], top_k=32)
    assert ids.shape == values.shape == (2, 32)
    assert np.allclose(np.linalg.norm(values, axis=1), 1.0)
    assert (np.diff(values, axis=1) <= 0).all()  # strongest first, zero padding last
    self_cosine = latent_cosines((ids[0], values[0]), ids[:1], values[:1])
    assert self_cosine[0] == pytest.approx(1.0, abs=1e-5)
    assert latent_cosines((ids[0], values[0]), ids[1:], values[1:])[0] < 0.9


def test_the_candidates_part_is_published_and_checked_for_staleness(tmp_path: Path) -> None:
    path = tmp_path / "eval.json"
    write_published(
        {"candidates": candidates_part([_row(ENPT, "a", 0.0, 0.0)], model_name="m")}, path
    )
    published = read_published(path)
    assert published.candidates[0]["candidate"] == ENPT
    engines = current_engines("m")
    assert published.stale_parts(engines) == ["ranking", "summaries", "digests"]
    assert "candidates" in read_published(tmp_path / "absent.json").stale_parts(engines)
