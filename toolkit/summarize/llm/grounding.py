"""Grounded lines: what a model writes must rest on the messages it cites.

A model's line (an *item* of a digest section) passes when:

1. it cites at least one message, and only messages of its window (``foreign id``);
2. every number, amount, date and time it names is in the messages it cites, or in
   when they were posted (``ungrounded``): digits are compared after normalising
   thousand separators (``1,000`` ``1 000`` ``1.000`` are 1000), decimal commas,
   leading zeros and ``5k``; times as ``H:MM`` on the 24-hour clock (``8pm`` is
   ``20:00``; a time without am/pm may be either half of the day);
3. every @handle and every link host it names is in those messages (a host matches
   itself and its subdomains);
4. it is written in the requested language (``language``): a line whose letters are
   mostly in another script, or that the language identifier (``py3langid``) finds
   surely in another language, fails;
5. it is no echo of the prompt (``echo``: five words in a row of the instructions) and
   no repeat of a line before it (``repeat``: a small model loops);
6. most of its content words are in the messages it cites, when those are in the
   requested language (``unsupported``: a line about one message citing another);
7. filed as a decision, a plan or an open question, it cites a message that shows one
   (``function``: a cue of the language packs, a time, a question mark).

A line that fails is dropped and counted (``Grounding``); the reason of each is logged.
The summary paragraph cites nothing: its facts must be in some message of the window.
The hybrid engine checks a rewrite against the line it rewrites and that line's
messages (``rewrite_problem``): it may add no number, time, handle, host or name of a
participant, and its quotations must be translated.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from decimal import Decimal, InvalidOperation

from toolkit.lang import detect, packs
from toolkit.lang.script import language_script
from toolkit.lang.script import letters as script_letters
from toolkit.lang.script import script as text_script
from toolkit.models import Message
from toolkit.summarize.context import message_text
from toolkit.summarize.llm import meaning
from toolkit.summarize.llm.answer import LLMItem, link_hosts
from toolkit.summarize.llm.meaning import Meaning
from toolkit.summarize.period_wording import split_sentences
from toolkit.text import WORD_RE, terms

log = logging.getLogger(__name__)

# --- facts: numbers, times, handles, hosts -------------------------------------------

_TIME_RE = re.compile(
    r"(?<![\d.,:])(?P<h>\d{1,2})(?::(?P<m>\d{2}))?\s*(?P<ap>[ap])\.?\s?m\b\.?"
    r"|(?<![\d.,:])(?P<h24>\d{1,2}):(?P<m24>\d{2})(?![\d:])",
    re.IGNORECASE,
)
_NUMBER_RE = re.compile(
    r"\d+(?P<groups>(?:[ \u00a0\u202f,.'’]\d{3}(?!\d))*)(?:[.,](?P<frac>\d+))?(?P<k>\s?[kк]\b)?",
    re.IGNORECASE,
)
_HANDLE_RE = re.compile(r"(?<![\w.@])@([A-Za-z][A-Za-z0-9_]{2,31})\b")
_TME_RE = re.compile(r"\bt(?:elegram)?\.me/(?:s/)?([A-Za-z][A-Za-z0-9_]{2,31})\b", re.IGNORECASE)


def _value(text: str) -> str:
    """A number as one canonical string (no leading zeros, no trailing decimal zeros)."""
    try:
        value = Decimal(text).normalize()
    except InvalidOperation:
        return text
    shown = format(value, "f")
    return shown if "." not in shown else shown.rstrip("0").rstrip(".")


def _time(hour: int, minute: int) -> str:
    return f"{hour % 24}:{minute:02d}"


def _times(text: str) -> tuple[list[frozenset[str]], str]:
    """The times ``text`` names (each as its possible ``H:MM`` readings), and the text
    without them."""
    found: list[frozenset[str]] = []

    def take(match: re.Match[str]) -> str:
        if match.group("h24") is not None:
            hour, minute = int(match.group("h24")), int(match.group("m24"))
            if hour > 24 or minute > 59:
                return match.group(0)
            readings = {_time(hour, minute)}
            if 1 <= hour <= 12:
                readings.add(_time(hour + 12, minute))
        else:
            hour, minute = int(match.group("h")), int(match.group("m") or 0)
            if not 1 <= hour <= 12 or minute > 59:
                return match.group(0)
            pm = match.group("ap").lower() == "p"
            readings = {_time(hour % 12 + (12 if pm else 0), minute)}
        found.append(frozenset(readings))
        return " "

    return found, _TIME_RE.sub(take, text)


def _numbers(text: str) -> list[tuple[frozenset[str], ...]]:
    """The numbers ``text`` names, each as its readings; a reading is the set of values
    that must all be known (``20.10`` reads as 20.1, or as 20 and 10: a date)."""
    found = []
    for match in _NUMBER_RE.finditer(text):
        whole = match.group(0)
        head = re.match(r"\d+", whole)
        assert head is not None
        groups = re.findall(r"\d{3}", match.group("groups") or "")
        frac = match.group("frac")
        readings: list[frozenset[str]] = []
        digits = head.group(0) + "".join(groups)
        grouped = _value(digits + (f".{frac}" if frac else ""))
        readings.append(frozenset({grouped}))
        separator = (match.group("groups") or " ")[0]
        if len(groups) == 1 and not frac and separator == ".":
            # "1.500" is 1500 in German, 1.5 in English.
            readings.append(frozenset({_value(f"{head.group(0)}.{groups[0]}")}))
        if frac and len(frac) <= 2 and int(frac) <= 12 and int(digits) <= 31:
            readings.append(frozenset({_value(digits), _value(frac)}))  # a date: 20.10
        if match.group("k"):
            readings.append(frozenset({_value(str(Decimal(grouped) * 1000))}))
        found.append(tuple(readings))
    return found


def _handles(text: str) -> set[str]:
    handles = {h.lower() for h in _HANDLE_RE.findall(text)}
    return handles | {h.lower() for h in _TME_RE.findall(text)}


@dataclass
class Evidence:
    """What a set of messages holds: the values a line may name."""

    numbers: set[str] = field(default_factory=set)
    times: set[str] = field(default_factory=set)
    handles: set[str] = field(default_factory=set)
    hosts: set[str] = field(default_factory=set)
    words: set[str] = field(default_factory=set)
    texts: list[str] = field(default_factory=list)
    """The texts it was read from (names included): what a line's meaning is held to."""

    def add_text(self, text: str) -> None:
        """Add what ``text`` names."""
        times, _ = _times(text)
        for readings in times:
            self.times |= readings
        for number in _numbers(text):  # the times' digits count as numbers too
            for reading in number:
                self.numbers |= reading
        self.handles |= _handles(text)
        self.hosts |= set(link_hosts(text))
        self.words |= {w.casefold() for w in WORD_RE.findall(text)}
        self.texts.append(text)

    def add_moment(self, moment: datetime, zones: Iterable[tzinfo], *, dates: bool) -> None:
        """Add when a message was posted, in each of ``zones``: its time and year, and
        with ``dates`` its day, month and hour as numbers too (what a summary of a period
        may name; a line that names "6" of a message posted on the 6th has not read it)."""
        for zone in zones:
            local = moment.astimezone(zone)
            self.numbers.add(str(local.year))
            self.times.add(_time(local.hour, local.minute))
            if dates:
                self.numbers |= {str(local.day), str(local.month), str(local.hour)}

    def merged(self, other: Evidence) -> Evidence:
        """Both together."""
        return Evidence(
            self.numbers | other.numbers,
            self.times | other.times,
            self.handles | other.handles,
            self.hosts | other.hosts,
            self.words | other.words,
            self.texts + other.texts,
        )


