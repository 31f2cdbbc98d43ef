"""Read a Telegram Desktop HTML export ("Export chat history" → format HTML, the default).

Telegram Desktop writes a chat as pages of at most 1,000 messages (``messages.html``,
``messages2.html`` …) in one folder; a full-account export puts each chat in
``chats/chat_NNN/`` and lists them in ``lists/chats.html``. ``read_chat_pages`` streams a
chat's pages in order with lxml's ``iterparse`` (libxml2's HTML parser: fast, lenient with
what browsers accept, bounded by libxml2's own depth and text-node limits, and every
finished message element is freed, so memory stays flat however many pages). Each
message becomes the dict the JSON export would hold for it (``id``, ``date`` /
``date_unixtime``, ``from``, ``text``, ``reply_to_message_id``, ``forwarded_from``,
media fields, ``reactions``, service ``actor``/``action``), which the JSON path then
converts (``export_messages.to_message``): one conversion, so both formats store the same.

What the HTML export shows, and how it is read (quirks of ``export_output_html.cpp``):

- ``div.message.default`` has ``id="message123"``; a ``joined`` one has no ``from_name``:
  its sender is the previous message's (likewise a forwarded one's origin). A deleted
  account's name is shown as "Deleted Account" (the JSON export's ``from`` is null).
- ``div.pull_right.date.details`` holds the full time in ``title``:
  ``28.06.2019 21:52:20 UTC+03:00`` (any offset, ``+05:30``, ``-08:00``) or, in older
  versions, no offset: read as the JSON path reads a lone local ``date``.
- ``div.text``: entities as tags; a link whose address is not its text is a
  ``text_link`` (``the docs (https://…)``), ``<br>`` a line break.
- ``div.reply_to`` links ``#go_to_message5`` or ``messages2.html#go_to_message5`` (a
  reply into another page); "a message in another chat" is no reply here.
- ``div.forwarded.body`` holds the origin's ``from_name`` (with its date in a span), and
  the forwarded message's media and text.
- ``div.media_wrap``: "Not included, change data exporting settings to download."
  placeholders and included files alike, by their ``media_*`` class and title; polls.
- ``div.message.service`` with a negative id is a date separator; others are sentences
  read back into actions (``export_html_service``). They carry no time of their own:
  they get the previous message's (or the separator's day), said in the report.
- ``div.reactions`` / ``span.reaction``: an emoji and a count, or userpics (one each).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import IO, Any

from lxml import etree

from toolkit.ingest.export.html.blocks import Tally, is_block, streamed_blocks, whole_blocks
from toolkit.ingest.export.html.charset import Decoding, Utf8Stream, page_utf8
from toolkit.ingest.export.html.service import service_fields

PAGE_RE = re.compile(r"^messages(\d*)\.html$")
_DATE_RE = re.compile(
    r"(\d{1,2})\.(\d{1,2})\.(\d{4}) (\d{1,2}):(\d{2}):(\d{2})"
    r"(?:\s*UTC\s*([+-])(\d{1,2}):?(\d{2}))?"
)
_GO_TO = re.compile(r"go_to_message(-?\d+)")
_MESSAGE_ID = re.compile(r"^message(-?\d+)$")
_VIA = re.compile(r"\s+via @\w+$")


def _without_via(name: str) -> str:
    """``name`` without the exporter's `` via @bot`` (inline bots) at its end."""
    return _VIA.sub("", name) if "via @" in name else name


