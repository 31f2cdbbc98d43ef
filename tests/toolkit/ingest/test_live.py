"""Conversion of real Telethon objects and the Telethon adapter's edge (errors, credentials)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from telethon import TelegramClient, errors
from telethon.crypto import AuthKey
from telethon.sessions import StringSession
from telethon.tl import types as tl
from telethon_fakes import (
    ALICE,
    BASE_TIME,
    BOB,
    CAROL,
    NEWS,
    PRIVATE,
    TALK,
    FakeTelegram,
    Fault,
    flood,
    history,
    text_message,
)

from toolkit.config import Settings, nested
from toolkit.errors import (
    ConfigError,
    RateLimited,
    SourceNotFound,
    UpstreamError,
    UpstreamRateLimited,
    UpstreamTimeout,
)
from toolkit.ingest.live.client import (
    ResolvedSource,
    TelethonMessengerClient,
    build_telegram_client,
    translate_error,
)
from toolkit.ingest.live.convert import convert_message, media_kind, peer_key
from toolkit.models import Message, SourceKind
from toolkit.refs import parse_ref

ENTITIES = [ALICE, BOB, CAROL, NEWS, TALK, PRIVATE]


def fetched(fake: FakeTelegram, channel: tl.Channel, *raw: Any) -> list[Message]:
    """Serve ``raw`` through the fake (as Telethon would) and convert every message."""
    fake.histories[channel.id] = list(raw)
    client = TelethonMessengerClient(fake)
    source = ResolvedSource(channel.id, channel.title, SourceKind.CHAT, None, channel)

    async def collect() -> list[Message]:
        return [m async for m in client.iter_messages(source, source_id=7)]

    return asyncio.run(collect())


@pytest.fixture
def fake() -> FakeTelegram:
    return FakeTelegram(entities=ENTITIES)


def test_peer_keys() -> None:
    assert peer_key(tl.PeerUser(5)) == "user5"
    assert peer_key(tl.PeerChannel(6)) == "channel6"
    assert peer_key(tl.PeerChat(7)) == "chat7"
    assert peer_key(None) is None


def test_every_field_of_a_text_message(fake: FakeTelegram) -> None:
    moscow = timezone(timedelta(hours=3))
    raw = tl.Message(
        id=42,
        peer_id=tl.PeerChannel(TALK.id),
        date=datetime(2024, 3, 1, 12, 30, tzinfo=moscow),
        message="the answer, with a photo",
        from_id=tl.PeerUser(ALICE.id),
        reply_to=tl.MessageReplyHeader(reply_to_msg_id=40),
        edit_date=datetime(2024, 3, 1, 13, 0, tzinfo=moscow),
        media=tl.MessageMediaPhoto(photo=tl.PhotoEmpty(id=1)),
        fwd_from=tl.MessageFwdHeader(date=BASE_TIME, from_name="Hidden Person"),
    )
    (message,) = fetched(fake, TALK, raw)
    assert message == Message(
        source_id=7,
        messenger_message_id=42,
        posted_at=datetime(2024, 3, 1, 9, 30, tzinfo=UTC),
        text="the answer, with a photo",
        sender_peer_id="user101",
        sender_name="Alice Smith",
        reply_to=40,
        edited_at=datetime(2024, 3, 1, 10, 0, tzinfo=UTC),
        is_service=False,
        media="photo",
        forwarded_from="Hidden Person",
    )
    assert message.posted_at.utcoffset() == timedelta(0)


def test_forward_names_the_known_origin_else_its_peer(fake: FakeTelegram) -> None:
    from_user = text_message(
        TALK, 1, "fwd", fwd_from=tl.MessageFwdHeader(date=BASE_TIME, from_id=tl.PeerUser(BOB.id))
    )
    from_channel = text_message(
        TALK,
        2,
        "fwd",
        fwd_from=tl.MessageFwdHeader(date=BASE_TIME, from_id=tl.PeerChannel(NEWS.id)),
    )
    unknown = text_message(
        TALK, 3, "fwd", fwd_from=tl.MessageFwdHeader(date=BASE_TIME, from_id=tl.PeerChannel(9))
    )
    names = [m.forwarded_from for m in fetched(fake, TALK, from_user, from_channel, unknown)]
    assert names == ["Bob", "Daily News", "channel9"]


def test_channel_post_is_sent_by_the_channel(fake: FakeTelegram) -> None:
    post = text_message(NEWS, 1, "headline", sender=None)
    signed = text_message(NEWS, 2, "column", sender=None, post_author="Editor")
    first, second = fetched(fake, NEWS, post, signed)
    assert (first.sender_peer_id, first.sender_name) == ("channel555001", "Daily News")
    assert second.sender_peer_id == "channel555001"


def test_reply_to_another_chat_is_not_a_reply_here(fake: FakeTelegram) -> None:
    here = text_message(TALK, 1, "a", reply_to=tl.MessageReplyHeader(reply_to_msg_id=9))
    elsewhere = text_message(
        TALK,
        2,
        "b",
        reply_to=tl.MessageReplyHeader(reply_to_msg_id=9, reply_to_peer_id=tl.PeerChannel(1)),
    )
    story = text_message(TALK, 3, "c", reply_to=tl.MessageReplyStoryHeader(tl.PeerUser(1), 5))
    assert [m.reply_to for m in fetched(fake, TALK, here, elsewhere, story)] == [9, None, None]


def _document(*attributes: Any) -> tl.MessageMediaDocument:
    doc = tl.Document(
        id=1,
        access_hash=1,
        file_reference=b"",
        date=BASE_TIME,
        mime_type="application/octet-stream",
        size=10,
        dc_id=2,
        attributes=list(attributes),
    )
    return tl.MessageMediaDocument(document=doc)


@pytest.mark.parametrize(
    ("media", "kind"),
    [
        (None, None),
        (tl.MessageMediaEmpty(), None),
        (tl.MessageMediaPhoto(photo=tl.PhotoEmpty(id=1)), "photo"),
        (_document(tl.DocumentAttributeVideo(duration=3, w=1, h=1)), "video_file"),
        (
            _document(tl.DocumentAttributeVideo(duration=3, w=1, h=1, round_message=True)),
            "video_message",
        ),
        (_document(tl.DocumentAttributeAudio(duration=3, voice=True)), "voice_message"),
        (_document(tl.DocumentAttributeAudio(duration=3)), "audio_file"),
        (
            _document(tl.DocumentAttributeSticker(alt="x", stickerset=tl.InputStickerSetEmpty())),
            "sticker",
        ),
        (
            _document(
                tl.DocumentAttributeAnimated(), tl.DocumentAttributeVideo(duration=1, w=1, h=1)
            ),
            "animation",
        ),
        (_document(tl.DocumentAttributeFilename(file_name="a.pdf")), "file"),
        (tl.MessageMediaGeo(geo=tl.GeoPointEmpty()), "location"),
        (tl.MessageMediaWebPage(webpage=tl.WebPageEmpty(id=1)), None),
        (tl.MessageMediaUnsupported(), "unsupported"),
    ],
)
def test_media_kinds(media: Any, kind: str | None) -> None:
    assert media_kind(media) == kind


def test_media_only_message_keeps_an_empty_caption(fake: FakeTelegram) -> None:
    raw = text_message(TALK, 1, "", media=tl.MessageMediaPhoto(photo=tl.PhotoEmpty(id=1)))
    (message,) = fetched(fake, TALK, raw)
    assert (message.text, message.media, message.is_service) == ("", "photo", False)


def _service(msg_id: int, action: Any, **extra: Any) -> tl.MessageService:
    return tl.MessageService(
        id=msg_id,
        peer_id=tl.PeerChannel(TALK.id),
        date=BASE_TIME,
        action=action,
        from_id=tl.PeerUser(ALICE.id),
        **extra,
    )


def test_service_actions_read_as_text(fake: FakeTelegram) -> None:
    raws = [
        _service(1, tl.MessageActionChatAddUser(users=[BOB.id, 777])),
        _service(2, tl.MessageActionChatDeleteUser(user_id=ALICE.id)),
        _service(3, tl.MessageActionChatDeleteUser(user_id=CAROL.id)),
        _service(
            4, tl.MessageActionPinMessage(), reply_to=tl.MessageReplyHeader(reply_to_msg_id=1)
        ),
        _service(5, tl.MessageActionChatEditTitle(title="Open Talk 2")),
        _service(6, tl.MessageActionChatJoinedByLink(inviter_id=BOB.id)),
        _service(7, tl.MessageActionScreenshotTaken()),
    ]
    converted = fetched(fake, TALK, *raws)
    assert [m.text for m in converted] == [
        "Alice Smith added Bob, user777",
        "Alice Smith left the group",
        "Alice Smith removed Carol",
        "Alice Smith pinned message 1",
        "Alice Smith changed the title to «Open Talk 2»",
        "Alice Smith joined by invite link",
        "Alice Smith screenshot taken",
    ]
    assert all(m.is_service and m.sender_peer_id == "user101" for m in converted)
    assert all(m.reply_to is None and m.media is None for m in converted)


def test_message_empty_is_skipped(fake: FakeTelegram) -> None:
    empty = tl.MessageEmpty(id=3, peer_id=tl.PeerChannel(TALK.id))
    assert convert_message(empty, source_id=1) is None
    kept = fetched(fake, TALK, text_message(TALK, 2, "a"), empty, text_message(TALK, 4, "b"))
    assert [m.messenger_message_id for m in kept] == [2, 4]


def test_live_text_is_cleaned_as_an_export_is() -> None:
    hostile = text_message(TALK, 7, "nul\x00 esc\x1b[2J half\ud800 ok\tline\r\nend")
    converted = convert_message(hostile, source_id=1)
    assert converted is not None
    assert converted.text == "nul esc[2J half\ufffd ok\tline\nend"


def test_resolve_public_private_and_unknown(fake: FakeTelegram) -> None:
    client = TelethonMessengerClient(fake)
    news = asyncio.run(client.resolve(parse_ref("https://t.me/DAILYNEWS")))
    assert (news.internal_id, news.title, news.kind, news.handle) == (
        555001,
        "Daily News",
        SourceKind.CHANNEL,
        "dailynews",
    )
    talk = asyncio.run(client.resolve(parse_ref("@open_talk")))
    assert (talk.kind, talk.handle) == (SourceKind.CHAT, "open_talk")
    private = asyncio.run(client.resolve(parse_ref("t.me/c/555003/10")))
    assert (private.internal_id, private.title, private.handle) == (555003, "Team Room", None)
    with pytest.raises(SourceNotFound, match="@nobody_here"):
        asyncio.run(client.resolve(parse_ref("@nobody_here")))
    with pytest.raises(SourceNotFound):
        asyncio.run(client.resolve(parse_ref("t.me/c/424242")))


def test_flood_wait_mid_stream_becomes_rate_limited(fake: FakeTelegram) -> None:
    fake.faults.append(Fault(call=0, after=3, error=flood(17)))
    with pytest.raises(RateLimited) as info:
        fetched(fake, TALK, *history(TALK, range(1, 10)))
    assert info.value.retry_after == 17
    assert isinstance(info.value.__cause__, errors.FloodWaitError)
    assert fake.calls[0]["reverse"] is True


def test_a_stream_left_early_is_closed(fake: FakeTelegram, monkeypatch: pytest.MonkeyPatch) -> None:
    """A caller that stops after the first message closes the messenger's stream at once
    (an async generator's ``aclose``), not when the event loop ends."""
    fake.histories[TALK.id] = history(TALK, range(1, 10))
    streams: list[Any] = []
    serve = fake.iter_messages

    def tracked(*args: Any, **kwargs: Any) -> Any:
        streams.append(serve(*args, **kwargs))
        return streams[-1]

    monkeypatch.setattr(fake, "iter_messages", tracked)
    client = TelethonMessengerClient(fake)
    source = ResolvedSource(TALK.id, TALK.title, SourceKind.CHAT, None, TALK)

    async def first_then_leave() -> tuple[int, bool]:
        messages = client.iter_messages(source, source_id=7)
        first = await anext(messages)
        await messages.aclose()
        return first.messenger_message_id, streams[0].ag_frame is None

    assert asyncio.run(first_then_leave()) == (1, True)


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (errors.FloodWaitError(request=None, capture=30), UpstreamRateLimited),
        (errors.FloodPremiumWaitError(request=None, capture=5), UpstreamRateLimited),
        (errors.UsernameNotOccupiedError(request=None), SourceNotFound),
        (errors.ChannelPrivateError(request=None), SourceNotFound),
        (errors.AuthKeyUnregisteredError(request=None), ConfigError),
        (errors.TimedOutError(request=None, message="Timeout", code=-503), UpstreamTimeout),
        (TimeoutError(), UpstreamTimeout),
        (errors.RPCError(request=None, message="INTERNAL", code=500), UpstreamError),
        (ConnectionError("reset by peer"), UpstreamError),
    ],
)
def test_translate_error(error: Exception, expected: type[Exception]) -> None:
    mapped = translate_error(error, what="reading @x")
    assert type(mapped) is expected
    if isinstance(mapped, RateLimited):
        assert mapped.retry_after == error.seconds  # type: ignore[attr-defined]