def _host_known(host: str, known: Collection[str]) -> bool:
    return any(host == k or k.endswith("." + host) for k in known)


def _on_the_hour(time: str, numbers: Collection[str]) -> bool:
    hour, minute = time.split(":")
    return minute == "00" and (hour in numbers or str(int(hour) - 12) in numbers)


def unsupported(text: str, evidence: Evidence, *, hosts: Iterable[str] = ()) -> str | None:
    """The first fact ``text`` names that ``evidence`` does not hold (``"number 500"``,
    ``"time 20:00"``, ``"handle @bob"``, ``"host evil.example"``), or ``None``.
    ``hosts``: hosts the text named before cleaning removed them."""
    times, rest = _times(text)
    for readings in times:
        if readings & evidence.times:
            continue
        # "at 8" in a message is 20:00 or 8:00 in a line: an hour on the hour.
        if any(_on_the_hour(t, evidence.numbers) for t in readings):
            continue
        return f"time {sorted(readings)[0]}"
    for number in _numbers(rest):
        if not any(reading <= evidence.numbers for reading in number):
            return f"number {sorted(number[0])[0]}"
    for handle in sorted(_handles(text)):
        if handle not in evidence.handles:
            return f"handle @{handle}"
    for host in dict.fromkeys([*hosts, *link_hosts(text)]):
        if not _host_known(host, evidence.hosts):
            return f"host {host}"
    return None


