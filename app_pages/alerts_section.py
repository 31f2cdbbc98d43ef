"""The alerts section of the Schedules page: the alerts with each destination's state,
add one (a saved search, its score, its cap, a webhook, a Telegram chat, e-mail), check
one now, remove one."""

import streamlit as st

from app_pages.common import shown_errors
from app_pages.destinations import destination_inputs, manage
from toolkit.limits import DEFAULT_ALERTS_PER_HOUR, MAX_ALERTS_PER_HOUR
from toolkit.workspace import AlertOut, AlertRequest, Workspace


def alerts_section(ws: Workspace) -> None:
    """List the alerts, and add, check or remove one."""
    st.header("Alerts")
    st.caption(
        "A saved search: each new message whose hybrid-ranking score reaches the "
        "threshold is posted after its sync or import, at most N an hour."
    )
    with shown_errors():
        manage(
            ws.alerts(),
            lambda a: {
                "query": a.query,
                "sources": ", ".join(a.source_refs) if a.source_refs else "all",
                "score ≥": a.min_score,
                "last hour": f"{a.posts_last_hour}/{a.max_per_hour}",
                "held back": a.held,
            },
            empty="No alerts yet: add one below.",
            noun="Alert",
            run=("Check now", lambda alert_id: _checked(ws.run_alert_now(alert_id))),
            remove=("Remove alert", ws.remove_alert),
            key="alert",
        )

    st.subheader("Add an alert")
    with shown_errors():
        query = st.text_input("Saved search", key="alert_query")
        refs = st.multiselect(
            "Sources (none: every source)", [s.source.key for s in ws.sources()], key="alert_refs"
        )
        score = st.slider("Score to reach", 0.0, 1.0, 0.3, 0.01, key="alert_score")
        per_hour = st.number_input(
            "Posts an hour at most",
            1,
            MAX_ALERTS_PER_HOUR,
            DEFAULT_ALERTS_PER_HOUR,
            key="alert_cap",
        )
        destinations = destination_inputs("alert")
        if st.button("Add alert", key="alert_add"):
            request = AlertRequest(
                query=query,
                source_refs=refs or None,
                min_score=score,
                max_per_hour=int(per_hour),
                destinations=destinations,
            )
            added = ws.add_alert(request)
            st.success(f"Added alert {added.id}.")
            st.rerun()


def _checked(done: AlertOut) -> str:
    return f"{done.posts_last_hour} post(s) in the last hour; {done.held} held."
