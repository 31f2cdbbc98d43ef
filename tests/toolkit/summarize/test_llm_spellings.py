"""Names and handles behind other spellings never leave (issue 42): diacritics, invisible
characters, look-alike letters, another script, other platforms' profile links, a
member's name that is also a word when it addresses them, and a forward's name that
would make a placeholder word a name word."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from toolkit.models import Message
from toolkit.summarize.llm.pseudonyms import Known, Pseudonyms
from toolkit.summarize.llm.spellings import clean

T0 = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)


def message(i: int, sender: str, text: str = "hello", forwarded: str | None = None) -> Message:
    return Message(
        source_id=1,
        messenger_message_id=i,
        posted_at=T0,
        text=text,
        sender_name=sender,
        forwarded_from=forwarded,
    )


MEMBERS = [
    message(1, "Zoë Brontë"),
    message(2, "Дмитрий Волков", "Person 1 stole the money", forwarded="Secret Source Person"),
    message(3, "Вера Громова"),
]


@pytest.fixture
def pseudonyms() -> Pseudonyms:
    return Pseudonyms.for_messages(MEMBERS, known=Known(frozenset({"Олена Ковальчук"})))


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("Zoe Bronte said hi", "Bronte"),
        ("ask Zo\u200bë", "Zo"),
        ("ask Zоё Brоnte (Cyrillic о)", "Br"),
        ("Dmitry Volkov and Dmitrij wrote", "Dmitr"),
        ("Volkov agreed", "Volkov"),
        ("Olena Kovalchuk will come", "Olena"),
        ("вера, ты придёшь?", "вера"),
        ("thanks, вера!", "вера"),
    ],
)
def test_a_name_in_another_spelling_is_replaced(
    pseudonyms: Pseudonyms, text: str, secret: str
) -> None:
    sent = pseudonyms.text(text)
    assert secret.casefold() not in sent.casefold(), sent
    assert "Person" in sent


@pytest.mark.parametrize(
    "link",
    [
        "instagram.com/zelda.quill",
        "https://www.tiktok.com/@zelda_q?lang=en",
        "vk.com/id12345",
        "https://facebook.com/zelda.quill.77",
        "x.com/zq_real",
        "https://twitter.com/zq_real/status/1",
        "https://youtube.com/@ZeldaQuill/videos",
        "https://mastodon.social/@zquill",
    ],
)
def test_profile_links_of_other_platforms_are_replaced(pseudonyms: Pseudonyms, link: str) -> None:
    sent = pseudonyms.text(f"see {link} today")
    assert "@user_" in sent
    assert link not in sent
    assert pseudonyms.restore_text(sent) == f"see {link} today"


def test_a_platform_page_is_no_handle(pseudonyms: Pseudonyms) -> None:
    assert pseudonyms.text("see instagram.com/p/abc") == "see instagram.com/p/abc"


def test_a_forward_makes_no_placeholder_word_a_name(pseudonyms: Pseudonyms) -> None:
    sent = pseudonyms.text("Person 1 stole the money")
    assert sent == "Person ? stole the money"
    assert "Secret" not in pseudonyms.restore_text(sent)
    assert pseudonyms.text("Secret Source Person wrote").startswith("Person ")
    assert pseudonyms.text("a secret source") == "a secret source"


def test_an_everyday_word_stays_when_it_addresses_no_one(pseudonyms: Pseudonyms) -> None:
    assert pseudonyms.text("I will come") == "I will come"


def test_clean_folds_invisible_and_look_alike_letters() -> None:
    assert clean("Ali\u200bce Аlice Бoрис ｆｕｌｌ") == "Alice Alice Борис full"


LATIN = ["Maren Ostby", "Tobias Lindgren", "Ines Duarte", "Piotr Nowak", "Keanu Holt"]
CYRILLIC = ["Арсений Кравцов", "Людмила Белова", "Остап Гнатюк", "Ярослава Дзюба"]
DIACRITIC = ["Zoë Brontë", "Renée Côté", "Jürgen Groß", "Łukasz Wójcik"]


@pytest.mark.parametrize("seed", range(5))
def test_no_name_of_three_scripts_reaches_what_is_sent(seed: int) -> None:
    chooser = random.Random(seed)
    people = chooser.sample(LATIN, 2) + chooser.sample(CYRILLIC, 2) + chooser.sample(DIACRITIC, 2)
    messages = [message(i, name) for i, name in enumerate(people, 1)]
    pseudonyms = Pseudonyms.for_messages(messages)
    for name in people:
        first, last = name.split()
        for text in (f"talk to {name} today", f"and {last}, really", f"{first} said so"):
            sent = pseudonyms.text(text)
            assert first not in sent, sent
            assert last not in sent, sent


def test_a_name_word_that_is_a_stop_word_is_replaced_inside_a_sentence() -> None:
    """ "Will" of "Will Hartley" is a stop word: replaced where it is capitalised inside a
    sentence, addresses him or opens a sentence as its subject ("Will said…"), left where
    it opens a question ("Will you…?") or is written lower case."""
    pseudonyms = Pseudonyms.for_messages([message(1, "Will Hartley"), message(2, "May Ortega")])
    for text in (
        "Ask Will about it",
        "thanks, will!",
        "Will Hartley agreed",
        "Will said the bank never paid. May asked why.",
        "Yes. Will stole the money",
    ):
        sent = pseudonyms.text(text)
        assert "will" not in sent.casefold(), sent
        assert "May " not in sent, sent
        assert "Person" in sent
    assert pseudonyms.text("Will you come? I will.") == "Will you come? I will."
    assert pseudonyms.text("May I go? Will it rain?") == "May I go? Will it rain?"


def test_a_letter_without_a_decomposition_is_folded() -> None:
    pseudonyms = Pseudonyms.for_messages(
        [message(1, "Łukasz Wójcik"), message(2, "Søren Kierkegård")]
    )
    for text in ("ask Lukasz Wojcik", "Soren said", "Kierkegard agreed", "LUKASZ"):
        sent = pseudonyms.text(text)
        assert "Person" in sent, sent