# --- language ------------------------------------------------------------------------

MIN_JUDGED_LETTERS = 12
"""Fewer letters say too little about a language (a name and a word)."""
SURE_LETTERS = 30
QUOTE_LETTERS = 6
"""A quotation of this many letters in another script is an untranslated one."""
SURE_PROBABILITY = 0.9
_QUOTE_RE = re.compile(r"«([^»]*)»|“([^”]*)”|„([^“”]*)[“”]|\"([^\"]*)\"")


def expected_script(language: str) -> str | None:
    """``"cyrillic"`` or ``"latin"`` for a language written in it, else ``None`` (the
    language wing's ``script.language_script``)."""
    return language_script(language)


def _without(text: str, names: Collection[str]) -> str:
    """``text`` without handles, hosts, digits and the words of participants' names
    (names stay as the chat writes them, in any script)."""
    text = re.sub(r"\S*@\S+|\S+\.\S+/\S*", " ", text)
    words = WORD_RE.findall(text)
    return " ".join(w for w in words if w.casefold() not in names)


def _script_share(text: str, script: str) -> tuple[float, int]:
    own, total = script_letters(text, script)
    return (own / total if total else 1.0), total


def wrong_language(
    text: str, language: str, *, names: Collection[str] = (), quotes: bool = True
) -> bool:
    """Whether ``text`` is surely not in ``language``: most of its letters in another
    script, or (``SURE_LETTERS`` and more) another language at ``SURE_PROBABILITY``.
    Participants' names (``names``, case-folded words) are left out; with ``quotes``
    false, quotations are too (a line may quote a message as it was written)."""
    if not quotes:
        text = _QUOTE_RE.sub(" ", text)
    body = _without(text, names)
    script = expected_script(language)
    if script is not None:
        share, letters = _script_share(body, script)
        if letters >= MIN_JUDGED_LETTERS and share < 0.5:
            return True
    letters = sum(1 for ch in body if ch.isalpha())
    if letters < SURE_LETTERS:
        return False
    top, probability = detect.ranked(body)[0]
    return bool(top != language and probability >= SURE_PROBABILITY and _known(language))


def _known(language: str) -> bool:
    """Whether the language identifier knows ``language``."""
    return language in detect.known()


def untranslated_quote(text: str, language: str) -> str | None:
    """A quotation of ``text`` written in another script than ``language``'s, or ``None``."""
    script = expected_script(language)
    if script is None:
        return None
    for match in _QUOTE_RE.finditer(text):
        quoted = next(g for g in match.groups() if g is not None)
        share, letters = _script_share(quoted, script)
        if letters >= QUOTE_LETTERS and share < 0.5:
            return quoted
    return None


# --- echoes and repeats --------------------------------------------------------------

ECHO_WORDS = 5


def _shingles(text: str, size: int = ECHO_WORDS) -> set[tuple[str, ...]]:
    words = [w.casefold() for w in WORD_RE.findall(text)]
    return {tuple(words[i : i + size]) for i in range(len(words) - size + 1)}


class Echo:
    """Whether a line repeats the instructions it was given (five words in a row)."""

    def __init__(self, prompts: Iterable[str]) -> None:
        self._shingles: set[tuple[str, ...]] = set()
        for prompt in prompts:
            self._shingles |= _shingles(prompt)

    def __call__(self, text: str) -> bool:
        return bool(_shingles(text) & self._shingles)


