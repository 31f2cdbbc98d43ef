"""The Streamlit app, page by page, through ``streamlit.testing.v1.AppTest``.

Each test points the app at a fresh data folder (``MLENS_DATA_DIR``); the embedder is
cached by the app once per process, like in production.
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest
from chat_fixture import HANDLE, TEXTS, write_export
from export_builders import forum, write
from streamlit.testing.v1 import AppTest

from toolkit import Lab, Workspace
from toolkit.evaluate.published import RESULTS_FILE, read_published
from toolkit.lang import CODES

APP = str(Path(__file__).resolve().parents[2] / "app_streamlit.py")
QUERY = "train tickets to Berlin"
SYSTEMS = ["extractive", "lead", "longest", "lexrank", "textrank"]


def app(page: str | None = None) -> AppTest:
    """The app after its first run, switched to ``page`` (``app_pages/<page>.py``)."""
    at = AppTest.from_file(APP, default_timeout=120).run()
    if page is not None:
        at.switch_page(f"app_pages/{page}.py").run()
    assert not at.exception, at.exception
    return at


def hit_headers(at: AppTest) -> list[str]:
    """The header line of each hit on the search page, in rank order."""
    return [m.value for m in at.markdown if m.value.startswith("**#")]


def hit_ids(at: AppTest) -> list[str]:
    """Message ids of the hits, read from their links, in rank order."""
    return [h.split("](https://t.me/trip_planning/")[1].split(")")[0] for h in hit_headers(at)]


@pytest.mark.slow
def test_sources_page_lists_sources_and_charts_messages_per_day(trip_chat: str) -> None:
    at = app()
    assert [s.value for s in at.subheader] == ["Sources in the store"]
    table = at.dataframe[0].value
    assert table["ref"].tolist() == [trip_chat]
    assert table["messages"].tolist() == [len(TEXTS)]
    assert at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")


@pytest.mark.slow
def test_upload_imports_an_export_with_progress(data_dir: Path, tmp_path: Path) -> None:
    at = app()
    export = write_export(tmp_path / "result.json").read_bytes()
    at.file_uploader[0].set_value(("result.json", export, "application/json")).run()
    at.text_input[0].input(HANDLE).run()
    at.button[0].click().run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    n = len(TEXTS)
    assert [s.value for s in at.success] == [
        f"result.json: 1 chat: {n} new, 0 updated, 0 unchanged; "
        f"{n} records = {n} stored + 0 skipped"
    ]  # the import's one-line report, which ends with its count
    assert not at.warning
    (bar,) = at.get("progress")  # filled while embedding, then marked done
    assert (bar.proto.value, bar.proto.text) == (100, "Imported")
    assert at.dataframe[-1].value["ref"].tolist() == [HANDLE]
    with Workspace.open(data_dir) as ws:
        assert [s.message_count for s in ws.sources()] == [len(TEXTS)]


@pytest.mark.slow
def test_malformed_upload_shows_the_error_and_leaves_the_store_intact(
    workspace: Workspace, trip_chat: str, tmp_path: Path
) -> None:
    before = workspace.sources()
    at = app()
    good = write_export(tmp_path / "result.json").read_bytes()
    at.file_uploader[0].set_value(("broken.json", good[: len(good) // 2], "application/json"))
    at.run()
    at.button[0].click().run()
    assert not at.exception
    (error,) = at.error
    assert "Malformed export" in error.value
    assert "broken.json is truncated" in error.value
    assert not at.success
    assert workspace.sources() == before
    assert at.dataframe[0].value["messages"].tolist() == [len(TEXTS)]


@pytest.mark.slow
def test_search_returns_hits_with_context_links_and_signal_bars(trip_chat: str) -> None:
    at = app("search")
    assert [i.value for i in at.info]  # asks for a query before there is one
    at.text_input[0].input(QUERY).run()
    assert not at.exception
    assert not at.error
    headers = hit_headers(at)
    assert len(headers) == min(20, len(TEXTS))
    assert "https://t.me/trip_planning/" in headers[0]
    scores = [float(h.split("score ")[1].split("**")[0]) for h in headers]
    assert scores == sorted(scores, reverse=True)
    markdown = [m.value for m in at.markdown]
    first_text = markdown[markdown.index(headers[0]) + 1]
    assert "train tickets to Berlin" in first_text
    assert any(c.value.startswith("[#") for c in at.caption)  # context messages, linked
    bars = [p.proto.text for p in at.get("progress")]
    assert {b.split()[0] for b in bars} == {"semantic", "lexical", "phrase", "short_factor"}


@pytest.mark.slow
def test_a_one_day_period_gives_the_workspaces_hits(workspace: Workspace, trip_chat: str) -> None:
    at = app("search")
    at.text_input[0].input(QUERY).run()
    at.checkbox(key="search_period_on").check().run()
    day = date(2026, 3, 3)
    at.date_input(key=f"search_period_{trip_chat}").set_value((day, day)).run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    expected = Lab(workspace).search(
        trip_chat, QUERY, period_from="2026-03-03", period_to="2026-03-03"
    )
    assert hit_ids(at) == expected.ids
    assert expected.ids  # the day has hits, and the whole day counts
    assert {h.posted_at.date() for h in expected} == {day}


@pytest.mark.slow
def test_a_weight_change_changes_the_order(trip_chat: str) -> None:
    at = app("search")
    at.text_input[0].input(QUERY).run()
    default_order = hit_ids(at)
    sliders = {s.label: s for s in at.slider}
    sliders["semantic"].set_value(0.0)
    sliders["phrase"].set_value(0.0)
    sliders["lexical"].set_value(1.0).run()
    lexical_order = hit_ids(at)
    assert lexical_order != default_order


@pytest.mark.slow
def test_all_zero_weights_show_the_toolkit_error(trip_chat: str) -> None:
    at = app("search")
    at.text_input[0].input(QUERY).run()
    for name in ("semantic", "lexical", "phrase"):
        next(s for s in at.slider if s.label == name).set_value(0.0)
    at.run()
    assert not at.exception
    assert any("Invalid search weights" in e.value for e in at.error)
    assert not hit_headers(at)


@pytest.mark.slow
def test_summary_of_a_period_shows_sections_and_linked_important_messages(
    trip_chat: str,
) -> None:
    at = app("summaries")
    at.button[0].click().run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    titles = [s.value for s in at.subheader]
    assert titles[-1] == "Important messages"
    assert len(titles) >= 2
    links = at.markdown[-1].value.splitlines()
    assert links
    assert all(line.startswith("- [#") and "https://t.me/trip_planning/" in line for line in links)
    assert any(c.value.startswith("engine: extractive") for c in at.caption)


@pytest.mark.slow
def test_the_app_offers_only_the_languages_the_engine_can_write(trip_chat: str) -> None:
    at = app("summaries")
    languages = next(s for s in at.selectbox if s.label == "Language")
    assert list(languages.options) == list(CODES)  # offline: the language packs
    assert f"Offline: {', '.join(CODES)};" in (languages.help or "")
    next(s for s in at.selectbox if s.label == "Engine").set_value("llm").run()
    assert not at.exception
    assert any("MLENS_LLM_BASE_URL" in i.value for i in at.info)
    assert at.button[0].disabled
    next(s for s in at.selectbox if s.label == "Engine").set_value("auto").run()
    at.radio[0].set_value("the whole source").run()
    next(s for s in at.selectbox if s.label == "Language").set_value("uk").run()
    at.button[0].click().run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]


@pytest.mark.slow
def test_pages_on_an_empty_store_ask_for_an_import(data_dir: Path) -> None:
    for page in ("search", "summaries"):
        at = app(page)
        assert any("The store is empty" in i.value for i in at.info)


@pytest.mark.slow
def test_evaluation_page_shows_the_published_results_without_a_click(data_dir: Path) -> None:
    published = read_published(RESULTS_FILE)
    at = app("evaluation")
    assert not at.error, [e.value for e in at.error]
    assert not at.warning, [w.value for w in at.warning]  # published by today's engine
    ranking = at.dataframe[0].value.set_index("method")
    assert list(ranking.index) == ["BM25", "dense", "RRF", "hybrid"]
    for method, per_set in published.ranking.items():
        for name, metrics in per_set.items():
            for metric, value in metrics.items():
                assert ranking.loc[method, f"{name} {metric}"] == value
    # The methods differ on the published sets: there is something to compare.
    assert ranking["en_stsb nDCG@10"].nunique() == 4
    rouge = [df.value for df in at.dataframe[1:3]]
    assert [list(df["system"]) for df in rouge] == [SYSTEMS, SYSTEMS]
    for df in rouge:  # the engine's row has no difference to itself; each baseline has one
        assert df["ΔL [95 % CI]"].iloc[0] == ""
        assert all(re.fullmatch(r"[+-]\d+\.\d\d \[[+-]\d+\.\d\d, [+-]\d+\.\d\d\]", v)
                   for v in df["ΔL [95 % CI]"].iloc[1:])  # fmt: skip
    assert len(at.get("imagelist") or at.get("image")) == 1  # the published heat map
    assert not at.get("progress")  # nothing was run


@pytest.mark.slow
def test_evaluation_page_runs_live_with_stages_and_a_heat_map(warm_eval: Path) -> None:
    at = app("evaluation")
    assert at.multiselect[0].value == ["en_stsb", "ru_stsb"]  # where the methods differ
    assert at.number_input[0].value == 20
    at.multiselect[0].set_value(["en_stsb"])
    at.number_input[0].set_value(1)
    at.select_slider[0].set_value(0.25).run()
    at.button[0].click().run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    (bar,) = at.get("progress")
    assert (bar.proto.value, bar.proto.text) == (100, "Done")
    table = at.dataframe[-1].value.set_index("method")
    assert sorted(table.index) == ["BM25", "RRF", "dense", "hybrid"]
    assert list(table.columns) == ["en_stsb nDCG@10", "en_stsb MRR@10", "en_stsb Recall@20"]
    assert table.to_numpy().min() >= 0
    assert table.to_numpy().max() <= 1
    assert len(at.get("imagelist") or at.get("image")) == 2  # published and live heat maps


@pytest.mark.slow
def test_bad_settings_show_an_error_not_a_traceback(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MLENS_WEIGHTS_FILE", str(data_dir / "missing-weights.json"))
    at = AppTest.from_file(APP, default_timeout=120).run()
    assert not at.exception
    (error,) = at.error
    assert "cannot read weights file" in error.value


@pytest.mark.slow
def test_search_in_a_forum_topic_and_of_one_sender(workspace: Workspace, tmp_path: Path) -> None:
    workspace.import_export(write(tmp_path / "forum.json", forum()))
    at = app("search")
    topic = at.selectbox(key="search_topic_c/1777000001")
    assert topic.options == ["All topics", "General (2)", "Releases (3)", "Jobs (2)"]
    topic.set_value(3).run()
    at.text_input[0].input("release build").run()
    assert not at.exception
    links = {h.split("](")[1].split(")")[0] for h in hit_headers(at)}
    assert links == {f"https://t.me/c/1777000001/3/{i}" for i in (4, 5, 9)}
    at.multiselect(key="search_senders_c/1777000001").set_value(["user1002"]).run()
    assert [h.split("](")[1].split(")")[0] for h in hit_headers(at)] == [
        "https://t.me/c/1777000001/3/5"
    ]


@pytest.mark.slow
def test_each_hit_of_a_forum_shows_its_topic(workspace: Workspace, tmp_path: Path) -> None:
    workspace.import_export(write(tmp_path / "forum.json", forum()))
    at = app("search")
    at.text_input[0].input("release build").run()
    assert not at.exception
    # export_builders.forum: General 2, 8; Releases 4, 5, 9; Jobs (renamed Hiring) 7, 11.
    topic_of = {2: "General", 8: "General", 4: "Releases", 5: "Releases", 9: "Releases"}
    topic_of |= {7: "Jobs", 11: "Jobs"}
    headers = hit_headers(at)
    assert len(headers) == len(topic_of)
    for header in headers:
        link = header.split("](")[1].split(")")[0]
        assert header.endswith(f" · topic **{topic_of[int(link.rsplit('/', 1)[1])]}**"), header
    # With the topic filter the hits stay in the topic, and still say which it is.
    at.selectbox(key="search_topic_c/1777000001").set_value(6).run()
    assert [h.rsplit(" · topic ", 1)[1] for h in hit_headers(at)] == ["**Jobs**", "**Jobs**"]


@pytest.mark.slow
def test_search_in_all_sources_names_each_hits_source(trip_chat: str) -> None:
    at = app("search")
    at.radio(key="search_scope").set_value("all sources").run()
    assert not at.selectbox  # no source to pick
    at.text_input[0].input(QUERY).run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    headers = hit_headers(at)
    assert len(headers) == min(20, len(TEXTS))
    # the source's title and its ref (markdown-escaped: @trip\_planning)
    assert all("**Trip planning** (@trip" in h and "planning)" in h for h in headers)
    scores = [float(h.split("score ")[1].split("**")[0]) for h in headers]
    assert scores == sorted(scores, reverse=True)
