"""Summaries: a period of a chat or channel, or the whole source, in a chosen language."""

import streamlit as st

from app_pages import common as ui

LANGUAGES = ["en", "ru", "de", "fr", "es", "it", "uk", "pt", "tr", "zh"]

st.title("Summaries")
ws = ui.workspace()
ref = ui.source_picker()
if ref:
    source = ws.source(ref)
    whole = st.radio("Summarise", ["a period", "the whole source"], horizontal=True) != "a period"
    left, mid, right = st.columns(3)
    kinds = ["chat", "channel"]
    kind = left.selectbox("Kind", kinds, index=kinds.index(source.kind.value), disabled=whole)
    language = mid.selectbox("Language", LANGUAGES, help="The extractive engine writes en and ru.")
    engine = right.selectbox(
        "Engine", ["auto", "extractive", "llm"], help="auto: the LLM when one is configured."
    )
    period = (
        None if whole else ui.period_picker(ref, key="summary_period", optional=False, last_days=7)
    )
    topic, senders = ui.topic_and_senders(ref, key="summary")
    if st.button("Summarise", type="primary", disabled=not whole and period is None):
        with ui.shown_errors(), st.spinner("Summarising…"):
            if whole:
                view = ws.summarize_source(
                    ref,
                    language=language,
                    engine=engine,
                    topic_id=topic,
                    sender_peer_ids=senders,
                )
            else:
                assert period is not None
                view = ws.summarize_period(
                    ref,
                    period[0],
                    period[1],
                    language=language,
                    kind=kind,
                    engine=engine,
                    topic_id=topic,
                    sender_peer_ids=senders,
                )
            st.caption(f"engine: {view.summary.engine} · language: {view.summary.language}")
            st.markdown(ui.md_escape(view.text))
            for section in view.summary.sections:
                st.subheader(section.title)
                st.markdown(ui.md_escape(section.body))
            if len(view.important):
                st.subheader("Important messages")
                st.markdown(
                    "\n".join(
                        "- "
                        + ui.link_markdown(f"#{row['messenger_message_id']}", row["message_link"])
                        + " "
                        f"{ui.md_escape(' '.join(str(row['text']).split())[:200])}"
                        for row in view.important
                    )
                )
