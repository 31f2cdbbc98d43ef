"""Reported speech: a chat message retold in the third person, naming the speaker."""

from __future__ import annotations

import pytest

from toolkit.summarize.extractive.reported import report, third_person


def test_first_person_becomes_the_speaker_and_you_the_addressee() -> None:
    told = report("I baked cookies. Do you want some? 😀", "Amanda", "Jerry", max_clauses=2)
    assert told == "Amanda baked cookies and asks Jerry whether Jerry wants some"


def test_greetings_vocatives_and_chatter_go() -> None:
    assert report("Hey Jimmy. Let's go workout later today!!!", "Ann", "Jimmy", ("Jimmy",)) == (
        "Ann suggests they go workout later today"
    )
    assert report("Thanks, I'll call you in 5.", "Brian", "Dave") == "Brian will call Dave in 5"
    assert report("ok lol", "Brian", "Dave") == ""


def test_a_paraphrase_has_no_quotation_marks_and_keeps_quoted_words() -> None:
    told = report("He told me to write 'all clear' now", "Mia", None)
    assert "“" not in told
    assert "'all clear'" in told


@pytest.mark.parametrize(
    ("verb", "agreed"),
    [
        ("want", "wants"),
        ("go", "goes"),
        ("try", "tries"),
        ("have", "has"),
        ("got", "got"),
        ("guess", "guesses"),
    ],
)
def test_verbs_agree_with_a_third_person_subject(verb: str, agreed: str) -> None:
    assert third_person(verb) == agreed


def test_a_declarative_question_is_reported_with_whether_and_a_fragment_not_at_all() -> None:
    told = report("so you are taking that job for sure?", "Milo", "Dev")
    assert told == "Milo asks Dev whether Dev is taking that job for sure"
    assert report("Not much, you?", "Vic", "Kai") == ""
