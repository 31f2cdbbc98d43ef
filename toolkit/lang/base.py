"""The one small interface every language pack fills: ``LanguagePack``.

A pack holds everything about one language that the extractive engine needs, and
nothing else does: the sentences the engine writes (``templates``), how it counts and
joins things and names dates, the cue words that tell what a message does (a
proposal, a decision, an agreement, a plan, a leave-taking), the chatter and filler
words that are never a topic, the abbreviations a sentence never ends after, the
period wording a source summary must not use, the marks that stand for an e-mail
address or a phone number, and, where the language has it, reported speech. Names are
written as the chat shows them, in their own script, never transliterated; dates show
their year where a reader needs it (``dated``). The engine core
(``toolkit.summarize.extractive``) holds no word of any language; it asks the pack.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from types import ModuleType
from typing import Any, Protocol

from toolkit.text import WORD_RE

Counter = Callable[[int, str, str], str]
"""``count(n, noun, case)``: ``n`` and the noun agreeing with it ("5 messages")."""
Retell = Callable[[str, str, "str | None", tuple[str, ...]], "str | None"]
"""``retell(text, speaker, addressee, names)``: the message in reported speech, or None."""

_MARK = re.compile(r"^\s*\[([^\W\d][\w ]*)\]")
"""An attachment's mark opening a message (``[sticker] 😀``, ``[video file] a.mp4``)."""


@lru_cache(maxsize=1)
def _double_stop() -> re.Pattern[str]:
    """A template's full stop after a quotation that ends a sentence already ("…?”.")."""
    from toolkit.lang import quotation_marks

    closers = re.escape("".join(quotation_marks().values()))
    return re.compile(rf"([.!?…][{closers}\"])\.$")


def _never(_: str) -> str | None:
    return None


UNNAMED = "?"
"""The author key of a message whose sender the export does not name."""


@dataclass(frozen=True)
class Cues:
    """Patterns of what a message does, in one language (compiled, case-insensitive)."""

    proposal: re.Pattern[str]
    decision: re.Pattern[str]
    agreement: re.Pattern[str]
    refusal: re.Pattern[str]
    plan: re.Pattern[str]
    farewell: re.Pattern[str]
    when: re.Pattern[str]
    """Time expressions ("tomorrow", "on Friday", "в пятницу"): a plan's date."""
    hedge: re.Pattern[str]
    """Hedges, negations and conditions ("I think", "might", "not … yet", «может», «ще не»):
    a statement that carries one decides nothing and plans nothing for sure."""
    past: re.Pattern[str]
    """A report of the past ("we watched", "yesterday", «вчера»): not a plan."""
    wish: re.Pattern[str]
    """Wishes and congratulations ("enjoy your holidays", «удачи»): not a plan."""
    resolved: re.Pattern[str]
    """An asker's own "never mind, found it" («разобрался»): the question is closed."""
    rhetorical: re.Pattern[str]
    """Questions that ask nothing ("who knew?", "why not?", «не так ли»)."""
    us: re.Pattern[str]
    """The first person plural ("we", «мы», «ми»): a channel's own decision says it."""
    you: re.Pattern[str]
    """The second person ("you", «ты», «ви»): a message that says it is retold only when
    whom it means is known."""
    secret: re.Pattern[str]
    """What names a password, login or key ("password", «пароль», «логін»): a value after
    it is a secret, masked in every summary (``toolkit.summarize.credentials``)."""
    offer: re.Pattern[str]
    """Calls to action and offers ("DM me", «продам», «знижка»): an advert's evidence
    (``toolkit.summarize.extractive.draft.adverts``)."""
    price: re.Pattern[str]
    """Words of a price ("per night", «руб.», «ціна»): beside a number, an advert's evidence."""
    dangling: re.Pattern[str]
    """A word no sentence ends on, at the end of a text (a conjunction, an article, a
    preposition: "and", «и», «та»): the message was cut off and goes on in the next one,
    a fragment a digest does not quote."""
    leaning: re.Pattern[str]
    """A sentence's opening word that leans on the sentence before it ("So", "Therefore",
    «Поэтому», «Хоча»): without that sentence it says half of what it means, so a quote
    never begins on it (``toolkit.summarize.extractive.draft.quotes.passage``)."""
    interrogative: re.Pattern[str]
    """A question's opening word ("what", «какой», «який»): a short message that opens on
    one asks back even without a question mark ("what coin ser"), and answers nothing
    (``toolkit.summarize.extractive.choose.acts.asks_unmarked``)."""
    leans_back: re.Pattern[str]
    """A message's or sentence's opening word that points back to what came before it
    (a pronoun, a demonstrative, a conjunction, an agreement: "It", "This", "And", "I
    agree", «Ну, это», «Це»; an answer word alone, "Yes", is none): told alone it means
    what it means only beside that, so a digest tells
    the message with the one it answers or not at all, and a quote never begins on such
    a sentence (``toolkit.summarize.extractive.choose.selection.partner``)."""