_MONTHS = {
    name: n
    for n, name in enumerate(
        [
            "January",
            "February",
            "March",
            "April",
            "May",
            "June",
            "July",
            "August",
            "September",
            "October",
            "November",
            "December",
        ],
        start=1,
    )
}
_DAY_RE = re.compile(r"^(\d{1,2}) ([A-Z][a-z]+) (\d{4})$")
_EPOCH = datetime(1970, 1, 1)
_DELETED = "Deleted Account"
_USERPIC = "pull_left userpic_wrap"
_DATE_CLASS = "pull_right date details"
_JOINED: Any = object()
"""Marks a message that names no sender (``from`` absent) while reading it."""
_UNSUPPORTED = "This message is not supported by this version of Telegram Desktop"
SYNTHETIC_BASE = 9_000_000_000_000
"""Chat ids an HTML export is stored under when nothing names its real id (they carry
none): above any id the messenger gives, derived from the chat's title."""

# The exporter's media_* class → the JSON export's media_type (None: keyed otherwise).
_GENERIC_MEDIA = {
    "media_voice_message": "voice_message",
    "media_audio_file": "audio_file",
    "media_contact": "contact",
    "media_location": "location",
    "media_live_location": "location",
    "media_venue": "venue",
    "media_game": "game",
    "media_invoice": "invoice",
    "media_file": "file",
}
_WRAPPED_MEDIA = {
    "photo_wrap": "photo",
    "sticker_wrap": "sticker",
    "animated_wrap": "animation",
    "video_file_wrap": "video_file",
}


def synthetic_chat_id(title: str) -> int:
    """The stable id an HTML-exported chat without a known id is stored under."""
    digest = hashlib.blake2b(title.strip().encode("utf-8"), digest_size=8).digest()
    return SYNTHETIC_BASE + int.from_bytes(digest, "big") % 10**12


def page_number(name: str) -> int | None:
    """1 for ``messages.html``, N for ``messagesN.html``; ``None`` for any other name."""
    match = PAGE_RE.match(name)
    if match is None:
        return None
    return int(match.group(1) or 1)


def _classes(el: Any) -> list[str]:
    value = el.get("class")
    return value.split() if value else []


def _is_text_link(text: str, href: str) -> bool:
    """Whether an ``<a>`` is a text link (its address not shown), not a url, mention,
    email, phone, hashtag, bot command or custom emoji, which show what they link."""
    if not href or ":" not in href:  # hashtags (href="" + onclick), custom emoji files
        return False
    if href == text or href in (f"mailto:{text}", f"tel:{text}"):
        return False
    return not (text.startswith("@") and href.rstrip("/").endswith("/" + text[1:]))


def _inline(el: Any, parts: list[str]) -> None:
    from toolkit.ingest.export.json.text import flatten_text

    if el.text:
        parts.append(el.text)
    for child in el:
        tag = child.tag
        if tag == "br":
            parts.append("\n")
        elif tag == "a":
            inner: list[str] = []
            _inline(child, inner)
            text = "".join(inner)
            href = (child.get("href") or "").strip()
            if _is_text_link(text, href):
                text = flatten_text([{"type": "text_link", "text": text, "href": href}])
            parts.append(text)
        elif isinstance(tag, str) and not (tag == "div" and is_block(child)):
            _inline(child, parts)  # a message nested in a text (an unclosed tag) is its own
        if child.tail:
            parts.append(child.tail)


def html_text(el: Any) -> str:
    """The text of an exporter's ``div.text`` (or any inline block) as the JSON holds it:
    the block's own line breaks around it dropped, ``<br>`` as ``\\n``."""
    if len(el) == 0:  # plain text, the most common: no tags inside
        text = el.text or ""
    else:
        parts: list[str] = []
        try:
            _inline(el, parts)
            text = "".join(parts)
        except RecursionError:  # tags nested deeper than Python recurses: read flat
            text = _flat(el)
    if text.startswith("\n"):
        text = text[1:]
    return _without_trailing_break(text) if "\n" in text else text


