"""The digest's parts: acts, quotes, key phrases, templates for 1, 2, 5 and 21, selection."""

from __future__ import annotations

import itertools
from datetime import datetime

import numpy as np
import pytest

from toolkit.summarize.extractive.acts import Act, act_of, is_chatter, is_placeholder
from toolkit.summarize.extractive.conversations import Turn
from toolkit.summarize.extractive.grammar import morph
from toolkit.summarize.extractive.keyphrases import candidates, dictionary_form, key_phrases
from toolkit.summarize.extractive.quotes import balanced, cut, one_line, passage, quotable
from toolkit.summarize.extractive.selection import select
from toolkit.summarize.extractive.templates import EN, RU, Phrasebook
from toolkit.summarize.period_wording import has_period_wording
from toolkit.text import URL_RE

COUNTS = (1, 2, 5, 21)


@pytest.mark.parametrize(
    ("method", "expected"),
    [
        ("messages", ["1 message", "2 messages", "5 messages", "21 messages"]),
        ("posts", ["1 post", "2 posts", "5 posts", "21 posts"]),
        ("participants", ["1 participant", "2 participants", "5 participants", "21 participants"]),
        ("others", ["1 other", "2 others", "5 others", "21 others"]),
        ("more_topics", ["1 more", "2 more", "5 more", "21 more"]),
        (
            "from_participants",
            ["from 1 participant", "from 2 participants", "from 5 participants",
             "from 21 participants"],
        ),
    ],
)  # fmt: skip
def test_english_counts_agree(method: str, expected: list[str]) -> None:
    assert [getattr(EN, method)(n) for n in COUNTS] == expected


@pytest.mark.parametrize(
    ("method", "expected"),
    [
        ("messages", ["1 сообщение", "2 сообщения", "5 сообщений", "21 сообщение"]),
        ("posts", ["1 публикация", "2 публикации", "5 публикаций", "21 публикация"]),
        ("participants", ["1 участник", "2 участника", "5 участников", "21 участник"]),
        ("others", ["ещё 1 участник", "ещё 2 участника", "ещё 5 участников", "ещё 21 участник"]),
        ("more_topics", ["ещё 1 тема", "ещё 2 темы", "ещё 5 тем", "ещё 21 тема"]),
        (
            "from_participants",
            ["от 1 участника", "от 2 участников", "от 5 участников", "от 21 участника"],
        ),
    ],
)
def test_russian_counts_agree(method: str, expected: list[str]) -> None:
    assert [getattr(RU, method)(n) for n in COUNTS] == expected


@pytest.mark.parametrize(
    ("book", "expected"),
    [
        (EN, ["“T0”", "“T0” and “T1”", "“T0”, “T1”, “T2” and 2 more",
              "“T0”, “T1”, “T2” and 18 more"]),
        (RU, ["«T0»", "«T0» и «T1»", "«T0», «T1», «T2» и ещё 2 темы",
              "«T0», «T1», «T2» и ещё 18 тем"]),
    ],
    ids=["en", "ru"],
)  # fmt: skip
def test_forum_topic_titles_are_quoted_busiest_first_then_how_many_more(
    book: Phrasebook, expected: list[str]
) -> None:
    shown = [book.topic_titles([f"T{i}" for i in range(n)], 3) for n in COUNTS]
    assert shown == expected
    # One more title is named rather than counted: "and 1 more" never replaces it.
    assert book.topic_titles([f"T{i}" for i in range(4)], 3).count(book.open_quote) == 4
    assert book.topic_titles([f"T{i}" for i in range(22)], 3).endswith(book.more_topics(19))


def _names(n: int) -> list[str]:
    return [f"Name{i}" for i in range(n)]