def _key(text: str) -> str:
    return " ".join(w.casefold() for w in WORD_RE.findall(text))


# --- the window ----------------------------------------------------------------------


class Window:
    """The messages a summary read, as evidence: per message, and all together."""

    def __init__(
        self,
        messages: Sequence[Message],
        *,
        timezone: tzinfo = UTC,
        similarity: Meaning | None = None,
    ) -> None:
        """``similarity``: the cross-language similarity (the bundled embedder's,
        loaded only when a line is judged across languages)."""
        self.meaning = similarity or Meaning()
        self.messages = {str(m.messenger_message_id): m for m in messages}
        self.zones = (UTC, timezone)
        self._evidence: dict[str, Evidence] = {}
        names: set[str] = set()
        for m in messages:
            for name in (m.sender_name, m.forwarded_from):
                for word in WORD_RE.findall(name or ""):
                    if len(word) >= 3 and word[0].isupper():
                        names.add(word.casefold())
        self.names = frozenset(names)
        """The words of the participants' names (case-folded)."""
        self.participants = frozenset(meaning.keys(names))
        """The same as keys across scripts (``meaning.keys``)."""

    def texts(self, ids: Iterable[str]) -> list[str]:
        """The messages ``ids`` as their author and text (``Zelda: …``): what a line's
        meaning is compared with."""
        out = []
        for i in ids:
            m = self.messages.get(i)
            if m is not None:
                author = m.sender_name or m.forwarded_from
                out.append(f"{author}: {message_text(m)}" if author else message_text(m))
        return out

    def of(self, ids: Iterable[str]) -> Evidence:
        """What the messages ``ids`` (of this window) hold."""
        total = Evidence()
        for i in ids:
            if i not in self._evidence:
                evidence = Evidence()
                message = self.messages.get(i)
                if message is not None:
                    evidence.add_text(message_text(message))
                    for name in (message.sender_name, message.sender_peer_id):
                        if name:
                            evidence.add_text(name)
                            evidence.handles.add(name.lower().lstrip("@"))
                    if message.forwarded_from:
                        evidence.add_text(message.forwarded_from)
                    evidence.add_moment(message.posted_at, self.zones, dates=False)
                self._evidence[i] = evidence
            total = total.merged(self._evidence[i])
        return total

    def everything(self, *moments: datetime | None) -> Evidence:
        """What all its messages hold, and the period's bounds (``moments``)."""
        evidence = self.of(self.messages)
        for moment in [*moments, *(m.posted_at for m in self.messages.values())]:
            if moment is not None:
                evidence.add_moment(moment, self.zones, dates=True)
        return evidence


# --- verdicts ------------------------------------------------------------------------


@dataclass
class Grounding:
    """What the check kept and dropped of one answer, and why."""

    kept: int = 0
    dropped: int = 0
    reasons: Counter[str] = field(default_factory=Counter)

    def drop(self, reason: str, text: str) -> None:
        """Count one dropped line (the log says why: the kind, not the text)."""
        self.dropped += 1
        kind = reason.split(" ", 1)[0]
        self.reasons[kind] += 1
        log.info("grounding: dropped a line (%s, %d characters)", reason, len(text))

    def note(self) -> str:
        """The counts as one log phrase."""
        reasons = ", ".join(f"{k} {n}" for k, n in sorted(self.reasons.items()))
        return f"kept {self.kept}, dropped {self.dropped}" + (f" ({reasons})" if reasons else "")


