"""The source-reference table: every accepted form, and the ones refused with a reason."""

from __future__ import annotations

import pytest

from toolkit.errors import InvalidRequest, InvalidSourceRef
from toolkit.models import Source, SourceKind
from toolkit.refs import message_link, parse_ref, source_link

VALID = [
    # (raw, key, message id)
    ("@durov_news", "@durov_news", None),
    ("@Durov_News", "@durov_news", None),
    ("durov_news", "@durov_news", None),
    ("  @durov_news  ", "@durov_news", None),
    ("https://t.me/durov_news", "@durov_news", None),
    ("http://t.me/durov_news", "@durov_news", None),
    ("t.me/durov_news", "@durov_news", None),
    ("T.ME/DUROV_NEWS", "@durov_news", None),
    ("https://www.t.me/durov_news", "@durov_news", None),
    ("https://t.me/durov_news/", "@durov_news", None),
    ("t.me/s/durov_news", "@durov_news", None),
    ("https://t.me/s/durov_news/42", "@durov_news", 42),
    ("telegram.me/durov_news", "@durov_news", None),
    ("https://telegram.me/durov_news/7", "@durov_news", 7),
    ("telegram.dog/durov_news", "@durov_news", None),
    ("https://telegram.dog/durov_news/9", "@durov_news", 9),
    ("durov_news.t.me", "@durov_news", None),
    ("https://durov_news.t.me/15", "@durov_news", 15),
    ("t.me/durov_news/123", "@durov_news", 123),
    ("https://t.me/durov_news/123?single", "@durov_news", 123),
    ("https://t.me/durov_news/123?comment=5#top", "@durov_news", 123),
    ("t.me/durov_news/10/123", "@durov_news", 123),
    ("https://t.me/c/1234567890", "c/1234567890", None),
    ("t.me/c/1234567890/77", "c/1234567890", 77),
    ("t.me/c/1234567890/5/77", "c/1234567890", 77),
    ("c/1962870014", "c/1962870014", None),  # the key `mlens sources` prints
    ("C/1962870014/12", "c/1962870014", 12),
    ("tg://resolve?domain=durov_news", "@durov_news", None),
    ("tg://resolve?domain=durov_news&post=3", "@durov_news", 3),
    ("tg://privatepost?channel=123456&post=8", "c/123456", 8),
    ("@abcde", "@abcde", None),
    ("@" + "a" * 32, "@" + "a" * 32, None),
]

INVALID = [
    ("", "empty"),
    ("   ", "empty"),
    ("@", "5 to 32"),
    ("@abcd", "5 to 32"),
    ("@" + "a" * 33, "5 to 32"),
    ("@bad-handle", "letters, digits"),
    ("@имя_канала", "letters, digits"),
    ("t.me/+AbCdEf123", "invite"),
    ("https://t.me/+AbCdEf123", "invite"),
    ("+AbCdEf123", "invite"),
    ("https://t.me/joinchat/AbCdEf123", "invite"),
    ("https://t.me/", "names no source"),
    ("https://t.me/s/", "needs a handle"),
    ("https://t.me/c/", "internal id"),
    ("https://t.me/c/abc/1", "positive number"),
    ("c/", "internal id"),
    ("c/-5", "positive number"),
    ("https://t.me/c/0/1", "positive number"),
    ("t.me/durov_news/abc", "positive number"),
    ("t.me/durov_news/1/2/3", "too many"),
    ("https://example.com/durov_news", "not a t.me"),
    ("ftp://t.me/durov_news", "scheme"),
    ("t.me/share/url", "site feature"),
    ("t.me/addstickers/pack", "site feature"),
    ("durov news", "without spaces"),
    ("tg://msg?text=hi", "tg://resolve"),
]


@pytest.mark.parametrize(("raw", "key", "message_id"), VALID)
def test_valid_forms_resolve(raw: str, key: str, message_id: int | None) -> None:
    ref = parse_ref(raw)
    assert ref.key == key
    assert ref.message_id == message_id
    assert ref.raw == raw  # responses echo the ref as given


@pytest.mark.parametrize(("raw", "reason"), INVALID)
def test_invalid_forms_are_refused_with_a_reason(raw: str, reason: str) -> None:
    with pytest.raises(InvalidSourceRef) as info:
        parse_ref(raw)
    assert reason in str(info.value)
    assert isinstance(info.value, InvalidRequest)
    assert info.value.field == "source_ref"


def test_handles_are_case_insensitive() -> None:
    assert parse_ref("@MLens_Demo").key == parse_ref("t.me/mlens_demo").key


def test_message_links_public_and_private() -> None:
    public = Source(id=1, title="P", kind=SourceKind.CHANNEL, handle="news_room", internal_id=99)
    private = Source(id=2, title="Q", kind=SourceKind.CHAT, internal_id=1234567)
    assert message_link(public, 5) == "https://t.me/news_room/5"
    assert message_link(private, "6") == "https://t.me/c/1234567/6"
    assert message_link(parse_ref("t.me/c/42/1"), 3) == "https://t.me/c/42/3"
    assert source_link(public) == "https://t.me/news_room"
    assert source_link(private) == "https://t.me/c/1234567"
