"""Which message answers a question, and how a long question is quoted (issue 40: a
reply to a message before the period was told as the answer to the question beside it
or alone, and a long question quoted from its start read as a statement after "asks")."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from summary_data import chat, extractive_digest, summary_text, turn

from toolkit.embeddings import Embedder
from toolkit.summarize.extractive.choose.acts import Act
from toolkit.summarize.extractive.choose.conversations import Turn
from toolkit.summarize.extractive.choose.selection import Unit, partner
from toolkit.summarize.extractive.compose.digest import addressee, asked_of
from toolkit.summarize.extractive.draft.quotes import ELLIPSIS, asked_end


def _turn(author: str, stems: set[str], act: Act, *, outside: bool = False) -> Turn:
    return turn(author, stems, act, answers_outside=outside)


QUESTION = {"count", "inflected", "forms", "different", "words", "task"}
REMINDER = {"gist", "task", "functions", "deadline", "feedback", "words"}


def test_a_message_next_to_a_question_answers_it() -> None:
    turns = [_turn("Saya", QUESTION, Act.QUESTION), _turn("Oleg", REMINDER, Act.STATEMENT)]
    assert partner(turns, 0) == 1
    assert partner(turns, 1) == 0


def test_a_reply_to_a_message_outside_the_digest_answers_no_question_beside_it() -> None:
    turns = [
        _turn("Saya", QUESTION, Act.QUESTION),
        _turn("Oleg", REMINDER, Act.STATEMENT, outside=True),
    ]
    assert partner(turns, 0) is None
    assert partner(turns, 1) is None


LONG_QUESTION = (
    "this is just an example: when we split the text into words, task seven gives words "
    "like 'whom' and 'whose' and so on, and task eight gives 'who' and 'which', and in "
    "part 8.6 we compare which words are new, so do we count 'who' and 'whom' as "
    "different words here?"
)


def test_a_long_question_is_quoted_from_the_clause_that_asks() -> None:
    quoted = asked_end(LONG_QUESTION, 160)
    assert quoted.startswith(ELLIPSIS)
    assert quoted.endswith("as different words here?")
    assert len(quoted) <= 160


def test_a_question_that_fits_and_a_long_statement_are_quoted_from_their_start() -> None:
    assert asked_end("Which train do we take on Friday?", 160) == (
        "Which train do we take on Friday?"
    )
    statement = LONG_QUESTION.rstrip("?") + "."
    quoted = asked_end(statement, 160)
    assert quoted.startswith("this is just an example")
    assert quoted.endswith(ELLIPSIS)


def test_a_long_question_with_no_clause_that_fits_is_cut_from_its_start() -> None:
    one_clause = " ".join(["word"] * 60) + "?"
    quoted = asked_end(one_clause, 160)
    assert quoted.startswith("word word")
    assert quoted.endswith(ELLIPSIS)


def test_a_long_reply_to_a_message_before_the_period_is_never_told(embedder: Embedder) -> None:
    rows = [
        (
            "Cat",
            "The council cut the parking fees at the harbour festival to two euros after "
            "the vote on Monday, so the north pier car park is cheap this year.",
        ),
        (
            "Ann",
            "The harbour festival moves to the north pier this year, with boats from six towns.",
        ),
        ("Bob", "The fireworks start at ten and the last ferry leaves at midnight from pier two."),
        ("Dan", "Tickets for the boat parade are sold at the kiosk by the lighthouse."),
    ]
    messages = chat(rows, start=datetime(2026, 5, 4, 18, 0, tzinfo=UTC), minutes=3, thread=False)
    told = summary_text(extractive_digest(embedder, messages, "en", "Harbour"))
    assert "parking fees" in told  # no reply: it may be told
    messages[0] = replace(messages[0], reply_to=999)  # a reply to a message before the period
    told = summary_text(extractive_digest(embedder, messages, "en", "Harbour"))
    assert "parking fees" not in told
    assert "fireworks" in told or "parade" in told or "north pier" in told


def _replying(t: Turn, reply_to: int | None = None) -> Turn:
    return replace(t, replying=True, reply_to=reply_to)


def test_where_people_reply_a_question_is_put_to_whom_it_replies_to_or_who_replies() -> None:
    asked = _turn("Ann", QUESTION, Act.QUESTION)
    answer = _turn("Bob", REMINDER, Act.STATEMENT)
    # a dialogue: the next speaker is the one asked
    assert asked_of([asked, answer], Unit(0, 1, 1.0))
    assert addressee([asked, answer], 0) == "Bob"
    # a chat that answers by replies: who speaks next may answer someone else
    group = [_replying(asked), _replying(answer)]
    assert not asked_of(group, Unit(0, 1, 1.0))
    assert addressee(group, 0) is None
    replied = [_replying(asked), _replying(answer, reply_to=0)]
    assert asked_of(replied, Unit(0, 1, 1.0))
    to_bob = [_replying(_turn("Bob", REMINDER, Act.STATEMENT)), _replying(asked, 0)]
    assert addressee(to_bob, 1) == "Bob"
