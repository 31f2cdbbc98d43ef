"""Key sentences of long messages: the labels, the check of a quote, the model's use."""

from __future__ import annotations

import numpy as np
import pytest

from toolkit.evaluate.claims.base import Run
from toolkit.evaluate.claims.keysentences import key_sentences_hold
from toolkit.evaluate.keysentences.labels import (
    KEYS_FILE,
    KeyLabel,
    problems,
    read_labels,
    sentence_hash,
)
from toolkit.evaluate.keysentences.measure import holds
from toolkit.lang import pack
from toolkit.summarize.extractive.draft.keys import FEATURES, KeyModel, key_weigher, sentence_rows
from toolkit.summarize.extractive.draft.quotes import passage, quoted_sentences


def test_every_shipped_label_is_well_formed_and_holds_no_text() -> None:
    rows = KEYS_FILE.read_text(encoding="utf-8").splitlines()
    assert len(rows) >= 250
    labels = read_labels()
    assert len(labels) == len(rows)
    assert {lab.source for lab in labels} >= {"tsj", "blitz", "cognition", "seeds"}
    assert all(not problems(lab.row()) for lab in labels)


def test_a_row_with_text_or_a_bad_hash_is_named() -> None:
    good = KeyLabel("tsj", 5, (sentence_hash("A b."),), 2).row()
    assert problems(good) == []
    assert problems(good | {"text": "A b."})
    assert problems(good | {"key": ["A b."]})
    assert problems(good | {"source": "nowhere"})


def test_a_hash_folds_white_space_and_case() -> None:
    assert sentence_hash("The  Bus\nleft.") == sentence_hash("the bus left.")
    assert sentence_hash("The bus left.") != sentence_hash("The bus came.")


def test_a_quote_holds_a_key_only_whole() -> None:
    key = ["Why does the channel close every night?"]
    assert holds("Hi. Why does the channel close every night?", key)
    assert not holds("Why does the channel close…", key)  # cut: its point is lost
    assert not holds("I moved the node last week…", key)


def test_without_a_model_sentences_weigh_by_vocabulary() -> None:
    def vocabulary(sentence: str) -> float:
        return float(len(sentence))

    weigh = key_weigher(["A.", "Bee."], vocabulary, None, reply=False, model=None)
    # No model passed and none shipped would mean the vocabulary weight itself; with the
    # shipped one it is a probability: either way, a weight per sentence.
    assert weigh("Bee.") >= 0.0


def test_a_sentence_of_command_output_weighs_less_than_the_advice() -> None:
    text = (
        "Burn a fresh SD card with the latest image and restore the channel backup from it. "
        "total 3606 drwx------ 10 root root 4096 /mnt/hdd/app-data/.lnd/data/chain"
    )
    sentences = quoted_sentences(text)
    weigh = key_weigher(sentences, lambda s: 1.0, pack("en"), reply=True)
    assert weigh(sentences[0]) > weigh(sentences[-1])
    assert passage(text, 90, weigh).startswith("Burn a fresh SD card")


def test_rows_follow_the_feature_order() -> None:
    rows = sentence_rows(["Hello there.", "What now?"], lambda s: 1.0, pack("en"), reply=False)
    assert rows.shape == (2, len(FEATURES))
    asks = FEATURES.index("asks")
    assert rows[:, asks].tolist() == [0.0, 1.0]
    n = len(FEATURES)
    model = KeyModel(np.zeros(n), np.ones(n), np.zeros(n), 0.0)
    assert model.probability(rows).tolist() == [0.5, 0.5]


@pytest.mark.slow
def test_without_the_corpus_the_claim_says_so_in_one_line(uncached_run: Run) -> None:
    finding = key_sentences_hold(uncached_run)
    assert [v.passed for v in finding.verdicts] == [None]
    assert "not cached" in finding.verdicts[0].message
