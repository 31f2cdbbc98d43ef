"""A thread's title is what it talks about more than the source always does, and a reply
is never told where what it answers is not (issue 40: readers of real channels found
titles of a word the channel always uses, «Публикации: компания», and replies told under
a picture or a message nobody sees)."""

from __future__ import annotations

import numpy as np
from summary_data import turn

from toolkit.lang import pack
from toolkit.lang.morph import phrase_form
from toolkit.summarize.extractive.choose.acts import Act
from toolkit.summarize.extractive.choose.keyphrases import background, key_phrases
from toolkit.summarize.extractive.choose.selection import hangs, units

THREAD = [
    "The company opened a new office in Lisbon for the support team.",
    "Our company hired twelve engineers for the mobile app this spring.",
    "The company raised its prices for the premium plan in March.",
    "A company survey says the support team answers within an hour.",
]
EVERYDAY = [
    "The company will publish its yearly report next week.",
    "Our company sponsors the city marathon again.",
    "The board of the company meets on Thursday.",
    "Weather is fine today, no rain.",
]


def _titles(behind_texts: list[str]) -> list[str]:
    en = pack("en")
    labels = np.zeros(len(THREAD), dtype=np.int_)
    behind = background(behind_texts, en)
    return [
        p.lower()
        for p in key_phrases(THREAD, labels, top=3, packs=[en] * len(THREAD), behind=behind)[0]
    ]


def test_a_word_the_source_always_uses_titles_no_thread() -> None:
    assert "company" in _titles([])  # no earlier messages: nothing to weigh it against
    assert "company" not in _titles(EVERYDAY * 15)  # a third of 60 earlier messages


def test_a_word_the_source_seldom_uses_still_titles_its_thread() -> None:
    quiet = ["Weather is fine today, no rain.", "See you at lunch."] * 30
    assert "company" in _titles(quiet)


def test_a_reply_to_a_message_not_told_is_never_a_unit_of_its_own() -> None:
    chart = turn("Cat", set(), Act.CHATTER)  # a picture: nothing a digest can tell
    said = {"market", "cap", "billion", "only", "token", "chart"}
    turns = [chart, turn("Cat", said, reply_to=0), turn("Dan", said | {"listing"})]
    found = {(u.first, u.second) for u in units(turns, np.array([0.0, 1.0, 1.0]))}
    assert (1, None) not in found
    assert (2, None) in found
    assert hangs(turns[1])
    assert not hangs(turns[1], told=(0,))
    assert not hangs(turns[2])


def test_a_place_name_titles_in_its_nominative_with_its_capital() -> None:
    assert phrase_form("ru", ["Южной", "Калифорнии"], [True, True]) == "Южная Калифорния"
    assert phrase_form("ru", ["Москве"], [True]) == "Москва"
    assert phrase_form("ru", ["США"], [True]) == "США"  # an acronym stays as written
    assert phrase_form("ru", ["Telegram"], [True]) == "Telegram"  # a word no dictionary has
    assert phrase_form("ru", ["новой", "школе"], [False, False]) == "новая школа"
