"""``toolkit.controls``: what the stores keep of control characters; how a terminal shows them."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from toolkit.controls import clean_message, clean_text, visible
from toolkit.models import Message

# What neither store may receive: C0 controls but tab and newline, DEL, C1, surrogates.
_FORBIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def test_nul_and_controls_go_tab_and_newline_stay() -> None:
    assert clean_text("a\x00b\x1b[31mc\x07\td\ne\x7f\x85f") == "ab[31mc\td\nef"


def test_carriage_returns_become_newlines() -> None:
    assert clean_text("one\r\ntwo\rthree") == "one\ntwo\nthree"


def test_lone_surrogates_become_the_replacement_character() -> None:
    assert clean_text("a\ud800b\udfffc\uffff") == "a\ufffdb\ufffdc\ufffd"


def test_a_pair_given_as_two_code_points_is_joined() -> None:
    assert clean_text("x\ud83d\ude00y") == "x\U0001f600y"


def test_clean_text_returns_the_same_object_when_nothing_changes() -> None:
    text = "Привет 👋\tworld\n"
    assert clean_text(text) is text


@given(st.text(alphabet=st.characters(codec=None, exclude_categories=())))
def test_cleaned_text_holds_nothing_a_store_refuses_and_is_stable(text: str) -> None:
    cleaned = clean_text(text)
    assert _FORBIDDEN.search(cleaned) is None
    assert clean_text(cleaned) == cleaned
    cleaned.encode("utf-8")  # both drivers can encode it


def test_clean_message_cleans_every_text_field() -> None:
    when = datetime(2024, 1, 1, tzinfo=UTC)
    dirty = Message(1, 2, when, "hi\x00", sender_name="Eve\x1b", forwarded_from="\ud800")
    cleaned = clean_message(dirty)
    assert (cleaned.text, cleaned.sender_name, cleaned.forwarded_from) == ("hi", "Eve", "\ufffd")
    fine = Message(1, 3, when, "fine")
    assert clean_message(fine) is fine


def test_visible_shows_escapes_and_overrides_instead_of_obeying_them() -> None:
    assert visible("a\x1b[2Jb\x07c\rd\x7f") == "a\u241b[2Jb\u2407c\u240dd\u2421"
    assert visible("x\u202ey\x9bz\ud800") == "x\\u202ey\\x9bz\\ud800"
    assert visible("tab\tand\nnewline") == "tab\tand\nnewline"
    assert visible("two\nlines", one_line=True) == "two\u2424lines"


@given(st.text())
def test_visible_text_has_no_control_character_but_tab_and_newline(text: str) -> None:
    shown = visible(text)
    assert re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e]", shown) is None
