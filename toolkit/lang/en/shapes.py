"""Sentence shapes that reported speech retells as a whole.

- A question after a statement's comma is a sentence of its own: "We are going to the
  cinema, do you want to join?" is said, then asked (``split_tail_question``).
- A request, a warning or thanks names what the speaker does to the addressee
  (``directive``): "Please send me the file" → "asks Bob to send Ann the file";
  "Don't forget to call grandma" → "tells Bob not to forget to call grandma"; "Thanks for
  the invite" → "thanks Bob for the invite".
"""

from __future__ import annotations

import re

from toolkit.lang.en.indirect import opens_question, verb_lemma

_PLEASE = re.compile(r"^\W*(?:please|pls|plz),?\s+(\w.*)$", re.IGNORECASE)
_DONT = re.compile(r"^\W*(?:don'?t|don’t|do not)\s+(\w.*)$", re.IGNORECASE)
_THANKS = re.compile(
    r"^\W*(?:thanks|thank you|thx|ty)(?: (?:so|very) much| a lot)?,?\s+(for\s+\w.*)$",
    re.IGNORECASE,
)
# "Don't know what to do" drops its "I" (ellipsis.py); these verbs say so.
_SPEAKER_VERBS = frozenset(
    [
        "know",
        "think",
        "care",
        "remember",
        "understand",
        "mind",
        "like",
        "want",
        "need",
        "have",
        "feel",
        "see",
        "get",
        "believe",
        "agree",
        "recall",
        "wanna",
        "mean",
        "expect",
        "guess",
        "suppose",
    ]
)


def split_tail_question(sentence: str) -> list[str]:
    """A statement with a question after its last comma, as two sentences; any other
    sentence (or a question tag: "…, isn't it?") as it is."""
    if not sentence.rstrip().endswith("?"):
        return [sentence]
    head, comma, tail = sentence.rpartition(", ")
    if not comma or len(head.split()) < 3 or opens_question(head.split(" ", 1)[0]):
        return [sentence]
    first = tail.split(" ", 1)[0]
    wanna = first.lower() == "wanna" and len(tail.split()) >= 2
    if not (wanna or (opens_question(first) and len(tail.split()) >= 3)):
        return [sentence]  # nor a tag ("…, isn't it?"), which asks the statement itself
    return [f"{head}.", tail[:1].upper() + tail[1:]]


def _base_verb(word: str) -> bool:
    lemma = verb_lemma(word)
    return lemma is not None and lemma == word.lower()


def directive(sentence: str) -> tuple[str, str] | None:
    """``(verb, rest)`` when ``sentence`` asks, warns or thanks its addressee: the verb
    of the report ("asks … to", "tells … not to", "thanks") and the words that follow it
    (still in the speaker's person); ``None`` for any other sentence."""
    text = sentence.strip().rstrip(".!")
    if text.endswith("?"):
        return None
    if match := _THANKS.match(text):
        return "thanks", match.group(1)
    for pattern, verb in ((_PLEASE, "asks_to"), (_DONT, "tells_not_to")):
        if match := pattern.match(text):
            rest = match.group(1)
            first = rest.split(" ", 1)[0].lower()
            if _base_verb(first) and not (verb == "tells_not_to" and first in _SPEAKER_VERBS):
                return verb, rest
    return None


_EXCLAMATION = re.compile(
    r"^\W*(?:what an?\b|how\b|you(?:'re| are| did| must)\b|get (?:out|lost)\b|shut up\b|"
    r"no way\b|oh my\b|stop it\b)",
    re.IGNORECASE,
)
"""An exclamation whose words, retold as a statement, would say something else."""


def exclaims(text: str) -> bool:
    """Whether a sentence of ``text`` is an exclamation that reported speech would turn
    into a claim the speaker never made ("You're kidding!" is no report that Bob kids)."""
    from toolkit.lang.sentences import split_sentences

    return any(
        piece.rstrip().endswith("!") and bool(_EXCLAMATION.match(piece))
        for piece in split_sentences(text)
    )