def _without_trailing_break(text: str) -> str:
    """``text`` without the exporter's line break (and indentation) at its end: what
    ``re.sub(r"\n *$", "", text)`` gives, told by two ``rstrip`` (this runs for nearly
    every message, and the regular expression costs a third of reading its text).

    That pattern removes a break followed by spaces to the end; and when the text ends
    in a break, that break, and the one before it if only spaces come between them."""
    body = text.rstrip(" ")
    if not body.endswith("\n"):
        return text
    if len(body) < len(text):  # spaces after the last break: only that break goes
        return body[:-1]
    head = body[:-1].rstrip(" ")
    return head[:-1] if head.endswith("\n") else body[:-1]


def _flat(el: Any) -> str:
    """The text of ``el`` read without recursion (``<br>`` as ``\\n``; no text links), not
    crossing into a message block nested inside it."""
    parts: list[str] = []
    skipping = 0
    for event, node in etree.iterwalk(el, events=("start", "end")):
        nested = node is not el and node.tag == "div" and is_block(node)
        if event == "start":
            skipping += nested
            if skipping or not isinstance(node.tag, str):
                continue
            parts.append("\n" if node.tag == "br" else node.text or "")
        else:
            skipping -= nested
            if not skipping and node is not el and node.tail:
                parts.append(node.tail)
    return "".join(parts)


def _text_of(el: Any) -> str:
    """The text inside ``el``: its own when it holds no tags (nearly always, and
    ``itertext`` costs ten times as much)."""
    return (el.text or "") if len(el) == 0 else "".join(el.itertext())


def _plain(el: Any) -> str:
    text = _text_of(el)
    return " ".join(text.split()) if text else ""


Offset = tuple[timedelta, datetime]
"""A title's UTC offset, and the naive local time the Unix epoch had at that offset: the
UTC moment of a local time ``t`` at the offset is then ``_UTC_EPOCH + (t - that)``, two
subtractions in C (this runs for every message)."""
_OFFSETS: dict[str, Offset] = {}
"""A title's `` UTC+hh:mm`` suffix → its ``Offset``."""
_DAYS: dict[str, str] = {}
"""A title's ``dd.MM.yyyy`` → its ISO ``yyyy-MM-ddT`` (a page's messages share a few days)."""
_MAX_DAYS = 4096
_SECOND = timedelta(seconds=1)
_UTC_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _offset(offset: timedelta) -> Offset:
    return offset, _EPOCH + offset


def _moment(local: datetime, offset: Offset) -> datetime | int:
    """The UTC moment of ``local`` at ``offset``, as the importer takes a
    ``date_unixtime``: the moment itself, read once here; the Unix seconds for a local
    time so near year 1 or 9999 that the moment overflows (the importer skips it as an
    impossible date)."""
    try:
        return _UTC_EPOCH + (local - offset[1])
    except OverflowError:
        return (local - _EPOCH) // _SECOND - offset[0] // _SECOND


def _digits_title(title: str) -> datetime | None:
    """The local time of a ``dd.MM.yyyy hh:mm:ss`` title read number by number."""
    try:
        return datetime(
            int(title[6:10]),
            int(title[3:5]),
            int(title[0:2]),
            int(title[11:13]),
            int(title[14:16]),
            int(title[17:19]),
        )
    except ValueError:
        return None


def _suffix_offset(suffix: str) -> Offset | None:
    """The ``Offset`` of a title's `` UTC+hh:mm`` suffix (``None``: no such suffix)."""
    known = _OFFSETS.get(suffix)
    if known is not None:
        return known
    if suffix[:4] != " UTC" or suffix[4] not in "+-" or suffix[7] != ":":
        return None
    offset = timedelta(hours=int(suffix[5:7]), minutes=int(suffix[8:10]))
    offset = -offset if suffix[4] == "-" else offset
    _OFFSETS[suffix] = known = _offset(offset)
    return known


