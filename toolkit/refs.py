"""Parse and normalise source references; build message links (DESIGN.md §3).

Accepted forms (scheme optional, ``www.`` optional, query and fragment ignored)::

    @handle            handle                      tg://resolve?domain=handle[&post=N]
    t.me/handle        t.me/s/handle               t.me/handle/123
    t.me/handle/<topic>/<id>                       handle.t.me[/123]
    telegram.me/...    telegram.dog/...            (same paths as t.me)
    t.me/c/<internal id>[/<id> | /<topic>/<id>]    private sources
    c/<internal id>[/...]                          the canonical key listings print

A three-part path names a forum topic and a message in it (``SourceRef.topic_id``).

Handles are 5–32 characters of ``[A-Za-z0-9_]`` and case-insensitive (kept in lower
case). Invite links (``t.me/+hash``, ``t.me/joinchat/hash``) name no source a reader
can resolve without joining, so they are rejected with a clear ``InvalidSourceRef``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

from toolkit.errors import InvalidSourceRef, quoted
from toolkit.models import GENERAL_TOPIC, Source, SourceRef

if TYPE_CHECKING:
    from toolkit.store.base import SourceStore

SourceArg = str | SourceRef | Source
"""A source as callers name it: reference text, a parsed ``SourceRef``, or the ``Source``."""

HANDLE_RE = re.compile(r"^[A-Za-z0-9_]{5,32}$")
_HOSTS = {"t.me", "telegram.me", "telegram.dog"}
# First path segments of t.me that are site features, not source handles.
_RESERVED = {
    "addemoji",
    "addlist",
    "addstickers",
    "addtheme",
    "bg",
    "boost",
    "confirmphone",
    "contact",
    "giftcode",
    "invoice",
    "iv",
    "login",
    "proxy",
    "setlanguage",
    "share",
    "socks",
}
_MAX_LEN = 512


def _handle(value: str, raw: str) -> str:
    if not HANDLE_RE.fullmatch(value):  # fullmatch: "$" alone lets a final newline in
        if len(value) < 5 or len(value) > 32:
            reason = f"a handle has 5 to 32 characters, {quoted(value)} has {len(value)}"
        else:
            reason = f"a handle uses only letters, digits and '_', not {quoted(value)}"
        raise InvalidSourceRef(raw, reason)
    return value.lower()


def _int(value: str, raw: str, what: str) -> int:
    # ASCII only: str.isdigit() also takes "²" and other digits int() refuses.
    if not (value.isascii() and value.isdigit()) or len(value) > 19:
        raise InvalidSourceRef(raw, f"{what} must be a positive number, not {quoted(value)}")
    number = int(value)
    if number <= 0:
        raise InvalidSourceRef(raw, f"{what} must be a positive number, not {quoted(value)}")
    return number


def _message_id(rest: list[str], raw: str) -> tuple[int | None, int | None]:
    """``(topic id, message id)`` from what follows the source in a path: ``[]``,
    ``[id]``, ``[topic, id]`` (a forum topic's message link)."""
    if not rest:
        return None, None
    if len(rest) > 2:
        raise InvalidSourceRef(raw, "too many path segments after the source")
    topic = _int(rest[0], raw, "a topic id") if len(rest) == 2 else None
    return topic, _int(rest[-1], raw, "a message id")


def _from_path(segments: list[str], raw: str) -> SourceRef:
    if not segments:
        raise InvalidSourceRef(raw, "the link names no source")
    head = segments[0]
    if head.startswith("+") or head.lower() == "joinchat":
        raise InvalidSourceRef(
            raw, "invite links cannot be resolved; use the source's public handle or t.me/c/<id>"
        )
    if head.lower() == "c":
        if len(segments) < 2:
            raise InvalidSourceRef(
                raw, "a private link needs an internal id: t.me/c/<id>/<message>"
            )
        internal = _int(segments[1], raw, "a private source id")
        topic, message = _message_id(segments[2:], raw)
        return SourceRef(raw=raw, internal_id=internal, message_id=message, topic_id=topic)
    if head.lower() == "s":
        segments = segments[1:]
        if not segments:
            raise InvalidSourceRef(raw, "t.me/s/ needs a handle after it")
        head = segments[0]
    if head.lower() in _RESERVED:
        raise InvalidSourceRef(raw, f"t.me/{head} is a site feature, not a chat or channel")
    topic, message = _message_id(segments[1:], raw)
    return SourceRef(raw=raw, handle=_handle(head, raw), message_id=message, topic_id=topic)


def parse_ref(raw: str) -> SourceRef:
    """Parse a source reference in any accepted form.

    Args:
        raw: the reference as a user gave it.

    Returns:
        A ``SourceRef`` whose ``raw`` is the input and whose ``key`` is canonical.

    Raises:
        InvalidSourceRef: for invite links and anything that names no valid source.
    """
    if not isinstance(raw, str):
        raise InvalidSourceRef(str(raw), "a source reference is text")
    text = raw.strip()
    if not text:
        raise InvalidSourceRef(raw, "the reference is empty")
    if len(text) > _MAX_LEN or any(ch.isspace() for ch in text):
        raise InvalidSourceRef(raw, "a reference is a handle or a link, without spaces")
    if text.startswith("+"):
        raise InvalidSourceRef(raw, "invite links cannot be resolved; use the public handle")
    if text.startswith("@"):
        return SourceRef(raw=raw, handle=_handle(text[1:], raw))
    if text.lower().startswith("tg://"):
        return _from_tg_scheme(text, raw)
    if text[:2].lower() == "c/":  # the key ``mlens sources`` and the app print
        return _from_path([part for part in text.split("/") if part], raw)
    if "/" not in text and "." not in text:
        return SourceRef(raw=raw, handle=_handle(text, raw))

    try:
        url = urlsplit(text if "://" in text else f"https://{text}")
    except ValueError as exc:  # "https://[t.me/abc": an unclosed IPv6 bracket, and the like
        raise InvalidSourceRef(raw, "not a link urllib can read") from exc
    if url.scheme.lower() not in {"http", "https"}:
        raise InvalidSourceRef(raw, f"unsupported scheme {url.scheme!r}")
    host = (url.hostname or "").lower().removeprefix("www.")
    segments = [part for part in url.path.split("/") if part]
    if host in _HOSTS:
        return _from_path(segments, raw)
    for base in _HOSTS:
        if host.endswith("." + base):
            sub = host[: -len(base) - 1]
            if "." in sub:
                break
            topic, message = _message_id(segments, raw)
            return SourceRef(raw=raw, handle=_handle(sub, raw), message_id=message, topic_id=topic)
    raise InvalidSourceRef(raw, f"{host or text!r} is not a t.me, telegram.me or telegram.dog link")


def _from_tg_scheme(text: str, raw: str) -> SourceRef:
    try:
        url = urlsplit(text)
    except ValueError as exc:
        raise InvalidSourceRef(raw, "not a link urllib can read") from exc
    params = parse_qs(url.query)
    if url.netloc.lower() == "resolve" and "domain" in params:
        post = params.get("post", [None])[0]
        return SourceRef(
            raw=raw,
            handle=_handle(params["domain"][0], raw),
            message_id=_int(post, raw, "a message id") if post else None,
        )
    if url.netloc.lower() == "privatepost" and "channel" in params:
        post = params.get("post", [None])[0]
        return SourceRef(
            raw=raw,
            internal_id=_int(params["channel"][0], raw, "a private source id"),
            message_id=_int(post, raw, "a message id") if post else None,
        )
    raise InvalidSourceRef(
        raw, "only tg://resolve?domain=... and tg://privatepost links name a source"
    )


def ref_topic(ref: str | SourceRef | Source) -> int | None:
    """The forum topic a reference points into (``t.me/c/<id>/<topic>/<msg>``), or ``None``.

    A reference that does not parse names no topic (the caller reports the bad ref).
    """
    if isinstance(ref, Source):
        return None
    if isinstance(ref, str):
        try:
            ref = parse_ref(ref)
        except InvalidSourceRef:
            return None
    return ref.topic_id


def message_link(
    source: Source | SourceRef, message_id: int | str, *, topic_id: int | None = None
) -> str:
    """The link of one message, or ``""`` where the messenger has none.

    ``t.me/<handle>/<id>`` for public sources, ``t.me/c/<internal id>/<id>`` for private
    supergroups and channels; a message in a forum topic other than General gets the
    topic form ``.../<topic>/<id>``. Personal, bot and saved-messages chats and basic
    groups have no message links, nor do negative ids (messages a group kept from before
    its migration to a supergroup): for them the link is the empty string, never a link
    that cannot open.
    """
    if int(message_id) <= 0 or (isinstance(source, Source) and not source.has_links):
        return ""
    topic = f"{topic_id}/" if topic_id is not None and topic_id != GENERAL_TOPIC else ""
    if source.handle is not None:
        return f"https://t.me/{source.handle}/{topic}{message_id}"
    if source.internal_id is None:
        raise ValueError("a source needs a handle or an internal id to have links")
    return f"https://t.me/c/{source.internal_id}/{topic}{message_id}"


def source_link(source: Source | SourceRef) -> str:
    """The public link of a source itself."""
    if source.handle is not None:
        return f"https://t.me/{source.handle}"
    return f"https://t.me/c/{source.internal_id}"


def resolve_source(store: SourceStore, ref: SourceArg) -> tuple[Source, SourceRef]:
    """The stored source a reference names, and the reference to echo in results.

    The one place a reference becomes a stored source (the workspace, search, summaries
    and the service all come here).

    Args:
        store: the store to look in.
        ref: any form ``parse_ref`` accepts (the canonical key ``c/<id>`` that
            listings print included); a parsed ``SourceRef``; or a ``Source`` (echoed
            as its key).

    Returns:
        The source, and a ``SourceRef`` whose ``raw`` is the caller's own text.

    Raises:
        InvalidSourceRef: text that names no valid source.
        SourceNotFound: no such source in the store.
    """
    if isinstance(ref, Source):
        return ref, SourceRef(raw=ref.key, handle=ref.handle, internal_id=ref.internal_id)
    if isinstance(ref, str):
        ref = parse_ref(ref)
    return store.get_source(ref), ref
