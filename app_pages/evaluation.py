"""Evaluation: what ``make eval`` published, at once; and the ranking re-run live on a sample."""

from typing import Any

import streamlit as st

from app_pages.common import evaluation, shown_errors, workspace
from toolkit.evaluate.retrieval import DEV_FILES
from toolkit.notebook import Table, plots
from toolkit.notebook.quality import (
    candidates_table,
    ranking_table,
    results_table,
    rouge_comparison_table,
)

# The STS-B paraphrase sets: on their first 20 queries the four methods differ, where on
# the XQuAD sets every method finds every answer (nDCG@10 1.000 all round).
LIVE_SETS = ["en_stsb", "ru_stsb"]
LIVE_QUERIES = 20

st.title("Evaluation")
st.caption(
    "BM25, dense-only, reciprocal rank fusion (RRF) and the hybrid on the labelled dev "
    "retrieval sets, and ROUGE of the summary engine against its baselines, as "
    "`make eval` last measured them on every query (`docs/results/eval.json`)."
)
ws = workspace()
lab = evaluation()  # the lab beside the workspace: it keeps the dev sets it prepared


@st.cache_data(show_spinner=False)
def _ranking(database: str, sets: tuple[str, ...], limit: int | None) -> Table:
    return results_table(lab.evaluate_ranking(sets=sets, limit=limit))


@st.cache_data(show_spinner=False)
def _grid(database: str, sets: tuple[str, ...], limit: int | None, step: float) -> Table:
    return candidates_table(lab.simplex(step=step, sets=sets, limit=limit))


def _show_ranking(table: Table, rows: list[dict[str, Any]], caption: str) -> None:
    st.dataframe(ranking_table(table).styled(), width="stretch", hide_index=True)
    points, values = plots.simplex_means(rows)
    st.markdown(f"**nDCG@10 over the weight simplex** (mean over the sets; {caption})")
    st.pyplot(plots.simplex_heatmap(points, values), width=560)


published_tab, live_tab = st.tabs(["Published by make eval", "Run live on a sample"])

with published_tab, shown_errors():
    published, stale = lab.published_evaluation()
    if stale:
        st.warning(
            f"The published {' and '.join(stale)} results are missing or were measured "
            "with another engine: run `make eval` to measure them again."
        )
    if published.ranking:
        counted = ", ".join(
            f"{n} {name}" for name, n in published.parts["ranking"]["queries"].items()
        )
        st.subheader("Ranking quality")
        st.caption(
            f"Every query ({counted}), default weights; measured "
            f"{published.measured_at('ranking')}. Best of each column in bold."
        )
        grid = published.parts["ranking"]["grid"]
        _show_ranking(results_table(published.ranking), published.grid, f"grid step {grid['step']}")
    for name, rows in published.summaries.items():
        st.subheader(f"Summary quality: {name}")
        st.caption(
            f"ROUGE F1 × 100 of the `summary` field and four baselines on {rows[0]['n']} "
            "dialogues; ΔL is the engine's ROUGE-L minus the row's, with its paired "
            f"bootstrap 95 % interval; measured {published.measured_at('summaries')}."
        )
        table = rouge_comparison_table(rows, title=name)
        st.dataframe(table.styled(), width="stretch", hide_index=True)

with live_tab:
    st.caption(
        "Scores a sample of the dev sets with the configured weights now. The default "
        "sample, the first 20 queries of both STS-B sets, is one where the methods "
        "differ. Its vectors come from the data folder's cache when `make eval` has run "
        "there; otherwise the first run embeds the sample's texts (minutes on two cores, "
        "then cached), and later runs take seconds."
    )
    left, mid, right = st.columns([3, 1, 1])
    sets = left.multiselect("Dev sets", DEV_FILES, default=LIVE_SETS)
    queries = mid.number_input("Queries per set (0: all)", 0, 150, LIVE_QUERIES)
    step = right.select_slider("Grid step", [0.25, 0.2, 0.1, 0.05], value=0.25)
    if st.button("Run live", type="primary", disabled=not sets):
        st.session_state["evaluation"] = (tuple(sets), int(queries) or None, step)

    if "evaluation" in st.session_state:
        chosen, limit, grid_step = st.session_state["evaluation"]
        with shown_errors():
            database = ws.settings.database_path
            stages = len(chosen) + 2
            bar = st.progress(0.0, text="Starting…")
            for done, name in enumerate(chosen):
                bar.progress(done / stages, text=f"Embedding and preparing {name}…")
                lab.dev_sets([name], limit=limit)  # kept by the lab for the steps below
            bar.progress(len(chosen) / stages, text="Ranking with the four methods…")
            ranking = _ranking(database, chosen, limit)
            bar.progress((len(chosen) + 1) / stages, text="Scoring the weight grid…")
            grid_table = _grid(database, chosen, limit, grid_step)
            bar.progress(1.0, text="Done")
            shown = "every query" if limit is None else f"the first {limit} queries"
            st.subheader("Ranking quality, live")
            st.caption(f"{shown} of {', '.join(chosen)}; configured weights.")
            _show_ranking(ranking, grid_table.rows, f"grid step {grid_step}")
