"""Terms across scripts, the fusion of a message in another script, and the query's bounds."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from search_reference import BagOfWordsEmbedder

from toolkit.models import Message, SourceKind
from toolkit.requests import SearchAllRequest, SearchRequest
from toolkit.search.crossscript import MAX_QUERY_TERMS, ScriptKeys, query_terms, script_key
from toolkit.search.scorer import compute_signals, fuse
from toolkit.search.searcher import Searcher
from toolkit.search.textcache import TextCache
from toolkit.store import SQLiteStore
from toolkit.text import terms
from toolkit.weights import SearchWeights


@pytest.mark.parametrize(
    ("cyrillic", "latin"),
    [
        ("Алленом", "Allen"),
        ("Джаред", "Jared"),
        ("Нормандии", "Normandy"),
        ("Варшава", "Warsaw"),
        ("Гамбурге", "Hamburg"),
        ("Вашингтон", "Washington"),
        ("Тесла", "Tesla"),
    ],
)
def test_a_name_has_one_key_in_both_scripts(cyrillic: str, latin: str) -> None:
    (ru,), (en,) = terms(cyrillic), terms(latin)
    assert script_key(ru) is not None
    assert script_key(ru)[1] == script_key(en)[1]  # type: ignore[index]
    assert script_key(ru)[0] != script_key(en)[0]  # type: ignore[index]


def test_numbers_match_by_their_digits_and_short_terms_not_at_all() -> None:
    assert script_key("١٠٦٦") == script_key("1066") == ("number", "1066")
    assert script_key("дом") is None  # three letters: too many words share a short key


def vocabulary(texts: Sequence[str]) -> tuple[dict[str, int], ScriptKeys]:
    ids: dict[str, int] = {}
    keys = ScriptKeys()
    for text in texts:
        for term in terms(text):
            if term not in ids:
                ids[term] = len(ids)
                keys.add(term, ids[term])
    return ids, keys


def test_a_query_term_reads_its_other_script_spelling_as_itself() -> None:
    ids, keys = vocabulary(["Джаред Аллен сыграл в Нормандии", "Jared plays"])
    found = query_terms("Jared Allen Normandy", ids, keys)
    assert found.ids[0] == ids["jare"]  # known in Latin: its own id
    assert found.aliases[ids["джаред"]] == ids["jare"]  # the Cyrillic spelling reads as it
    assert found.ids[2] == ids["норманд"]  # only the other script has it: that id
    # Same script never aliases: "plays" is no spelling of anything else.
    assert ids["play"] not in found.aliases


def test_the_lexical_and_phrase_signals_match_across_scripts() -> None:
    texts = ["Гол забит Джаредом Алленом", "Погода сегодня хорошая"]
    cache = TextCache()
    window = cache.window(texts)
    weights = SearchWeights()
    crossed = compute_signals(np.zeros(2), window, cache.query_terms("Jared Allen"), weights)
    assert crossed.lexical[0] > 0
    assert crossed.lexical[1] == 0
    assert crossed.phrase[0] == 1.0  # "Джаредом Алленом": the whole query, in order


def test_a_message_in_another_script_is_not_lowered_for_words_it_cannot_share() -> None:
    cache = TextCache()
    texts = ["кошка спит на диване весь день", "the cat sleeps on the sofa all day"]
    window = cache.window(texts)
    weights = SearchWeights()
    cosines = np.array([0.95, 0.95])  # the same meaning in both languages
    signals = compute_signals(
        cosines, window, cache.query_terms("cat sleeping sofa"), weights, semantic_floor=0.7
    )
    assert signals.across is not None
    assert signals.across.tolist() == [True, False]
    scores = fuse(signals, weights)
    # The Russian message scores its meaning (times the short factor), not 85 % of it.
    assert scores[0] == pytest.approx(signals.short_factor[0] * signals.semantic[0])
    plain = compute_signals(
        cosines, window, cache.query_ids("cat sleeping sofa"), weights, semantic_floor=0.7
    )
    assert plain.across is None  # plain ids: fusion as before
    assert fuse(plain, weights)[0] < scores[0]


def test_the_query_terms_are_bounded() -> None:
    words = [f"q{a}{b}" for a in "abcdefghijklmnopqrs" for b in "abcdefghijklmnopqr"][:333]
    query = " ".join(words)
    assert len(terms(query)) == 333
    cache = TextCache()
    cache.window([query])
    found = cache.query_terms(query)
    assert len(found.ids) == MAX_QUERY_TERMS
    assert found.ids == [cache.query_ids(w)[0] for w in words[:MAX_QUERY_TERMS]]


class RecordingEmbedder(BagOfWordsEmbedder):
    """Notes whether the searcher's turn was held while a query was embedded."""

    def __init__(self) -> None:
        super().__init__()
        self.searcher: Searcher | None = None
        self.held: list[bool] = []

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        assert self.searcher is not None
        assert self.searcher.turns is not None
        self.held.append(self.searcher.turns.in_use)
        return super().embed_queries(texts)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return super().embed_queries(texts)  # not a query: not recorded


def test_the_query_is_embedded_before_the_search_takes_its_turn() -> None:
    store = SQLiteStore(":memory:")
    source = store.upsert_source(title="Chat", kind=SourceKind.CHAT, handle="xlang_chat")
    t0 = datetime(2024, 5, 1, tzinfo=UTC)
    store.upsert_messages(
        Message(source.id, i + 1, t0 + timedelta(minutes=i), text)
        for i, text in enumerate(["Гол забит Джаредом Алленом", "the weather is fine"])
    )
    embedder = RecordingEmbedder()
    searcher = Searcher(store, embedder, concurrency=1)
    embedder.searcher = searcher
    hits = searcher.search(
        SearchRequest(source_ref="@xlang_chat", query="Jared Allen", explain=True)
    )
    searcher.search_all(SearchAllRequest(query="Jared Allen"))
    assert embedder.held == [False, False]
    found = {hit.text: hit.signals for hit in hits}
    assert found["Гол забит Джаредом Алленом"]["lexical"] > 0  # type: ignore[index]
    assert found["the weather is fine"]["lexical"] == 0  # type: ignore[index]
