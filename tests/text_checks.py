"""Checks of what a report or a rendered view shows."""

from __future__ import annotations


def assert_shows(text: str, *fragments: str) -> None:
    """Fail unless every fragment is in ``text``, naming all the missing ones at once."""
    missing = [fragment for fragment in fragments if fragment not in text]
    assert not missing, f"missing {missing!r} from:\n{text}"
