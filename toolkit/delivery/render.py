"""A digest (or an alert's post) as people read it: plain text (e-mail), HTML (e-mail,
the feed) and the Telegram messages it takes (HTML parse mode, each within the
platform's limit).

The digest is cut into blocks (the heading, the summary, each section) and a message
holds whole blocks while they fit; a block longer than a message is cut between its
lines, and a line longer than that between words. Links stay whole, as text: the Bot
API and mail readers make them clickable, the HTML here makes them anchors. Every
character of the digest is escaped for the markup it goes into.
"""

from __future__ import annotations

import html
import re

from toolkit.delivery.digest import Post

TELEGRAM_LIMIT = 4096
"""Characters (UTF-16 code units) of one Bot API message."""
_URL = re.compile(r"https?://[^\s()<>\"]+[^\s()<>\".,;:!?]")


def blocks(digest: Post) -> list[tuple[str, str]]:
    """``(title, text)`` blocks of a digest or an alert's post (``Post.blocks``)."""
    return digest.blocks()


def plain_text(digest: Post) -> str:
    """The digest as plain text."""
    return "\n\n".join(f"{title}\n{text}" for title, text in blocks(digest)) + "\n"


def _linked(text: str) -> str:
    """``text`` escaped for HTML, its URLs made anchors."""
    out, last = [], 0
    for found in _URL.finditer(text):
        out.append(html.escape(text[last : found.start()]))
        url = html.escape(found.group(0))
        out.append(f'<a href="{url}">{url}</a>')
        last = found.end()
    out.append(html.escape(text[last:]))
    return "".join(out)


def html_body(digest: Post) -> str:
    """The digest as an HTML fragment: a heading and a paragraph per block."""
    parts = []
    for level, (title, text) in enumerate(blocks(digest)):
        tag = "h2" if level == 0 else "h3"
        lines = "<br>\n".join(_linked(line) for line in text.splitlines())
        parts.append(f"<{tag}>{html.escape(title)}</{tag}>\n<p>{lines}</p>")
    return "\n".join(parts)


def html_document(digest: Post) -> str:
    """The digest as a whole HTML page (an e-mail's HTML part)."""
    title = html.escape(digest.title())
    return (
        f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{title}</title></head>'
        f"<body>\n{html_body(digest)}\n</body></html>\n"
    )


def _units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _cut_line(line: str, limit: int) -> list[str]:
    """A line too long for one message, cut between words (inside a word only when one
    word is longer than a message), each piece escaped within ``limit``."""
    pieces: list[str] = []
    current = ""
    for word in re.split(r"(?<=\s)", line):
        if _units(html.escape(current + word)) <= limit:
            current += word
            continue
        if current:
            pieces.append(html.escape(current))
        current = word
        while _units(html.escape(current)) > limit:
            cut = limit
            while _units(html.escape(current[:cut])) > limit:
                cut -= 1
            pieces.append(html.escape(current[:cut]))
            current = current[cut:]
    if current:
        pieces.append(html.escape(current))
    return pieces


def _block_lines(title: str, text: str, limit: int) -> list[str]:
    """A block's lines as Telegram HTML, each within ``limit``: the title in bold."""
    lines = [f"<b>{html.escape(title)}</b>"] if title else []
    for line in text.splitlines():
        lines += (
            _cut_line(line, limit) if _units(html.escape(line)) > limit else [html.escape(line)]
        )
    return lines


def telegram_messages(digest: Post, limit: int = TELEGRAM_LIMIT) -> list[str]:
    """The digest as Bot API messages (``parse_mode=HTML``), each at most ``limit``
    characters, split between sections where it can, else between lines."""
    messages: list[str] = []
    current = ""
    for title, text in blocks(digest):
        block = "\n".join(_block_lines(title, text, limit))
        joined = f"{current}\n\n{block}" if current else block
        if _units(joined) <= limit:
            current = joined
            continue
        if current:
            messages.append(current)
            current = ""
        for line in block.split("\n"):
            joined = f"{current}\n{line}" if current else line
            if _units(joined) <= limit:
                current = joined
            else:
                messages.append(current)
                current = line
    if current:
        messages.append(current)
    return messages
