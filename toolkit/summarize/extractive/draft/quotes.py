"""Quotes of messages: exact text, or a cut on a word boundary marked "…".

A quote is one line, a sentence kept whole when it overruns its limit by little
(``STRETCH``): a cut loses what the end of a sentence says. Links are never clickable
in a summary: each URL (whole, as ``toolkit.text.URL_RE`` finds it) becomes its host
name, consistently, and markdown images their alt text. A cut never ends inside an
open bracket or quotation mark: it goes back to before the unmatched opener, and never
ends on the bare number of a list's next item ("… go home 2."). Sentences that are only
chatter ("Hi!", "Thanks a lot.") are left out of a quote when the message has more to
say.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from urllib.parse import urlsplit

from toolkit.lang import quotation_marks
from toolkit.lang.chatter import is_chatter
from toolkit.lang.sentences import list_numbers, trailing_item
from toolkit.summarize.period_wording import split_sentences
from toolkit.text import URL_RE

_IMAGE_RE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_MD_LINK_RE = re.compile(r"\[([^\]]+)\]\(([^)\s]*)[^)]*\)")
_BRACKETS = {"(": ")", "[": "]", "{": "}"}
_HOST_ONLY_RE = re.compile(r"[(\[]?(?:[\w-]+\.)+[^\W\d_]{2,}[)\]]?[.!,;:]?")
ELLIPSIS = "…"


def host(url: str) -> str:
    """The host name of a URL (``https://docs.example.com/x`` -> ``docs.example.com``)."""
    try:
        return urlsplit(url if "://" in url else f"https://{url}").hostname or ""
    except ValueError:
        return ""


_INVISIBLE_RE = re.compile("[\u200b-\u200d\u2060\ufeff]")
_HIDDEN_LINK_RE = re.compile(rf"^\s*\(\s*(?:{URL_RE.pattern})\s*\)\s*", re.IGNORECASE)


def shown(text: str) -> str:
    """``text`` without invisible characters and without the link a post opens with and
    shows no words of (an invisible character's link to its preview picture,
    "\u200b (https://…/x.jpg)News…"): no link a reader sees, nor one it shares."""
    return _HIDDEN_LINK_RE.sub("", _INVISIBLE_RE.sub("", text))


def without_links(text: str) -> str:
    """Text as shown (``shown``), with images as their alt text and every URL as its
    bare host name."""
    text = shown(text)
    text = _IMAGE_RE.sub(lambda m: m.group(1), text)
    text = _MD_LINK_RE.sub(lambda m: f"{m.group(1)} ({host(m.group(2))})", text)
    return URL_RE.sub(lambda m: host(m.group(0)), text)


def one_line(text: str) -> str:
    """A message as a quote sees it: links as host names, white space collapsed."""
    return " ".join(without_links(text).split())


def unmatched_opener(text: str) -> int | None:
    """The position of the first bracket or quotation mark ``text`` opens but never closes."""
    pairs = _pairs()
    stack: list[int] = []
    for i, ch in enumerate(text):
        if stack and ch == pairs[text[stack[-1]]]:
            stack.pop()  # a closer first: the mark that closes one language's opens another's
        elif ch in pairs:
            stack.append(i)
    return stack[0] if stack else None


@cache
def _pairs() -> dict[str, str]:
    """Brackets and every pack's quotation marks (``lang.quotation_marks``), opener → closer."""
    return _BRACKETS | quotation_marks()


def balanced(text: str) -> bool:
    """Whether every bracket and typographic quotation mark ``text`` opens is closed."""
    return unmatched_opener(text) is None


def cut(line: str, limit: int) -> str:
    """``line`` itself when it fits in ``limit`` characters, else a word-boundary cut + "…"
    (never half a word: a first word longer than ``limit`` is kept whole)."""
    if len(line) <= limit:
        return line
    piece = line[:limit]
    if line[limit] != " ":  # the limit falls inside a word: back to the space before it
        piece = piece.rsplit(" ", 1)[0] if " " in piece else line.split(" ", 1)[0]
    opener = unmatched_opener(piece)
    if opener is not None and opener > 0:
        piece = piece[:opener]
    item = trailing_item(piece, list_numbers(line))
    if item is not None and item > 0:  # the next item's number, without its item
        piece = piece[:item]
    return piece.rstrip(" ,;:-–—" + "".join(_pairs())) + ELLIPSIS


_MENTION = r"@\w{2,}"
_ROLL_CALL_RE = re.compile(rf"^(?:{_MENTION}[\s,;:]*){{2,}}")
_NAMES_RE = re.compile(rf"^(?:(?:{_MENTION}|\w[\w'’-]*)[\s,;:!.]*){{1,3}}$")
_TERMINAL = ".!?…)»”\"'"


def without_roll_call(line: str) -> str:
    """``line`` without the run of @mentions it opens with ("@ann @bob @eve see you at
    ten" is "see you at ten"): a list of whom it calls is no part of what it says."""
    rest = _ROLL_CALL_RE.sub("", line)
    return rest if rest.strip() else line


def only_names(sentence: str) -> bool:
    """Whether ``sentence`` is no more than one to three names or @mentions, each
    capitalised or an @mention ("Ann!", "@bob, @eve"): who is addressed, not what is said."""
    if not _NAMES_RE.match(sentence.strip()):
        return False
    words = re.findall(r"[@\w][\w'’-]*", sentence)
    return all(w[0] == "@" or (w[0].isupper() and not w.isupper()) for w in words)


def fragment(text: str, dangling: re.Pattern[str] | None = None) -> bool:
    """Whether a message's text is a piece of a sentence, not one: nothing but @mentions
    or a list of names, or it stops on a comma, a colon, a dash or (``dangling``, the language's
    conjunctions, articles and prepositions: "and", «и», «та») a word no sentence ends on
    (the rest comes in the next message)."""
    line = without_roll_call(one_line(text)).strip()
    if not line or _ROLL_CALL_RE.fullmatch(line + " "):
        return True
    # One name alone may answer "who drives?"; a list of them, or of @mentions, says nothing.
    if only_names(line) and (len(line.split()) > 1 or line.startswith("@")):
        return True
    return cut_off(line, dangling)


def cut_off(text: str, dangling: re.Pattern[str] | None = None) -> bool:
    """Whether ``text`` stops mid-sentence: on a comma, a colon, a dash, on the bare
    number of a list's next item ("1. look 2."), or on a word no sentence ends on
    (``dangling``); its next message then goes on with it."""
    line = text.strip()
    if not line or line[-1] in ",:;-–—":
        return bool(line)
    if trailing_item(line) is not None:
        return True
    return line[-1] not in _TERMINAL and dangling is not None and bool(dangling.search(line))


STRETCH = 1.35
"""How far past its limit a quote may run to keep a sentence whole: "…it took 28 days"
cut before its number says less than a line a third longer."""


def fit(line: str, limit: int) -> str:
    """``line`` whole when it is at most ``STRETCH`` times ``limit``, else ``cut``."""
    return line if len(line) <= limit * STRETCH else cut(line, limit)


def quotable(text: str, limit: int) -> str:
    """One line of message text for a quote (see the module docstring)."""
    return fit(without_roll_call(one_line(text)), limit)


_CLAUSE_RE = re.compile(r"[,;:—–]\s+")
MIN_TAIL_WORDS = 5
"""The fewest words the asking end of a long question is quoted with (``asked_end``)."""


def asked_end(text: str, limit: int) -> str:
    """A question sentence for a quote: ``quotable`` when it fits, else "…" and its
    last clauses that fit (a long question asks at its end: "when we split the text
    into words, in task 7 … , do we count these as different words?" cut at its start
    told a statement after "asks"); ``quotable`` when no clause boundary leaves at
    least ``MIN_TAIL_WORDS`` words that fit."""
    line = without_roll_call(one_line(text))
    if len(line) <= limit * STRETCH or not line.rstrip().endswith("?"):
        return fit(line, limit)
    for found in _CLAUSE_RE.finditer(line):
        rest = line[found.end() :].strip()
        if len(rest) < limit:
            return ELLIPSIS + rest if len(rest.split()) >= MIN_TAIL_WORDS else cut(line, limit)
    return cut(line, limit)


SPAN_SHARE = 0.5
"""The least weight a run of sentences that fits a quote must have, as a share of the
heaviest sentence's, to be quoted instead of that sentence cut."""


CUT_SHARE = 0.5
"""What the heaviest sentence weighs, as a share of itself, against a run that fits when
it would have to be cut: readers count a cut sentence that loses its point as a fragment.
On the labelled key sentences (``python -m toolkit.evaluate.keysentences measure``) it
halved the quotes cut short and quoted a few more keys whole."""


def _bare_number(sentence: str) -> bool:
    """Whether ``sentence`` is no more than a list item's number ("7.", "3)")."""
    return re.fullmatch(r"\d{1,3}(?:\.\d{1,3})*[.)]?", sentence.strip()) is not None


def quoted_sentences(text: str) -> list[str]:
    """The sentences of a message a quote chooses from (a line break ends one, white
    space is folded in each): links as host names, the opening roll call of @mentions
    gone, a sentence that is only a link's host gone, leading and trailing chatter or
    names dropped (one sentence is always kept)."""
    # Split before white space is folded: a line break ends a sentence (a post's headline
    # has no full stop), and each sentence is then one line.
    kept = without_roll_call(without_links(text).strip())
    sentences = [" ".join(s.split()) for s in split_sentences(kept) if s.strip()]
    if len(sentences) > 1:  # a link's host alone ("(example.com)") says nothing a quote can
        sentences = [s for s in sentences if not _HOST_ONLY_RE.fullmatch(s)] or sentences
    while len(sentences) > 1 and (is_chatter(sentences[0]) or only_names(_hostless(sentences[0]))):
        sentences.pop(0)
    while len(sentences) > 1 and (
        is_chatter(sentences[-1])
        or only_names(_hostless(sentences[-1]))
        or _bare_number(sentences[-1])
    ):
        sentences.pop()
    return sentences


_HOST_AFTER_RE = re.compile(r"\s*[(\[](?:[\w-]+\.)+[^\W\d_]{2,}[)\]]")


def _hostless(sentence: str) -> str:
    """``sentence`` without the link hosts it shows in brackets ("Viktor Shenderovich
    (m.facebook.com)", a shared post's author line, is a name)."""
    return _HOST_AFTER_RE.sub("", sentence)


def passage(
    text: str,
    limit: int,
    weight: Callable[[str], float] | None = None,
    leaning: re.Pattern[str] | None = None,
) -> str:
    """The part of a message worth quoting, at most ``limit`` characters (a sentence
    whole up to ``STRETCH`` times that).

    Leading and trailing chatter sentences go; when the rest is too long, the run of
    consecutive sentences with the greatest ``weight`` that fits is kept (the heaviest
    sentence alone, cut, when none fits). A run never opens on a sentence that leans on
    the one before it (``leaning``, the language's "So…", «Поэтому…», «Хоча…»): that one
    is quoted with it or not at all.
    """
    sentences = quoted_sentences(text)
    joined = " ".join(sentences)
    if len(joined) <= limit or len(sentences) == 1 or weight is None:
        return fit(joined, limit)

    def leans(k: int) -> bool:
        return k > 0 and leaning is not None and leaning.match(sentences[k]) is not None

    best: tuple[float, int, int] | None = None
    for a in range(len(sentences)):
        if leans(a):
            continue
        for b in range(a + 1, len(sentences) + 1):
            span = " ".join(sentences[a:b])
            if len(span) > limit:
                break
            if b < len(sentences) and span.endswith(":"):
                continue  # an item list's lead-in without its items says nothing
            value = sum(weight(s) for s in sentences[a:b])
            if best is None or value > best[0]:
                best = (value, a, b)
    alone = [k for k in range(len(sentences)) if not leans(k)]
    top = max(alone, key=lambda k: weight(sentences[k]))
    # A short empty sentence that fits ("Friends!", "Total 102.") never stands in for the
    # one that says something: that one is quoted (cut when it must be). A heaviest
    # sentence that would be cut counts for less (``CUT_SHARE``): its end is lost.
    heaviest = weight(sentences[top])
    if len(sentences[top]) > limit * STRETCH:
        heaviest *= CUT_SHARE
    if best is None or best[0] < SPAN_SHARE * heaviest:
        return fit(sentences[top], limit)
    return " ".join(sentences[best[1] : best[2]])