def _fast_title(title: str) -> tuple[datetime, Offset | None] | None:
    """The exporter's exact forms (``dd.MM.yyyy hh:mm:ss``, `` UTC+hh:mm`` after it): the
    local time, and the ``Offset`` when the title gives one."""
    if len(title) not in (19, 29) or title[2] != "." or title[5] != "." or title[13] != ":":
        return None
    # Its parts moved into ISO order and read at once: digits in every place, as the
    # exporter writes them (anything else is read number by number, as it always was).
    local: datetime | None = None
    if title[10] == " " and title[16] == ":":
        day = _DAYS.get(title[:10])
        if day is None:
            if len(_DAYS) >= _MAX_DAYS:  # bounded, whatever a file holds
                _DAYS.clear()
            day = _DAYS[title[:10]] = f"{title[6:10]}-{title[3:5]}-{title[0:2]}T"
        try:
            local = datetime.fromisoformat(day + title[11:19])
        except ValueError:
            local = None
    if local is None or local.tzinfo is not None:
        local = _digits_title(title)
        if local is None:
            return None
    if len(title) == 19:
        return local, None
    suffix = title[19:]
    offset = _OFFSETS.get(suffix) or _suffix_offset(suffix)  # the call only for a new one
    return None if offset is None else (local, offset)


def parse_title_date(title: str) -> tuple[datetime, timedelta | None] | None:
    """``(local time, UTC offset or None)`` of a date ``title``; ``None`` if it is none."""
    read = _title_date(title)
    if read is None:
        return None
    return read[0], None if read[1] is None else read[1][0]


def _title_date(title: str) -> tuple[datetime, Offset | None] | None:
    """``parse_title_date``, with the whole ``Offset``."""
    fast = _fast_title(title)
    if fast is not None:
        return fast
    match = _DATE_RE.search(title)
    if match is None:
        return None
    day, month, year, hour, minute, second = (int(g) for g in match.groups()[:6])
    try:
        local = datetime(year, month, day, hour, minute, second)
    except ValueError:
        return None
    sign, oh, om = match.group(7), match.group(8), match.group(9)
    if sign is None:
        return local, None
    offset = timedelta(hours=int(oh), minutes=int(om))
    offset = -offset if sign == "-" else offset
    return local, _offset(offset)


def _date_fields(local: datetime, offset: Offset | None) -> dict[str, Any]:
    """A message's ``date`` and ``date_unixtime`` as the JSON export would mean them: the
    local time itself, and the UTC moment itself (``_moment``: what they read back to; no
    string is written to be parsed again)."""
    out: dict[str, Any] = {"date": local}
    if offset is not None:
        out["date_unixtime"] = _moment(local, offset)
    return out


@dataclass
class PageState:
    """What reading a chat's pages carries from one message (and page) to the next."""

    title: str | None = None
    sender: str | None = None
    forwarded_from: str | None = None
    local: datetime | None = None
    offset: Offset | None = None
    """The last UTC offset a message showed."""
    day: datetime | None = None
    senders: set[str] = field(default_factory=set)
    channel_signs: int = 0
    service_times: int = 0
    undated: int = 0
    messages: int = 0
    joined: int = 0
    deferred: list[tuple[dict[str, Any], Any]] | None = None
    """Messages of a page read whole that showed no reactions where the exporter puts
    them, with their blocks: searched at the end of the page only if it may hold
    reactions elsewhere (``None``: each such message is searched at once)."""
    reactions_met: int = 0
    """``div class="reactions"`` blocks met where the exporter puts them, on this page."""
    tally: Tally = field(default_factory=Tally)
    """The page's message blocks against what was read of them (a new one per page)."""
    separators: int = 0
    """Date separators read (service blocks with a negative id: never stored)."""
    decoding: Decoding = field(default_factory=Decoding)
    """How the page was decoded to UTF-8 (a new one per page: ``charset``)."""


def _media_fields(wrap: Any) -> dict[str, Any]:
    """The JSON export's media fields of a ``div.media_wrap``."""
    for el in wrap:
        if not isinstance(el.tag, str):
            continue
        classes = _classes(el)
        if "media_poll" in classes:
            return _poll(el)
        kind = next((_WRAPPED_MEDIA[c] for c in classes if c in _WRAPPED_MEDIA), None)
        if kind is not None:
            return _wrapped(kind, el.get("href") or "")
        if "media" in classes:
            return _generic(el, classes)
    return {}


