"""Messages as prompt data, and token-budgeted chunks of them.

Each message is one ``<message>`` element with its id, author, (for period
summaries) its time and (in a forum) its topic's id and title; text and attributes are
XML-escaped, so a message cannot close the element, fake another message's id or open
a new section of the prompt. No password, key, token, card number or IBAN is sent
(``personal.mask_credentials``: each becomes ``[…]``).
Times are written as briefly as a summary needs: a full ``YYYY-MM-DD HH:MM`` on a
chunk's first message and where the date changes, ``HH:MM`` once at least
``TIME_STEP`` has passed since the last time written, and none in between (the period
prompt says so). On a
small local model every prompt token is read at ~170 tokens/s, and a full timestamp
costs about 19 tokens, more than the text of a typical chat message.

Token counts are estimated from characters (no tokenizer is downloaded), leaning high
for the small vocabularies of local models: a run of Latin letters costs one token per
four letters, a run of other letters one per letter, every digit and every punctuation
mark one (markup, ids and times are mostly digits and punctuation).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from html import escape

from toolkit.models import Message
from toolkit.summarize.context import message_text
from toolkit.summarize.personal import Marks, mask_credentials

# Characters kept from one message: a single huge post must not fill a chunk by itself.
MAX_MESSAGE_CHARS = 4000
_ELEMENT_OVERHEAD_TOKENS = 1  # the newline between elements
TIME_STEP = timedelta(minutes=5)
"""Messages within this of the last time written carry no time of their own."""


_NEUTRAL = Marks()
_PIECES = re.compile(r"[^\W\d_]+|\d|[^\w\s]|_")


def estimate_tokens(text: str, *, letters_per_token: float = 1.0) -> int:
    """A conservative token estimate: Latin letter runs / 4, runs of other letters (Cyrillic
    …) / ``letters_per_token`` (one each for a small English vocabulary such as SmolLM2's;
    ``budget.letters_per_token`` gives a model family's), digits and punctuation marks one
    each; whitespace is free (tokens carry their leading space)."""
    total = 0
    for piece in _PIECES.findall(text):
        if piece.isalpha() and piece.isascii():
            total += math.ceil(len(piece) / 4)
        elif piece.isalpha():
            total += math.ceil(len(piece) / letters_per_token)
        else:
            total += len(piece)
    return total


def time_text(posted_at: datetime, written: datetime | None) -> str | None:
    """How a message's time is written when the last time written is ``written``
    (``None``: the first of a chunk): full on a new date, ``HH:MM`` from ``TIME_STEP``
    on, else ``None``."""
    if written is None or written.date() != posted_at.date():
        return posted_at.strftime("%Y-%m-%d %H:%M")
    if posted_at - written < TIME_STEP:
        return None
    return posted_at.strftime("%H:%M")


def trim_text(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters at a word, marked `` …``."""
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(None, 1)[0] if " " in text[:limit] else text[:limit]
    return cut + " …"


_trim = trim_text


def render_message(
    message: Message,
    *,
    with_time: bool,
    max_chars: int = MAX_MESSAGE_CHARS,
    topics: Mapping[int, str] | None = None,
    previous: datetime | None = None,
) -> str:
    """One message as an escaped ``<message>`` element of the prompt.

    Args:
        message: the message.
        with_time: include the posting time (period prompts); source prompts leave it out
            so that the model has no dates to repeat.
        max_chars: longest text kept; longer text is cut at a word and marked ``…``.
        topics: a forum's topic titles by id, so that the model can name a topic.
        previous: the last time written before it in the same chunk (``time_text``);
            ``None`` for the first.
    """
    attrs = [f'id="{message.messenger_message_id}"']
    author = message.sender_name or message.sender_peer_id
    if author:
        attrs.append(f'author="{escape(author, quote=True)}"')
    when = time_text(message.posted_at, previous) if with_time else None
    if when is not None:
        attrs.append(f'time="{when}"')
    if message.reply_to is not None:
        attrs.append(f'reply_to="{message.reply_to}"')
    if message.topic_id is not None:  # a forum's topic: its conversation
        attrs.append(f'topic="{message.topic_id}"')
        title = (topics or {}).get(message.topic_id)
        if title is not None:
            attrs.append(f'topic_title="{escape(title, quote=True)}"')
    if message.forwarded_from:
        attrs.append(f'forwarded_from="{escape(message.forwarded_from, quote=True)}"')
    # A password, key, card number or IBAN is never sent: the model cannot copy it.
    text = escape(_trim(mask_credentials(message_text(message), _NEUTRAL), max_chars), quote=False)
    return f"<message {' '.join(attrs)}>{text}</message>"


def chunk_messages(
    messages: Sequence[Message],
    budget_tokens: int,
    *,
    with_time: bool,
    topics: Mapping[int, str] | None = None,
    letters_per_token: float = 1.0,
) -> list[list[Message]]:
    """Split messages, in order, into chunks whose rendered size fits ``budget_tokens``.

    Every message lands in exactly one chunk; a message too large for the budget on its
    own gets a chunk of its own (its text is cut by ``render_message`` anyway).

    Args:
        messages: the messages in posting order.
        budget_tokens: the estimated token budget of one chunk's messages.
        with_time: whether the rendering includes times (affects the size).
        topics: a forum's topic titles by id (rendered too, so they count).
        letters_per_token: the endpoint's, for letters outside ASCII (``estimate_tokens``).

    Returns:
        The chunks, in order; an empty list for no messages.
    """
    chunks: list[list[Message]] = []
    current: list[Message] = []
    used = 0
    written: datetime | None = None  # the last time written in the current chunk
    for message in messages:
        cost = _cost(
            message, with_time=with_time, topics=topics, previous=written, rate=letters_per_token
        )
        if current and used + cost > budget_tokens:
            chunks.append(current)
            # The first message of a chunk carries its full time: priced again.
            current, used, written = [], 0, None
            cost = _cost(
                message, with_time=with_time, topics=topics, previous=None, rate=letters_per_token
            )
        if time_text(message.posted_at, written) is not None:
            written = message.posted_at
        current.append(message)
        used += cost
    if current:
        chunks.append(current)
    return chunks


def _cost(
    message: Message,
    *,
    with_time: bool,
    topics: Mapping[int, str] | None,
    previous: datetime | None,
    rate: float = 1.0,
) -> int:
    rendered = render_message(message, with_time=with_time, topics=topics, previous=previous)
    return estimate_tokens(rendered, letters_per_token=rate) + _ELEMENT_OVERHEAD_TOKENS


def render_chunk(
    messages: Sequence[Message], *, with_time: bool, topics: Mapping[int, str] | None = None
) -> str:
    """A chunk's messages as newline-separated ``<message>`` elements, times written as
    ``time_text`` says."""
    lines = []
    written: datetime | None = None
    for message in messages:
        lines.append(render_message(message, with_time=with_time, topics=topics, previous=written))
        if time_text(message.posted_at, written) is not None:
            written = message.posted_at
    return "\n".join(lines)
