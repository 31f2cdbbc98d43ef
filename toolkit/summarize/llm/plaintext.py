"""The model's text as plain text: no markup, no entities, no link the model wrote.

A model repeats what the messages feed it, hostile markup included, and a face may show
its text as HTML. So every string of an answer goes through ``plain_text``, repeated
until it no longer changes (``<scr<b>ipt>`` loses ``<b>`` in one round and would be
``<script>`` after it):

1. entities are decoded and all markup removed by a kept sanitizer (``nh3``, Ammonia's
   HTML5 parser, with no tag allowed), so an unclosed ``<img onerror=…`` goes too;
2. chat-template tokens go (``<|im_start|>``, ``[INST]``, ``<<SYS>>``): no HTML parser
   sees them as tags, and a message that carries them tries to play a role;
3. markdown images go, markdown links keep their text only;
4. every URL goes: any ``scheme://…``, the schemes that run or carry content without
   ``//`` (``javascript:``, ``data:``, ``tg:`` …) and bare hosts (``evil.example/x``,
   ``phish.top``). The only links of a summary are the message links built in code
   from the ids the model cited, added after this.
"""

from __future__ import annotations

import html
import re

import nh3

from toolkit.summarize.personal import EMAIL_RE

MAX_ROUNDS = 8

_SCHEME_URL = r"[a-z][a-z0-9+.\-]{0,30}://\S*"
_BARE_SCHEMES = (
    "javascript|vbscript|livescript|data|blob|file|about|mailto|tel|sms|tg|intent|"
    "magnet|ms-[a-z-]+|chrome|jar|view-source|ws|wss|ftp|sftp|ssh|irc|xmpp|skype|viber|"
    "whatsapp|market|itms|steam|bitcoin|geo|callto|facetime"
)
_COMMON_TLDS = (
    "com|org|net|io|ru|me|dev|ai|app|info|co|uk|de|su|ua|by|kz|us|eu|fr|cn|jp|in|br|"
    "xyz|top|site|online|shop|store|biz|cc|tk|ml|ga|cf|gq|ly|gl|to|tv|ws|link|click|fun|"
    "live|tech|pro|club|page|news|icu|cloud|example|test|local|onion|zip|mov|рф|укр"
)
_HOST = r"(?<![\w@.-])(?:[\w-]+\.)+"
URL_ANYWHERE = re.compile(
    rf"{_SCHEME_URL}"
    r"|\b(?:java|vb|live)script\s*:\S*"
    rf"|\b(?:{_BARE_SCHEMES})\s*:(?=\S)\S*"
    rf"|{_HOST}[^\W\d_]{{2,24}}(?=[/:?#][^\s.,;!?)]|:\d)\S*"  # host.tld/path, host:port
    rf"|{_HOST}(?:{_COMMON_TLDS}|xn--[\w-]+)\b\S*"  # a bare host of a common TLD
    r"|\bwww\.\S+"
    # An e-mail address names a host too (personal.EMAIL_RE starts where a run of its
    # characters does: tried at every position of a long run, it would be quadratic).
    rf"|{EMAIL_RE.pattern}",
    re.IGNORECASE,
)
"""Every URL and bare host a model may write (stricter than ``toolkit.text.URL_RE``)."""

_SPECIAL_TOKEN_RE = re.compile(r"<\|[^<>|\s]{0,64}\|>|\[/?INST\]|<</?SYS>>", re.IGNORECASE)
_IMAGE_RE = re.compile(r"!\[([^\]]*)\]\(([^)]*)\)")
_MD_LINK_RE = re.compile(r"\[([^\]]+)\]\(([^)]*)\)")
_ANGLE_RE = re.compile(r"[<>]")
_BRACKETED_RE = re.compile(r"<([^<>\s](?:[^<>]{0,60}[^<>\s])?)>")
"""Angle brackets hugging a token with no space inside their edges (``<#[phone]>``)."""


def _no_markup(text: str) -> str:
    return html.unescape(nh3.clean(text, tags=set(), attributes={}, strip_comments=True))


def _one_round(text: str) -> str:
    text = _SPECIAL_TOKEN_RE.sub(" ", text)
    text = _no_markup(text)
    text = _IMAGE_RE.sub("", text)
    text = _MD_LINK_RE.sub(lambda m: m.group(1), text)
    text = URL_ANYWHERE.sub("", text)
    text = re.sub(r"\(\s*\)|\[\s*\]|<\s*>", "", text)
    text = re.sub(r"[ \t]+([.,;:!?])", r"\1", text)
    text = re.sub(r"[ \t]{2,}", " ", text)
    return text.strip()


def plain_text(text: str) -> str:
    """``text`` with all markup, entities, markdown links and URLs removed, to a fixed point.

    Args:
        text: a string the model wrote (a summary, a title, a body).

    Returns:
        Plain text; ``nh3`` finds no markup in it and it holds no URL or bare host.
    """
    for _ in range(MAX_ROUNDS):
        cleaned = _one_round(text)
        if cleaned == text:
            # What is left of a bracket that opened no tag ("<#[phone]>" once a number in
            # it is masked) loses its brackets; prose ("a < b and c > d") keeps them.
            return _BRACKETED_RE.sub(r"\1", text)
        text = cleaned
    # No fixed point yet (a pathological nesting): no angle bracket may survive.
    return _one_round(_ANGLE_RE.sub(" ", text))


def cut(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters at a word, marked ``…``."""
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    if " " in head[limit // 2 :]:
        head = head.rsplit(" ", 1)[0]
    return head.rstrip() + "…"


_CLAUSE_RE = re.compile(r"[^.,;!?…\n]+[.,;!?…\n]*")
MIN_LOOP_CLAUSE_CHARS = 12
"""Shorter clauses ("yes", "so far") may repeat in a good text; longer ones do not."""


def without_loops(text: str) -> str:
    """``text`` up to the first clause it repeats.

    A small model stuck in a loop writes the same clause again and again until
    ``max_tokens`` ("Lounge - 04:39 to 04:39, Lounge - 04:39 to 04:39, …"); the reader
    gets it once. Clauses end at ``. , ; ! ? …`` or a line break and are compared
    without case and spacing.
    """
    seen: set[str] = set()
    for match in _CLAUSE_RE.finditer(text):
        clause = " ".join(match.group().lower().split()).strip(".,;!?… ")
        if len(clause) >= MIN_LOOP_CLAUSE_CHARS:
            if clause in seen:
                return text[: match.start()].rstrip(" ,;\n")
            seen.add(clause)
    return text