def item_problem(
    item: LLMItem,
    window: Window,
    language: str,
    *,
    echo: Echo | None = None,
    seen: set[str] | None = None,
    kind: str | None = None,
) -> str | None:
    """Why a model's line is not grounded (see the module docstring), or ``None``.
    ``seen``: the lines kept before it (updated with this one when it passes); ``kind``:
    the function list it was filed under (``function_problem``)."""
    if item.foreign_ids:
        return "foreign id"
    ids = [i for i in item.ids if i in window.messages]
    if not ids:
        return "no ids"
    key = _key(item.text)
    if not key:
        return "empty"
    if seen is not None and key in seen:
        return "repeat"
    if echo is not None and echo(item.text):
        return "echo"
    evidence = window.of(ids)
    missing = unsupported(item.text, evidence, hosts=item.hosts)
    if missing is not None:
        return f"ungrounded {missing}"
    if wrong_language(item.text, language, names=window.names, quotes=False):
        return "language"
    cited = [window.messages[i] for i in ids]
    if in_language(cited, language):
        new = unsupported_words(item.text, cited, language)
        if new is not None:
            return f"unsupported ({new} of its content words are in no message it cites)"
    else:
        across = across_languages(
            item.text, evidence.texts, window.texts(ids), window, language=language
        )
        if across is not None:
            return across
    if kind is not None and (function := function_problem(kind, cited)) is not None:
        return function
    if seen is not None:
        seen.add(key)
    return None


def function_problem(kind: str, messages: Sequence[Message]) -> str | None:
    """Why a line filed as a decision, a plan or an open question is not one by the
    messages it cites, or ``None``: an open question cites a message that asks (a question
    mark in any script); a decision, one with a cue of deciding, proposing or agreeing; a
    plan, one with a cue of a plan or a time (the language packs' cues, any language, or
    a clock time). "I'm sure you will be very happy" filed as a plan is none."""
    texts = [message_text(m) for m in messages]
    cues = [pack.cue for pack in packs()]
    if kind == "open_questions":
        shown = any("?" in t or "？" in t for t in texts)
    elif kind == "decisions":
        patterns = [p for c in cues for p in (c.decision, c.proposal, c.agreement)]
        shown = any(p.search(t) for p in patterns for t in texts)
    elif kind == "plans":
        patterns = [p for c in cues for p in (c.plan, c.when)] + [_TIME_RE]
        shown = any(p.search(t) for p in patterns for t in texts)
    else:
        return None
    return None if shown else f"function (no {kind.replace('_', ' ')} in its messages)"


SUPPORTED_SHARE = 1 / 3
"""At least this share of a line's content words must be in the messages it cites (their
stems, or a stem of the same first five letters; stop words aside): a line that talks of
a police precinct while citing a message about lunch is another message's line, or
none's. A third leaves room for the words a retelling adds ("discussed", "agreed")."""


def _source(messages: Sequence[Message]) -> str:
    return "\n".join(
        " ".join(filter(None, (message_text(m), m.sender_name, m.forwarded_from))) for m in messages
    )


def in_language(messages: Sequence[Message], language: str) -> bool:
    """Whether ``messages`` are (mostly) in ``language`` (the language identifier)."""
    source = _source(messages)
    return (
        _known(language)
        and any(ch.isalpha() for ch in source)
        and (detect.ranked(source)[0][0] == language)
    )


def across_languages(
    text: str,
    sources: Sequence[str],
    passages: Sequence[str],
    window: Window,
    *,
    floor: float = meaning.SUPPORT_FLOOR,
    language: str | None = None,
) -> str | None:
    """Why a line in one language is not held by messages in another (``meaning``): a
    name or place that no word of ``sources`` spells in any script, or a meaning
    further than ``floor`` from every one of ``passages``; else ``None``. The meaning
    and name checks are judged only where they were measured (``meaning.calibrated``:
    the languages with a pack; German capitalises every noun); a line in another
    language is held by its numbers, times, handles and hosts. A line that negates
    nothing where every message it cites negates or hedges is dropped too (its meaning
    scores as close as a faithful line's)."""
    if language is not None and not meaning.calibrated(language):
        return None
    name = meaning.unknown_name(text, sources, window.participants)
    if name is not None:
        return f"ungrounded name {name}"
    score = window.meaning.support(text, passages)
    if score < floor:
        return f"unsupported meaning ({score:.2f})"
    said = [p for p in passages if p.strip()]
    if said and all(meaning.hedged(p) for p in said) and not meaning.hedged(text):
        # The embedding scores «мы не поедем» told as "they are going" as close as its
        # faithful translation: a line whose every message negates, and that does not.
        return "lost negation"
    return None


