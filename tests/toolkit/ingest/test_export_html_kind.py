"""An HTML export without a chat type is typed by its messages: a group whose anonymous
admin changed its title ("by the chat itself") stays a group when its members write."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from toolkit.ingest.export.html.importer import _infer_type


def _run(senders: set[str], signs: int, title: str = "Parents of Riverside") -> Any:
    return SimpleNamespace(state=SimpleNamespace(title=title, senders=senders, channel_signs=signs))


@pytest.mark.parametrize(
    ("senders", "signs", "kind"),
    [
        ({"Parents of Riverside"}, 0, "private_channel"),  # every post signed by the title
        ({"Parents of Riverside"}, 1, "private_channel"),
        ({"Parents of Riverside", "Ann"}, 1, "private_channel"),  # a signed post beside
        ({"Ann", "Bob", "Cleo", "Dan", "Parents of Riverside"}, 1, "private_supergroup"),
        ({"Ann", "Bob", "Cleo"}, 0, "private_supergroup"),
    ],
)
def test_members_writing_make_a_group_whatever_the_title_changes(
    senders: set[str], signs: int, kind: str
) -> None:
    chat = SimpleNamespace(chat_type=None)
    assert _infer_type(_run(senders, signs), chat, None)[0] == kind  # type: ignore[arg-type]
