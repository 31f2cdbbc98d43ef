"""The extractive engine's own words, per language (English and Russian).

The engine writes only these sentences; everything else is quoted from messages, in
their own language. Counts agree with their number (``grammar``: pymorphy3 for
Russian), a source's name is always in the language's quotation marks, and the Russian
verbs are in the present tense, which needs no gender. A language without a phrasebook
is an ``UnsupportedLanguage`` error (an LLM endpoint writes any language).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from toolkit.errors import UnsupportedLanguage
from toolkit.summarize.extractive.grammar import count_en, count_ru
from toolkit.summarize.extractive.tokens import script
from toolkit.summarize.languages import LANGUAGES

_MONTHS = {
    "en": [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ],
    "ru": [
        "января",
        "февраля",
        "марта",
        "апреля",
        "мая",
        "июня",
        "июля",
        "августа",
        "сентября",
        "октября",
        "ноября",
        "декабря",
    ],
}
_SCRIPTS = {"en": "latin", "ru": "cyrillic"}
# A sentence that already ends in a quote closing with . ! ? or … takes no second stop.
_DOUBLE_STOP = re.compile(r"([.!?…][”»\"])\.$")


@dataclass(frozen=True)
class Phrasebook:
    """Every sentence the extractive engine writes, in one language."""

    code: str
    and_word: str
    open_quote: str
    close_quote: str
    templates: dict[str, str]

    def join(self, items: Sequence[str]) -> str:
        """``A``, ``A and B``, ``A, B and C`` in this language."""
        items = list(items)
        if len(items) <= 1:
            return "".join(items)
        return f"{', '.join(items[:-1])} {self.and_word} {items[-1]}"

    def quote(self, text: str) -> str:
        """Text in this language's quotation marks."""
        return f"{self.open_quote}{text}{self.close_quote}"

    def say(self, key: str, **values: object) -> str:
        """Fill one template."""
        return self.templates[key].format(**values)

    def sentence(self, key: str, **values: object) -> str:
        """Fill one template as a sentence: capitalised, one full stop at most."""
        text = _DOUBLE_STOP.sub(r"\1", self.say(key, **values))
        return text[:1].upper() + text[1:]

    def topics(self, phrases: Sequence[str]) -> str:
        """Topic phrases joined; a phrase in another script is quoted, as written."""
        own = _SCRIPTS[self.code]
        return self.join([p if script(p) in (None, own) else self.quote(p) for p in phrases])

    def topic_titles(self, titles: Sequence[str], shown: int) -> str:
        """Forum topic titles, quoted, the first ``shown`` and how many more when more
        than one would be left out: ``“A”, “B”, “C” and 5 more`` (``и ещё 5 тем``)."""
        quoted = [self.quote(t) for t in titles]
        if len(quoted) <= shown + 1:
            return self.join(quoted)
        return self.join([*quoted[:shown], self.more_topics(len(quoted) - shown)])

    def more_topics(self, n: int) -> str:
        """``5 more`` (``ещё 5 тем``, ``ещё 21 тема``), ending a shortened list of topics."""
        if self.code == "ru":
            return f"ещё {count_ru(n, 'тема')}"
        return f"{n} more"

    def channel_subject(self, title: str) -> str:
        """How a channel is named as a sentence's subject."""
        return self.say("channel_subject", title=self.quote(title))

    def on_day(self, when: datetime, sentence: str) -> str:
        """``sentence`` placed on its day ("On 21 October, Ann asks …")."""
        day = f"{when.day} {_MONTHS[self.code][when.month - 1]}"
        subject = self.say("channel_subject", title="")
        if subject and sentence.startswith(subject[:1].upper() + subject[1:]):
            sentence = subject[:1] + sentence[1:]  # "канал" stays lower case after a date
        again = self.say("posted_again", quote="").split(" ", 1)[0]
        if sentence.startswith(again + " "):
            sentence = again.lower() + sentence[len(again) :]  # "the channel", "в канале"
        return self.say("on_day", day=day, sentence=sentence)

    def messages(self, n: int) -> str:
        """``1 message``, ``5 messages`` (``5 сообщений``)."""
        return count_ru(n, "сообщение") if self.code == "ru" else count_en(n, "message", "messages")

    def posts(self, n: int) -> str:
        """``1 post``, ``5 posts`` (``5 публикаций``)."""
        return count_ru(n, "публикация") if self.code == "ru" else count_en(n, "post", "posts")

    def participants(self, n: int) -> str:
        """``1 participant``, ``5 participants`` (``21 участник``)."""
        if self.code == "ru":
            return count_ru(n, "участник")
        return count_en(n, "participant", "participants")

    def from_participants(self, n: int) -> str:
        """``from 5 participants`` (``от 5 участников``, ``от 21 участника``)."""
        if self.code == "ru":
            return f"от {count_ru(n, 'участник', 'gent')}"
        return f"from {count_en(n, 'participant', 'participants')}"

    def others(self, n: int) -> str:
        """``3 others`` (``ещё 3 участника``), ending a shortened list of names."""
        if self.code == "ru":
            return f"ещё {count_ru(n, 'участник')}"
        return count_en(n, "other", "others")


