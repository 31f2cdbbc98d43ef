"""Every destination against a local fake: the Bot API (split messages, escaping, a
flood wait), a webhook receiver checking the signature (and retries), an SMTP server
(aiosmtpd), the Atom feed read back by feedparser. No secret appears in what fails."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone

import feedparser
import pytest
from delivery_servers import Received, http_server, smtp_server

from toolkit.config import DeliverySettings
from toolkit.delivery.digest import DeliveryFailed, Digest
from toolkit.delivery.feed import atom_feed
from toolkit.delivery.mail import EmailAdapter
from toolkit.delivery.model import EmailDestination, TelegramDestination, WebhookDestination
from toolkit.delivery.render import TELEGRAM_LIMIT, telegram_messages
from toolkit.delivery.telegram import TelegramAdapter
from toolkit.delivery.webhook import WebhookAdapter, verify
from toolkit.wire import SectionOut, SummaryOut

TOKEN = "123456:secret-bot-token"
SECRET = "webhook-shared-secret"
LINK = "https://t.me/team_chat/42"


def digest(*, sections: int = 2, lines: int = 3, line: str = "") -> Digest:
    body = "\n".join(
        f"— Ana <b>asks</b> & answers {line or 'x' * 40} ({LINK})" for _ in range(lines)
    )
    summary = SummaryOut(
        source_ref="@team_chat",
        summary=f"The team picked a date ({LINK}).",
        sections=[SectionOut(title=f"Thread {i} <&>", body=body) for i in range(sections)],
        important_messenger_message_ids=["42"],
        engine="extractive",
        language="en",
    )
    return Digest(
        schedule_id=1,
        run_id=7,
        destination=0,
        source_title="Team",
        source_ref="@team_chat",
        topic_id=None,
        period_start=datetime(2024, 3, 1, 5, tzinfo=UTC),
        period_end=datetime(2024, 3, 2, 5, tzinfo=UTC),
        periods=1,
        zone=timezone(timedelta(hours=3)),
        summary=summary,
    )


# Telegram ------------------------------------------------------------------------------


def test_a_short_digest_is_one_escaped_message_with_its_links() -> None:
    (text,) = telegram_messages(digest())
    assert "<b>Team: 2024-03-01 08:00 – 2024-03-02 08:00</b>" in text
    assert "Ana &lt;b&gt;asks&lt;/b&gt; &amp; answers" in text
    assert "<b>Thread 0 &lt;&amp;&gt;</b>" in text
    assert LINK in text


def test_a_long_digest_splits_between_sections_within_the_limit() -> None:
    messages = telegram_messages(digest(sections=6, lines=20, line="y" * 60))
    assert len(messages) > 1
    assert all(len(m.encode("utf-16-le")) // 2 <= TELEGRAM_LIMIT for m in messages)
    # each message starts at a block's bold title: the split fell between sections
    assert all(m.startswith("<b>") for m in messages)
    assert sum(m.count(LINK) for m in messages) == 1 + 6 * 20


def test_a_section_longer_than_a_message_splits_between_lines_and_words() -> None:
    messages = telegram_messages(digest(sections=1, lines=3, line="word " * 1500))
    assert all(len(m.encode("utf-16-le")) // 2 <= TELEGRAM_LIMIT for m in messages)
    assert sum(m.count(LINK) for m in messages) == 1 + 3  # no link cut in two


@pytest.mark.slow
def test_the_bot_api_gets_each_message_and_a_short_flood_wait_is_slept() -> None:
    received = Received(replies=[(429, {"ok": False, "parameters": {"retry_after": 2}}, {})])
    slept: list[float] = []
    with http_server(received) as url:
        settings = DeliverySettings(telegram_api_url=url, telegram_bot_token=TOKEN)
        adapter = TelegramAdapter(
            TelegramDestination(chat_id="-1001"), settings, sleep=slept.append
        )
        said = adapter.deliver(digest(sections=6, lines=20, line="y" * 60))
    assert slept == [2.0]
    paths = {path for path, _, _ in received.requests}
    assert paths == {f"/bot{TOKEN}/sendMessage"}
    bodies = received.json()
    assert said == f"{len(bodies) - 1} message(s) to -1001"
    assert all(b["chat_id"] == "-1001" and b["parse_mode"] == "HTML" for b in bodies)


@pytest.mark.slow
def test_a_bot_api_refusal_says_why_without_the_token() -> None:
    received = Received(replies=[(400, {"ok": False, "description": "chat not found"}, {})])
    with http_server(received) as url:
        settings = DeliverySettings(telegram_api_url=url)
        adapter = TelegramAdapter(TelegramDestination(chat_id="-1", bot_token=TOKEN), settings)
        with pytest.raises(DeliveryFailed) as caught:
            adapter.deliver(digest())
    assert "chat not found" in str(caught.value)
    assert TOKEN not in str(caught.value)
    unreachable = TelegramAdapter(
        TelegramDestination(chat_id="-1", bot_token=TOKEN),
        DeliverySettings(telegram_api_url="http://127.0.0.1:9"),
    )
    with pytest.raises(DeliveryFailed) as caught:
        unreachable.deliver(digest())
    assert TOKEN not in str(caught.value)


# Webhook -------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_webhook_is_signed_over_timestamp_and_body() -> None:
    received = Received()
    with http_server(received) as url:
        adapter = WebhookAdapter(
            WebhookDestination(url=url + "/hook", secret=SECRET), DeliverySettings()
        )
        adapter.deliver(digest())
    ((path, headers, body),) = received.requests
    assert path == "/hook"
    stamp = headers["X-Mlens-Timestamp"]
    expected = hmac.new(SECRET.encode(), f"{stamp}.".encode() + body, hashlib.sha256).hexdigest()
    assert headers["X-Mlens-Signature"] == f"sha256={expected}"
    assert verify(SECRET, stamp, body, headers["X-Mlens-Signature"])
    assert not verify("another secret", stamp, body, headers["X-Mlens-Signature"])
    assert not verify(SECRET, stamp, body + b" ", headers["X-Mlens-Signature"])
    assert not verify(SECRET, stamp, body, headers["X-Mlens-Signature"], now=float(stamp) + 3600)
    document = received.json()[0]
    assert document["delivery_id"] == headers["X-Mlens-Delivery"] == "7-0"
    assert document["summary"]["summary"] == f"The team picked a date ({LINK})."
    assert document["period"] == {
        "start": "2024-03-01T05:00:00Z",
        "end": "2024-03-02T05:00:00Z",
        "periods": 1,
    }


@pytest.mark.slow
def test_the_webhook_retries_with_backoff_then_gives_up_saying_why() -> None:
    received = Received(replies=[(503, {}, {}), (200, {}, {})])
    slept: list[float] = []
    with http_server(received) as url:
        destination = WebhookDestination(url=url + "/hook?key=k", secret=SECRET)
        adapter = WebhookAdapter(destination, DeliverySettings(), sleep=slept.append)
        assert adapter.deliver(digest()) == "HTTP 200 (try 2)"
        assert slept == [0.5]
        received.replies[:] = [(500, {}, {})] * 3
        with pytest.raises(DeliveryFailed) as caught:
            adapter.deliver(digest())
        received.replies[:] = [(404, {}, {})]
        with pytest.raises(DeliveryFailed):
            adapter.deliver(digest())
    assert len(received.requests) == 2 + 3 + 1  # a 404 is not tried again
    assert "HTTP 500" in str(caught.value)
    assert SECRET not in str(caught.value)
    assert "key=k" not in str(caught.value)


# E-mail --------------------------------------------------------------------------------


def test_the_email_has_plain_text_and_html_parts() -> None:
    with smtp_server() as (port, got):
        settings = DeliverySettings(
            smtp_host="127.0.0.1", smtp_port=port, smtp_sender="d@lens.test"
        )
        adapter = EmailAdapter(EmailDestination(to=["ana@example.org", "bo@example.org"]), settings)
        assert adapter.deliver(digest()) == "mailed to 2 of 2"
    (mail,) = got
    assert mail["To"] == "ana@example.org, bo@example.org"
    assert mail["Subject"] == "Team: 2024-03-01 08:00 – 2024-03-02 08:00"
    assert mail["Message-ID"] == "<mlens-delivery-7-0@lens.test>"
    assert mail.get_content_type() == "multipart/alternative"
    parts = {p.get_content_type(): p.get_content() for p in mail.iter_parts()}
    assert "Ana <b>asks</b> & answers" in parts["text/plain"]
    assert f'<a href="{LINK}">{LINK}</a>' in parts["text/html"]
    assert "Ana &lt;b&gt;asks&lt;/b&gt; &amp; answers" in parts["text/html"]


def test_email_without_a_server_fails_saying_what_to_set() -> None:
    with pytest.raises(DeliveryFailed, match="MLENS_SMTP_HOST"):
        EmailAdapter(EmailDestination(to=["a@b.c"]), DeliverySettings()).deliver(digest())


# Feed ----------------------------------------------------------------------------------


def test_the_atom_feed_parses_with_its_entries_newest_first() -> None:
    first = digest()
    second = replace(first, run_id=8)
    delivered = datetime(2024, 3, 2, 5, 1, tzinfo=UTC)
    document = atom_feed(
        feed_id="urn:mlens:schedule:1",
        title="Team digest",
        self_url="http://127.0.0.1/v1/schedules/1/feed.atom",
        digests=[(second, delivered + timedelta(days=1)), (first, delivered)],
        updated=delivered + timedelta(days=1),
    )
    feed = feedparser.parse(document)
    assert not feed.bozo, feed.bozo_exception
    assert feed.version == "atom10"
    assert feed.feed.title == "Team digest"
    assert len(feed.entries) == 2
    entry = feed.entries[1]
    assert entry.id == "urn:mlens:schedule:1:run:7"
    assert entry.title == "Team: 2024-03-01 08:00 – 2024-03-02 08:00"
    assert LINK in entry.content[0].value
    assert LINK in entry.summary
    assert feed.entries[0].id == "urn:mlens:schedule:1:run:8"
