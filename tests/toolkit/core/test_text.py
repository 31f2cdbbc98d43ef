"""The text pipeline: normalisation, tokenising, stop words, stemming by script."""

from __future__ import annotations

import pytest

from toolkit.text import STOP_WORDS_EN, STOP_WORDS_RU, normalise, script_of, stem, terms, tokenize


def test_normalise_folds_case_and_yo() -> None:
    assert normalise("ЁЛКА Ёжик СТРАССЕ") == "елка ежик страссе"
    assert normalise("Straße") == "strasse"  # casefold, not lower


def test_urls_keep_only_the_site_name() -> None:
    assert normalise("see https://www.github.com/foo/bar?x=1#y now") == "see github now"
    assert normalise("docs at t.me/durov/123") == "docs at"
    assert normalise("http://habr.ru/post/1") == "habr"


def test_mentions_dropped_hashtags_kept_emails_split() -> None:
    assert normalise("@bob thanks! #release") == "thanks release"
    assert tokenize("write to anna@example.com") == ["write", "to", "anna", "example"]


def test_emoji_and_punctuation_become_spaces() -> None:
    assert normalise("ok 👍🏽!!! «да» — нет… (c) x_y") == "ok да нет c x y"
    assert normalise("🎉🎉🎉") == ""


def test_apostrophes_inside_words_are_removed() -> None:
    assert tokenize("Don't stop, John’s here") == ["dont", "stop", "johns", "here"]


@pytest.mark.parametrize(
    ("token", "language"),
    [
        ("кошки", "russian"),
        ("cats", "english"),
        ("2024", None),
        ("東京", None),
        ("ipadы", "russian"),
    ],
)
def test_script_picks_the_stemmer(token: str, language: str | None) -> None:
    assert script_of(token) == language


def test_stemming_is_per_token_in_a_mixed_message() -> None:
    assert terms("Кошки любят running и jumping") == ["кошк", "люб", "run", "jump"]
    assert stem("работает") == stem("работать") == "работа"
    assert stem("movies") == stem("movie")


def test_stop_words_are_removed_in_both_languages() -> None:
    assert terms("what is the capital of France") == ["capit", "franc"]
    assert terms("что это за город и где он") == ["город"]
    assert {"the", "and", "dont"} <= STOP_WORDS_EN
    assert {"и", "в", "не", "еще"} <= STOP_WORDS_RU
    assert terms("the and of", keep_stop_words=True) == ["the", "and", "of"]


def test_normalised_forms_match_across_spelling() -> None:
    assert terms("Ещё ЁЖИКИ!") == terms("еще ежики")
    assert terms("") == []


def test_a_known_language_picks_its_own_stemmer_and_stop_words() -> None:
    # Ukrainian is not Russian: pymorphy3's Ukrainian dictionary gives one stem per word.
    said = "Ми зустрінемось у роботі в п'ятницю, його нема"
    assert terms(said, language="uk") == ["зустрітися", "робот", "пятниця", "нема"]
    assert stem("зустрічі", "uk") == stem("зустріч", "uk")
    assert stem("роботі", "uk") == stem("робота", "uk")
    # Its English words are still stemmed as English, and no language reads as before.
    assert terms("релізи and releases", language="uk") == ["реліз", "releas"]
    assert terms(said) == ["ми", "зустрінем", "роботі", "пятниц", "йог", "нем"]


@pytest.mark.parametrize("language", ["en", "ru", "de", None])
def test_english_and_russian_read_the_same_with_or_without_their_language(
    language: str | None,
) -> None:
    text = "Кошки любят running и jumping, the release is on Friday"
    assert terms(text, language=language) == terms(text)


def test_an_e_mail_address_holds_no_link() -> None:
    from toolkit.text import links

    assert links("write to ivan.petrov@gmail.com today") == []
    assert links("see example.com/page, a@b.org") == ["example.com/page"]
