"""Sources: import an export (with a progress bar), the sources table, messages per day."""

import tempfile
from pathlib import Path

import streamlit as st

from app_pages.common import shown_errors, source_picker, workspace
from toolkit.notebook.tables import import_table, per_day_table, sources_table, topics_table

st.title("Sources")
ws = workspace()

with st.expander("Import a Telegram Desktop export", expanded=not len(ws.sources())):
    upload = st.file_uploader(
        "result.json (JSON export), messages.html (one page of an HTML export), or a .zip "
        "of the export's folder (every page)",
        type=["json", "html", "zip"],
    )
    handle = st.text_input(
        "Public handle of the exported chat, or c/<id> for an HTML export (optional)",
        placeholder="@handle",
    )
    zone = st.text_input(
        "Time zone of the export (only for older exports without date_unixtime)",
        placeholder="Europe/Moscow",
    )
    if st.button("Import", type="primary", disabled=upload is None) and upload is not None:
        bar = st.progress(0.0, text=f"Importing {upload.name}…")

        def embedding(done: int, total: int) -> None:
            bar.progress(
                done / total if total else 1.0, text=f"Embedding {done:,} / {total:,} messages"
            )

        with shown_errors(), tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / Path(upload.name).name
            path.write_bytes(upload.getvalue())
            imported = ws.import_export(
                path,
                ref=handle.strip() or None,
                progress=embedding,
                timezone=zone.strip() or None,
            )
            bar.progress(1.0, text="Imported")
            st.success(imported.report.line() or f"Imported {upload.name}")
            for warning in imported.report.warnings():
                st.warning(warning)
            table = import_table(imported.report, imported.embedded)
            st.dataframe(table.to_pandas(), hide_index=True)

st.subheader("Sources in the store")
with shown_errors():
    st.dataframe(sources_table(ws.sources()).to_pandas(), hide_index=True)
    ref = source_picker("Messages per day of", key="per_day_source")
    if ref is not None:
        source = ws.source(ref)
        per_day = per_day_table(source, ws.messages_per_day(ref)).to_pandas()
        st.bar_chart(per_day, x="day", y="messages", height=260)
        topics = ws.topics(ref)
        if topics:
            st.caption("Forum topics")
            st.dataframe(topics_table(source, topics).to_pandas(), hide_index=True)
