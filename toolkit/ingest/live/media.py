"""What a live message's attachment is, and a short text for one without a caption.

The same conventions as the export importer (``export_text.media_text``): the kind is
named as Telegram Desktop's export names it, and a captionless attachment reads as
``[sticker] 😀``, ``[contact] Ann Lee``, ``[venue] Cafe, 1 Main St``, ``[file] a.pdf``.
"""

from __future__ import annotations

import re
from typing import Any

from telethon.tl import types as tl


def _words(camel: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", " ", camel).lower().replace(" ", "_")


def _document_kind(document: Any) -> str:
    attributes = getattr(document, "attributes", None) or []
    for attr in attributes:
        if isinstance(attr, tl.DocumentAttributeSticker):
            return "sticker"
    for attr in attributes:
        if isinstance(attr, tl.DocumentAttributeAnimated):
            return "animation"
    for attr in attributes:
        if isinstance(attr, tl.DocumentAttributeVideo):
            return "video_message" if attr.round_message else "video_file"
        if isinstance(attr, tl.DocumentAttributeAudio):
            return "voice_message" if attr.voice else "audio_file"
    return "file"


_MEDIA_KIND: tuple[tuple[type[Any], str], ...] = (
    (tl.MessageMediaPhoto, "photo"),
    (tl.MessageMediaVenue, "venue"),
    (tl.MessageMediaGeoLive, "live_location"),
    (tl.MessageMediaGeo, "location"),
    (tl.MessageMediaContact, "contact"),
    (tl.MessageMediaPoll, "poll"),
    (tl.MessageMediaDice, "dice"),
    (tl.MessageMediaGame, "game"),
    (tl.MessageMediaInvoice, "invoice"),
    (tl.MessageMediaStory, "story"),
)


def media_kind(media: Any) -> str | None:
    """The attachment kind (``photo``, ``video_file``, ``poll`` …) or ``None`` for none.

    A link preview (``MessageMediaWebPage``) is not an attachment: the link is in the text.
    """
    if media is None or isinstance(media, tl.MessageMediaEmpty | tl.MessageMediaWebPage):
        return None
    if isinstance(media, tl.MessageMediaDocument):
        return _document_kind(media.document)
    for kind, name in _MEDIA_KIND:
        if isinstance(media, kind):
            return name
    # Kinds newer than this table (giveaways, paid media …) still mark the message.
    return _words(type(media).__name__.removeprefix("MessageMedia"))


def _attr(media: Any, kind: type[Any]) -> Any:
    document = getattr(media, "document", None)
    for attr in getattr(document, "attributes", None) or []:
        if isinstance(attr, kind):
            return attr
    return None


def _join(*parts: Any, sep: str = ", ") -> str:
    return sep.join(str(p).strip() for p in parts if p and str(p).strip())


def _body(media: Any, kind: str) -> str:
    if kind == "sticker":
        return str(getattr(_attr(media, tl.DocumentAttributeSticker), "alt", "") or "")
    if isinstance(media, tl.MessageMediaContact):
        return _join(media.first_name, media.last_name, sep=" ")
    if isinstance(media, tl.MessageMediaVenue):
        return _join(media.title, media.address)
    if isinstance(media, tl.MessageMediaGame):
        return str(media.game.title or "")
    if isinstance(media, tl.MessageMediaPoll):
        question = media.poll.question
        return str(getattr(question, "text", question) or "")
    name = str(getattr(_attr(media, tl.DocumentAttributeFilename), "file_name", "") or "")
    if kind == "audio_file":
        audio = _attr(media, tl.DocumentAttributeAudio)
        song = _join(getattr(audio, "performer", None), getattr(audio, "title", None), sep=" — ")
        return _join(song, name)
    return name if kind in {"file", "video_file"} else ""


def media_text(message: Any) -> str:
    """A short text form of a captionless attachment, or ``""`` when it says nothing."""
    media = getattr(message, "media", None)
    kind = media_kind(media)
    if kind is None:
        return ""
    body = _body(media, kind)
    if not body or kind == "poll":
        return body
    return f"[{kind.replace('_', ' ')}] {body}"
