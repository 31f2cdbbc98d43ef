"""Control characters in text: cleaned once on the way into a store, shown on the way out.

**Cleaning** (``clean_text``, ``clean_message``) happens at import (exports, live sync)
and in ``copy-store``, the same way for SQLite and PostgreSQL, so that both stores hold
the same characters (PostgreSQL refuses NUL in text; neither driver can encode a lone
surrogate). The rule:

- tab and newline are kept; CR LF and a lone CR become a newline;
- every other C0 control (NUL and ESC included), DEL and the C1 controls are removed;
- a lone UTF-16 surrogate (half of an emoji, cut) and the non-characters U+FFFE and
  U+FFFF become U+FFFD (the replacement character); a surrogate pair that arrives as two
  code points is joined into its character.

**Showing** (``visible``) is for terminals: text from messages, titles and names must not
drive the terminal, so each remaining control character is shown as a glyph: C0 as its
Unicode control picture (ESC as ``␛``), DEL as ``␡``; C1 controls, bidirectional
overrides and lone surrogates as ``\\x9b`` / ``\\u202e`` escapes.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from toolkit.models import Message, reaction_counts

_SURROGATES = re.compile("[\ud800-\udfff]")
_TO_REMOVE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_NEEDS_CLEANING = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
_NONCHARACTERS = str.maketrans({"\ufffe": "\ufffd", "\uffff": "\ufffd"})

# Shown as escapes: C1 controls, lone surrogates, and the format characters that
# reorder or hide text on a terminal (bidirectional embeddings, overrides, isolates).
_SHOWN_ESCAPED = re.compile("[\x80-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069]")
_SHOWN_PICTURE = re.compile("[\x00-\x08\x0b-\x1f\x7f]")


def _join_surrogates(text: str) -> str:
    # Pairs written as two code points become one character; lone halves become U+FFFD.
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def clean_text(text: str) -> str:
    """``text`` as every store keeps it (see the module docstring); the same object when
    nothing needs cleaning, so ``clean_text(t) is not t`` says whether it changed."""
    if _NEEDS_CLEANING.search(text) is None:
        return text
    out = text.replace("\r\n", "\n").replace("\r", "\n")
    out = _TO_REMOVE.sub("", out).translate(_NONCHARACTERS)
    if _SURROGATES.search(out):
        out = _join_surrogates(out)
    return out


def clean_optional(text: str | None) -> str | None:
    """``clean_text`` for a value that may be ``None``."""
    return None if text is None else clean_text(text)


def clean_message(message: Message) -> Message:
    """The message with its text, sender, media, forward fields and reaction keys
    cleaned; the same object when nothing changed."""
    # One search over every field: a clean message (nearly all) costs one regex scan.
    probe = "".join(
        (
            message.text,
            message.sender_peer_id or "",
            message.sender_name or "",
            message.media or "",
            message.forwarded_from or "",
        )
    )
    if message.reactions:  # most messages have none: no generator for them
        probe += "".join(key for key, _ in message.reactions)
    # Every character cleaning touches is unprintable (a control, a surrogate, a
    # non-character): a printable probe, scanned in C without the regex engine, is clean.
    if probe.isprintable() or _NEEDS_CLEANING.search(probe) is None:
        return message
    fields: dict[str, str | None] = {
        "text": message.text,
        "sender_peer_id": message.sender_peer_id,
        "sender_name": message.sender_name,
        "media": message.media,
        "forwarded_from": message.forwarded_from,
    }
    changed: dict[str, Any] = {
        name: cleaned
        for name, value in fields.items()
        if value is not None and (cleaned := clean_text(value)) is not value
    }
    reactions = reaction_counts((clean_text(key), count) for key, count in message.reactions)
    if reactions != message.reactions:
        changed["reactions"] = reactions
    return replace(message, **changed) if changed else message


def _picture(match: re.Match[str]) -> str:
    code = ord(match.group())
    return "\u2421" if code == 0x7F else chr(0x2400 + code)


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def visible(text: str, *, one_line: bool = False) -> str:
    """``text`` with every control character shown as a glyph or escape, never obeyed.

    Args:
        text: text from a message, a title, a name.
        one_line: show newlines as ``␤`` too (for text inside a one-line message).
    """
    out = _SHOWN_ESCAPED.sub(_escaped, _SHOWN_PICTURE.sub(_picture, text))
    return out.replace("\n", "\u2424") if one_line else out
