"""Search: one source (or all sources as one ranking), a query, the scan window and the
ranking weights; hits with context (in a forum, with each hit's topic; across sources,
with each hit's source)."""

import streamlit as st

from app_pages import common as ui
from toolkit import SearchWeights
from toolkit.models import iso_z
from toolkit.requests import search_all_request, search_request

st.title("Search")
ws = ui.workspace()
defaults = ws.settings.search.weights

# Slider ranges of the weights; a field not listed keeps its configured value.
RANGES = {
    "semantic": (0.0, 1.0, 0.05),
    "lexical": (0.0, 1.0, 0.05),
    "phrase": (0.0, 1.0, 0.05),
    "short_floor": (0.0, 1.0, 0.05),
    "short_scale": (0.25, 10.0, 0.25),
    "semantic_exponent": (0.25, 8.0, 0.25),
}
with st.sidebar:
    st.subheader("Ranking weights")
    st.caption("Short-message factor: floor + (1 − floor)·(1 − e^(−tokens/scale))")
    chosen = {
        name: st.slider(name, low, high, min(max(float(getattr(defaults, name)), low), high), step)
        for name, (low, high, step) in RANGES.items()
        if name in SearchWeights.model_fields
    }

everywhere = (
    st.radio("Search in", ["one source", "all sources"], horizontal=True, key="search_scope")
    == "all sources"
)
ref = None if everywhere else ui.source_picker()
query = st.text_input("Query", placeholder="what are people saying about …")
left, right = st.columns(2)
limit = left.number_input("Hits (limit)", 1, 100, ws.settings.search.default_limit)
scan = right.number_input(
    "Recent messages to scan" + (" in each source" if everywhere else ""),
    1,
    10000,
    ws.settings.search.default_scan_messages_limit,
)
period = ui.period_picker(ref, key="search_period") if ref else None
scope = (
    ui.topic_and_senders(ref, key="search")
    if ref
    else ui.Scope(topic_id=None, sender_peer_ids=None)
)

if everywhere and query.strip():
    sources = {s.source.key: s.source.title for s in ws.sources()}
    chosen_refs = st.multiselect(
        "Only these sources (none chosen: all)",
        list(sources),
        format_func=lambda r: f"{sources[r]} ({r})",
        key="search_all_sources",
    )
    with ui.shown_errors():
        hits = ws.search_all(
            search_all_request(
                query,
                source_refs=chosen_refs,
                limit=int(limit),
                scan_messages_limit=int(scan),
                weights=defaults.replace(**chosen),
                explain=True,
            )
        )
        st.caption(f"{len(hits)} hits in {len(chosen_refs) or len(sources)} sources")
        for rank, hit in enumerate(hits, 1):
            with st.container(border=True):
                st.markdown(
                    f"**#{rank} · score {hit.score:.3f}** · "
                    f"**{ui.md_escape(hit.source_title)}** ({ui.md_escape(hit.source_ref)}) · "
                    f"{ui.link_markdown(hit.message_link or 'no link', hit.message_link)} · "
                    f"{iso_z(hit.posted_at)}"
                )
                ui.hit_body(hit)
elif ref and query.strip():
    with ui.shown_errors():
        request = search_request(
            ref,
            query,
            period=period or (None, None),
            limit=int(limit),
            scan_messages_limit=int(scan),
            weights=defaults.replace(**chosen),
            explain=True,
            **scope,
        )
        hits = ws.search(request)
        topics = ws.hit_topics(ref, hits)  # in a forum, each hit's topic
        st.caption(f"{len(hits)} hits")
        for rank, hit in enumerate(hits, 1):
            with st.container(border=True):
                title = topics.get(hit.messenger_message_id)
                where = f" · topic **{ui.md_escape(title)}**" if title is not None else ""
                st.markdown(
                    f"**#{rank} · score {hit.score:.3f}** · "
                    f"{ui.link_markdown(hit.message_link or 'no link', hit.message_link)} · "
                    f"{iso_z(hit.posted_at)}{where}"
                )
                ui.hit_body(hit)
elif ref:
    st.info("Type a query to search the most recent messages of this source.")
elif everywhere:
    st.info("Type a query to search the most recent messages of every source at once.")
