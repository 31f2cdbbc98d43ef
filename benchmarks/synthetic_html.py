"""Telegram Desktop HTML exports of JSON-shaped chats, as the exporter writes them.

``write_html(folder, chat)`` renders a JSON-shaped chat (``export_builders.chat``) the
way Telegram Desktop's HTML exporter (``export_output_html.cpp``) writes the same chat:
pages of ``per_page`` messages (``messages.html``, ``messages2.html`` …) linked by
"Previous/Next messages"; a date separator (a service block with a negative id) at
each new day and at the top of each page; ``message default clearfix`` blocks that are
``joined`` (no userpic, no ``from_name``) when the same sender writes again within 15
minutes on the same day with the same forward origin; the full date in the ``title`` of
``pull_right date details`` (``dd.MM.yyyy hh:mm:ss UTC+hh:mm``, or without the offset as
older versions wrote it); replies as ``#go_to_message<id>`` links, into
``messagesN.html#go_to_message<id>`` for a message of an earlier page; forwarded
messages in a ``forwarded body`` with the origin's ``from_name`` and date span; media as
the exporter's ``media_wrap`` blocks with the "Not included" description; polls;
service messages as the exporter's English sentences; reactions as ``span.reaction``
with an emoji and a count, or userpics when every reactor is listed; inline bot buttons
as a ``bot_buttons_table`` after which, as in real exports, the message's ``div`` is
left unclosed (every later message of the page nests inside it).
Every text here is this project's own.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

NOT_INCLUDED = "Not included, change data exporting settings to download."
_JOIN_SECONDS = 900


def _e(text: str) -> str:
    """The exporter's SerializeString: escapes, and ``\\n`` as ``<br>``."""
    return html.escape(text, quote=True).replace("&#x27;", "&apos;").replace("\n", "<br>")


def _moment(raw: dict[str, Any]) -> tuple[datetime, datetime]:
    """(UTC moment, local time) of a JSON message."""
    local = datetime.fromisoformat(raw["date"])
    if "date_unixtime" in raw:
        return datetime.fromtimestamp(int(raw["date_unixtime"]), tz=UTC), local
    return local.replace(tzinfo=UTC), local


def _title(raw: dict[str, Any], with_offset: bool) -> str:
    moment, local = _moment(raw)
    text = local.strftime("%d.%m.%Y %H:%M:%S")
    if not with_offset:
        return text
    offset = local.replace(tzinfo=UTC) - moment
    sign = "-" if offset < timedelta(0) else "+"
    minutes = abs(int(offset.total_seconds())) // 60
    return f"{text} UTC{sign}{minutes // 60:02d}:{minutes % 60:02d}"


_ENTITY_HTML = {
    "link": '<a href="{body}">{body}</a>',
    "mention": '<a href="https://t.me/{tail}">{body}</a>',
    "email": '<a href="mailto:{body}">{body}</a>',
    "hashtag": '<a href="" onclick="return ShowHashtag(&quot;{tail}&quot;)">{body}</a>',
    "bold": "<strong>{body}</strong>",
    "italic": "<em>{body}</em>",
    "code": "<code>{body}</code>",
    "spoiler": (
        '<span class="spoiler hidden" onclick="ShowSpoiler(this)">'
        '<span aria-hidden="true">{body}</span></span>'
    ),
}
"""How the exporter writes each kind of text entity (``body``: its escaped text,
``tail``: that text without its ``@`` or ``#``); a text link also has its ``href``."""


def _entities(text: Any) -> str:
    if isinstance(text, str):
        return _e(text)
    out = []
    for part in text:
        if isinstance(part, str):
            out.append(_e(part))
            continue
        kind, body = part.get("type"), _e(part.get("text", ""))
        if kind == "text_link":
            out.append(f'<a href="{_e(part["href"])}">{body}</a>')
        else:
            template = _ENTITY_HTML.get(kind, "{body}")
            out.append(template.format(body=body, tail=body[1:]))
    return "".join(out)