def unsupported_words(text: str, messages: Sequence[Message], language: str) -> str | None:
    """``"n/m"`` when none or fewer than ``SUPPORTED_SHARE`` of the content words of
    ``text`` (a line in ``language``) are in ``messages`` — n of its m words are new — or
    it has none (``"0/0"``: "I am not sure about that" says nothing of its messages);
    else ``None``.

    Judged only when the messages are in ``language`` too (``py3langid`` says so): a line
    that translates its messages shares no stems with them, and only the other checks hold
    it then."""
    if not in_language(messages, language):
        return None
    source = _source(messages)
    # Who wrote is no content: a line that only names its senders (a channel's title,
    # "Ann and Bob") says nothing of what they wrote.
    senders = " ".join(
        filter(None, (n for m in messages for n in (m.sender_name, m.forwarded_from)))
    )
    named = set(terms(senders, keep_stop_words=True, language=language))
    said = [t for t in terms(text, language=language) if not t.isdigit() and t not in named]
    held = set(terms(source, keep_stop_words=True, language=language))
    new = [t for t in said if not _held(t, held)]
    kept = len(said) - len(new)
    if not said or kept == 0 or kept < SUPPORTED_SHARE * len(said):
        return f"{len(new)}/{len(said)}"
    return None


def summary_problem(
    text: str,
    window: Window,
    language: str,
    *,
    echo: Echo | None = None,
    bounds: tuple[datetime | None, datetime | None] = (None, None),
    hosts: Iterable[str] = (),
) -> str | None:
    """Why a summary paragraph is not grounded in its window, or ``None``."""
    if not _key(text):
        return "empty"
    if echo is not None and echo(text):
        return "echo"
    missing = unsupported(text, window.everything(*bounds), hosts=hosts)
    if missing is not None:
        return f"ungrounded {missing}"
    if wrong_language(text, language, names=window.names, quotes=False):
        return "language"
    everyone = list(window.messages.values())
    if everyone and meaning.calibrated(language) and not in_language(everyone, language):
        # Across languages each sentence must rest on some message by its names and
        # meaning (the window's first ``MAX_PASSAGES``: a larger one by names only).
        ids = list(window.messages)
        singles = window.texts(ids[: meaning.MAX_PASSAGES])
        size = meaning.GATHERED
        passages = singles + [
            "\n".join(singles[i : i + size]) for i in range(0, len(singles), size)
        ]
        sources = window.of(ids).texts
        for sentence in split_sentences(text):
            if not _key(sentence):
                continue
            name = meaning.unknown_name(sentence, sources, window.participants)
            if name is not None:
                return f"ungrounded name {name}"
            if len(ids) <= meaning.MAX_PASSAGES:
                score = window.meaning.support(sentence, passages)
                if score < meaning.SUMMARY_FLOOR:
                    return f"unsupported meaning ({score:.2f})"
    return None


MIN_LENGTH_RATIO = 0.5
MAX_LENGTH_RATIO = 3.0
"""A rewrite's letters against its line's: shorter has lost what the line said, longer
has added to it."""
CONTENT_LETTERS = 4
NEW_CONTENT_SHARE = 0.5
"""In the line's own script, at most this share of a rewrite's content words (of four
letters and more) may be new: a retelling, not another line."""


def _letters(text: str) -> int:
    return sum(1 for ch in text if ch.isalpha())


def _held(word: str, held: Collection[str]) -> bool:
    """Whether ``word`` or a word of its stem (the first five letters) is held."""
    return word in held or (len(word) > 5 and any(h.startswith(word[:5]) for h in held))


