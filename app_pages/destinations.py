"""Where the Schedules page's schedules and alerts deliver: the destination inputs both
forms show, each destination's state as both tables show it, and the table itself with
its run-now and remove buttons."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, TypeVar

import streamlit as st

if TYPE_CHECKING:
    from toolkit.workspace import AlertOut, DestinationOut, ScheduleOut

_Listed = TypeVar("_Listed", "AlertOut", "ScheduleOut")


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


def manage(
    items: Sequence[_Listed],
    cells: Callable[[_Listed], Mapping[str, object]],
    *,
    empty: str,
    noun: str,
    run: tuple[str, Callable[[int], str]],
    remove: tuple[str, Callable[[int], object]],
    key: str | None = None,
) -> None:
    """A table of ``items`` (their id, ``cells`` and destinations' states), or ``empty``
    when there are none; then a ``noun`` to choose, a button that runs it now (``run``:
    its label, and what runs and says what was done) and one that removes it (``remove``:
    its label and what removes). Widget keys are prefixed by ``key`` when given."""
    if not items:
        st.info(empty)
        return
    rows = [{"id": i.id, **cells(i), "destinations": states(i.destinations)} for i in items]
    st.dataframe(rows, hide_index=True)

    def named(part: str) -> str | None:
        return f"{key}_{part}" if key else None

    chosen = int(st.selectbox(noun, [i.id for i in items], key=named("chosen")))
    run_col, remove_col = st.columns(2)
    if run_col.button(run[0], type="primary", key=named("run")):
        st.success(run[1](chosen))
    if remove_col.button(remove[0], key=named("remove")):
        remove[1](chosen)
        st.rerun()
