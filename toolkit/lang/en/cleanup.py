"""What reported speech leaves out of a chat sentence before retelling it.

Markup for an attachment ("<photo>"), emoticons and laughter, emoji and repeated
punctuation; greetings, interjections and vocatives at the start ("Hey Jimmy.",
"Ann, …"); chatter before a comma that opens a question ("why not, what movie?").
"""

from __future__ import annotations

import re

from toolkit.lang.en.indirect import WH, asks
from toolkit.lang.en.words import CHATTER_WORDS

_LEAD = re.compile(
    r"^(?:(?:and|but|hey+|hi+|hiya|howdy|heya|yo|hello|oh+|ah+|aw+|ok(?:ay)?|kk?|"
    r"yeah|yes|yep|nope|nah|lol|"
    r"no(?!\s+(?:more|longer|one)\b)|"
    r"haha\w*|hehe\w*|hm+|um+|uh+|wow|omg|btw|anyway|c'mon|dear|guys|man|dude|bro|sir|"
    r"madam|ma'am|excuse me|please|sorry|honey|babe|darling|sweetie|well|so|listen|look|"
    r"thanks|thank you|sure|great|cool|right|alright|good (?:morning|afternoon|evening))"
    r"\b[\s,.!:;-]*)+",
    re.IGNORECASE,
)
"""Greetings and interjections that open a sentence. A "no" that quantifies what follows
stays ("No more pizza", "no longer", "no one"): it is the sentence's meaning."""
_MARKER = re.compile(
    r",?\s*\b(?:btw|tbh|imo|imho|basically|literally|honestly|actually|tho(?=\s*[.!?]*\s*$))\b,?"
    r"(?=\s|[.!?]|$)",
    re.IGNORECASE,
)
"""Discourse markers ("btw", "basically", "actually", a closing "tho"): no content."""
_THO = re.compile(r"\btho\b", re.IGNORECASE)
"""A "tho" inside a sentence is "though" ("funny tho you know it")."""
_TAIL = re.compile(
    r",\s*(?:please|pls|plz|sorry|thanks|thx|thank you|man|dude|mate|guys|bro|sir|madam|"
    r"ma'am|dear|honey|babe)\s*([.!?]*)\s*$",
    re.IGNORECASE,
)
"""Politeness and address that close a sentence (", please", ", sorry", ", guys")."""
_TAG_QUESTION = re.compile(
    r",\s*(?:(?:is|are|was|were|do|does|did|have|has|had|can|could|will|would|should)n'?t"
    r"\s+(?:it|you|u|they|he|she|we|there|i|that)|won'?t\s+(?:it|you|they|he|she|we)|right|"
    r"ok|okay|yeah|no)\s*\?\s*$",
    re.IGNORECASE,
)
"""A question tag (", isn't it?", ", right?"): the statement before it is what is asked."""
_VOCATIVE = re.compile(r"^\w+(?:[,!.]+\s*|$)")
_OPENER = re.compile(r"^([\w'’]+(?: [\w'’]+)?),\s+(\S.*)$")
_NOISE = re.compile(r"[^\w\s.,!?;:'’\"()\-/&%$#@+…=*]")
_REPEAT = re.compile(r"([!?.])[!?.]+")
_TAG = re.compile(r"<[\w .:/-]{1,40}>")
"""Markup in a message ("<photo>", "<Media omitted>"): an attachment, not words said."""
_EMOTICON = re.compile(
    r"(?:(?<=[\s.,!?])|^)(?:[:;=8xX][-'^o]?[()\[\]DPpOo3xX/\\|*@$]+|<3+|[\^T][_.-]?[\^T]|-_+-|"
    r"\b(?:lol+|lmao+|rofl|haha\w*|hehe\w*|xd+)\b)(?=[\s.,!?]|$)",
    re.IGNORECASE,
)
"""Emoticons (":)", ";-P", "<3", "^.^", "-_-") and laughter ("lol", "haha", "xD"): no
words of what was said."""


def clean(sentence: str, names: tuple[str, ...]) -> str:
    """One sentence of a message without what reported speech does not retell: markup,
    emoticons, laughter, emoji, repeated punctuation, and the greetings, interjections
    and vocatives that open it ("Hey Jimmy. …", "Ann, …")."""
    text = _MARKER.sub("", _EMOTICON.sub("", _TAG.sub("", sentence)))
    text = _THO.sub("though", text)
    text = _TAIL.sub(lambda m: m.group(1), text)
    text = _TAG_QUESTION.sub("?", text)
    text = _REPEAT.sub(r"\1", _NOISE.sub("", text)).strip()
    text = re.sub(r"\s+([.,!?;:])(?=\s|$)", r"\1", re.sub(r"\s{2,}", " ", text))
    text = text.lstrip(" ,;:-")
    for _ in range(3):
        stripped = _LEAD.sub("", text).strip()
        if stripped != text:  # a greeting, then perhaps whom it greets ("Hey Jimmy.")
            stripped = _VOCATIVE.sub("", stripped).strip()
            head, _, rest = stripped.partition(" ")
            if head.strip(",!.") in names and rest:
                stripped = rest.strip()
        text = stripped
        for name in names:
            if (
                name
                and text.lower().startswith(name.lower())
                and text[len(name) : len(name) + 1] in ",!"
            ):
                text = text[len(name) + 1 :].strip()
    return text


def before_question(body: str) -> str:
    """``body`` without a word or two of chatter before a comma that opens its question
    ("why not, what movie" asks "what movie"); a name before it stays ("Ben, what …")."""
    match = _OPENER.match(body)
    if match is None:
        return body
    rest, opener = match.group(2), match.group(1).lower()
    first = rest.split(" ", 1)[0].lower().replace("’", "'")
    if not all(w in CHATTER_WORDS for w in opener.split()):
        return body
    if first in WH or asks(rest):
        return rest
    return body
