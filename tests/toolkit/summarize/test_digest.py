"""The digest's parts: acts, quotes, key phrases, selection."""

from __future__ import annotations

import numpy as np
import pytest

from toolkit.lang import pack
from toolkit.lang.morph import analyzer
from toolkit.summarize.extractive.choose.acts import Act, act_of, is_chatter, is_placeholder
from toolkit.summarize.extractive.choose.conversations import Turn
from toolkit.summarize.extractive.choose.keyphrases import candidates, dictionary_form, key_phrases
from toolkit.summarize.extractive.choose.selection import select
from toolkit.summarize.extractive.draft.quotes import balanced, cut, one_line, passage, quotable
from toolkit.summarize.period_wording import has_period_wording
from toolkit.text import URL_RE

COUNTS = (1, 2, 5, 21)


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


def _form(code: str, written: tuple[tuple[str, bool], ...]) -> str:
    return dictionary_form(pack(code), [w for w, _ in written], [keep for _, keep in written])


def test_key_phrases_are_in_dictionary_form() -> None:
    text = "Проблемы безопасности данных в США обсуждали."
    forms = [_form("ru", w) for _, w in candidates(text, pack("ru"))]
    assert "безопасность данных" in forms
    assert "США" in forms
    assert "данные" in forms
    text = "We shipped the new feature flags yesterday."
    english = [_form("en", w) for _, w in candidates(text, pack("en"))]
    assert "feature flag" in english
    text = "Проблеми безпеки даних у США обговорювали."
    ukrainian = [_form("uk", w) for _, w in candidates(text, pack("uk"))]
    assert "безпека даних" in ukrainian
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
                parse = analyzer("ru").parse(phrase)[0]
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
