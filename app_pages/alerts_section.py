"""The alerts section of the Schedules page: the alerts with each destination's state,
add one (a saved search, its score, its cap, a webhook, a Telegram chat, e-mail), check
one now, remove one."""

import streamlit as st

from app_pages.common import shown_errors
from toolkit.limits import DEFAULT_ALERTS_PER_HOUR, MAX_ALERTS_PER_HOUR
from toolkit.workspace import AlertRequest, Workspace


def alerts_section(ws: Workspace) -> None:
    """List the alerts, and add, check or remove one."""
    st.header("Alerts")
    st.caption(
        "A saved search: each new message whose hybrid-ranking score reaches the "
        "threshold is posted after its sync or import, at most N an hour."
    )
    with shown_errors():
        alerts = ws.alerts()
        if not alerts:
            st.info("No alerts yet: add one below.")
        rows = [
            {
                "id": a.id,
                "query": a.query,
                "sources": ", ".join(a.source_refs) if a.source_refs else "all",
                "score ≥": a.min_score,
                "last hour": f"{a.posts_last_hour}/{a.max_per_hour}",
                "held back": a.held,
                "destinations": "; ".join(
                    f"{d.label}: {d.state}"
                    + (f" ({d.detail})" if d.detail and d.state in ("failed", "uncertain") else "")
                    for d in a.destinations
                ),
            }
            for a in alerts
        ]
        if rows:
            st.dataframe(rows, hide_index=True)
            chosen = st.selectbox("Alert", [a.id for a in alerts], key="alert_chosen")
            run_col, remove_col = st.columns(2)
            if run_col.button("Check now", key="alert_run"):
                done = ws.run_alert_now(int(chosen))
                st.success(f"{done.posts_last_hour} post(s) in the last hour; {done.held} held.")
            if remove_col.button("Remove alert", key="alert_remove"):
                ws.remove_alert(int(chosen))
                st.rerun()

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
        hook = st.text_input("Webhook URL (optional)", key="alert_hook")
        secret = st.text_input("Webhook signing secret", type="password", key="alert_secret")
        chat = st.text_input("Telegram chat id (optional)", key="alert_chat")
        mail = st.text_input("E-mail to (optional)", key="alert_mail")
        if st.button("Add alert", key="alert_add"):
            destinations: list[dict[str, object]] = []
            destinations += [{"kind": "webhook", "url": hook, "secret": secret}] if hook else []
            destinations += [{"kind": "telegram", "chat_id": chat}] if chat else []
            destinations += [{"kind": "email", "to": [mail]}] if mail else []
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
