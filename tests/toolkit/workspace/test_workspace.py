"""``Workspace`` (domain objects) and ``Lab`` over it (tables and views for notebooks):
ingest, store, search, summaries, evaluation."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from chat_fixture import HANDLE, TEXTS, write_export

from toolkit import Lab, SearchRequest, SearchWeights, Settings, SourceSummaryRequest, Workspace
from toolkit.errors import ImportFormatError, InvalidRequest, SourceNotFound
from toolkit.models import SearchHit, SourceStats, Summary


@pytest.fixture
def lab(workspace: Workspace) -> Lab:
    """The test's workspace, answering tables and views."""
    return Lab(workspace)


def test_open_creates_the_data_folder_and_an_empty_store(tmp_path: Path) -> None:
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    with Workspace.open(tmp_path / "new", settings=settings) as ws:
        assert (tmp_path / "new").is_dir()
        assert ws.settings.database_path == str(tmp_path / "new" / "mlens.sqlite3")
        assert ws.sources() == []
        assert "0 sources" in repr(ws)
        assert "0 sources" in repr(Lab(ws))


def test_the_assembly_builds_each_part_once(workspace: Workspace) -> None:
    assert workspace.embedder is workspace.embedder
    assert workspace.searcher is workspace.searcher
    assert workspace.searcher.store is workspace.store
    assert workspace.searcher.embedder is workspace.embedder
    assert workspace.searcher.weights == workspace.settings.search.weights


def test_a_store_given_ready_made_stays_open_after_close(workspace: Workspace) -> None:
    borrowed = Workspace(workspace.settings, store=workspace.store, embedder=workspace.embedder)
    borrowed.close()
    assert workspace.sources() == []  # still open: the borrower does not own it


@pytest.mark.slow
def test_import_embeds_with_progress_and_lists_the_source(lab: Lab, tmp_path: Path) -> None:
    workspace = lab
    calls: list[tuple[int, int]] = []
    report = workspace.import_export(
        write_export(tmp_path / "result.json"),
        ref=HANDLE,
        progress=lambda done, total: calls.append((done, total)),
    )
    assert report[0]["inserted"] == len(TEXTS)
    assert report[0]["embedded"] == len(TEXTS)
    assert calls[-1] == (len(TEXTS), len(TEXTS))
    sources = workspace.sources().to_pandas()
    assert sources["ref"].tolist() == [HANDLE]
    assert sources["messages"].tolist() == [len(TEXTS)]
    again = workspace.import_export(tmp_path / "result.json", ref=HANDLE)
    assert (again[0]["inserted"], again[0]["unchanged"], again[0]["embedded"]) == (
        0,
        len(TEXTS),
        0,
    )
    (stats,) = lab.workspace.sources()
    assert isinstance(stats, SourceStats)
    assert (stats.source.key, stats.message_count) == (HANDLE, len(TEXTS))