class _Writer:
    """The exporter's HtmlContext: block tags on their own lines, indented by depth."""

    def __init__(self) -> None:
        self.out: list[str] = []
        self.depth = 0

    def push(self, tag: str, **attrs: str) -> None:
        inner = "".join(f' {k.rstrip("_")}="{_e(v)}"' for k, v in sorted(attrs.items()))
        self.out.append(f"\n{' ' * self.depth}<{tag}{inner}>\n")
        self.depth += 1

    def div(self, cls: str, **attrs: str) -> None:
        self.push("div", class_=cls, **attrs)

    def pop(self, tag: str = "div") -> None:
        self.depth -= 1
        self.out.append(f"\n{' ' * self.depth}</{tag}>\n")

    def raw(self, text: str) -> None:
        self.out.append(text)

    def leaf(self, cls: str, text: str, **attrs: str) -> None:
        self.div(cls, **attrs)
        self.raw(text)
        self.pop()


def _userpic(w: _Writer, name: str, size: int = 42) -> None:
    w.div(f"userpic userpic{len(name) % 8 + 1}", style=f"width: {size}px; height: {size}px")
    w.leaf("initials", _e(name[:1]), style=f"line-height: {size}px")
    w.pop()


def _names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def service_sentence(raw: dict[str, Any], channel: bool, link: str) -> str:
    """The exporter's sentence for a JSON service message."""
    actor = _e(raw.get("actor") or "Deleted")
    action, title = raw.get("action"), _e(raw.get("title", ""))
    members = [_e(m) for m in raw.get("members") or []]
    sentences = {
        "create_group": f"{actor} created group &laquo;{title}&raquo;",
        "create_channel": f"Channel &laquo;{title}&raquo; created",
        "edit_group_title": (
            f"Channel title changed to &laquo;{title}&raquo;"
            if channel
            else f"{actor} changed group title to &laquo;{title}&raquo;"
        ),
        "edit_group_photo": "Channel photo changed" if channel else f"{actor} changed group photo",
        "invite_members": f"{actor} invited {_names(members or ['Deleted Account'])}",
        "remove_members": f"{actor} removed {_names(members or ['Deleted Account'])}",
        "join_group_by_link": f"{actor} joined group by link from Deleted Account",
        "migrate_from_group": (
            f"{actor} converted a basic group to this supergroup &laquo;{title}&raquo;"
        ),
        "pin_message": f"{actor} pinned {link}",
        "topic_created": f"{actor} created topic &laquo;{title}&raquo;",
        "group_call": f"{actor} started voice chat",
        "joined_telegram": f"{actor} joined Telegram",
    }
    return sentences[str(action)]


def _media(w: _Writer, raw: dict[str, Any]) -> None:
    if "poll" in raw:
        poll = raw["poll"]
        w.div("media_wrap clearfix")
        w.div("media_poll")
        w.leaf("question bold", _e(poll["question"]))
        w.leaf("details", "Anonymous poll")
        for answer in poll["answers"]:
            votes = answer.get("voters", 0)
            shown = f' <span class="details">{votes} votes</span>' if votes else ""
            w.leaf("answer", f"- {_e(answer['text'])}{shown}")
        w.leaf("total details\t", "No votes")
        w.pop()
        w.pop()
        return
    kind = raw.get("media_type")
    if "photo" in raw:
        title, cls, status = "Photo", "media_photo", "1280x960, 120.5 KB"
    elif kind == "sticker":
        title, cls, status = "Sticker", "media_photo", f"{raw.get('sticker_emoji', '')}, 24.1 KB"
    elif kind == "voice_message":
        title, cls, status = "Voice message", "media_voice_message", "00:07, 15.2 KB"
    elif kind == "video_message":
        title, cls, status = "Video message", "media_video", "00:11, 1.1 MB"
    elif kind == "animation":
        title, cls, status = "Animation", "media_video", "300.0 KB"
    elif "contact_information" in raw:
        info = raw["contact_information"]
        title, cls = f"{info['first_name']} {info.get('last_name', '')}", "media_contact"
        status = info.get("phone_number", "")
    elif "place_name" in raw:
        title, cls, status = raw["place_name"], "media_venue", ""
    elif "file" in raw:
        title, cls, status = raw.get("file_name") or "File", "media_file", "52.0 KB"
    else:
        return
    w.div("media_wrap clearfix")
    w.div(f"media clearfix pull_left {cls}")
    w.leaf("fill pull_left", "")
    w.div("body")
    w.leaf("title bold", _e(title))
    if "place_name" in raw:
        w.leaf("description", _e(raw.get("address", "")))
    else:
        w.leaf("description", NOT_INCLUDED)
    if status:
        w.leaf("status details", _e(status))
    w.pop()
    w.pop()
    w.pop()


