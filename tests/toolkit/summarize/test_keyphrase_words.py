"""A key phrase is a noun phrase in a form of real words: never a verb form, a person's
name, a quantity's unit, a typo's made-up dictionary form or a cut of a longer phrase
(en, ru, uk)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from toolkit.lang import pack
from toolkit.summarize.extractive.choose.keyphrases import candidates, key_phrases


def shown(text: str, code: str) -> list[str]:
    return [" ".join(w for w, _ in written) for _, written in candidates(text, pack(code))]


def phrases(texts: list[str], code: str, names: tuple[str, ...] = ()) -> list[str]:
    labels = np.zeros(len(texts), dtype=np.int_)
    return key_phrases(texts, labels, top=5, packs=[pack(code)] * len(texts), names=names)[0]


@pytest.mark.parametrize(
    "text",
    ["Taking the ferry to the island", "Have you been trying the new oven?", "Cannot open the lid"],
)
def test_an_english_phrase_never_starts_with_a_verb_form(text: str) -> None:
    found = shown(text, "en")
    assert found, text
    assert not any(p.split()[0].lower() in {"taking", "trying", "cannot"} for p in found), found


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("Bring the well-known lemon-curd tart", "lemon-curd"),
        ("Play some rock'n'roll vinyl tonight", "rock'n'roll"),
        ("Пеку торт‐безе завтра", "торт‐безе"),
    ],
)
def test_a_hyphenated_or_apostrophised_word_is_never_cut(text: str, word: str) -> None:
    code = "ru" if word.startswith("торт") else "en"
    found = shown(text, code)
    parts = set(re.split(r"[-‐']", word))
    for phrase in found:
        if parts & set(phrase.split()):
            pytest.fail(f"{phrase!r} cuts {word!r}")
    assert any(word in p for p in found), found


def test_a_longer_run_is_not_cut_mid_phrase() -> None:
    found = shown("It is zydeco swamp blues rock", "en")
    assert "swamp blues rock" not in found
    assert "zydeco swamp blues" not in found


@pytest.mark.parametrize(
    ("code", "texts", "name"),
    [
        ("ru", ["Книгу оставил у Лены", "Лены нет дома", "Лена вернётся к вечеру"], "лен"),
        ("uk", ["Книжку залишив у Оксани", "Оксани немає вдома", "Оксана прийде ввечері"], "оксан"),
    ],
)
def test_a_persons_first_name_is_no_topic(code: str, texts: list[str], name: str) -> None:
    assert not any(name in p.lower() for p in phrases(texts, code)), phrases(texts, code)


@pytest.mark.parametrize(
    ("code", "texts", "names", "unwanted"),
    [
        (
            "en",
            ["Ask Bramble about tickets", "Bramble bought tickets"],
            ("Bramble Oakes",),
            "bramble",
        ),
        ("ru", ["Спроси Кирюху про билеты", "Кирюха купил билеты"], ("Кирюха",), "кирюх"),
        ("uk", ["Спитай Тарасика про квитки", "Тарасик купив квитки"], ("Тарасик",), "тарасик"),
    ],
)
def test_a_participants_name_is_no_topic(
    code: str, texts: list[str], names: tuple[str, ...], unwanted: str
) -> None:
    found = phrases(texts, code, names)
    assert found, texts
    assert not any(unwanted in p.lower() for p in found), found


@pytest.mark.parametrize(
    ("code", "text", "unit"),
    [
        ("ru", "Дай 500 рублей на коктейль", "рубл"),
        ("uk", "Дай 200 гривень на каву", "гривен"),
        ("en", "It costs 30 dollars per ticket", "dollar"),
    ],
)
def test_what_a_number_counts_is_no_topic(code: str, text: str, unit: str) -> None:
    found = shown(text, code)
    assert found, text
    assert not any(unit in p.lower() for p in found), found


def test_a_typo_said_once_is_no_topic_and_never_made_up() -> None:
    # «верте» (a misspelt verb) reads to the dictionary as a case of a made-up noun.
    texts = ["ну верте мне", "завтра созвон в десять", "созвон перенесли на пятницу"]
    found = phrases(texts, "ru")
    assert found == ["созвон"], found


def test_a_guessed_words_phrase_keeps_the_texts_form() -> None:
    texts = ["Новая кофемашина в офисе", "кофемашина опять сломалась"]
    assert "кофемашина" in phrases(texts, "ru")
