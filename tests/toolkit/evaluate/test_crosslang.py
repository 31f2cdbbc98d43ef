"""The cross-language sets: each language's questions over the other's pools, same labels."""

from __future__ import annotations

import numpy as np
import pytest

from toolkit.evaluate.claims.base import Verdict
from toolkit.evaluate.claims.crosslang import gap_verdicts, same_language_peer
from toolkit.evaluate.retrieval import CROSS_SETS, RetrievalQuery, RetrievalSet, cross_set


def rset(name: str, lang: str, ids: list[str], offset: float) -> RetrievalSet:
    queries = [
        RetrievalQuery(
            query_id=q,
            query=f"{lang} question {q}",
            lang=lang,
            candidate_ids=("p1", "p2"),
            candidate_texts=(f"{lang} paragraph 1", f"{lang} paragraph 2"),
            relevant=frozenset({"p1" if q == "a" else "p2"}),
        )
        for q in ids
    ]
    vectors = np.arange(len(ids) * 2, dtype=np.float32).reshape(-1, 2) + offset
    passages = {"p1": np.array([offset, 0], np.float32), "p2": np.array([0, offset], np.float32)}
    return RetrievalSet(name, queries, vectors, passages)


def test_a_cross_set_asks_the_shared_questions_over_the_other_pool() -> None:
    en = rset("en_xquad", "en", ["a", "b"], 1.0)
    ru = rset("ru_xquad", "ru", ["c", "b", "a"], 10.0)
    crossed = cross_set("ru-en_xquad", ru, en)
    assert [q.query_id for q in crossed.queries] == ["b", "a"]  # ru's order, shared ids only
    assert [q.query for q in crossed.queries] == ["ru question b", "ru question a"]
    assert crossed.queries[0].candidate_texts == ("en paragraph 1", "en paragraph 2")
    assert [q.relevant for q in crossed.queries] == [frozenset({"p2"}), frozenset({"p1"})]
    assert crossed.query_vectors.tolist() == ru.query_vectors[[1, 2]].tolist()
    assert crossed.pool_vectors(crossed.queries[0]).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert crossed.queries[0].lang == "ru-en"


def test_each_cross_set_is_read_against_the_same_paragraphs_in_their_language() -> None:
    assert same_language_peer("en-ru_xquad") == "ru_xquad"
    assert same_language_peer("ru-en_xquad") == "en_xquad"
    assert set(CROSS_SETS) == {"en-ru_xquad", "ru-en_xquad"}


@pytest.mark.parametrize(("across", "passed"), [(0.95, True), (0.94, False)])
def test_the_gap_verdict_allows_five_points(across: float, passed: bool) -> None:
    cross = {"hybrid": {"en-ru_xquad": {"nDCG@10": across}}}
    same = {"hybrid": {"ru_xquad": {"nDCG@10": 0.9999}}}
    (verdict,) = gap_verdicts(cross, same)
    assert isinstance(verdict, Verdict)
    assert verdict.passed is passed