EN = Phrasebook(
    code="en",
    and_word="and",
    open_quote="“",
    close_quote="”",
    templates={
        "asked_answered": "{asker} asks {question}, and {answerer} answers {answer}.",
        "asked_answered_to": "{asker} asks {answerer} {question}, and {answerer} answers {answer}.",
        "asked": "{who} asks {quote}.",
        "asked_to": "{who} asks {whom} {quote}.",
        "proposed": "{who} proposes {quote}.",
        "proposed_to": "{who} proposes to {whom} {quote}.",
        "decided": "{who} decides {quote}.",
        "shared": "{who} shares {quote}.",
        "said": "{who} says {quote}.",
        "posted": "{who} posted {quote}.",
        "posted_again": "The channel posted {quote}.",
        "retold": "{clauses}.",
        "channel_subject": "{title}",
        "on_day": "On {day}, {sentence}",
        "chat_topics": "{who} discussed {topics}.",
        "forum_topics": "{who} wrote in the topics {topics}.",
        "forum_topic": "{who} wrote in the topic {topic}.",
        "channel_topics": "{title} posted about {topics}.",
        "chat_plain": "{messages} from {who}.",
        "original_language": "Messages are quoted in their original language.",
        "source_chat": "{title} is a chat of {participants}; the most active are {who}.",
        "source_channel": "{title} is a channel.",
        "source_forum": "{title} is a forum of {participants}; the most active are {who}.",
        "source_topic_chat": "{topic} is a topic of {title} with {participants}; the most "
        "active are {who}.",
        "source_topic_channel": "{topic} is a topic of {title}.",
        "source_chat_one": "{title} is a chat of one participant, {who}.",
        "source_forum_one": "{title} is a forum of one participant, {who}.",
        "source_topic_chat_one": "{topic} is a topic of {title} with one participant, {who}.",
        "source_topics_chat": "Its conversations are about {topics}.",
        "source_topics_channel": "Its posts are about {topics}.",
        "source_topics_forum": "Its topics, the busiest first, are {topics}.",
        "source_one_topic_forum": "Its messages are in the topic {topic}.",
        "empty_period": "There are no messages from {start} to {end}.",
        "empty_source": "The store holds no text messages of {title}.",
        "empty_topic": "The store holds no text messages in the topic {topic} of {title}.",
        "section_chat": "{messages} {from_participants}.",
        "section_channel": "{posts}.",
        "other_topic": "Other messages",
    },
)

RU = Phrasebook(
    code="ru",
    and_word="и",
    open_quote="«",
    close_quote="»",
    templates={
        "asked_answered": "{asker} спрашивает: {question}, и {answerer} отвечает: {answer}.",
        "asked_answered_to": "{asker} спрашивает: {question}, и {answerer} отвечает: {answer}.",
        "asked": "{who} спрашивает: {quote}.",
        "asked_to": "{who} спрашивает: {quote}.",
        "proposed": "{who} предлагает: {quote}.",
        "proposed_to": "{who} предлагает: {quote}.",
        "decided": "{who} сообщает о решении: {quote}.",
        "shared": "{who} делится материалом: {quote}.",
        "said": "{who} пишет: {quote}.",
        "posted": "{who} публикует пост: {quote}.",
        "posted_again": "В канале вышел пост: {quote}.",
        "retold": "{clauses}.",
        "channel_subject": "канал {title}",
        "on_day": "{day} {sentence}",
        "chat_topics": "{who} обсуждают темы: {topics}.",
        "forum_topics": "Темы форума: {topics}; авторы: {who}.",
        "forum_topic": "Тема форума: {topic}; авторы: {who}.",
        "channel_topics": "Темы канала {title}: {topics}.",
        "chat_plain": "Сообщений всего: {messages}; авторы: {who}.",
        "original_language": "Сообщения цитируются на языке оригинала.",
        "source_chat": "{title} — чат ({participants}); активнее всех: {who}.",
        "source_channel": "{title} — канал.",
        "source_forum": "{title} — форум ({participants}); активнее всех: {who}.",
        "source_topic_chat": "{topic} — тема чата {title} ({participants}); активнее всех: {who}.",
        "source_topic_channel": "{topic} — тема источника {title}.",
        "source_chat_one": "{title} — чат одного участника, {who}.",
        "source_forum_one": "{title} — форум одного участника, {who}.",
        "source_topic_chat_one": "{topic} — тема чата {title} с одним участником, {who}.",
        "source_topics_chat": "Темы разговоров: {topics}.",
        "source_topics_channel": "Темы публикаций: {topics}.",
        "source_topics_forum": "Темы форума, начиная с самых активных: {topics}.",
        "source_one_topic_forum": "Сообщения форума — в теме {topic}.",
        "empty_period": "С {start} по {end} сообщений нет.",
        "empty_source": "В хранилище нет текстовых сообщений источника {title}.",
        "empty_topic": "В хранилище нет текстовых сообщений в теме {topic} источника {title}.",
        "section_chat": "{messages} {from_participants}.",
        "section_channel": "{posts}.",
        "other_topic": "Прочие сообщения",
    },
)

PHRASEBOOKS: dict[str, Phrasebook] = {book.code: book for book in (EN, RU)}


def phrasebook(language: str) -> Phrasebook:
    """The phrasebook of ``language``.

    Raises:
        UnsupportedLanguage: (field ``language``) naming the languages the extractive
            engine writes and saying that an LLM endpoint writes any language.
    """
    book = PHRASEBOOKS.get(language)
    if book is None:
        can = ", ".join(f"{code} ({LANGUAGES[code]})" for code in PHRASEBOOKS)
        raise UnsupportedLanguage(
            f"the extractive summary engine writes {can}, not {language!r}; "
            "configure an LLM endpoint (MLENS_LLM_BASE_URL) to summarise in any language",
            field="language",
            supported=list(PHRASEBOOKS),
        )
    return book
