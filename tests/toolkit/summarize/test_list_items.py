"""A numbered list stays whole: an item's number opens its item and never ends the
sentence before it; a quote never ends on the bare number of the next item (en, ru, uk)."""

from __future__ import annotations

import pytest

from toolkit.lang.sentences import split_sentences, trailing_item
from toolkit.summarize.extractive.draft.quotes import (
    cut,
    cut_off,
    fragment,
    passage,
    quoted_sentences,
)

LISTS = {
    "en": "Making tea is easy: 1. Boil the kettle, wait 2. Pour it over the leaves 3. Wait.",
    "ru": "Чай заварить просто: 1. Вскипятить чайник и подождать 2. Залить листья 3. Подождать.",
    "uk": "Чай заварити просто: 1. Закип'ятити чайник і почекати 2. Залити листя 3. Почекати.",
}


@pytest.mark.parametrize("code", sorted(LISTS))
def test_an_item_number_opens_its_item(code: str) -> None:
    sentences = [s.strip() for s in split_sentences(LISTS[code])]
    assert sentences[1].startswith("1. "), sentences
    assert sentences[2].startswith("2. "), sentences
    assert not any(trailing_item(s) is not None for s in sentences), sentences
    assert "".join(split_sentences(LISTS[code])) == LISTS[code]


@pytest.mark.parametrize(
    "text",
    ["We need 3. Then we go.", "Нам нужно 3. Потом идём.", "Version 2.1 is out. Call at 10.30 ok."],
)
def test_a_number_that_ends_a_sentence_still_ends_it(text: str) -> None:
    assert len(split_sentences(text)) == 2, split_sentences(text)


@pytest.mark.parametrize(
    "text",
    [
        "Making tea is easy: 1. Boil the kettle and wait",
        "Чай заварить просто: 1. Вскипятить чайник и подождать",
        "Чай заварити просто: 1. Закип'ятити чайник і почекати",
    ],
)
def test_a_first_item_after_its_lead_in_opens_its_item_when_the_rest_is_cut(text: str) -> None:
    sentences = [s.strip() for s in split_sentences(text)]
    assert len(sentences) == 2, sentences
    assert sentences[1].startswith("1. "), sentences


def test_a_number_after_a_colon_that_leads_in_no_list_ends_its_sentence() -> None:
    assert [s.strip() for s in split_sentences("The answer is: 42. Then we left.")] == [
        "The answer is: 42.",
        "Then we left.",
    ]


def test_sub_items_count_as_the_list() -> None:
    text = "Тези: 5. Бог не всемогутній 6. Знати все 6.1 Знати все це рекурсія 7. Молитви"
    sentences = [s.strip() for s in split_sentences(text)]
    assert sentences[-1].startswith("7. "), sentences


@pytest.mark.parametrize("code", sorted(LISTS))
def test_a_cut_never_ends_on_the_next_items_number(code: str) -> None:
    line = LISTS[code]
    for limit in range(20, len(line)):
        shown = cut(line, limit)
        assert trailing_item(shown.removesuffix("…"), {1, 2, 3}) is None, (limit, shown)


@pytest.mark.parametrize(
    "text",
    ["1. Look for a bird 2.", "Кроки: 1) відкрити 2)", "Шаги: 1. открыть 2."],
)
def test_a_text_ending_on_a_bare_item_number_is_cut_off(text: str) -> None:
    assert cut_off(text)
    assert fragment(text)


@pytest.mark.parametrize("text", ["We need 3.", "Приходи в 7.", "Мені 25."])
def test_a_sentence_ending_on_a_number_is_whole(text: str) -> None:
    assert not cut_off(text)


@pytest.mark.parametrize("code", sorted(LISTS))
def test_a_passage_keeps_items_with_their_numbers(code: str) -> None:
    line = LISTS[code]
    for limit in (40, 60, 80):
        shown = passage(line, limit, weight=len)
        assert trailing_item(shown.removesuffix("…"), {1, 2, 3}) is None, shown
        assert not shown.rstrip("…").endswith(":"), shown


def test_an_item_number_on_its_own_line_opens_its_item() -> None:
    text = (
        "Our plan for Sunday:\n1. Buy the tickets online.\n2. Meet at the pier.\n3) Board at nine."
    )
    assert [s.strip() for s in split_sentences(text)] == [
        "Our plan for Sunday:",
        "1. Buy the tickets online.",
        "2. Meet at the pier.",
        "3) Board at nine.",
    ]
    assert split_sentences("How many seats? 7.")[-1] == "7."  # an answer, not an item
    quoted = quoted_sentences(text)
    assert "2." not in quoted
    assert "2. Meet at the pier." in quoted
