"""Quotes that hold a whole sentence, and replies told with what they answer (issue 40)."""

from __future__ import annotations

from summary_data import turn

from toolkit.lang.sentences import split_sentences
from toolkit.summarize.extractive.choose.acts import Act
from toolkit.summarize.extractive.choose.conversations import Turn
from toolkit.summarize.extractive.choose.selection import Unit, partner, unit_cost, units
from toolkit.summarize.extractive.draft.quotes import passage, quoted_sentences


def test_a_line_break_ends_a_sentence_that_has_no_full_stop() -> None:
    post = "Release 4.2 is out\nIt brings offline maps and a faster search for every user."
    assert quoted_sentences(post) == [
        "Release 4.2 is out",
        "It brings offline maps and a faster search for every user.",
    ]


def test_an_initialism_ends_no_sentence() -> None:
    text = "Prices in the U.S. markets fell again today. Nobody expected it."
    assert split_sentences(text)[0].strip() == "Prices in the U.S. markets fell again today."


def test_a_sentence_that_is_only_a_links_host_is_never_quoted() -> None:
    text = "The new timetable starts on Monday. [see](https://example.org/t) (example.org)"
    assert "(example.org)" not in quoted_sentences(text)
    assert quoted_sentences("example.org") == ["example.org"]  # alone, it is what there is


def test_a_sentence_that_would_be_cut_gives_way_to_a_run_that_fits() -> None:
    long = (
        "The committee met for three hours on Tuesday and after a long discussion about "
        "the budget, the roads, the school and the new parking rules agreed on nothing."
    )
    text = f"{long} The vote moves to Friday at noon."

    def weight(sentence: str) -> float:
        return 3.0 if sentence == long else 1.0

    assert passage(text, 60, weight) == "The vote moves to Friday at noon."


def _turn(author: str, act: Act, stems: set[str], reply_to: int | None = None) -> Turn:
    return turn(author, stems, act, reply_to=reply_to)


def test_a_reply_is_told_with_the_statement_it_answers() -> None:
    turns = [
        _turn("Ann", Act.STATEMENT, {"ferry", "cancelled", "storm", "morning", "pier"}),
        _turn("Bob", Act.STATEMENT, {"shame"}, reply_to=0),
        _turn("Cat", Act.STATEMENT, {"bus", "leaves", "station", "noon", "tickets"}, reply_to=0),
    ]
    assert partner(turns, 1) == 0
    # a reply that says more is told with what it replies to too, in the summary and on
    # a section's line: alone it misleads (readers of real chats counted such lines)
    assert partner(turns, 2) is None
    assert partner(turns, 2, any_reply=True) == 0
    found = {u.members for u in units(turns, [1.0, 1.0, 1.0])}  # type: ignore[arg-type]
    assert (0, 1) in found
    assert (0, 2) in found
    assert (2,) not in found


def test_the_statement_a_reply_answers_costs_half_its_words() -> None:
    turns = [
        _turn("Ann", Act.STATEMENT, {"ferry", "cancelled", "storm", "morning", "pier"}),
        _turn("Bob", Act.STATEMENT, {"bus", "leaves", "station", "noon", "tickets"}, reply_to=0),
        _turn("Cat", Act.QUESTION, {"which", "bus", "goes", "harbour"}),
        _turn("Dan", Act.STATEMENT, {"number", "seven", "every", "hour"}, reply_to=2),
    ]
    # the reply's words and half its parent's; a question with its answer costs both whole
    assert unit_cost(turns, Unit(0, 1, 1.0)) == 7 + 7 // 2
    assert unit_cost(turns, Unit(2, 3, 1.0)) == 6 + 6
    assert unit_cost(turns, Unit(1, None, 1.0)) == 7


def test_a_question_of_one_word_is_never_told_alone() -> None:
    turns = [
        _turn("Ann", Act.QUESTION, {"help"}),
        _turn("Bob", Act.QUESTION, {"train", "leaves", "nine", "platform", "two"}),
    ]
    assert partner(turns, 0) is None  # a question back answers nothing
    found = {u.members for u in units(turns, [1.0, 1.0])}  # type: ignore[arg-type]
    assert (0,) not in found
    assert (1,) in found
