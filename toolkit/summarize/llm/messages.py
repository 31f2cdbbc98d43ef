"""Messages as prompt data, and token-budgeted chunks of them.

Each message is one ``<message>`` element with its id, author, (for period
summaries) its time and (in a forum) its topic's id and title; text and attributes are
XML-escaped, so a message cannot close the element, fake another message's id or open
a new section of the prompt.
Token counts are estimated from characters (no tokenizer is downloaded): BPE
vocabularies spend about one token per four Latin characters and about one per two
characters of other scripts; the estimate leans high so chunks stay under budget.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape

from toolkit.models import Message
from toolkit.summarize.context import message_text

# Characters kept from one message: a single huge post must not fill a chunk by itself.
MAX_MESSAGE_CHARS = 4000
_ELEMENT_OVERHEAD_TOKENS = 12


def estimate_tokens(text: str) -> int:
    """A conservative token estimate: ASCII characters / 4 plus other characters / 2."""
    ascii_chars = sum(1 for ch in text if ord(ch) < 128)
    return math.ceil(ascii_chars / 4 + (len(text) - ascii_chars) / 2)


def _trim(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(None, 1)[0] if " " in text[:limit] else text[:limit]
    return cut + " …"


def render_message(
    message: Message,
    *,
    with_time: bool,
    max_chars: int = MAX_MESSAGE_CHARS,
    topics: Mapping[int, str] | None = None,
) -> str:
    """One message as an escaped ``<message>`` element of the prompt.

    Args:
        message: the message.
        with_time: include the posting time (period prompts); source prompts leave it out
            so that the model has no dates to repeat.
        max_chars: longest text kept; longer text is cut at a word and marked ``…``.
        topics: a forum's topic titles by id, so that the model can name a topic.
    """
    attrs = [f'id="{message.messenger_message_id}"']
    author = message.sender_name or message.sender_peer_id
    if author:
        attrs.append(f'author="{escape(author, quote=True)}"')
    if with_time:
        attrs.append(f'time="{message.posted_at.strftime("%Y-%m-%d %H:%M")}"')
    if message.reply_to is not None:
        attrs.append(f'reply_to="{message.reply_to}"')
    if message.topic_id is not None:  # a forum's topic: its conversation
        attrs.append(f'topic="{message.topic_id}"')
        title = (topics or {}).get(message.topic_id)
        if title is not None:
            attrs.append(f'topic_title="{escape(title, quote=True)}"')
    if message.forwarded_from:
        attrs.append(f'forwarded_from="{escape(message.forwarded_from, quote=True)}"')
    text = escape(_trim(message_text(message), max_chars), quote=False)
    return f"<message {' '.join(attrs)}>{text}</message>"


def chunk_messages(
    messages: Sequence[Message],
    budget_tokens: int,
    *,
    with_time: bool,
    topics: Mapping[int, str] | None = None,
) -> list[list[Message]]:
    """Split messages, in order, into chunks whose rendered size fits ``budget_tokens``.

    Every message lands in exactly one chunk; a message too large for the budget on its
    own gets a chunk of its own (its text is cut by ``render_message`` anyway).

    Args:
        messages: the messages in posting order.
        budget_tokens: the estimated token budget of one chunk's messages.
        with_time: whether the rendering includes times (affects the size).
        topics: a forum's topic titles by id (rendered too, so they count).

    Returns:
        The chunks, in order; an empty list for no messages.
    """
    chunks: list[list[Message]] = []
    current: list[Message] = []
    used = 0
    for message in messages:
        cost = estimate_tokens(render_message(message, with_time=with_time, topics=topics))
        cost += _ELEMENT_OVERHEAD_TOKENS
        if current and used + cost > budget_tokens:
            chunks.append(current)
            current, used = [], 0
        current.append(message)
        used += cost
    if current:
        chunks.append(current)
    return chunks


def render_chunk(
    messages: Sequence[Message], *, with_time: bool, topics: Mapping[int, str] | None = None
) -> str:
    """A chunk's messages as newline-separated ``<message>`` elements."""
    return "\n".join(render_message(m, with_time=with_time, topics=topics) for m in messages)