def _wrapped(kind: str, href: str) -> dict[str, Any]:
    if kind == "photo":
        return {"photo": href}
    out: dict[str, Any] = {"file": href, "media_type": kind}
    if kind == "video_file" and href:
        out["file_name"] = href.rsplit("/", 1)[-1]
    return out


def _parts(el: Any) -> dict[str, str]:
    out: dict[str, str] = {}
    for body in el.iter("div"):
        classes = _classes(body)
        for key in ("title", "description", "status"):
            if key in classes:
                out[key] = _plain(body)
    return out


def _generic(el: Any, classes: list[str]) -> dict[str, Any]:
    parts = _parts(el)
    title, status, href = parts.get("title", ""), parts.get("status", ""), el.get("href") or ""
    if "media_call" in classes:
        return {"call": True}
    if "media_photo" in classes:
        if title == "Sticker":
            emoji = status.split(", ")[0] if ", " in status else status
            return {"media_type": "sticker", "sticker_emoji": emoji, "file": href}
        return {"photo": href or "(File not included.)"}
    if "media_video" in classes:
        kind = {"Animation": "animation", "Video message": "video_message"}.get(title, "video_file")
        out: dict[str, Any] = {"media_type": kind, "file": href}
        if kind == "video_file" and href:
            out["file_name"] = href.rsplit("/", 1)[-1]
        return out
    generic = next((_GENERIC_MEDIA[c] for c in classes if c in _GENERIC_MEDIA), None)
    return _generic_kind(generic, title, status, href, parts)


def _generic_kind(
    kind: str | None, title: str, status: str, href: str, parts: dict[str, str]
) -> dict[str, Any]:
    if kind == "voice_message":
        return {"media_type": kind, "file": href}
    if kind == "audio_file":
        performer, _, song = title.partition(" \u2013 ")
        return {"media_type": kind, "performer": performer if song else "", "title": song}
    if kind == "contact":
        return {"contact_information": {"first_name": title, "last_name": ""}}
    if kind == "location":
        lat, _, lon = status.partition(", ")
        info = {"latitude": lat, "longitude": lon} if lon else {}
        return {"location_information": info}
    if kind == "venue":
        return {"place_name": title, "address": parts.get("description", "")}
    if kind == "game":
        return {"game_title": title}
    if kind == "invoice":
        return {"invoice_information": {"title": title}}
    return {"file": href or "(File not included.)", "file_name": "" if title == "File" else title}


def _poll(el: Any) -> dict[str, Any]:
    question, answers = "", []
    for div in el:
        classes = _classes(div)
        if "question" in classes:
            question = _plain(div)
        elif "answer" in classes:
            text = (div.text or "").strip()
            answers.append({"text": text[2:] if text.startswith("- ") else text})
    return {"poll": {"question": question, "answers": answers}}


def _reactions(el: Any) -> list[dict[str, Any]]:
    out = []
    for reaction in el:
        classes = _classes(reaction)
        if "reaction" not in classes:
            continue
        emoji, count, pics = "", None, 0
        for part in reaction:
            kind = _classes(part)
            if "emoji" in kind:
                emoji = _text_of(part).strip()
            elif "count" in kind:
                digits = _text_of(part).strip().replace(",", "").replace(" ", "")
                count = int(digits) if digits.isdigit() else None
            elif "userpics" in kind:
                pics = sum(1 for pic in part if isinstance(pic.tag, str))
        number = count if count is not None else pics
        if "paid" in classes:
            out.append({"type": "paid", "count": number})
        elif emoji:
            out.append({"type": "emoji", "emoji": emoji, "count": number})
    return out


