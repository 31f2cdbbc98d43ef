"""Parsing the model's answer: an answer cut at ``max_tokens`` keeps what it finished."""

from __future__ import annotations

import pytest

from toolkit.summarize.llm.answer import InvalidOutput, parse_summary

WHOLE = '{"title": "Release", "body": "Ships Thursday.", "message_ids": ["1"]}'


def test_an_answer_cut_inside_a_section_keeps_the_sections_it_finished() -> None:
    cut = '{"summary": "The team planned the release.", "sections": [' + WHOLE
    cut += ', {"title": "Lunch", "bo'
    answer = parse_summary(cut)
    assert answer.summary == "The team planned the release."
    assert [s.title for s in answer.sections] == ["Release"]


def test_an_answer_cut_after_a_title_drops_that_section() -> None:
    cut = '{"summary": "S.", "sections": [' + WHOLE + ', {"title": "Lunch"'
    assert [s.title for s in parse_summary(cut).sections] == ["Release"]


def test_a_whole_answer_with_a_section_lacking_its_body_is_still_invalid() -> None:
    whole = '{"summary": "S.", "sections": [' + WHOLE + ', {"title": "Lunch"}]}'
    with pytest.raises(InvalidOutput, match=r"sections\.1\.body"):
        parse_summary(whole)
