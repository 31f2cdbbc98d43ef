"""Messages that point back to the one before them, and titles a thread's talk carries
(issue 40: readers of unseen chats found "He was on one for sure" quoted alone, and
"Dad" or "Thesis" as the title of a thread two of thirty messages named in passing)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import numpy as np
import pytest
from summary_data import chat, extractive_digest, summary_text

from toolkit.embeddings import Embedder
from toolkit.lang import pack
from toolkit.lang.chatter import is_chatter
from toolkit.models import SourceKind
from toolkit.summarize.extractive.choose.acts import Act, asks_unmarked
from toolkit.summarize.extractive.choose.conversations import Turn
from toolkit.summarize.extractive.choose.keyphrases import key_phrases
from toolkit.summarize.extractive.choose.selection import partner, units
from toolkit.summarize.extractive.choose.turns import leans_back
from toolkit.summarize.extractive.compose.opening import topics_of
from toolkit.summarize.extractive.draft.quotes import quoted_sentences

T0 = datetime(2026, 5, 4, 18, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("language", "text", "leans"),
    [
        ("en", "He was on one for sure", True),
        ("en", "It's been pumping since the vote", True),
        ("en", "@ann and the second one broke too", True),
        ("en", "The bridge closes on Friday for repairs", False),
        ("en", "I agree. It's been a hard week", True),
        ("en", "Yes, the bridge closes on Friday", False),  # an answer word stands alone
        ("en", "did you pay the gas bill", False),  # a question without its mark
        ("ru", "Это не очень нам подходит", True),
        ("ru", "Он уже уехал в город", True),
        ("ru", "Мост закроют в пятницу", False),
        ("uk", "Ця схожість нічого не доводить", True),
        ("uk", "І тоді ціна виросла", True),
        ("uk", "Міст закриють у пʼятницю", False),
    ],
)
def test_a_message_that_points_back_is_told_by_its_pack(
    language: str, text: str, leans: bool
) -> None:
    assert leans_back(text, pack(language)) is leans
    assert leans_back(text, None) is False  # a language without a pack: no guess


def _turn(
    author: str,
    stems: set[str],
    *,
    reply_to: int | None = None,
    leans: bool = False,
    replying: bool = True,
    hours: float = 0.0,
) -> Turn:
    return Turn(
        words=len(stems) + 2,
        stems=frozenset(stems),
        act=Act.STATEMENT,
        author=author,
        reply_to=reply_to,
        hours=hours,
        leans=leans,
        replying=replying,
    )


LONG = {"venom", "released", "tokens", "dumped", "price", "overnight"}


def test_a_leaning_reply_is_told_with_what_it_replies_to_however_long() -> None:
    turns = [
        _turn("Ann", {"founder", "removed", "board", "yesterday", "vote"}),
        _turn("Bob", LONG, reply_to=0, leans=True),
    ]
    assert partner(turns, 1) == 0
    assert {u.members for u in units(turns, np.array([1.0, 1.0]))} == {(0,), (0, 1)}


def test_a_leaning_message_that_replies_to_nothing_is_never_told_alone() -> None:
    # Where the chat answers by replies, what a non-reply points back to is a guess.
    turns = [
        _turn("Ann", {"founder", "removed", "board", "yesterday", "vote"}),
        _turn("Cat", {"lunch", "place", "corner", "opened", "today"}),
        _turn("Bob", LONG, leans=True),
    ]
    assert partner(turns, 2) is None
    assert (2,) not in {u.members for u in units(turns, np.array([1.0, 1.0, 1.0]))}


def test_where_nobody_replies_a_leaning_message_goes_on_from_the_one_just_before() -> None:
    turns = [
        _turn("Ann", {"founder", "removed", "board", "yesterday", "vote"}, replying=False),
        _turn("Bob", LONG, leans=True, replying=False, hours=0.1),
        _turn("Ann", {"price", "dropped", "again"}, leans=True, replying=False, hours=2.0),
    ]
    assert partner(turns, 1) == 0
    assert partner(turns, 2) is None  # two hours later it answers nothing said just before
    found = {u.members for u in units(turns, np.array([1.0, 1.0, 1.0]))}
    assert (0, 1) in found
    assert (1,) not in found
    assert (2,) not in found


def test_a_leaning_reply_to_a_message_outside_the_period_is_never_quoted(
    embedder: Embedder,
) -> None:
    rows = [
        (
            "Ann",
            "The harbour festival moves to the north pier this year, with boats from six towns.",
        ),
        ("Bob", "The fireworks start at ten and the last ferry leaves at midnight from pier two."),
        ("Cat", "He was furious about the new parking fees near the harbour, honestly."),
        ("Ann", "Tickets for the boat parade are sold at the kiosk by the lighthouse."),
    ]
    messages = chat(rows, start=T0, minutes=3, thread=False)
    messages[2] = replace(messages[2], reply_to=999)  # a message before the period
    digest = summary_text(extractive_digest(embedder, messages, "en", "Harbour"))
    assert "furious" not in digest
    assert "fireworks" in digest or "parade" in digest or "north pier" in digest


def test_a_thread_is_titled_only_by_what_a_fifth_of_its_messages_talk_about() -> None:
    photography = "The food photography workshop needs better light and a tripod."
    others = [
        "My dad loves that old honky tonk record.",
        "Dad says the record is from 1978.",
        *[f"Shooting cocktails at noon, take {n} of the photography set." for n in range(4)],
        *[f"Lunch was late again, table {n}." for n in range(9)],
    ]
    texts = [photography, *others]
    labels = np.zeros(len(texts), dtype=np.int_)
    packs = [pack("en")] * len(texts)
    assert key_phrases(texts, labels, top=3, packs=packs) != {}
    titled = key_phrases(texts, labels, top=3, packs=packs, least_share=0.2)[0]
    assert "dad" not in [p.lower() for p in titled]
    assert any("photography" in p.lower() for p in titled)


def test_a_smaller_threads_topic_never_stands_in_for_a_larger_threads() -> None:
    assert topics_of(None, ["", "movie", "love", "game"]) == []  # type: ignore[arg-type]
    assert topics_of(None, ["tor", "", "cert", "shop"]) == ["tor"]  # type: ignore[arg-type]
    assert topics_of(None, ["tor", "cert", "shop", "fan"]) == ["tor", "cert", "shop"]  # type: ignore[arg-type]


def test_a_pair_whose_first_message_leans_on_a_third_is_no_unit() -> None:
    # "404 Not Found" replies to a post; the link that answers it makes a pair that
    # still lacks the post.
    turns = [
        _turn("Ann", {"app", "early", "access", "discount", "queue", "signed"}),
        _turn("Bob", {"404", "found"}, reply_to=0),
        _turn("Ann", {"link"}, reply_to=1),
    ]
    found = {u.members for u in units(turns, np.array([1.0, 1.0, 1.0]))}
    assert (0, 1) in found
    assert (1, 2) not in found


@pytest.mark.parametrize("text", ["+++ hahahah", "ахахах", "lol haha"])
def test_laughter_is_chatter_in_any_language(text: str) -> None:
    assert is_chatter(text)
    assert not is_chatter("haha the plan is Friday at the lake")


@pytest.mark.parametrize(
    ("language", "rows", "replied"),
    [
        (
            "en",
            [
                ("Ann", "The landlord says the heating in the north flat is fixed by Thursday."),
                ("Bob", "He said that in March as well, and it broke again the week after."),
                ("Cat", "The plumber from the second floor can look at the pipes on Friday."),
                ("Dan", "I will bring the spare radiator key to the flat on Friday morning."),
            ],
            "replies",
        ),
        (
            "ru",
            [
                ("Аня", "Хозяин говорит, что отопление в северной квартире починят к четвергу."),
                ("Боря", "Он то же самое говорил в марте, и через неделю всё снова сломалось."),
                ("Катя", "Сантехник со второго этажа может посмотреть трубы в пятницу."),
                ("Даня", "Я принесу запасной ключ от радиатора в квартиру в пятницу утром."),
            ],
            "отвечает",
        ),
    ],
)
def test_a_leaning_reply_is_told_after_the_statement_it_replies_to(
    embedder: Embedder, language: str, rows: list[tuple[str, str]], replied: str
) -> None:
    messages = chat(rows, start=T0, minutes=4, thread=False)
    messages[1] = replace(messages[1], reply_to=1)
    digest = extractive_digest(embedder, messages, language, "Flat")
    told = 0
    for section in digest.sections:
        lines = [item.text for item in section.items]
        at = [k for k, line in enumerate(lines) if rows[1][1][:20] in line]
        if not at:
            continue
        told += 1
        # never alone: the statement it leans on is told before it, on an earlier line
        # or on the same one ("… says …; Bob replies …")
        before = lines[: at[0]]
        same = lines[at[0]]
        assert any(rows[0][1][:20] in line for line in before) or (
            rows[0][1][:20] in same and replied in same
        ), lines
    assert told, summary_text(digest)


def test_a_channels_short_caption_is_no_line_of_its_own(embedder: Embedder) -> None:
    rows = [
        ("Notes", "The city council approved the new cycling lanes along the river embankment."),
        ("Notes", "To the point about lanes"),
        ("Notes", "Construction of the river lanes starts in April and ends before the summer."),
        ("Notes", "The council also cut the parking fees for residents of the old town."),
    ]
    messages = chat(rows, start=T0, minutes=60, thread=False)
    digest = extractive_digest(embedder, messages, "en", "Notes", kind=SourceKind.CHANNEL)
    lines = [item.text for s in digest.sections for item in s.items]
    assert any("cycling lanes" in line for line in lines), lines
    assert not any("To the point" in line for line in lines), lines


def test_a_lone_name_beside_a_link_is_not_quoted(embedder: Embedder) -> None:
    rows = [
        ("Ann", "The museum opens the new wing with the northern collection on Saturday."),
        ("Bob", "Viktor Petrenko… https://example.org/posts/1234"),
        ("Cat", "Tickets for the opening are free for students and pensioners this week."),
    ]
    messages = chat(rows, start=T0, minutes=5, thread=False)
    digest = extractive_digest(embedder, messages, "en", "Museum")
    links = [item.text for s in digest.sections for item in s.items if "example.org" in item.text]
    assert links, summary_text(digest)
    assert not any("Petrenko" in line for line in links), links


def test_keyboard_laughter_is_chatter() -> None:
    assert is_chatter("Hhahahahhahaahah")
    assert is_chatter("ahahah")


def test_a_shared_posts_author_line_is_no_quote() -> None:
    # A pasted social post opens with its author's name and the link to the profile.
    post = (
        "Viktor Petrenko (https://social.example.org/profile?id=1000)\n"
        "The river ferry stops running for the winter on the first of December."
    )
    assert quoted_sentences(post) == [
        "The river ferry stops running for the winter on the first of December."
    ]


def test_where_people_reply_a_short_remark_is_never_told_alone() -> None:
    # "784 on the waitlist": of what? It links to nothing, and which message it goes on
    # from is a guess where the chat answers by replies.
    turns = [
        _turn("Ann", {"founder", "removed", "board", "yesterday", "vote"}),
        _turn("Bob", {"waitlist", "784"}),
        _turn("Cat", LONG),
    ]
    found = {u.members for u in units(turns, np.array([1.0, 1.0, 1.0]))}
    assert (1,) not in found
    assert {(0,), (2,)} <= found


def test_in_a_dialogue_a_short_remark_may_be_told_alone() -> None:
    # Where nobody replies (a dialogue), a short turn often carries the point.
    turns = [
        _turn("Ann", {"founder", "removed", "board", "yesterday", "vote"}, replying=False),
        _turn("Bob", {"cookies", "bring"}, replying=False, hours=0.1),
    ]
    assert (1,) in {u.members for u in units(turns, np.array([1.0, 1.0]))}


def test_an_answer_to_the_question_just_before_is_told_with_it(embedder: Embedder) -> None:
    # A chat where nobody replies: the answer comes next, and a section's line tells the
    # two together ("Ann asks …; Bob answers …"), not as two lines of their own.
    rows = [
        ("Bob", "The fever is gone since Tuesday, and the cough is almost over now."),
        ("Ann", "Hydrating? Eating well?"),
        (
            "Bob",
            "I am drinking lots of water and eating soup, though the budget for food is tight"
            " until March because the fever cost me a week of work.",
        ),
        ("Ann", "The pharmacy on the corner delivers cough medicine to the house for free."),
        ("Bob", "Then I will order the cough syrup and the vitamins from them tonight."),
        ("Ann", "The soup recipe from grandma works wonders against a cough and a fever."),
    ]
    messages = chat(rows, start=T0, minutes=2, thread=False)
    digest = extractive_digest(embedder, messages, "en", "Health")
    lines = [item.text for s in digest.sections for item in s.items]
    told = [line for line in lines if "budget for food" in line]
    assert told, summary_text(digest)
    assert all("Hydrating" in line for line in told), told


def test_a_posts_hidden_preview_link_is_no_part_of_its_quote() -> None:
    # Channels open a post with an invisible character linked to its preview picture.
    text = (
        "\u200b\u200b (https://telegra.ph/file/0b1072.jpg)Six startups from Kazan raised a round."
    )
    assert quoted_sentences(text) == ["Six startups from Kazan raised a round."]
    assert leans_back("\u200b (https://telegra.ph/file/1.jpg)It concerns every bank.", pack("en"))


def test_a_channel_post_that_opens_pointing_back_is_no_line(embedder: Embedder) -> None:
    rows = [
        ("News", "The central bank kept the key rate at sixteen percent on Friday morning."),
        (
            "News",
            "\u200b (https://telegra.ph/file/1.jpg)This concerns aggregators with a million"
            " readers a day.",
        ),
        ("News", "Three regional airlines merged into one carrier with forty planes in total."),
        ("News", "The city opens two new metro stations in the northern district next week."),
    ]
    messages = chat(rows, start=T0, minutes=60, thread=False)
    digest = extractive_digest(embedder, messages, "en", "News", kind=SourceKind.CHANNEL)
    lines = [item.text for s in digest.sections for item in s.items]
    assert any("airlines" in line or "metro" in line for line in lines), lines
    assert not any("aggregators" in line for line in lines), lines
    assert not any("telegra" in line for line in lines), lines


def test_a_reply_to_a_short_remark_makes_no_pair() -> None:
    # "Just 1.53 bean" / "Hope you'll get back up": the remark answers a message it names
    # no link to, so the pair says nothing a reader can place.
    turns = [
        _turn("Ann", {"founder", "removed", "board", "yesterday", "vote"}),
        _turn("Bob", {"bean", "1.53"}),
        _turn("Cat", {"hope", "back", "up"}, reply_to=1),
    ]
    found = {u.members for u in units(turns, np.array([1.0, 1.0, 1.0]))}
    assert (1, 2) not in found
    assert (1,) not in found


@pytest.mark.parametrize(
    ("language", "text", "asks"),
    [
        ("en", "what coin ser", True),
        ("en", "which one", True),
        ("en", "what coin did you buy?", False),  # marked: a question already
        ("en", "when the rain stops", False),  # an answer to "when?"
        ("en", "What a day it was for all of us here", False),  # too long to guess
        ("ru", "какой именно", True),
        ("ru", "Что-то сломалось", False),
        ("uk", "який саме", True),
        ("uk", "Завтра о дев'ятій", False),
    ],
)
def test_a_short_message_on_a_question_word_asks_back(language: str, text: str, asks: bool) -> None:
    assert asks_unmarked(text, pack(language)) is asks
    assert asks_unmarked(text, None) is False


def test_a_counter_question_without_its_mark_answers_nothing() -> None:
    turns = [
        _turn("Ann", {"turn", "busd", "bnb", "now", "hours"}),
        _turn("Bob", {"coin", "ser"}, reply_to=0),
        _turn("Cat", {"no", "more", "dip", "opinion", "wait"}, reply_to=0),
    ]
    turns[0] = replace(turns[0], act=Act.QUESTION)
    turns[1] = replace(turns[1], counter=True)
    assert partner(turns, 0) == 2
    assert partner(turns, 1) is None
    assert (0, 1) not in {u.members for u in units(turns, np.array([1.0, 1.0, 1.0]))}