def _reply(el: Any) -> int | None:
    link = next(el.iterchildren("a"), None)  # ``find("a")``, without ElementPath's cost
    if link is None:
        return None  # "In reply to a message in another chat"
    match = _GO_TO.search(link.get("href") or "")
    return int(match.group(1)) if match else None


_BODY_PARTS = {
    "pull_right date details": "date",
    "from_name": "from_name",
    "forwarded body": "forwarded",
    "reply_to details": "reply_to",
    "media_wrap clearfix": "media",
    "text": "text",
    "reactions": "reactions",
}


def _part(cls: str | None) -> str | None:
    """Which part of a message body a block of class ``cls`` is (``None``: unread)."""
    if cls is None:
        return None
    exact = _BODY_PARTS.get(cls)
    if exact is not None:
        return exact
    classes = cls.split()  # another exporter version's order or extra classes
    if "date" in classes and "pull_right" in classes:
        return "date"
    if "forwarded" in classes and "body" in classes:
        return "forwarded"
    for name in ("from_name", "reply_to", "media_wrap", "text", "reactions"):
        if name in classes:
            return {"media_wrap": "media"}.get(name, name)
    return None


def _body_fields(body: Any, raw: dict[str, Any], state: PageState) -> None:
    """Fill ``raw`` from a message's ``div.body`` (or its ``div.forwarded.body``)."""
    for el in body:
        cls = el.get("class")
        # The exporter's own classes first, compared at once: every message has them.
        if cls == _DATE_CLASS:
            raw["_title"] = el.get("title") or ""
            continue
        if cls == "text":
            raw["text"] = html_text(el)
            continue
        if cls == "from_name" and "_in_forward" not in raw:
            name = _without_via(_plain(el))
            # The exporter's stand-in for an empty name; the JSON export says null.
            raw["from"] = None if name == _DELETED else name
            continue
        part = _BODY_PARTS.get(cls) if cls is not None else None
        if part is None:
            part = _part(cls)
            if part is None:
                continue
        if part == "date":
            raw["_title"] = el.get("title") or ""
        elif part == "text":
            raw["text"] = html_text(el)
        elif part == "from_name":
            if "_in_forward" in raw:
                span = el.find("span")
                name = (el.text or "").strip()
                raw["forwarded_from"] = _without_via(name) if name else _plain(el)
                if span is not None:
                    span.tail = None
            else:
                name = _without_via(_plain(el))
                # The exporter's stand-in for an empty name; the JSON export says null.
                raw["from"] = None if name == _DELETED else name
        elif part == "forwarded":
            raw["_in_forward"] = True
            _body_fields(el, raw, state)
            raw.setdefault("forwarded_from", state.forwarded_from or "a hidden sender")
        elif part == "reply_to":
            target = _reply(el)
            if target is not None:
                raw["reply_to_message_id"] = target
        elif part == "media":
            raw |= _media_fields(el)
        elif part == "reactions":
            raw["reactions"] = _reactions(el)
            state.reactions_met += cls == "reactions"


