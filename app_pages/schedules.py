"""Schedules: the digest schedules with each destination's state, add one (a feed, a
webhook, a Telegram chat, e-mail), run one now, remove one; then the alerts
(``alerts_section``)."""

import streamlit as st

from app_pages.alerts_section import alerts_section
from app_pages.common import shown_errors, source_picker, workspace
from toolkit.workspace import Rule, ScheduleSpec, parse_destinations

st.title("Digest schedules")
ws = workspace()

with shown_errors():
    schedules = ws.schedules()
    if not schedules:
        st.info("No schedules yet: add one below; `mlens serve` delivers them when due.")
    rows = [
        {
            "id": s.id,
            "source": s.source_ref,
            "when": f"{s.weekday or 'daily'} {s.at}",
            "language": s.language,
            "last period": (
                f"{s.last_run.period_start:%Y-%m-%d %H:%M} – {s.last_run.period_end:%H:%M} UTC"
                if s.last_run
                else "—"
            ),
            "destinations": "; ".join(
                f"{d.label}: {d.state}"
                + (f" ({d.detail})" if d.detail and d.state in ("failed", "uncertain") else "")
                for d in s.destinations
            ),
        }
        for s in schedules
    ]
    if rows:
        st.dataframe(rows, hide_index=True)
        chosen = st.selectbox("Schedule", [s.id for s in schedules])
        run_col, remove_col = st.columns(2)
        if run_col.button("Deliver now", type="primary"):
            done = ws.run_schedule_now(int(chosen))
            st.success("; ".join(f"{d.label}: {d.state}" for d in done.destinations))
        if remove_col.button("Remove"):
            ws.remove_schedule(int(chosen))
            st.rerun()

st.subheader("Add a schedule")
with shown_errors():
    ref = source_picker("Source", key="schedule_source")
    weekly = st.checkbox("Weekly (otherwise daily)")
    day = st.selectbox(
        "Day", ["mon", "tue", "wed", "thu", "fri", "sat", "sun"], disabled=not weekly
    )
    at = st.text_input("Time (HH:MM in the source's time zone)", value="08:00")
    language = st.selectbox("Language", list(ws.summary_languages()) or ["en"])
    feed = st.checkbox("Atom feed (served by /v1)", value=True)
    hook = st.text_input("Webhook URL (optional)")
    secret = st.text_input("Webhook signing secret", type="password")
    chat = st.text_input("Telegram chat id (optional; MLENS_TELEGRAM_BOT_TOKEN sends)")
    mail = st.text_input("E-mail to (optional; MLENS_SMTP_HOST sends)")
    if st.button("Add", disabled=ref is None) and ref is not None:
        destinations = [{"kind": "feed"}] if feed else []
        destinations += [{"kind": "webhook", "url": hook, "secret": secret}] if hook else []
        destinations += [{"kind": "telegram", "chat_id": chat}] if chat else []
        destinations += [{"kind": "email", "to": [mail]}] if mail else []
        spec = ScheduleSpec(
            source_ref=ref,
            rule=Rule.parse("weekly" if weekly else "daily", at, day if weekly else None),
            destinations=parse_destinations(destinations),
            language=language,
        )
        added = ws.add_schedule(spec)
        st.success(f"Added schedule {added.id}.")
        st.rerun()

alerts_section(ws)
