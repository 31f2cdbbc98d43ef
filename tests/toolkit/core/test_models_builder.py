"""``build_message`` builds the very ``Message`` its constructor would, field by field."""

from __future__ import annotations

import dataclasses
import pickle
from datetime import UTC, datetime

import pytest

from toolkit.models import Message, build_message

_VALUES = (
    7,
    42,
    datetime(2024, 1, 8, 6, 0, tzinfo=UTC),
    "hello",
    "user1",
    "Anna Lee",
    41,
    datetime(2024, 1, 8, 7, 0, tzinfo=UTC),
    True,
    "photo",
    "Mike",
    3,
    (("👍", 2),),
    100,
    5,
)


def test_every_field_is_set_in_order() -> None:
    # A field added to Message must be added to build_message too: this counts them.
    assert len(_VALUES) == len(dataclasses.fields(Message))
    built, made = build_message(*_VALUES), Message(*_VALUES)
    assert built == made
    assert hash(built) == hash(made)
    assert dataclasses.astuple(built) == _VALUES
    assert type(built) is Message


def test_views_and_forwards_default_to_none() -> None:
    built = build_message(*_VALUES[:13])
    assert built == Message(*_VALUES[:13])
    assert (built.views, built.forwards) == (None, None)


def test_the_built_message_stays_frozen_and_pickles() -> None:
    built = build_message(*_VALUES)
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.text = "changed"  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(built)) == built
    assert dataclasses.replace(built, text="other").text == "other"