def _default(el: Any, cls: str, mid: int, state: PageState) -> dict[str, Any]:
    """The JSON export's dict of a ``div.message.default`` of class ``cls``."""
    raw: dict[str, Any] = {"id": mid, "type": "message"}
    for child in el:
        part = child.get("class")
        if part == "body":
            _body_fields(child, raw, state)
        elif part is None or part == _USERPIC:
            continue
        else:
            classes = part.split()
            if "body" in classes:
                _body_fields(child, raw, state)
            elif "reactions" in classes:
                raw["reactions"] = _reactions(child)
                state.reactions_met += part == "reactions"
    if "reactions" not in raw:  # wherever another version puts them
        if state.deferred is None:
            _search_reactions(raw, el)
        else:
            state.deferred.append((raw, el))
    parsed = _title_date(raw.pop("_title", ""))
    if parsed is None:
        raise ValueError("its date (div.pull_right.date.details title) is missing or unreadable")
    # ``_date_fields`` written out: this runs for every message of a page.
    state.local = local = raw["date"] = parsed[0]
    offset = parsed[1]
    if offset is not None:
        state.offset = offset
        raw["date_unixtime"] = _moment(local, offset)
    else:
        state.undated += 1
    raw.pop("_in_forward", None)
    sender = raw.get("from", _JOINED)
    if sender is _JOINED:  # a joined message: the previous one's sender
        raw["from"] = sender = state.sender
        state.joined += "joined" in cls
    state.sender = sender
    if "forwarded_from" in raw:
        state.forwarded_from = raw["forwarded_from"]
    if "text" not in raw:
        raw["text"] = ""
    if "call" in raw and raw.pop("call"):
        return {
            "id": mid,
            "type": "service",
            **{k: raw[k] for k in ("date", "date_unixtime") if k in raw},
            "actor": sender,
            "action": "phone_call",
        }
    if sender:
        state.senders.add(sender)
    return raw


def _service(el: Any, mid: int, state: PageState) -> dict[str, Any] | None:
    body = next((c for c in el if isinstance(c.tag, str) and "body" in _classes(c)), None)
    text = _plain(body) if body is not None else ""
    state.sender = state.forwarded_from = None  # the next message shows its sender again
    if mid < 0:
        state.separators += 1
        match = _DAY_RE.match(text)
        if match and match.group(2) in _MONTHS:
            state.day = datetime(int(match.group(3)), _MONTHS[match.group(2)], int(match.group(1)))
        return None
    if text.startswith(_UNSUPPORTED):
        return {"id": mid, "type": "unsupported"}
    link = body.find(".//a") if body is not None else None
    pinned = _GO_TO.search(link.get("href") or "") if link is not None else None
    fields = service_fields(
        text, chat_title=state.title or "", pinned=int(pinned.group(1)) if pinned else None
    )
    if fields.get("action") in ("create_channel", "edit_group_title") and fields["actor"] == (
        state.title or ""
    ):
        state.channel_signs += 1
    state.service_times += 1
    return {"id": mid, "type": "service", **fields}


def _message(el: Any, cls: str, state: PageState) -> dict[str, Any] | None:
    """The JSON export's dict of a message block ``el`` of class ``cls`` (``None``: a
    date separator)."""
    ident = el.get("id")
    match = _MESSAGE_ID.match(ident or "")
    if match is None:
        raise ValueError(f"a message block without a message id: {ident!r}")
    mid = int(match.group(1))
    if "service" in cls:
        return _service(el, mid, state)
    state.messages += 1
    return _default(el, cls, mid, state)


def _timed(waiting: list[dict[str, Any]], local: datetime, offset: Offset | None) -> None:
    for raw in waiting:
        raw |= _date_fields(local, offset)


MAX_PAGE_BYTES = 64 * 1024 * 1024
"""Pages up to this size (the exporter's 1,000 messages take a few MB) are parsed whole,
which is fastest; a larger one is streamed element by element."""
# Compiled once, evaluated by libxml2: the reactions blocks anywhere inside a message.
_ALL_REACTIONS = etree.XPath("descendant::*[@class='reactions']")
_REACTIONS_CLASS = b'class="reactions"'


def _search_reactions(raw: dict[str, Any], el: Any) -> None:
    """Read the first reactions block anywhere inside the message block ``el`` (not one
    of a message the markup nests inside it)."""
    for found in _ALL_REACTIONS(el):
        owner = next((a for a in found.iterancestors("div") if is_block(a)), None)
        if owner is el:
            raw["reactions"] = _reactions(found)
            return


