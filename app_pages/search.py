"""Search: one source, a query, the scan window and the ranking weights; hits with context
(in a forum, with each hit's topic)."""

import streamlit as st

from app_pages import common as ui
from toolkit import SearchWeights
from toolkit.models import iso_z
from toolkit.requests import search_request

st.title("Search")
ws = ui.workspace()
defaults = ws.settings.search

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

ref = ui.source_picker()
query = st.text_input("Query", placeholder="what are people saying about …")
left, right = st.columns(2)
limit = left.number_input("Hits (limit)", 1, 100, ws.settings.default_limit)
scan = right.number_input(
    "Recent messages to scan", 1, 10000, ws.settings.default_scan_messages_limit
)
period = ui.period_picker(ref, key="search_period") if ref else None
scope = (
    ui.topic_and_senders(ref, key="search")
    if ref
    else ui.Scope(topic_id=None, sender_peer_ids=None)
)

if ref and query.strip():
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
                for c in hit.context_before:
                    label = ui.link_markdown(f"#{c.messenger_message_id}", c.message_link)
                    st.caption(f"{label} {ui.md_escape(c.text)}")
                st.markdown(ui.md_escape(hit.text))
                for c in hit.context_after:
                    label = ui.link_markdown(f"#{c.messenger_message_id}", c.message_link)
                    st.caption(f"{label} {ui.md_escape(c.text)}")
                signals = hit.signals or {}
                for column, (name, value) in zip(
                    st.columns(len(signals) or 1), signals.items(), strict=False
                ):
                    column.progress(min(max(value, 0.0), 1.0), text=f"{name} {value:.2f}")
elif ref:
    st.info("Type a query to search the most recent messages of this source.")