def rewrite_problem(
    rewrite: str,
    original: str,
    evidence: Evidence,
    language: str,
    *,
    names: Collection[str] = (),
    echo: Echo | None = None,
    window: Window | None = None,
) -> str | None:
    """Why a model's rewrite of a digest line may not replace it, or ``None``.

    The rewrite may name no number, time, handle or host that the line (``original``)
    and its messages (``evidence``) do not hold, no participant (``names``) the line
    does not name, and it must be in ``language``, its quotations translated. It keeps
    every name, place, number and negation of its line, in any script, asks where its
    line asks (``meaning.asks``: a question is not told as a statement), and adds no
    negation or hedge and no sentence the line has not (``hedges``, ``_sentences_said``). With
    ``window`` (its participants and ``Meaning``), a rewrite of a line that quotes
    another script must mean what the line or its messages say
    (``meaning.REWRITE_FLOOR``): a quotation replaced by a new claim is rejected.
    """
    if not _key(rewrite):
        return "empty"
    if re.search(r"[<>]|\]\(|\[/?INST\]|<\|", rewrite):
        return "markup"
    if echo is not None and echo(rewrite):
        return "echo"
    line = Evidence()
    line.add_text(original)
    missing = unsupported(rewrite, evidence.merged(line))
    if missing is not None:
        return f"ungrounded {missing}"
    held = {w.casefold() for w in WORD_RE.findall(original)} | evidence.words
    words = [w.casefold() for w in WORD_RE.findall(rewrite)]
    for word in words:
        if word in names and word not in held:
            return f"ungrounded name {word}"
    said = set(words)
    for word in WORD_RE.findall(original):  # "keep every name"
        if word.casefold() in names and word.casefold() not in said:
            return f"lost name {word}"
    participants = window.participants if window is not None else meaning.keys(names)
    lost = meaning.lost_name(original, rewrite, participants)
    if lost is not None:
        return f"lost name {lost}"
    added = meaning.unknown_name(rewrite, [original, *evidence.texts], participants)
    if added is not None:
        return f"ungrounded name {added}"
    quoted = " ".join(
        next(g for g in m.groups() if g is not None) for m in _QUOTE_RE.finditer(original)
    )
    if meaning.hedged(quoted) and not meaning.hedged(rewrite):
        return "lost negation"  # «мы не поедем» told as "they are going"
    asked = meaning.asks(original)
    if asked and not meaning.asks(rewrite):
        return "question told as a statement"  # «is it found at a zoo» told as "it is"
    # A question retold takes "if" or "whether", a hedge of its own: one per question.
    questions = max(original.count("?"), int(asked))
    if meaning.hedges(rewrite) > meaning.hedges(original) + questions:
        return "added negation"  # "has to work with them" told as "is not allowed to"
    if len(split_sentences(rewrite.strip())) > _sentences_said(original):
        return "more sentences"  # a line retold, then a story of the model's own
    numbers = {v for n in _numbers(rewrite) for r in n for v in r}
    for number in _numbers(original):  # "keep every number"
        if not any(r <= numbers for r in number):
            return f"lost number {sorted(number[0])[0]}"
    ratio = _letters(rewrite) / max(1, _letters(original))
    if not MIN_LENGTH_RATIO <= ratio <= MAX_LENGTH_RATIO:
        return f"length {ratio:.1f}"
    script = expected_script(language)
    if script is not None:
        for word in WORD_RE.findall(rewrite):
            if text_script(word) not in (None, script) and word.casefold() not in held:
                return f"ungrounded word {word}"
        if text_script(original) == script:
            new = [w for w in words if len(w) >= CONTENT_LETTERS and not _held(w, held)]
            content = [w for w in words if len(w) >= CONTENT_LETTERS]
            if content and len(new) > NEW_CONTENT_SHARE * len(content):
                return f"new content ({len(new)} of {len(content)} words)"
    if wrong_language(rewrite, language, names=names):
        return "language"
    if untranslated_quote(rewrite, language) is not None:
        return "language (untranslated quote)"
    if window is not None and _across(original, language):
        score = window.meaning.support(rewrite, [original, *evidence.texts])
        if score < meaning.REWRITE_FLOOR:
            return f"unsupported meaning ({score:.2f})"
    return None


def _sentences_said(line: str) -> int:
    """The sentences a rewrite of ``line`` may have: the line's, each sentence of its
    quotations counted (a quotation retold may become sentences of their own)."""
    unquoted = re.sub(r"[«»“”„\"]", " ", line)
    return max(1, len(split_sentences(" ".join(unquoted.split()))))


def _across(original: str, language: str) -> bool:
    """Whether a line is (or quotes) another script than ``language``'s."""
    script = expected_script(language)
    return script is not None and (
        text_script(original) != script or untranslated_quote(original, language) is not None
    )