def _all_met(data: bytes, state: PageState) -> bool:
    """Whether the page ``data`` holds no reactions block beyond those its messages
    showed where the exporter puts them (then no message needs searching).

    An element whose class is ``reactions`` has those letters in the page's bytes (no
    named entity writes an ASCII letter), unless a character reference (``&#``) does.
    When every ``reactions`` in the bytes is a ``class="reactions"`` and as many blocks of
    that class were met, every block of the page was met.
    """
    standard = data.count(_REACTIONS_CLASS)
    return (
        state.reactions_met == standard
        and data.count(b"reactions") == standard
        and b"&#" not in data
    )


def _header(el: Any, *, state: PageState) -> None:
    if state.title is None:
        name = el.find(".//div[@class='text bold']")
        if name is not None:
            state.title = _plain(name)


def read_page(
    stream: IO[bytes], state: PageState, size: int | None = None
) -> Iterator[dict[str, Any]]:
    """The messages of one page, in order, as JSON export dicts (memory stays bounded:
    one page at a time, or one message at a time for a page over ``MAX_PAGE_BYTES``).

    A service message, which shows no time, gets the time of the message before it on
    the same day, else of the next one, else the start of its day.

    A block that cannot be read (no id, no date, or never given by the parser) is named
    in ``state.tally`` (a new one per page), never dropped in silence. A page in another
    charset than UTF-8 is decoded first (``charset``: how, and any undecodable bytes, in
    ``state.decoding``).

    Raises:
        ValueError: service messages on a page with no dated message and no day.
    """
    state.local = None  # each page starts with its day; times do not carry over
    state.tally = Tally()
    header = partial(_header, state=state)
    if size is None or size > MAX_PAGE_BYTES:
        text = Utf8Stream(stream)
        state.decoding = text.decoding
        yield from _read_blocks(streamed_blocks(text, header, state.tally), state)  # type: ignore[arg-type]
        return
    data, state.decoding = page_utf8(_page_bytes(stream, size))
    state.deferred, state.reactions_met = [], 0
    read: list[dict[str, Any]] = []
    failure: Exception | None = None
    try:
        blocks = whole_blocks(data, header, state.tally)
        for raw in _read_blocks(iter(blocks), state):
            read.append(raw)
    except Exception as exc:  # the messages before it are given first, as when streamed
        failure = exc
    deferred, state.deferred = state.deferred, None
    if failure is not None or not _all_met(data, state):
        for raw, el in deferred:
            _search_reactions(raw, el)
    yield from read
    if failure is not None:
        raise failure


def _page_bytes(stream: IO[bytes], size: int) -> bytes:
    """The bytes of a page listed at ``size`` bytes, up to ``MAX_PAGE_BYTES + 1`` (a
    page that grew since is read on to that bound), without asking the file for a buffer
    of that bound at once (a 64 MiB allocation for every page)."""
    limit = MAX_PAGE_BYTES + 1
    data = stream.read(min(size + 1, limit))
    if len(data) == size + 1 and len(data) < limit:
        data += stream.read(limit - len(data))
    return data


def _read_blocks(blocks: Iterator[tuple[Any, str]], state: PageState) -> Iterator[dict[str, Any]]:
    """The messages of a page's message ``blocks`` (see ``read_page``)."""
    waiting: list[dict[str, Any]] = []  # service messages waiting for a time
    for el, cls in blocks:
        day = state.day
        try:
            raw = _message(el, cls, state)
        except ValueError as exc:  # named in the report; the page's other blocks are read
            state.tally.unreadable(el, str(exc))
            continue
        if raw is None:
            continue
        if raw["type"] == "service" and "date" not in raw:
            if state.local is not None and (day is None or state.local >= day):
                raw |= _date_fields(state.local, state.offset)
            else:
                waiting.append(raw)
                continue
        elif waiting:
            assert state.local is not None
            _timed(waiting, state.local, state.offset)
            yield from waiting
            waiting = []
        yield raw
    if waiting:
        if state.day is None:
            raise ValueError("service messages with no dated message or day on their page")
        _timed(waiting, state.day, state.offset)
        yield from waiting
