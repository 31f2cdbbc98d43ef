"""Secrets and payment numbers in what a summary copies: passwords, keys, cards, IBANs.

No summary copies one (DESIGN.md §5): ``personal.mask`` replaces each span found here by
the requested pack's mark, in every engine's output, and the LLM path never sends them
(``llm.messages``). Each finder returns ``(start, end)`` spans, leftmost first.

- **Secrets** (``secret_spans``): the value a pack's ``secret`` cue names ("password:
  x", «пароль от wifi 12345678», «логін — ivan_k»): after the cue and a colon or an
  equals sign any value; after the cue and at most ``SKIPPED_WORDS`` short words, only a
  value that looks made up (a digit, a sign, mixed case). The cue words are the language
  packs' (every pack's: a Russian password in an English summary is still one). Tokens of
  a known shape whatever the words around them (``TOKEN_RES``: ``sk-``, ``ghp_``,
  ``xox…``, AWS key ids, JWTs, Google API keys, messenger bot tokens), a link's secret
  parameter (``?pwd=``, ``&token=``: the link stays, its value goes), a meeting link's
  random passcode under any other name, and a long random string outside links (upper
  and lower case and digits, switching often: hashes and addresses in hex are left, they
  are ids). A tracking or share parameter (``TRACKING``: ``?si=``, ``?igsh=``, ``utm_*``)
  is no secret however random its value: ``without_tracking`` drops it from a link.
- **Answers** (``secret_answers``): a short message that answers a request for a
  password or login («скажите логин» → "anna-k") is a secret whole.
- **Card numbers** (``card_spans``): 13 to 19 digits, grouped or not, starting as a
  card does (2–6), that pass the Luhn check (``python-stdnum``): an order number that
  fails it, a year or a time stays.
- **IBANs** (``iban_spans``): a country code, check digits and the account, grouped or
  not, that ``python-stdnum`` validates (country format and checksum).
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import timedelta
from functools import lru_cache

from toolkit.models import Message
from toolkit.text import URL_RE

MAX_ANSWER_WORDS = 3
"""An answer to "what is the login?" this short is the secret itself."""
ANSWER_MINUTES = 10
SKIPPED_WORDS = 2
"""Short words that may stand between a cue and its value ("password is x", «пароль от wifi x»)."""
MIN_RANDOM_CHARS = 24
"""A random-looking string shorter than this is an id or a code, not a key."""
RANDOM_SWITCHES = 0.35
"""Share of neighbouring characters of different kinds (upper, lower, digit, sign) from
which a string reads as random: words and file names switch far less often."""

TOKEN_RES = tuple(
    re.compile(p)
    for p in (
        r"(?<![\w-])sk-(?:[A-Za-z0-9]+-){0,2}[A-Za-z0-9_-]{20,}",  # OpenAI, Anthropic
        r"(?<!\w)(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})",
        r"(?<!\w)xox[abposr]-[A-Za-z0-9-]{10,}",  # Slack
        r"(?<![A-Z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Z0-9])",  # AWS access key ids
        r"(?<![\w-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",  # JWT
        r"(?<![\w-])AIza[0-9A-Za-z_-]{35}",  # Google API keys
        r"(?<![\w-])(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}",  # Stripe
        r"(?<![\w:])\d{8,10}:[A-Za-z0-9_-]{35}(?![\w-])",  # messenger bot tokens
    )
)
_LINK_SECRET_RE = re.compile(
    r"[?&#](?:pwd|pass|password|passcode|token|access_token|refresh_token|id_token|"
    r"api_?key|apikey|key|secret|client_secret|sig|signature|auth|code)=(?!\[)([^&#\s]+)",
    re.IGNORECASE,
)
# The colon of a link's scheme ("https://") is no "key: value" separator.
_AFTER_COLON_RE = re.compile(
    r"[^\S\n]*(?:[^\n:=]{0,24}?(?<!\d))?[:=](?!//)[^\S\n]*\n?[^\S\n]*(?=\S)"
)
_SHORT_WORD_RE = re.compile(r"[^\S\n]*[-–—]?[^\S\n]*([^\W\d_]{1,6})(?=[^\S\n])")
_GAP_RE = re.compile(r"[^\S\n]*[-–—]?[^\S\n]*(?=\S)")
_VALUE_RE = re.compile(r"[«\"'“]?(\S+?)[.,;!?»\"'”)]*(?=\s|$)")
_PARAM_RE = re.compile(r"[?&]([\w.-]+)=([A-Za-z0-9_-]{12,})(?=[&#\s]|$)")
TRACKING = frozenset(
    {"fbclid", "gclid", "dclid", "gbraid", "wbraid", "msclkid", "yclid", "mc_cid", "mc_eid"}
    | {"igsh", "igshid", "si", "feature", "ref", "ref_src", "ref_url", "share_id", "trk"}
    | {"_hsenc", "_hsmi", "mkt_tok", "spm", "vero_id"}
)
"""Query parameters that say who shared a link or where a click came from (Spotify's and
YouTube's ``si``, Instagram's ``igsh``, ads' click ids), never what it opens; with every
``utm_*`` parameter. Their random values are ids of a share, not secrets: dropped."""
NOT_SECRET = frozenset({"t", "ts", "s", "v", "id", "p_id"})
"""Parameters that are never a secret but may say what a link opens (a video's start
``t=90``, a search ``s=``, a video id ``v=``): kept, never masked."""
_RANDOM_RE = re.compile(rf"(?<![\w+/=-])[A-Za-z0-9+/_=-]{{{MIN_RANDOM_CHARS},}}(?![\w+/=-])")
_TIME_RE = re.compile(r"\d{1,4}([:./-])\d{1,2}(?:\1\d{1,4})?")
_SIGNS = frozenset("!@#$%^&*_+=~?<>|")


@lru_cache(maxsize=1)
def secret_cue() -> re.Pattern[str]:
    """Every pack's ``secret`` cue as one pattern (case-insensitive)."""
    from toolkit.lang import packs

    return re.compile("|".join(f"(?:{p.cue.secret.pattern})" for p in packs()), re.IGNORECASE)


def looks_made_up(value: str) -> bool:
    """Whether ``value`` reads as a password or key rather than a word: four characters or
    more with a digit, a sign, or a capital after its first letter."""
    if len(value) < 4 or URL_RE.match(value):
        return False
    return (
        any(ch.isdigit() for ch in value)
        or any(ch in _SIGNS for ch in value)
        or any(ch.isupper() for ch in value[1:])
    )


def _kind(ch: str) -> int:
    return 0 if ch.isupper() else 1 if ch.islower() else 2 if ch.isdigit() else 3


def random_like(token: str, *, least: int = MIN_RANDOM_CHARS) -> bool:
    """Whether ``token`` reads as a random key: ``least`` characters or more, upper and
    lower case (and digits, when as long as a key), its characters switching kind often,
    and of high entropy."""
    kinds = {_kind(ch) for ch in token}
    if len(token) < least or not {0, 1} <= kinds:
        return False
    if len(token) >= MIN_RANDOM_CHARS and 2 not in kinds:
        return False
    switches = sum(_kind(a) != _kind(b) for a, b in itertools.pairwise(token))
    counts = Counter(token)
    entropy = -sum(n / len(token) * math.log2(n / len(token)) for n in counts.values())
    return switches / (len(token) - 1) >= RANDOM_SWITCHES and entropy >= min(
        3.5, math.log2(len(token)) - 0.5
    )


def _value_at(text: str, start: int, *, any_value: bool) -> tuple[int, int] | None:
    match = _VALUE_RE.match(text, start)
    if match is None:
        return None
    value = match.group(1)
    any_value = any_value or match.start(1) > match.start()  # 'password "x"': quoted, a value
    if URL_RE.match(value) or value.startswith("["):  # a link, or a mark already
        return None
    if _TIME_RE.fullmatch(value):  # "login at 10:30": a time, not a password
        return None
    if any_value or looks_made_up(value):
        return match.start(1), match.end(1)
    return None


def _near_value(text: str, at: int) -> tuple[int, int] | None:
    """A value that looks made up right after a cue, at most ``SKIPPED_WORDS`` short
    words on ("password is x", «пароль от wifi x»)."""
    found = None
    for _ in range(SKIPPED_WORDS + 1):
        gap = _GAP_RE.match(text, at)
        if gap is None:
            break
        found = _value_at(text, gap.end(), any_value=False)
        word = _SHORT_WORD_RE.match(text, at)
        if found is not None or word is None:
            break
        at = word.end()
    return found


def _cued(text: str) -> list[tuple[int, int]]:
    """The values the packs' secret cues name; a link is none ("pin our calls
    (https://…)", "login: https://…" names a page: its secret parameters are found apart)."""
    spans = []
    links = [m.span() for m in URL_RE.finditer(text)]
    for cue in secret_cue().finditer(text):
        near = _near_value(text, cue.end())
        colon = _AFTER_COLON_RE.match(text, cue.end())
        # "password is Xk9#pq2 and login: ann": a made-up value before the colon is the
        # cue's own, and the colon another cue's
        before_colon = near is not None and colon is not None and near[1] < colon.end() - 1
        if colon is not None and not before_colon:
            found = _value_at(text, colon.end(), any_value=True)
        else:
            found = near
        if found is not None and not any(a < found[1] and found[0] < b for a, b in links):
            spans.append(found)
    return spans


def tracking(name: str) -> bool:
    """Whether a query parameter's ``name`` tracks a share or a click (``TRACKING``, ``utm_*``)."""
    lower = name.lower()
    return lower in TRACKING or lower.startswith("utm_")


def _untracked(url: str) -> str:
    """``url`` without its tracking parameters (a ``?`` with nothing left after it goes)."""
    query = url.find("?")
    if query < 0:
        return url
    fragment = url.find("#", query)
    end = fragment if fragment >= 0 else len(url)
    params = [p for p in url[query + 1 : end].split("&") if p]
    kept = [p for p in params if not tracking(p.split("=", 1)[0])]
    if len(kept) == len(params):
        return url
    return url[:query] + ("?" + "&".join(kept) if kept else "") + url[end:]


def without_tracking(text: str) -> str:
    """``text`` with the tracking and share parameters (``tracking``) dropped from each
    link: ``…/track/x?si=ab12`` reads ``…/track/x``; a link's other parameters stay."""
    if "?" not in text:
        return text
    return URL_RE.sub(lambda m: _untracked(m.group(0)), text)


def secret_spans(text: str) -> list[tuple[int, int]]:
    """The spans of the passwords, logins, keys and tokens in ``text`` (see the module)."""
    spans = [m.span() for pattern in TOKEN_RES for m in pattern.finditer(text)]
    spans += [m.span(1) for m in _LINK_SECRET_RE.finditer(text)]
    # A meeting link's passcode hides under any name (Teams' "?p="): a random value.
    spans += [
        m.span(2)
        for m in _PARAM_RE.finditer(text)
        if not tracking(m.group(1))
        and m.group(1).lower() not in NOT_SECRET
        and random_like(m.group(2), least=12)
    ]
    links = [m.span() for m in URL_RE.finditer(text)]
    spans += [
        m.span()
        for m in _RANDOM_RE.finditer(text)
        if random_like(m.group(0)) and not any(a <= m.start() < b for a, b in links)
    ]
    spans += _cued(text)
    return merged(spans)


def secret_answers(messages: Sequence[Message]) -> set[int]:
    """The indices of the messages that answer a request for a secret with the secret
    alone («скажите логин на гх» → "anna-k"): at most ``MAX_ANSWER_WORDS`` words on one
    line, no question, by someone else, replying to (or just after, within
    ``ANSWER_MINUTES``) a message with a pack's secret cue that holds no value itself.
    Such a message is its mask whole."""
    index = {m.messenger_message_id: k for k, m in enumerate(messages)}
    out = set()
    for i, message in enumerate(messages):
        text = message.text.strip()
        if not text or "\n" in text or "?" in text or len(text.split()) > MAX_ANSWER_WORDS:
            continue
        j = index.get(message.reply_to) if message.reply_to is not None else i - 1
        if j is None or j < 0:
            continue
        asked = messages[j]
        # An HTML export has no sender ids: the name tells the people apart.
        if (asked.sender_peer_id or asked.sender_name) == (
            message.sender_peer_id or message.sender_name
        ):
            continue
        if message.posted_at - asked.posted_at > timedelta(minutes=ANSWER_MINUTES):
            continue
        if secret_cue().search(asked.text) and not _cued(asked.text):
            out.add(i)
    return out


def merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` sorted, the overlapping ones joined."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start < out[-1][1]:
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        else:
            out.append((start, end))
    return out


_CARD_RE = re.compile(r"(?<![\w.,+-])[2-6]\d{3}(?:[ -]?\d){9,15}(?![\w-]|[.,]\d)")
_SEPARATORS_RE = re.compile(r"[ -]")
_IBAN_RE = re.compile(r"(?<![\w])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}(?!\w)")


def _shortened(text: str, start: int, valid: Callable[[str], bool], least: int) -> int | None:
    """The end of the longest head of ``text`` that ``valid`` takes, dropping a group (a
    run after a space or dash) at a time while ``least`` characters but separators stay:
    a run that goes on into the next number ("… 1111 2025") keeps that number."""
    candidate = text
    while len(_SEPARATORS_RE.sub("", candidate)) >= least:
        if valid(candidate):
            return start + len(candidate)
        cut = max(candidate.rfind(" "), candidate.rfind("-"))
        candidate = candidate[:cut] if cut > 0 else candidate[:-1]
    return None


def _card(candidate: str) -> bool:
    from stdnum import luhn

    digits = _SEPARATORS_RE.sub("", candidate)
    return 13 <= len(digits) <= 19 and len(set(digits)) > 1 and luhn.is_valid(digits)


def card_spans(text: str) -> list[tuple[int, int]]:
    """The spans of the card numbers in ``text``: 13–19 digits that pass the Luhn check."""
    spans = []
    for match in _CARD_RE.finditer(text):
        end = _shortened(match.group(0), match.start(), _card, 13)
        if end is not None:
            spans.append((match.start(), end))
    return spans


def iban_spans(text: str) -> list[tuple[int, int]]:
    """The spans of the IBANs in ``text`` (a longer run is shortened a group at a time
    until it validates: "… 6600 1 EUR" keeps the currency)."""
    from stdnum import iban

    spans = []
    for match in _IBAN_RE.finditer(text):
        end = _shortened(match.group(0), match.start(), iban.is_valid, 15)
        if end is not None:
            spans.append((match.start(), end))
    return spans
