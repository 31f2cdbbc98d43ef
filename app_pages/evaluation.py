"""Evaluation: the ranking table and the weight heat map on the labelled dev sets."""

import streamlit as st

from app_pages.common import shown_errors, workspace
from toolkit.evaluate.retrieval import DEV_FILES
from toolkit.notebook import Table, plots
from toolkit.notebook.quality import candidates_table, ranking_table, results_table

st.title("Evaluation")
st.caption(
    "BM25, dense-only, reciprocal rank fusion and the hybrid on the dev retrieval sets "
    "(`../shared/data/eval/dev/`); the hybrid uses the configured weights. The first run "
    "embeds the sets (minutes on two cores) and caches the vectors under the data folder."
)
ws = workspace()


@st.cache_data(show_spinner=False)
def _ranking(database: str, sets: tuple[str, ...], limit: int | None) -> Table:
    return results_table(ws.evaluate_ranking(sets=sets, limit=limit))


@st.cache_data(show_spinner=False)
def _grid(database: str, sets: tuple[str, ...], limit: int | None, step: float) -> Table:
    return candidates_table(ws.simplex(step=step, sets=sets, limit=limit))


left, mid, right = st.columns([3, 1, 1])
sets = left.multiselect("Dev sets", DEV_FILES, default=list(DEV_FILES))
queries = mid.number_input("Queries per set (0: all)", 0, 150, 20, help="A subsample: faster.")
step = right.select_slider("Grid step", [0.25, 0.2, 0.1, 0.05], value=0.1)
if st.button("Evaluate", type="primary", disabled=not sets):
    st.session_state["evaluation"] = (tuple(sets), int(queries) or None, step)

if "evaluation" in st.session_state:
    chosen, limit, grid_step = st.session_state["evaluation"]
    with shown_errors(), st.spinner("Scoring the dev sets…"):
        database = ws.settings.database_path
        st.subheader("Ranking quality")
        st.dataframe(
            ranking_table(_ranking(database, chosen, limit)).styled(),
            width="stretch",
            hide_index=True,
        )
        points, values = plots.simplex_means(_grid(database, chosen, limit, grid_step))
        st.subheader("nDCG@10 over the weight simplex (mean over the chosen sets)")
        st.pyplot(plots.simplex_heatmap(points, values), width=620)
