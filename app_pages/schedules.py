"""Schedules: the digest schedules with each destination's state, add one (a feed, a
webhook, a Telegram chat, e-mail), run one now, remove one; then the alerts
(``alerts_section``)."""

import streamlit as st

from app_pages.alerts_section import alerts_section
from app_pages.common import shown_errors, source_picker, workspace
from app_pages.destinations import destination_inputs, manage
from toolkit.workspace import Rule, ScheduleSpec, parse_destinations

st.title("Digest schedules")
ws = workspace()

with shown_errors():
    manage(
        ws.schedules(),
        lambda s: {
            "source": s.source_ref,
            "when": f"{s.weekday or 'daily'} {s.at}",
            "language": s.language,
            "last period": (
                f"{s.last_run.period_start:%Y-%m-%d %H:%M} – {s.last_run.period_end:%H:%M} UTC"
                if s.last_run
                else "—"
            ),
        },
        empty="No schedules yet: add one below; `mlens serve` delivers them when due.",
        noun="Schedule",
        run=(
            "Deliver now",
            lambda schedule_id: "; ".join(
                f"{d.label}: {d.state}" for d in ws.run_schedule_now(schedule_id).destinations
            ),
        ),
        remove=("Remove", ws.remove_schedule),
    )

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
    entered = destination_inputs("schedule")
    if st.button("Add", disabled=ref is None) and ref is not None:
        destinations = [{"kind": "feed"}, *entered] if feed else entered
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