def _reactions(w: _Writer, reactions: list[dict[str, Any]]) -> None:
    w.div("reactions")
    for reaction in reactions:
        paid = reaction.get("type") == "paid"
        w.push("span", class_="reaction paid" if paid else "reaction")
        w.push("span", class_="emoji")
        w.raw("⭐" if paid else _e(reaction["emoji"]))
        w.pop("span")
        recent = reaction.get("recent") or []
        if recent:
            w.push("span", class_="userpics")
            for entry in recent:
                _userpic(w, entry["from"], 20)
            w.pop("span")
        if not recent or reaction["count"] > len(recent):
            w.push("span", class_="count")
            w.raw(str(reaction["count"]))
            w.pop("span")
        w.pop("span")
    w.pop()


def _page_name(index: int) -> str:
    return "messages.html" if index == 0 else f"messages{index + 1}.html"


def render_pages(
    chat: dict[str, Any], *, per_page: int = 1000, with_offset: bool = True
) -> list[tuple[str, str]]:
    """``(file name, html)`` of each page of ``chat`` (a JSON-shaped single chat)."""
    channel = chat["type"] in ("public_channel", "private_channel")
    messages = [m for m in chat["messages"] if m.get("type") != "unsupported"]
    last_ids: list[int] = []  # the last message id of each finished page
    pages: list[tuple[str, str]] = []
    date_id = 0
    for start in range(0, max(len(messages), 1), per_page):
        index = start // per_page
        w = _Writer()
        w.raw("<!DOCTYPE html>")
        w.push("html")
        w.push("head")
        w.raw('<meta charset="utf-8"/>\n<title>Exported Data</title>\n')
        w.pop("head")
        w.push("body", onload="CheckLocation();")
        w.div("page_wrap")
        w.div("page_header")
        w.div("content")
        w.leaf("text bold", _e(f"{chat['name']} "))
        w.pop()
        w.pop()
        w.div("page_body chat_page")
        w.div("history")
        if index:
            w.push("a", class_="pagination block_link", href=_page_name(index - 1))
            w.raw("Previous messages")
            w.pop("a")
        previous: dict[str, Any] | None = None
        for raw in messages[start : start + per_page]:
            local = _moment(raw)[1]
            if previous is None or _moment(previous)[1].date() != local.date():
                date_id -= 1
                w.div("message service", id=f"message{date_id}")
                w.leaf("body details", f"{local.day} {local.strftime('%B')} {local.year}")
                w.pop()

            def link(target: int, text: str) -> str:
                page = next((i for i, last in enumerate(last_ids) if target <= last), None)
                if page is None:
                    return (
                        f'<a href="#go_to_message{target}" '
                        f'onclick="return GoToMessage({target})">{text}</a>'
                    )
                return f'<a href="{_page_name(page)}#go_to_message{target}">{text}</a>'

            if raw.get("type") == "service":
                w.div("message service", id=f"message{raw['id']}")
                sentence = service_sentence(
                    raw, channel, link(raw.get("message_id", 0), "this message")
                )
                w.leaf("body details", sentence)
                w.pop()
                previous = raw
                continue
            _message(w, raw, previous, channel, link, with_offset)
            previous = raw
        last_ids.append(messages[min(start + per_page, len(messages)) - 1]["id"])
        if start + per_page < len(messages):
            w.push("a", class_="pagination block_link", href=_page_name(index + 1))
            w.raw("Next messages")
            w.pop("a")
        while w.depth:
            w.pop("div" if w.depth > 2 else ("body" if w.depth == 2 else "html"))
        pages.append((_page_name(index), "".join(w.out)))
    return pages


