"""Evaluation: metrics, dev-file loaders and their vector cache, baselines, tuning."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from search_reference import BagOfWordsEmbedder

from toolkit.evaluate.claims.ranking import hybrid_margins
from toolkit.evaluate.compare import METHODS, compare, mean_metrics, method_scores, prepare
from toolkit.evaluate.metrics import mrr_at, ndcg_at, recall_at
from toolkit.evaluate.rankers import bm25_scores, ranking, rrf_scores
from toolkit.evaluate.retrieval import dev_path, load_queries, load_set
from toolkit.evaluate.tuning import pack, packed_ndcg, search_grid, weight_grid
from toolkit.models import Message, SourceKind
from toolkit.requests import SearchRequest
from toolkit.search.index import SearchIndex
from toolkit.search.searcher import Searcher
from toolkit.store import SQLiteStore
from toolkit.weights import SearchWeights

BOW = BagOfWordsEmbedder()


def test_metrics_on_hand_computed_rankings() -> None:
    ranked = ["x", "y", "r1", "z", "r2"]
    assert ndcg_at(ranked, {"r1"}) == pytest.approx(1 / math.log2(4))
    ideal = 1 + 1 / math.log2(3)
    assert ndcg_at(ranked, {"r1", "r2"}) == pytest.approx((1 / 2 + 1 / math.log2(6)) / ideal)
    assert ndcg_at(["r1"], {"r1"}) == 1.0
    assert ndcg_at(ranked, {"r2"}, k=3) == 0.0
    assert mrr_at(ranked, {"r1", "r2"}) == pytest.approx(1 / 3)
    assert mrr_at(ranked, {"r2"}, k=4) == 0.0
    assert recall_at(ranked, {"r1", "r2", "gone"}, k=3) == pytest.approx(1 / 3)
    assert ndcg_at(ranked, set()) == recall_at(ranked, set()) == 0.0


TINY_TEXTS = {
    "c1": "a green car engine",
    "c2": "grandma bakes red apple pie",
    "c3": "apple shares fell",
}


def _row(query_id: str, query: str, candidates: list[str], relevant: str) -> dict[str, Any]:
    pool = [{"id": c, "text": TINY_TEXTS[c]} for c in candidates]
    return {
        "query_id": query_id,
        "query": query,
        "lang": "en",
        "candidates": pool,
        "relevant": [relevant],
    }


def write_set(folder: Path, name: str = "xx_tiny") -> Path:
    rows = [
        _row("q1", "red apple pie", ["c1", "c2", "c3"], "c2"),
        _row("q2", "car engine noise", ["c2", "c1"], "c1"),
    ]
    path = dev_path(name, folder)
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


class CountingBow(BagOfWordsEmbedder):
    def __init__(self) -> None:
        self.calls = 0

    def embed_passages(self, texts):  # type: ignore[no-untyped-def]
        self.calls += 1
        return super().embed_passages(texts)


def test_loader_and_the_vector_cache(tmp_path: Path) -> None:
    path = write_set(tmp_path)
    queries = load_queries(path)
    assert [q.query_id for q in queries] == ["q1", "q2"]
    assert queries[0].candidate_ids == ("c1", "c2", "c3")
    assert queries[0].relevant == frozenset({"c2"})
    assert len(load_queries(path, limit=1)) == 1
    embedder = CountingBow()
    first = load_set("xx_tiny", embedder, dev_dir=tmp_path, cache_dir=tmp_path / "cache")
    assert embedder.calls == 1  # three distinct candidates, one batch
    assert len(list((tmp_path / "cache").glob("*.npz"))) == 1
    again = load_set("xx_tiny", embedder, dev_dir=tmp_path, cache_dir=tmp_path / "cache")
    assert embedder.calls == 1  # read back, not embedded
    assert np.allclose(first.pool_vectors(queries[0]), again.pool_vectors(queries[0]))
    assert np.allclose(first.query_vectors, again.query_vectors)
    # A subsample reads the whole file's cached vectors.
    head = load_set("xx_tiny", embedder, dev_dir=tmp_path, cache_dir=tmp_path / "cache", limit=1)
    assert embedder.calls == 1
    assert [q.query_id for q in head.queries] == ["q1"]
    assert np.allclose(head.query_vectors, first.query_vectors[:1])
    # A changed file is a different cache entry.
    path.write_text(path.read_text(encoding="utf-8").replace("noise", "sound"), encoding="utf-8")
    load_set("xx_tiny", embedder, dev_dir=tmp_path, cache_dir=tmp_path / "cache")
    assert embedder.calls == 2


def test_baselines() -> None:
    texts = ["red apple pie", "green car", "apple apple apple pie recipe", "nothing here"]
    bm25 = bm25_scores("apple pie", texts)
    assert bm25[3] == 0.0
    assert bm25[1] == 0.0
    assert bm25[0] > 0
    assert bm25_scores("zebra", texts).tolist() == [0.0] * 4
    fused = rrf_scores([3.0, 2.0, 1.0], [1.0, 2.0, 3.0])
    assert fused.tolist() == pytest.approx([1 / 61 + 1 / 63, 2 / 62, 1 / 63 + 1 / 61])
    assert ranking([1.0, 3.0, 3.0, 2.0]).tolist() == [1, 2, 3, 0]


def test_compare_gives_every_method_and_metric(tmp_path: Path) -> None:
    write_set(tmp_path)
    rset = load_set("xx_tiny", BOW, dev_dir=tmp_path, cache_dir=tmp_path / "cache")
    prepared = {"xx_tiny": prepare(rset, semantic_floor=0.0)}
    results = compare(prepared, SearchWeights())
    assert tuple(results) == METHODS
    for per_set in results.values():
        assert set(per_set["xx_tiny"]) == {"nDCG@10", "MRR@10", "Recall@20"}
        assert all(0.0 <= v <= 1.0 for v in per_set["xx_tiny"].values())
    assert results["hybrid"]["xx_tiny"]["MRR@10"] == 1.0
    (verdict,) = hybrid_margins(results)
    best = max(results[m]["xx_tiny"]["nDCG@10"] for m in ("BM25", "dense", "RRF"))
    assert verdict.passed == (results["hybrid"]["xx_tiny"]["nDCG@10"] >= best)
    assert str(verdict).startswith(("PASS xx_tiny", "FAIL xx_tiny"))


def test_the_pool_is_ranked_exactly_as_a_search_ranks_its_window(tmp_path: Path) -> None:
    write_set(tmp_path)
    rset = load_set("xx_tiny", BOW, dev_dir=tmp_path, cache_dir=tmp_path / "cache")
    weights = SearchWeights(semantic=0.5, lexical=0.3, phrase=0.2, semantic_exponent=2)
    query = rset.queries[0]
    prepared = prepare(rset, semantic_floor=0.0, weights=weights)[0]
    pool_order = [
        query.candidate_ids[i] for i in ranking(method_scores(prepared, "hybrid", weights))
    ]
    store = SQLiteStore(":memory:")
    source = store.upsert_source(title="pool", kind=SourceKind.CHAT, handle="thepool")
    when = datetime(2024, 1, 1, tzinfo=UTC)
    store.upsert_messages(
        Message(source.id, i + 1, when, text) for i, text in enumerate(query.candidate_texts)
    )
    hits = Searcher(store, BOW, weights=weights, index=SearchIndex(store)).search(
        SearchRequest(source_ref=source, query=query.query)
    )
    search_order = [query.candidate_ids[int(h.messenger_message_id) - 1] for h in hits]
    assert search_order[0] == pool_order[0] == "c2"
    assert sorted(search_order) == sorted(pool_order)


@pytest.mark.usefixtures("dev_dir")
@pytest.mark.slow
def test_vectorised_tuning_agrees_with_the_plain_evaluation(tmp_path: Path) -> None:
    rset = load_set("en_stsb", BOW, cache_dir=tmp_path, limit=8)
    prepared = prepare(rset, semantic_floor=0.0)
    packed = pack(prepared)
    for weights in (
        SearchWeights(),
        SearchWeights(semantic=0.2, lexical=0.7, phrase=0.1, short_floor=0.3, semantic_exponent=1),
    ):
        expected = mean_metrics(prepared, "hybrid", weights)["nDCG@10"]
        assert packed_ndcg(packed, weights) == pytest.approx(expected)
    grid = list(weight_grid(0.5))
    assert all(abs(w.semantic + w.lexical + w.phrase - 1) < 1e-9 for w in grid)
    ranked = search_grid({"en_stsb": prepared}, grid[:6])
    assert ranked[0].key >= ranked[-1].key