@pytest.mark.parametrize("book", [EN, RU], ids=["en", "ru"])
@pytest.mark.parametrize("n", COUNTS)
def test_every_template_renders_for_1_2_5_and_21(book: Phrasebook, n: int) -> None:
    names = _names(min(n, 3))
    who = book.join([*names, book.others(n - 3)] if n > 3 else names)
    values = {
        "who": who,
        "whom": "Bob",
        "clauses": "Ann asks Bob whether it is done",
        "asker": "Ann",
        "answerer": "Bob",
        "quote": book.quote("Is it done?"),
        "question": book.quote("Is it done?"),
        "answer": book.quote("Yes, merged."),
        "title": book.quote("Team (demo)"),
        "topic": book.quote("Deploys"),
        "messages": book.messages(n),
        "posts": book.posts(n),
        "participants": book.participants(n),
        "from_participants": book.from_participants(n),
        "start": "2026-10-01 00:00 UTC",
        "end": "2026-10-02 00:00 UTC",
        "day": "1",
        "sentence": "Ann says “x”.",
    }
    phrases = book.topics([f"topic {i}" for i in range(min(n, 3))])
    titles = book.topic_titles([f"Topic {i}" for i in range(n)], 3)  # a forum's n topics
    for key, topics in itertools.product(book.templates, (phrases, titles)):
        text = book.sentence(key, topics=topics, **values)
        assert "{" not in text, key
        assert "}" not in text, key
        assert text[:1].isupper() or text[:1].isdigit() or text[:1] in "“«", (key, text)
        assert not text.endswith(("?”.", "?».", "..")), (key, text)
        assert balanced(text), (key, text)
        if n > 3 and "{who}" in book.templates[key]:
            noun = "участник" if book is RU else "other"
            assert noun in text, (key, text)  # "и ещё 2 участника", never a bare number


def test_a_channel_name_is_always_quoted_the_same_way() -> None:
    assert RU.channel_subject("Вики-заметки (демо)") == "канал «Вики-заметки (демо)»"
    assert EN.channel_subject("Lounge") == "“Lounge”"
    day = datetime(2026, 10, 21)
    assert RU.on_day(day, "Канал «X» пишет: «a».") == "21 октября канал «X» пишет: «a»."
    assert EN.on_day(day, "Ann says “a”.") == "On 21 October, Ann says “a”."


def test_chatter_is_no_content() -> None:
    for text in ["ok", "lol", "+1", "Hey..", "Thanks!", "👍", "Hi! How are you?", "спасибо)"]:
        assert is_chatter(text), text
        assert act_of(text) is Act.CHATTER
    assert act_of("are we still on for tomorrow night at the movies?") is Act.QUESTION
    assert act_of("Let's meet at 7 at the cinema") is Act.PROPOSAL
    assert act_of("Slides: https://example.com/deck") is Act.SHARE


@pytest.mark.parametrize(
    "text",
    [
        "ТВИЧ (www.twitch.tv/somebody) | 💳 БУСТИ (boosty.to/somebody/donate) — поддержите канал "
        "(подписка, донаты и прочее) и приходите на стрим в пятницу, будет интересно всем",
        "See the spec (https://en.wikipedia.org/wiki/Foo_(bar)) and tell me what you think "
        "about the «long» section in the middle of it, please, before we ship it to prod",
        "Короткое сообщение.",
    ],
)
@pytest.mark.parametrize("limit", [20, 40, 60, 90, 400])
def test_quotes_are_exact_or_word_boundary_cuts_with_balanced_brackets(
    text: str, limit: int
) -> None:
    line = one_line(text)
    for quote in (quotable(text, limit), passage(text, limit, lambda s: len(s))):
        assert balanced(quote), quote
        assert len(quote) <= limit + 1
        body = quote.removesuffix("…")
        assert body in line, quote
        if quote.endswith("…"):
            end = line.index(body) + len(body)
            assert end == len(line) or not line[end - 1].isalnum() or not line[end].isalnum()
        # URLs are host names, whole: no quote ends inside one.
        assert all("/" not in m.group(0) for m in URL_RE.finditer(quote))
    assert cut("short", 10) == "short"


def test_passage_drops_greetings_around_the_point() -> None:
    text = "Hi! Are we still on for tomorrow night at the movies? Thanks."
    assert passage(text, 200) == "Are we still on for tomorrow night at the movies?"


def _form(written: tuple[tuple[str, bool], ...]) -> str:
    return dictionary_form([w for w, _ in written], [keep for _, keep in written])