def _joined(raw: dict[str, Any], previous: dict[str, Any] | None) -> bool:
    if previous is None or previous.get("type") == "service":
        return False
    if raw.get("from_id") != previous.get("from_id") or raw.get("from") != previous.get("from"):
        return False
    (now, local), (then, before) = _moment(raw), _moment(previous)
    if local.date() != before.date():
        return False
    if raw.get("forwarded_from") != previous.get("forwarded_from"):
        return False
    limit = 1 if raw.get("forwarded_from") else _JOIN_SECONDS
    return abs((now - then).total_seconds()) <= limit


def _message(
    w: _Writer,
    raw: dict[str, Any],
    previous: dict[str, Any] | None,
    channel: bool,
    link: Any,
    with_offset: bool,
) -> None:
    joined = _joined(raw, previous)
    cls = "message default clearfix joined" if joined else "message default clearfix"
    w.div(cls, id=f"message{raw['id']}")
    name = raw.get("from") or "Deleted Account"
    if not joined:
        w.div("pull_left userpic_wrap")
        _userpic(w, name)
        w.pop()
    w.div("body")
    w.leaf(
        "pull_right date details", _moment(raw)[1].strftime("%H:%M"), title=_title(raw, with_offset)
    )
    if not joined:
        w.leaf("from_name", _e(f"{name} "))
    forwarded = raw.get("forwarded_from")
    if forwarded is not None:
        w.div("pull_left forwarded userpic_wrap")
        _userpic(w, forwarded)
        w.pop()
        w.div("forwarded body")
        w.div("from_name")
        stamp = _title(raw, True)
        w.raw(f'{_e(forwarded)}<span class="date details" title="{stamp}"> {stamp[:19]}</span>')
        w.pop()
    if "reply_to_message_id" in raw:
        w.div("reply_to details")
        if raw.get("reply_to_peer_id"):
            w.raw("In reply to a message in another chat")
        else:
            w.raw("In reply to " + link(raw["reply_to_message_id"], "this message"))
        w.pop()
    _media(w, raw)
    text = _entities(raw.get("text") or "")
    if text:
        w.leaf("text", text)
    if forwarded is not None:
        w.pop()
    if raw.get("reactions"):
        _reactions(w, raw["reactions"])
    if raw.get("inline_bot_buttons"):
        _bot_buttons(w, raw["inline_bot_buttons"])
        w.pop()  # the body; the exporter leaves the message's own div open after buttons
        return
    w.pop()
    w.pop()


def _bot_buttons(w: _Writer, rows: list[list[dict[str, Any]]]) -> None:
    """Inline bot buttons as the exporter writes them: a ``bot_buttons_table``."""
    w.push("table", class_="bot_buttons_table")
    w.push("tbody")
    for row in rows:
        w.push("tr")
        w.push("td", class_="bot_button_row")
        for button in row:
            w.div("bot_button")
            w.push("a", href=str(button.get("data", "")))
            w.push("div")
            w.raw(_e(str(button.get("text", ""))))
            w.pop()
            w.pop("a")
            w.pop()
        w.pop("td")
        w.pop("tr")
    w.pop("tbody")
    w.pop("table")


def write_html(
    folder: Path, chat: dict[str, Any], *, per_page: int = 1000, with_offset: bool = True
) -> Path:
    """Write ``chat``'s pages into ``folder`` (created); return the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, page in render_pages(chat, per_page=per_page, with_offset=with_offset):
        (folder / name).write_text(page, encoding="utf-8")
    return folder


def pages_of(folder: Path) -> Iterable[Path]:
    """The pages written into ``folder``, in order."""
    return sorted(folder.glob("messages*.html"), key=lambda p: (len(p.name), p.name))