def pack_from(words: ModuleType, **fields: Any) -> LanguagePack:
    """A pack whose data are the constants of the module ``words`` (``CODE``, ``SCRIPT``,
    ``QUOTES``, ``AND``, ``NOUNS``, ``MONTHS``, ``CHATTER_WORDS``, ``FILLER_WORDS``,
    ``ABBREVIATIONS``, ``PERIOD_PATTERNS``, ``MEDIA``, ``LAUGHTER`` and one pattern per
    cue: ``PROPOSAL`` … ``YOU``, compiled case-insensitively; ``STOP_WORDS`` and the
    stemmer are its lexicon's, ``toolkit.lang.<code>``), its functions given as
    ``fields``."""
    names = [f.name for f in dataclasses.fields(Cues)]
    cue = Cues(**{n: re.compile(getattr(words, n.upper()), re.IGNORECASE) for n in names})
    data = {name: getattr(words, name.upper()) for name in _PLAIN_DATA}
    open_quote, close_quote = words.QUOTES
    not_topics: frozenset[str] = getattr(words, "NOT_TOPICS", frozenset())
    return LanguagePack(
        open_quote=open_quote,
        close_quote=close_quote,
        and_word=words.AND,
        cue=cue,
        not_topics=not_topics,
        laughter=re.compile(words.LAUGHTER),
        day_part=re.compile(words.DAY_PART, re.IGNORECASE),
        asks_whom=getattr(words, "ASKS_WHOM", None),
        **data,
        **fields,
    )


_PLAIN_DATA = (
    "code",
    "script",
    "nouns",
    "months",
    "chatter_words",
    "filler_words",
    "abbreviations",
    "period_patterns",
    "media",
)
"""Pack fields whose data is the ``words`` constant of the same name in capitals."""


def grouped(n: int, separator: str, *, from_digits: int = 4) -> str:
    """``n`` with its digits in groups of three (``12,431``; ``12\u00a0431``) when it has
    ``from_digits`` digits or more."""
    text = str(n)
    if len(text.lstrip("-")) < from_digits:
        return text
    return f"{n:,}".replace(",", separator)


def word_set(text: str) -> frozenset[str]:
    """The whitespace-separated words of ``text`` (a pack's word lists are written so)."""
    return frozenset(text.split())


class NameHelper(Protocol):
    """A language's name words (``morph.NameForms``): their forms, lemmas, everyday words."""

    def forms(self, word: str) -> frozenset[str]:
        """Every case form of the name word ``word`` (lower case, itself among them)."""
        ...

    def lemma(self, word: str) -> str | None:
        """The dictionary form of a word that reads first as a name, else ``None``."""
        ...

    def everyday(self, word: str) -> bool:
        """Whether ``word`` is, first of all, an everyday word (left alone in lower case)."""
        ...


