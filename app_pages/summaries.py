"""Summaries: a period of a chat or channel, or the whole source, in a chosen language."""

import streamlit as st

from app_pages import common as ui
from toolkit.refs import message_link
from toolkit.requests import summary_request

st.title("Summaries")
ws = ui.workspace()
ref = ui.source_picker()
if ref:
    source = ws.source(ref)
    whole = st.radio("Summarise", ["a period", "the whole source"], horizontal=True) != "a period"
    left, mid, right = st.columns(3)
    kinds = ["chat", "channel"]
    kind = left.selectbox("Kind", kinds, index=kinds.index(source.kind.value), disabled=whole)
    engine = right.selectbox(
        "Engine",
        ["auto", "extractive", "llm", "hybrid"],
        help="auto: the LLM when one is configured; hybrid: the offline digest, each line "
        "rewritten by the LLM in the chosen language.",
    )
    # Only the languages the chosen engine can write: offline, the language packs.
    languages = ws.summary_languages(engine)
    language = mid.selectbox(
        "Language",
        languages,
        help=f"Offline: {', '.join(ws.summary_languages('extractive'))}; an LLM endpoint "
        "writes any language.",
    )
    if not languages:
        st.info("No LLM endpoint is configured (MLENS_LLM_BASE_URL): choose auto or extractive.")
    period = (
        None if whole else ui.period_picker(ref, key="summary_period", optional=False, last_days=7)
    )
    scope = ui.topic_and_senders(ref, key="summary")
    ready = bool(languages) and (whole or period is not None)
    if st.button("Summarise", type="primary", disabled=not ready):
        with ui.shown_errors(), st.spinner("Summarising…"):
            request = summary_request(
                ref,
                period=None if whole else period,
                kind=None if whole else kind,
                language=language,
                engine=engine,
                **scope,
            )
            summary = ws.summarize(request)
            st.caption(f"engine: {summary.engine} · language: {summary.language}")
            st.markdown(ui.md_escape(summary.summary))
            for section in summary.sections:
                st.subheader(section.title)
                st.markdown(ui.md_escape(section.body))
            important = ws.important_messages(summary)
            if important:
                st.subheader("Important messages")
                st.markdown(
                    "\n".join(
                        "- "
                        + ui.link_markdown(
                            f"#{m.messenger_message_id}",
                            message_link(source, m.messenger_message_id, topic_id=m.topic_id),
                        )
                        + f" {ui.md_escape(' '.join(m.text.split())[:200])}"
                        for m in important
                    )
                )
