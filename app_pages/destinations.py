"""Where the Schedules page's schedules and alerts deliver: the destination inputs both
forms show, and each destination's state as both tables show it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import streamlit as st

if TYPE_CHECKING:
    from toolkit.workspace import DestinationOut


def destination_inputs(key: str) -> list[dict[str, object]]:
    """Inputs for a webhook (and its signing secret), a Telegram chat and an e-mail
    address, their widget keys prefixed by ``key``; the destinations filled in."""
    hook = st.text_input("Webhook URL (optional)", key=f"{key}_hook")
    secret = st.text_input("Webhook signing secret", type="password", key=f"{key}_secret")
    chat = st.text_input(
        "Telegram chat id (optional; MLENS_TELEGRAM_BOT_TOKEN sends)", key=f"{key}_chat"
    )
    mail = st.text_input("E-mail to (optional; MLENS_SMTP_HOST sends)", key=f"{key}_mail")
    out: list[dict[str, object]] = []
    out += [{"kind": "webhook", "url": hook, "secret": secret}] if hook else []
    out += [{"kind": "telegram", "chat_id": chat}] if chat else []
    out += [{"kind": "email", "to": [mail]}] if mail else []
    return out


def states(destinations: Iterable[DestinationOut]) -> str:
    """Each destination's state, with why it failed or may not have arrived (a table cell)."""
    return "; ".join(
        f"{d.label}: {d.state}"
        + (f" ({d.detail})" if d.detail and d.state in ("failed", "uncertain") else "")
        for d in destinations
    )