@dataclass(frozen=True)
class LanguagePack:
    """Everything the extractive engine knows about one language (see the module)."""

    code: str
    script: str
    """``latin`` or ``cyrillic``: the letters this language is written in."""
    open_quote: str
    close_quote: str
    and_word: str
    months: tuple[str, ...]
    """Month names as a date uses them ("21 October", "21 октября")."""
    templates: Mapping[str, str]
    nouns: Mapping[str, str]
    """Nouns the engine counts, by key (``message`` → "message" / "сообщение")."""
    count: Counter
    cue: Cues
    chatter_words: frozenset[str]
    filler_words: frozenset[str]
    abbreviations: frozenset[str]
    """Lower-case words that end with a dot without ending a sentence ("mr", "т.е")."""
    not_topics: frozenset[str]
    """Words that are content but never a topic title ("mean" in "I mean")."""
    period_patterns: tuple[str, ...]
    media: Mapping[str, str]
    """The word for each attachment kind, by the kind's name as the importers write it
    in a message's mark (``file``, ``video file``): ``[file] a.pdf`` is quoted
    ``[файл] a.pdf`` in Russian."""
    laughter: re.Pattern[str]
    """A token that is laughter as this language's chats write it ("lol", «ахаха»)."""
    day_part: re.Pattern[str]
    """A clock time with its half of the day ("7 pm", «в 7 утра»): not ambiguous."""
    asks_whom: str | None = None
    """Where the pack retells: its reported speech asking someone (``{who}``, a regex of
    the name) something ("asks {who} whether"), which the evaluation reads to find a
    name repeated where a pronoun belongs."""
    retell: Retell | None = None
    phrase_form: Callable[[Sequence[str], Sequence[bool]], str] = field(
        default=lambda words, _: " ".join(words)
    )
    """A noun phrase in dictionary form, given its words and whether each keeps its case."""
    noun_role: Callable[[str], str] = field(default=lambda _: "noun")
    """``noun``, ``adj``, ``guess`` (a noun its dictionary lacks: a topic only where it
    recurs) or ``other``: what a word can be in a noun phrase."""
    number: Callable[[int], str] = field(default=str)
    """A number as this language groups its digits ("12,431", "12 431")."""
    head_last: bool = False
    """Whether a noun phrase ends in its head noun (English: "release notes")."""
    warm: Callable[[], object] = field(default=lambda: None)
    """Loads what the pack loads on first use (dictionaries), so that a server's first
    digest does not wait for it (``toolkit.summarize.warm``)."""
    name_forms: NameHelper | None = None
    """Where names change form (Slavic: «Борису» for «Борис»): the case forms of a name
    word, for the pseudonyms an LLM endpoint is sent (``toolkit.summarize.llm.pseudonyms``)."""
    context_year: int | None = None
    """The year the text is about: its dates show no year; a date of another year shows
    its year, and every date does when ``None`` (see ``dated``)."""

    # -- writing ---------------------------------------------------------------

    def say(self, key: str, **values: object) -> str:
        """Fill one template."""
        return self.templates[key].format(**values)

    def sentence(self, key: str, **values: object) -> str:
        """Fill one template as a sentence: capitalised, one full stop at most."""
        text = _double_stop().sub(r"\1", self.say(key, **values))
        return text[:1].upper() + text[1:]

    def join(self, items: Sequence[str]) -> str:
        """``A``, ``A and B``, ``A, B and C`` in this language."""
        items = [i for i in items if i]
        if len(items) <= 1:
            return "".join(items)
        return f"{', '.join(items[:-1])} {self.and_word} {items[-1]}"

    def quote(self, text: str) -> str:
        """Text in this language's quotation marks."""
        return f"{self.open_quote}{text}{self.close_quote}"

    def counted(self, n: int, noun: str, case: str = "nomn") -> str:
        """``5 messages`` (``5 сообщений``): ``noun`` is a key of ``nouns``."""
        return self.count(n, self.nouns[noun], case)

    def dated(self, start: datetime | None, end: datetime | None) -> LanguagePack:
        """This pack writing about the time from ``start`` to ``end`` (both inclusive):
        when both are in one year, a date of that year shows no year and any other
        date shows its year; when they are in different years (or unknown), every date
        shows its year."""
        same = start is not None and end is not None and start.year == end.year
        return dataclasses.replace(self, context_year=end.year if same and end else None)

    def day(self, when: datetime, *, year: bool | None = None) -> str:
        """A day as this language writes it ("21 October"; "21 October 2025" when its
        year is not the context's, or when ``year`` says so)."""
        year = when.year != self.context_year if year is None else year
        month = self.months[when.month - 1]
        if year:
            return self.say("day_year", day=when.day, month=month, year=when.year)
        return self.say("day", day=when.day, month=month)

    def moment(self, when: datetime) -> str:
        """A day and time ("21 October, 14:05"), the day as ``day`` writes it."""
        return self.say("moment", day=self.day(when), time=when.strftime("%H:%M"))

    def span(self, start: datetime, end: datetime) -> str:
        """The days from ``start`` to ``end`` ("20 September to 27 October"); a year both
        share and show is written once, at the end ("… to 27 October 2025"), two years
        both; one day is written once."""
        if start.date() == end.date():
            return self.day(start)
        if start.year != end.year:
            return self.say("span", start=self.day(start, year=True), end=self.day(end, year=True))
        return self.say("span", start=self.day(start, year=False), end=self.day(end))

    def years(self, start: datetime, end: datetime) -> str:
        """The years from ``start`` to ``end`` ("2019 to 2026"); one year alone."""
        if start.year == end.year:
            return self.say("year", year=start.year)
        return self.say("span_years", start=start.year, end=end.year)

    def name(self, name: str) -> str:
        """A person's or chat's name as the chat shows it: in its own script, never
        transliterated (a reader looks for "Alice" in the chat, not "Алис"); a sender the
        export does not name (``UNNAMED``, a deleted account) is said in words."""
        shown = " ".join(name.split())
        return self.say("unnamed_sender") if shown in ("", UNNAMED) else shown

    def marked(self, text: str) -> str:
        """``text`` with its attachment's mark in this language (``[file] a.pdf`` →
        ``[файл] a.pdf``); a mark of a kind the pack does not know stays as it is."""

        def word(match: re.Match[str]) -> str:
            kind = match.group(1)
            return f"[{self.media.get(kind.replace('_', ' ').casefold(), kind)}]"

        return _MARK.sub(word, text, count=1)

    def topic_title(self, topic_id: int, *, general: bool = False) -> str:
        """The title of a forum topic the store does not name ("General", "Topic 7")."""
        return self.say("general_topic") if general else self.say("topic_n", n=topic_id)

    # -- reading ---------------------------------------------------------------

    def words(self, text: str) -> list[str]:
        """The lower-case words of ``text``."""
        return [w.casefold().replace("’", "'") for w in WORD_RE.findall(text)]

    def is_chatter_word(self, word: str) -> bool:
        """Whether one lower-case word is a greeting, thanks or backchannel word."""
        return word in self.chatter_words

    def says_farewell(self, text: str) -> bool:
        """Whether ``text`` holds a leave-taking formula."""
        return bool(self.cue.farewell.search(text))

    # -- lists -----------------------------------------------------------------

    def topics(self, phrases: Sequence[str]) -> str:
        """Topic phrases joined; a phrase not in this language's script is quoted (one
        already quoted stays as it is)."""
        from toolkit.lang.script import script

        def shown(phrase: str) -> str:
            if phrase.startswith(self.open_quote) or script(phrase) in (None, self.script):
                return phrase
            return self.quote(phrase)

        return self.join([shown(p) for p in phrases])

    def topic_titles(self, titles: Sequence[str], shown: int) -> str:
        """Forum topic titles, quoted, the first ``shown`` and how many more when more
        than one would be left out: ``“A”, “B”, “C” and 5 more``."""
        quoted = [self.quote(t) for t in titles]
        if len(quoted) <= shown + 1:
            return self.join(quoted)
        more = len(quoted) - shown
        count = self.counted(more, "topic")
        return self.join([*quoted[:shown], self.say("more_topics", n=more, count=count)])

    def people(self, names: Sequence[str], total: int | None = None, shown: int = 3) -> str:
        """Names as the chat shows them, the first ``shown``, then how many others
        ("and 7 others")."""
        total = len(names) if total is None else total
        written = [self.name(n) for n in names[:shown]]
        if total > len(written):
            others = self.say("others", count=self.counted(total - len(written), "other"))
            return self.join([*written, others])
        return self.join(written)

    def on_day(self, when: datetime, sentence: str) -> str:
        """``sentence`` placed on its day ("On 21 October, Ann asks …")."""
        subject = self.say("channel_subject", title="")
        if subject and sentence.startswith(subject[:1].upper() + subject[1:]):
            sentence = subject[:1] + sentence[1:]  # "канал" stays lower case after a date
        again = self.say("posted_again", quote="").split(" ", 1)[0]
        if sentence.startswith(again + " "):
            sentence = again.lower() + sentence[len(again) :]  # "the channel", "в канале"
        return self.say("on_day", day=self.day(when), sentence=sentence)
