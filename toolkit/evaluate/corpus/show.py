"""Print a window of a real chat for labelling: every message whole, with its ids."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import tzinfo

from toolkit.ingest.export.times import zone
from toolkit.models import Message


def _when(message: Message, tz: tzinfo | None) -> str:
    moment = message.posted_at.astimezone(tz) if tz is not None else message.posted_at
    return moment.strftime("%Y-%m-%d %H:%M %z")


def render(message: Message, tz: tzinfo | None = None) -> str:
    """One message as a labeller reads it: a header line (id, time, sender, the id it
    replies to, reactions, where it was forwarded from, media, topic) and its full text,
    indented."""
    head = [f"#{message.messenger_message_id}", _when(message, tz)]
    if message.is_service:
        head.append("[service]")
    head.append(message.sender_name or message.sender_peer_id or "?")
    if message.reply_to is not None:
        head.append(f"reply_to=#{message.reply_to}")
    if message.topic_id is not None:
        head.append(f"topic={message.topic_id}")
    if message.reactions:
        head.append("reactions=" + " ".join(f"{k}×{n}" for k, n in message.reactions))
    if message.forwarded_from:
        head.append(f"fwd_from={message.forwarded_from}")
    if message.media:
        head.append(f"media={message.media}")
    body = "\n".join(f"    {line}" for line in (message.text or "").splitlines()) or "    "
    return " | ".join(head) + "\n" + body


def render_window(messages: Iterable[Message], timezone: str | None) -> str:
    """Every message of a window, rendered, one blank line apart (times in ``timezone``,
    the source's own zone as imported; UTC when ``None``)."""
    tz = zone(timezone)
    return "\n\n".join(render(m, tz) for m in messages)