@pytest.mark.slow
def test_malformed_export_raises_and_leaves_the_store_intact(
    workspace: Workspace, trip_chat: str, tmp_path: Path
) -> None:
    good = write_export(tmp_path / "good.json").read_text()
    broken = tmp_path / "broken.json"
    broken.write_text(good[: len(good) // 2])
    before = workspace.sources()
    with pytest.raises(ImportFormatError, match="truncated"):
        workspace.import_export(broken)
    assert workspace.sources() == before


@pytest.mark.slow
def test_messages_window_and_per_day(lab: Lab, trip_chat: str) -> None:
    workspace = lab
    recent = workspace.messages(trip_chat, limit=5).to_pandas()
    assert recent["text"].tolist() == TEXTS[-5:]
    assert recent["message_link"].iloc[-1] == f"https://t.me/trip_planning/{len(TEXTS)}"
    first_day = workspace.messages(trip_chat, until="2026-03-02T23:59:59").to_polars()
    assert first_day["posted_at"].max() < datetime(2026, 3, 3, tzinfo=UTC)
    per_day = workspace.messages_per_day(trip_chat)
    assert sum(per_day["messages"]) == len(TEXTS)
    assert per_day["day"] == sorted(per_day["day"])
    counts = lab.workspace.messages_per_day(trip_chat)
    assert sum(counts.values()) == len(TEXTS)
    assert list(counts) == sorted(counts)
    with pytest.raises(SourceNotFound):
        workspace.messages("@nobody_here")


@pytest.mark.slow
def test_summaries_resolve_important_messages_to_links(lab: Lab, trip_chat: str) -> None:
    workspace = lab
    view = workspace.summarize_period(trip_chat, "2026-03-02", "2026-03-04", language="en")
    assert view.summary.engine == "extractive"
    assert view.summary.source_ref == trip_chat
    assert len(view.important) == len(view.summary.important_messenger_message_ids) > 0
    for row in view.important:
        assert row["message_link"] == f"https://t.me/trip_planning/{row['messenger_message_id']}"
        # The period's last day is included whole, and nothing after it.
        assert row["posted_at"] < datetime(2026, 3, 5, tzinfo=UTC)
    assert len(view.to_pandas()) == len(view.summary.sections)
    source = workspace.summarize_source(trip_chat, language="ru", messages_limit=20)
    assert source.summary.language == "ru"
    with pytest.raises(InvalidRequest, match="engine"):
        workspace.summarize_source(trip_chat, engine="gpt")
    request = SourceSummaryRequest(source_ref=trip_chat, language="ru", messages_limit=20)
    summary = lab.workspace.summarize(request)
    assert isinstance(summary, Summary)
    assert summary == source.summary  # the same request, answered from the cache
    important = lab.workspace.important_messages(summary)
    assert [str(m.messenger_message_id) for m in important] == (
        summary.important_messenger_message_ids
    )


@pytest.mark.slow
def test_search_hits_carry_signals_context_and_the_callers_ref(lab: Lab, trip_chat: str) -> None:
    workspace = lab
    hits = workspace.search(trip_chat, "train tickets to Berlin", limit=5)
    assert len(hits) == 5
    assert hits.source_ref == trip_chat
    assert all(h.source_ref == trip_chat for h in hits)
    assert "train tickets to Berlin" in hits[0].text
    frame = hits.to_pandas()
    assert {"semantic", "lexical", "phrase", "short_factor"} <= set(frame.columns)
    assert frame["score"].is_monotonic_decreasing
    lexical = workspace.search(
        trip_chat, "train tickets to Berlin", limit=5, weights={"semantic": 0}
    )
    assert lexical.ids != hits.ids
    plain = lab.workspace.search(SearchRequest(source_ref=trip_chat, query="train tickets"))
    assert all(isinstance(hit, SearchHit) and hit.signals is None for hit in plain)
    assert len(plain) == min(len(TEXTS), lab.settings.search.default_limit)  # the settings' default


@pytest.mark.slow
def test_search_period_bounds_take_bare_days_whole(lab: Lab, trip_chat: str) -> None:
    hits = lab.search(trip_chat, "museum", period_from="2026-03-03", period_to="2026-03-03")
    assert hits.ids
    assert {h.posted_at.date() for h in hits} == {date(2026, 3, 3)}


@pytest.mark.slow
def test_explain_parts_add_up_to_the_score(lab: Lab, trip_chat: str) -> None:
    workspace = lab
    why = workspace.explain(trip_chat, "hotel with breakfast", limit=4).to_pandas()
    assert len(why) == 4
    parts = why[["semantic_part", "lexical_part", "phrase_part"]].sum(axis=1)
    assert ((why["short_factor"] * parts - why["score"]).abs() < 1e-5).all()


@pytest.mark.slow
def test_ranking_evaluation_tables(lab: Lab, warm_eval: Path) -> None:
    workspace = lab
    ranking = workspace.evaluate_ranking(sets=["en_stsb"], limit=1).to_pandas()
    assert sorted(ranking["method"]) == ["BM25", "RRF", "dense", "hybrid"]
    assert set(ranking["language"]) == {"en"}
    assert ranking[["nDCG@10", "MRR@10", "Recall@20"]].stack().between(0, 1).all()
    ablation = workspace.ablation(sets=["en_stsb"], limit=1)
    assert "without semantic" in ablation["variant"]
    grid = workspace.simplex(step=0.5, sets=["en_stsb"], limit=1)
    assert len(grid) == 6
    assert grid["min_margin"] == sorted(grid["min_margin"], reverse=True)
    best = SearchWeights(**{name: grid[0][name] for name in SearchWeights.model_fields})
    path = workspace.save_weights(best)
    assert path == workspace.settings.data_dir / "weights.json"
    assert Settings(_env_file=None, search={"weights_file": path}).search.weights == best  # type: ignore[call-arg]


@pytest.mark.slow
@pytest.mark.usefixtures("dev_dir")
def test_summary_evaluation_and_its_per_dialogue_outputs_agree(lab: Lab) -> None:
    workspace = lab
    rouge = workspace.evaluate_summaries(limit=3).to_pandas().set_index("system")
    outputs = workspace.summary_outputs(limit=3).to_pandas()
    assert set(outputs["system"]) == {
        "extractive",
        "first-2",
        "lexrank-2",
        "textrank-2",
        "reference",
    }
    extractive = outputs[outputs["system"] == "extractive"]
    assert len(extractive) == 3
    assert abs(extractive["rougeL"].mean() - rouge.loc["extractive", "rougeL"]) < 1e-4


def test_a_store_opened_at_a_location_takes_every_store_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # ``copy-store`` opens the stores it names by their location: with the same
    # pool and timeouts as the configured one, the statement bound included.
    import toolkit.store as store_module
    from toolkit.workspace.assembly import store_at

    opened: list[tuple[str, object]] = []
    monkeypatch.setattr(
        store_module, "open_location", lambda location, options: opened.append((location, options))
    )
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        database={"pool_size": 3, "statement_timeout_seconds": 7, "pool_wait_seconds": 4},
    )

    store_at(settings, str(tmp_path / "other.sqlite3"))

    assert opened == [(str(tmp_path / "other.sqlite3"), store_module.store_options(settings))]
    assert store_module.store_options(settings).statement_timeout == 7
    assert store_module.store_options(settings).pool_size == 3