def test_translate_error_leaves_foreign_errors_alone() -> None:
    assert translate_error(KeyError("x"), what="reading") is None


def test_unauthorised_session_is_a_config_error() -> None:
    client = TelethonMessengerClient(FakeTelegram(entities=ENTITIES, authorised=False))
    with pytest.raises(ConfigError, match="not logged in"):
        asyncio.run(client.connect())


def _settings(monkeypatch: pytest.MonkeyPatch, **values: Any) -> Settings:
    """Settings of ``values``, named as their variables (``messenger_api_id``)."""
    for name in ("MLENS_MESSENGER_API_ID", "MLENS_MESSENGER_API_HASH", "MLENS_MESSENGER_SESSION"):
        monkeypatch.delenv(name, raising=False)
    return Settings(_env_file=None, **nested(**values))


def _offline_session_string() -> str:
    session = StringSession()
    session.set_dc(2, "149.154.167.51", 443)
    session.auth_key = AuthKey(bytes(range(256)))
    return str(session.save())


@pytest.mark.parametrize(
    "values",
    [
        {},
        {"messenger_api_id": 1, "messenger_api_hash": "abc"},
        {"messenger_api_hash": "abc", "messenger_session": "1xyz"},
    ],
)
def test_missing_credentials_name_the_variables(
    monkeypatch: pytest.MonkeyPatch, values: dict[str, Any]
) -> None:
    with pytest.raises(ConfigError) as info:
        TelethonMessengerClient.from_settings(_settings(monkeypatch, **values))
    for variable in (
        "MLENS_MESSENGER_API_ID",
        "MLENS_MESSENGER_API_HASH",
        "MLENS_MESSENGER_SESSION",
    ):
        assert variable in str(info.value)


def test_garbage_session_string_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = _settings(
        monkeypatch, messenger_api_id=1, messenger_api_hash="abc", messenger_session="not-a-session"
    )
    with pytest.raises(ConfigError, match="MLENS_MESSENGER_SESSION"):
        build_telegram_client(settings)


def test_client_built_from_settings_defers_floodwaits_and_stays_offline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings = _settings(
        monkeypatch,
        messenger_api_id=12345,
        messenger_api_hash="0123456789abcdef",
        messenger_session=_offline_session_string(),
    )
    adapter = TelethonMessengerClient.from_settings(settings)
    telegram = adapter.telegram
    assert isinstance(telegram, TelegramClient)
    assert telegram.api_id == 12345
    assert telegram.flood_sleep_threshold == 0
    assert not telegram.is_connected()