def test_key_phrases_are_in_dictionary_form() -> None:
    forms = [_form(w) for _, w in candidates("Проблемы безопасности данных в США обсуждали.")]
    assert "безопасность данных" in forms
    assert "США" in forms
    assert "данные" in forms
    english = [_form(w) for _, w in candidates("We shipped the new feature flags yesterday.")]
    assert "feature flag" in english
    texts = [
        "Обсуждаем языковые модели и их безопасность.",
        "Большие языковые модели опять подешевели.",
        "Языковых моделей становится больше.",
        "Рецепт борща: свёкла, капуста, картофель.",
        "Борщ без свёклы — не борщ.",
        "Сварил борщ по новому рецепту.",
    ]
    phrases = key_phrases(texts, np.array([0, 0, 0, 1, 1, 1]))
    assert phrases[0][0] in ("языковые модели", "языковая модель")
    assert phrases[1][0] == "борщ"
    for found in phrases.values():
        for phrase in found:
            if " " not in phrase:  # a lone word must be its own dictionary form
                parse = morph().parse(phrase)[0]
                assert parse.normal_form == phrase.lower() or phrase.isupper(), phrase


@pytest.mark.parametrize(
    "text",
    [
        "I will type it this evening",
        "This morning the build broke",
        "we are deploying right now",
        "I recently moved",
        "Tonight we ship",
        "сейчас всё сломано",
        "в данный момент нет",
        "утром созвон",
        "вечером релиз",
        "на днях обсудим",
    ],
)
def test_period_wording_detector_knows_relative_times(text: str) -> None:
    assert has_period_wording(text)


def test_selection_covers_the_period_and_keeps_question_with_answer() -> None:
    rng = np.random.default_rng(0)
    topics = rng.normal(size=(7, 16))
    turns, vectors = [], []
    for day in range(7):
        for k in range(6):
            q = k == 0
            turns.append(
                Turn(
                    words=12,
                    stems=frozenset({f"t{day}", f"w{k}", f"x{day}{k}"}),
                    act=Act.QUESTION if q else Act.STATEMENT,
                    author=f"a{k % 2}",
                    reply_to=None if q else (len(turns) - k if k == 1 else None),
                    hours=day * 24 + k * 0.2,
                )
            )
            vec = topics[day] + 0.1 * rng.normal(size=16)
            vectors.append(vec / np.linalg.norm(vec))
    chosen = select(turns, np.array(vectors), max_units=4)
    days = {int(turns[u.first].hours // 24) for u in chosen}
    assert len(days) >= 3, days  # not only the last day
    for unit in chosen:
        if turns[unit.first].act is Act.QUESTION:
            assert unit.second is not None  # a question travels with its answer


@pytest.mark.parametrize("text", ["<photo>", "[video]", "<Media omitted>", " <image> <image> "])
def test_an_attachment_marker_alone_is_a_placeholder(text: str) -> None:
    assert is_placeholder(text)


@pytest.mark.parametrize("text", ["<b>look</b> at this", "see [1] below", "photo"])
def test_words_around_brackets_are_no_placeholder(text: str) -> None:
    assert not is_placeholder(text)


def test_laughter_is_never_a_key_phrase_even_in_capitals() -> None:
    texts = [
        "XD the hike was long XD",
        "LOL the hike up the ridge XD",
        "hahaha ridge hike again LMAO",
        "ахаха поход на хребет",
    ]
    phrases = key_phrases(texts, np.array([0, 0, 0, 0]))[0]
    assert phrases
    assert not any(
        word.casefold() in {"xd", "lol", "lmao", "hahaha", "ахаха"}
        for phrase in phrases
        for word in phrase.split()
    ), phrases
    assert [phrase for phrase, _ in candidates("NASA and the CI run")]  # acronyms stay


@pytest.mark.parametrize(
    "text",
    [
        "Now I have to go! Take care, friend",
        "ok see you later!",
        "It was nice talking to you, have a good night",
        "gotta run, ttyl",
        "Мне пора, до завтра!",
        "Спокойной ночи, увидимся",
    ],
)
def test_leave_taking_is_chatter(text: str) -> None:
    assert is_chatter(text)
    assert act_of(text) is Act.CHATTER


@pytest.mark.parametrize(
    "text",
    [
        "I have to go to the doctor tomorrow",
        "see you at 5 at the station",
        "Nice talking to you about the project plan, can we meet on Monday?",
        "Мне пора на вокзал, поезд в 8",
    ],
)
def test_leave_taking_words_with_content_are_not_chatter(text: str) -> None:
    assert not is_chatter(text)
