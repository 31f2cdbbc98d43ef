"""The summary evaluation: tokenizer, baselines, the table, and the dev-set verdict."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from fake_llm import FakeLLM, Reply, summary_json
from rouge_score import rouge_scorer

from toolkit.config import Settings
from toolkit.embeddings import Embedder
from toolkit.evaluate import summaries as ev
from toolkit.evaluate.bootstrap import paired_bootstrap
from toolkit.evaluate.claims.base import Run
from toolkit.evaluate.claims.summaries import summary_quality, verdict

CACHE = Path(__file__).resolve().parents[3] / "data" / "cache"


@pytest.fixture(scope="module")
def dialogues(dev_dir: Path) -> list[ev.Dialogue]:
    return ev.load_dialogues(ev.DEV_FILE, limit=4)


@pytest.mark.usefixtures("dev_dir")
def test_dev_file_loads_as_chats() -> None:
    all_of_them = ev.load_dialogues(ev.DEV_FILE)
    assert len(all_of_them) == 100
    first = all_of_them[0]
    assert first.messages[0].sender_name == "#Person1#"
    assert [m.messenger_message_id for m in first.messages] == list(
        range(1, len(first.messages) + 1)
    )
    times = [m.posted_at for m in first.messages]
    assert times == sorted(set(times))
    assert first.references


def test_tokenizer_keeps_cyrillic_where_the_default_drops_it() -> None:
    text = "Команда обсуждала релизы и тесты"
    default = rouge_scorer.RougeScorer(["rouge1"])
    assert default.score(text, text)["rouge1"].fmeasure == 0.0  # why we have our own
    assert ev.RougeTokenizer().tokenize("Релизы, тесты! Releases") == ["релиз", "тест", "releas"]
    assert ev.rouge_scores([text], text, "ru") == {"rouge1": 1.0, "rouge2": 1.0, "rougeL": 1.0}
    partial = ev.rouge_scores(["команда обсуждала релиз"], "релизы обсуждала команда", "ru")
    assert partial["rouge1"] == 1.0
    assert partial["rougeL"] < 1.0


def test_baselines_pick_whole_messages(dialogues: list[ev.Dialogue]) -> None:
    messages = dialogues[0].messages
    lines = [f"{m.sender_name}: {m.text}" for m in messages]
    assert ev.first_k(messages, 2) == f"{lines[0]} {lines[1]}"
    for algorithm in ("lexrank", "textrank"):
        picked = ev.sumy_pick(messages, 2, algorithm)
        chosen = [line for line in lines if line in picked]
        assert len(chosen) == 2, algorithm
        assert picked == " ".join(chosen)  # in posting order


def test_sumy_needs_no_nltk_data(
    dialogues: list[ev.Dialogue], monkeypatch: pytest.MonkeyPatch
) -> None:
    import nltk

    def refuse(*_: Any, **__: Any) -> None:
        raise LookupError("nltk data must not be needed")

    monkeypatch.setattr(nltk.data, "find", refuse)
    monkeypatch.setattr(nltk.data, "load", refuse)
    assert ev.sumy_pick(dialogues[1].messages, 1, "lexrank")


@pytest.mark.slow
def test_evaluation_rows_cover_every_system(
    dialogues: list[ev.Dialogue], embedder: Embedder, tmp_path: Path
) -> None:
    rows = ev.evaluate_summaries(dialogues, embedder, cache_dir=tmp_path)
    systems = {(r["system"], r["k"]) for r in rows}
    assert ("extractive", "—") in systems
    assert {("lead", "3"), ("longest", "3"), ("lexrank", "2"), ("textrank", "2")} <= systems
    assert ("llm", "—") not in systems
    for row in rows:
        assert row["n"] == 4
        assert all(0.0 <= row[m] <= 1.0 for m in ev.ROUGE_TYPES)
    assert list(tmp_path.glob("eval-summaries-*.npy"))  # vectors cached for the next run


@pytest.mark.slow
def test_the_llm_engine_joins_when_configured(
    dialogues: list[ev.Dialogue], embedder: Embedder, tmp_path: Path
) -> None:
    def answer(request: dict[str, Any]) -> Reply:
        first_id = re.search(r'<message id="(\d+)"', request["messages"][1]["content"])
        assert first_id is not None
        return Reply(content=summary_json("#Person1# and #Person2# talk.", [], [first_id[1]]))

    env = {k: os.environ.pop(k) for k in list(os.environ) if k.startswith("MLENS_")}
    try:
        with FakeLLM(handler=answer) as llm:
            settings = Settings(_env_file=None, llm={"base_url": llm.url, "max_retries": 0})  # type: ignore[call-arg]
            rows = ev.evaluate_summaries(
                dialogues[:2], embedder, settings=settings, cache_dir=tmp_path
            )
    finally:
        os.environ.update(env)
    llm_row = next(r for r in rows if r["system"] == "llm")
    assert llm_row["n"] == 2
    assert llm_row["rouge1"] > 0


def _rows(engine: float, lead: float, low: float) -> list[dict[str, Any]]:
    return [
        {"system": "extractive", "k": "—", "rougeL": engine},
        {"system": "llm", "k": "—", "rougeL": 40.0, "ΔL": 0.0, "ΔL low": -1.0, "ΔL high": 1.0},
        {"system": "lead", "k": "3", "rougeL": lead, "ΔL": engine - lead, "ΔL low": low,
         "ΔL high": 9.0},
        {"system": "lexrank", "k": "2", "rougeL": 20.0, "ΔL": engine - 20, "ΔL low": 1.0,
         "ΔL high": 9.0},
    ]  # fmt: skip


def test_verdict_needs_the_ratio_and_an_interval_above_the_best_baseline() -> None:
    assert verdict(_rows(27.5, 25.0, 0.5), "samsum").passed  # × 1.10, CI above 0
    failed = verdict(_rows(27.0, 25.0, 0.5), "samsum")  # × 1.08: not enough
    assert failed.passed is False
    assert "best baseline lead-3 25.00" in failed.message
    assert verdict(_rows(30.0, 25.0, -0.1), "samsum").passed is False  # CI reaches 0


def test_bootstrap_interval_is_paired_and_deterministic() -> None:
    a = [0.3, 0.4, 0.5, 0.6] * 10
    shifted = [x - 0.1 for x in a]
    diff = paired_bootstrap(a, shifted)
    assert diff.low == pytest.approx(0.1)
    assert diff.high == pytest.approx(0.1)
    noisy = paired_bootstrap(a, list(reversed(a)))
    assert noisy.low < 0 < noisy.high
    assert paired_bootstrap(a, list(reversed(a))) == noisy


@pytest.mark.slow
@pytest.mark.usefixtures("dev_dir")
def test_summary_claim_holds_on_both_dev_sets() -> None:
    # The acceptance number (README): ROUGE-L ≥ 1.10 × the best baseline on each set.
    env = {k: os.environ.pop(k) for k in list(os.environ) if k.startswith("MLENS_")}
    try:
        finding = summary_quality(Run(Settings(_env_file=None)))  # type: ignore[call-arg]
    finally:
        os.environ.update(env)
    for evidence in finding.evidence:
        print(json.dumps(list(evidence.rows), indent=1))
    assert not finding.failed, [str(v) for v in finding.verdicts]
