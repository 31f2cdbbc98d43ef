"""The extractive engine's connective text, per language (English and Russian).

The engine writes only these sentences itself; everything else it outputs is quoted
from messages, in their own language. A language without a phrasebook here is an
``UnsupportedLanguage`` error (an LLM endpoint writes any language).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from toolkit.errors import UnsupportedLanguage
from toolkit.summarize.languages import LANGUAGES


def _plural_en(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _plural_ru(n: int, one: str, few: str, many: str) -> str:
    if n % 10 == 1 and n % 100 != 11:
        word = one
    elif 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        word = few
    else:
        word = many
    return f"{n} {word}"


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

    def messages(self, n: int) -> str:
        """``1 message``, ``5 messages`` (``5 сообщений``)."""
        if self.code == "ru":
            return _plural_ru(n, "сообщение", "сообщения", "сообщений")
        return _plural_en(n, "message", "messages")

    def posts(self, n: int) -> str:
        """``1 post``, ``5 posts`` (``5 публикаций``)."""
        if self.code == "ru":
            return _plural_ru(n, "публикация", "публикации", "публикаций")
        return _plural_en(n, "post", "posts")

    def participants(self, n: int) -> str:
        """``1 participant``, ``5 participants`` (nominative in Russian)."""
        if self.code == "ru":
            return _plural_ru(n, "участник", "участника", "участников")
        return _plural_en(n, "participant", "participants")

    def from_participants(self, n: int) -> str:
        """``from 5 participants`` (``от 5 участников``: genitive in Russian)."""
        if self.code == "ru":
            return f"от {_plural_ru(n, 'участника', 'участников', 'участников')}"
        return f"from {_plural_en(n, 'participant', 'participants')}"

    def others(self, n: int) -> str:
        """``3 others`` (``ещё 3``), for a shortened list of names."""
        if self.code == "ru":
            return f"ещё {n}"
        return _plural_en(n, "other", "others")


EN = Phrasebook(
    code="en",
    and_word="and",
    open_quote="“",
    close_quote="”",
    templates={
        "chat_topic": "{who} discussed {terms}.",
        "chat_topics": "{who} discussed several topics: {topics}.",
        "author_topic": "{who} wrote about {terms}.",
        "author_topics": "{who} wrote on several topics: {topics}.",
        "chat_plain": "{messages} from {who}.",
        "channel_topic": "{title} posted about {terms}.",
        "channel_topics": "{title} posted on several topics: {topics}.",
        "channel_plain": "{title} published {posts}.",
        "key_one": "Key message — {quote}",
        "key_many": "Key messages — {quotes}",
        "original_language": "Messages are quoted in their original language.",
        "source_chat": "{title} is a chat ({participants}); the most active are {who}.",
        "source_chat_one": "{title} is a chat with one participant, {who}.",
        "source_channel": "{title} is a channel.",
        "source_topics_chat": "Its conversations are about {topics}.",
        "source_topics_channel": "Its posts are about {topics}.",
        "typical_one": "A typical message — {quote}",
        "typical_many": "Typical messages — {quotes}",
        "key_one_channel": "Key post — {quote}",
        "key_many_channel": "Key posts — {quotes}",
        "typical_one_channel": "A typical post — {quote}",
        "typical_many_channel": "Typical posts — {quotes}",
        "empty_period": "There are no messages from {start} to {end}.",
        "empty_source": "The store holds no text messages of {title}.",
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
        "chat_topic": "{who} обсуждали: {terms}.",
        "chat_topics": "{who} обсуждали несколько тем: {topics}.",
        "author_topic": "Темы сообщений {who}: {terms}.",
        "author_topics": "Темы сообщений {who}: {topics}.",
        "chat_plain": "{messages} от {who}.",
        "channel_topic": "Канал {title} публиковал посты на тему: {terms}.",
        "channel_topics": "Канал {title} публиковал посты на несколько тем: {topics}.",
        "channel_plain": "Канал {title} опубликовал {posts}.",
        "key_one": "Ключевое сообщение — {quote}",
        "key_many": "Ключевые сообщения — {quotes}",
        "original_language": "Сообщения цитируются на языке оригинала.",
        "source_chat": "{title} — чат ({participants}); чаще всех пишут {who}.",
        "source_chat_one": "{title} — чат с одним участником: {who}.",
        "source_channel": "{title} — канал.",
        "source_topics_chat": "Темы разговоров: {topics}.",
        "source_topics_channel": "Темы публикаций: {topics}.",
        "typical_one": "Типичное сообщение — {quote}",
        "typical_many": "Типичные сообщения — {quotes}",
        "key_one_channel": "Ключевая публикация — {quote}",
        "key_many_channel": "Ключевые публикации — {quotes}",
        "typical_one_channel": "Типичная публикация — {quote}",
        "typical_many_channel": "Типичные публикации — {quotes}",
        "empty_period": "С {start} по {end} сообщений нет.",
        "empty_source": "В хранилище нет текстовых сообщений источника {title}.",
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
