"""What every page shares: the workspace (opened once per process), the lab beside it
(the Evaluation page's) and error display.

The pages call the Workspace (domain objects) and make what they show here or with
``toolkit.notebook``'s tables; the workspace builds the store, embedder and searcher.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, timedelta
from typing import TYPE_CHECKING, TypedDict

import streamlit as st

from toolkit import Settings, Workspace
from toolkit.errors import ToolkitError
from toolkit.models import SearchHit
from toolkit.text import URL_RE

if TYPE_CHECKING:
    from toolkit.evaluate.lab import Evaluation

log = logging.getLogger("mlens.app")


@st.cache_resource(show_spinner=False)
def _workspace(database_path: str, _settings: Settings) -> Workspace:
    # One per data folder and process; it loads its embedder once, on first use.
    return Workspace(_settings)


def workspace() -> Workspace:
    """The workspace of the configured data folder (``MLENS_DATA_DIR``), opened once."""
    settings = Settings()
    return _workspace(settings.database_path, settings)


@st.cache_resource(show_spinner=False)
def _evaluation(database_path: str, _settings: Settings) -> Evaluation:
    # One per workspace: it keeps the dev sets it prepared across the page's reruns.
    from toolkit.evaluate.lab import Evaluation

    return Evaluation(_workspace(database_path, _settings))


def evaluation() -> Evaluation:
    """The lab beside the workspace (``toolkit.evaluate.lab.Evaluation``), opened once."""
    settings = Settings()
    return _evaluation(settings.database_path, settings)


@contextmanager
def shown_errors() -> Iterator[None]:
    """Show a failure inside the block as ``st.error`` with the toolkit's message.

    A user never sees a traceback: unexpected errors are logged on the server and
    shown as one line.
    """
    try:
        yield
    except ToolkitError as exc:
        st.error(f"**{exc.title}**: {exc}")
    except Exception as exc:
        log.exception("unexpected error in the app")
        st.error(f"**Unexpected error** ({type(exc).__name__}): {exc}")


def source_picker(label: str = "Source", *, key: str = "source") -> str | None:
    """A select box of the stored sources (by canonical ref); ``None`` when there are none."""
    sources = [stats.source for stats in workspace().sources()]
    if not sources:
        st.info("The store is empty: import an export on the **Sources** page.")
        return None
    titles = {source.key: source.title for source in sources}
    choice: str = st.selectbox(
        label, list(titles), format_func=lambda r: f"{titles[r]} ({r})", key=key
    )
    return choice


def hit_body(hit: SearchHit) -> None:
    """A hit's context before, its text, its context after and its signals as bars."""
    for c in hit.context_before:
        label = link_markdown(f"#{c.messenger_message_id}", c.message_link)
        st.caption(f"{label} {md_escape(c.text)}")
    st.markdown(md_escape(hit.text))
    for c in hit.context_after:
        label = link_markdown(f"#{c.messenger_message_id}", c.message_link)
        st.caption(f"{label} {md_escape(c.text)}")
    signals = hit.signals or {}
    for column, (name, value) in zip(st.columns(len(signals) or 1), signals.items(), strict=False):
        column.progress(min(max(value, 0.0), 1.0), text=f"{name} {value:.2f}")


class Scope(TypedDict):
    """A request's topic and sender filters, as its keyword arguments."""

    topic_id: int | None
    sender_peer_ids: list[str] | None


def topic_and_senders(ref: str, *, key: str) -> Scope:
    """A forum-topic picker (forums only) and a sender filter for one source.

    Returns:
        ``topic_id`` and ``sender_peer_ids``: ``None`` for "all topics" / "every sender".
    """
    ws = workspace()
    topics = ws.topics(ref)
    left, right = st.columns(2)
    topic: int | None = None
    if topics:
        titles = {t.topic_id: f"{t.title} ({t.message_count:,})" for t in topics}
        topic = left.selectbox(
            "Forum topic",
            [None, *titles],
            format_func=lambda t: "All topics" if t is None else titles[t],
            key=f"{key}_topic_{ref}",
        )
    # Senders of the recent history, most active first, named as the export names them.
    counts: dict[str, int] = {}
    names: dict[str, str] = {}
    for m in ws.recent_messages(ref, limit=5000, topic_id=topic):
        if m.sender_peer_id:
            counts[m.sender_peer_id] = counts.get(m.sender_peer_id, 0) + 1
            names.setdefault(m.sender_peer_id, m.sender_name or m.sender_peer_id)
    chosen: list[str] = right.multiselect(
        "Senders (all when empty)",
        sorted(counts, key=lambda p: -counts[p]),
        format_func=lambda p: f"{names[p]} ({p})",
        key=f"{key}_senders_{ref}",
    )
    return Scope(topic_id=topic, sender_peer_ids=chosen or None)


def link_markdown(label: str, link: str) -> str:
    """``[label](link)``, or the bare label where the messenger has no link."""
    return f"[{label}]({link})" if link else label


def _escape(text: str) -> str:
    out = text.replace("\\", "\\\\")
    for ch in "`*_{}[]()#+-.!|<>~$":
        out = out.replace(ch, "\\" + ch)
    return out


def md_escape(text: str) -> str:
    """Message text made safe for ``st.markdown``: markdown and HTML are shown literally,
    links stay clickable, line breaks are kept."""
    parts, last = [], 0
    for match in URL_RE.finditer(text):
        url = match.group(0)
        href = url if "://" in url else f"https://{url}"
        parts += [_escape(text[last : match.start()]), f"[{_escape(url)}]({href})"]
        last = match.end()
    parts.append(_escape(text[last:]))
    return "".join(parts).replace("\n", "  \n")


def period_picker(
    ref: str, *, key: str, optional: bool = True, last_days: int | None = None
) -> tuple[date, date] | None:
    """A date range inside the source's history (both days included).

    Args:
        ref: the source whose first and last message bound the range.
        key: widget key prefix.
        optional: offer a checkbox and return ``None`` while it is off.
        last_days: start with the last N days of the source instead of all of it.
    """
    stats = workspace().source_stats(ref)
    if stats.first_message_at is None or stats.last_message_at is None:
        return None
    first, last = stats.first_message_at.date(), stats.last_message_at.date()
    if optional and not st.checkbox("Only a period", key=f"{key}_on"):
        return None
    start = max(first, last - timedelta(days=last_days - 1)) if last_days else first
    value = st.date_input(
        "Period (UTC days, both included)", (start, last), first, last, key=f"{key}_{ref}"
    )
    if isinstance(value, tuple) and len(value) == 2:
        return value[0], value[1]
    st.warning("Pick a start and an end day.")
    return None
