"""Years in dates, in every pack: a date shows its year when the text's time spans more
than one year or the date is not in the year the text is about (a period's end; a source
summary's span always shows it); a range within one year says the year once."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from summary_data import extractive_digest

from toolkit.embeddings import Embedder
from toolkit.lang import CODES, pack
from toolkit.models import Message

OCT21 = datetime(2025, 10, 21, 14, 5, tzinfo=UTC)
SEP20 = datetime(2025, 9, 20, 9, 0, tzinfo=UTC)
DEC31 = datetime(2025, 12, 31, 22, 0, tzinfo=UTC)
JAN1 = datetime(2026, 1, 1, 10, 0, tzinfo=UTC)

EXPECTED = {
    "en": {
        "day": "21 October",
        "day_year": "21 October 2025",
        "moment_year": "21 October 2025, 14:05",
        "span": "20 September to 21 October",
        "span_year": "20 September to 21 October 2025",
        "span_years": "31 December 2025 to 1 January 2026",
        "years": "2019 to 2026",
    },
    "ru": {
        "day": "21 октября",
        "day_year": "21 октября 2025 года",
        "moment_year": "21 октября 2025 года, 14:05",
        "span": "с 20 сентября по 21 октября",
        "span_year": "с 20 сентября по 21 октября 2025 года",
        "span_years": "с 31 декабря 2025 года по 1 января 2026 года",
        "years": "с 2019 по 2026 год",
    },
    "uk": {
        "day": "21 жовтня",
        "day_year": "21 жовтня 2025 року",
        "moment_year": "21 жовтня 2025 року, 14:05",
        "span": "з 20 вересня до 21 жовтня",
        "span_year": "з 20 вересня до 21 жовтня 2025 року",
        "span_years": "з 31 грудня 2025 року до 1 січня 2026 року",
        "years": "з 2019 до 2026 року",
    },
}


@pytest.mark.parametrize("code", CODES)
def test_a_date_shows_its_year_where_the_reader_needs_it(code: str) -> None:
    want = EXPECTED[code]
    in_2025 = pack(code).dated(SEP20, OCT21)  # a period within 2025
    in_2026 = pack(code).dated(JAN1, JAN1 + timedelta(days=30))
    across = pack(code).dated(DEC31, JAN1)  # a period over the new year
    assert in_2025.day(OCT21) == want["day"]
    assert in_2026.day(OCT21) == want["day_year"]  # not the period's year
    assert across.day(OCT21) == want["day_year"]  # the period spans two years
    assert pack(code).day(OCT21) == want["day_year"]  # no context: always
    assert in_2026.moment(OCT21) == want["moment_year"]
    assert in_2025.span(SEP20, OCT21) == want["span"]
    assert in_2026.span(SEP20, OCT21) == want["span_year"]  # the year once, at the end
    assert in_2025.span(DEC31, JAN1) == want["span_years"]
    assert in_2025.span(OCT21, OCT21 + timedelta(hours=1)) == want["day"]  # one day
    assert pack(code).years(datetime(2019, 1, 1), JAN1) == want["years"]


def _chat(times: list[datetime]) -> list[Message]:
    lines = [
        "The new year party playlist is ready, two hours of music for the hall.",
        "Great, I will bring the speakers and the long cable for the stage.",
        "Fireworks start at midnight above the river, the bridge will be closed.",
        "We should meet at the bridge at half past eleven then, near the old lamp.",
    ]
    return [
        Message(1, i + 1, t, lines[i % 4], sender_peer_id=f"user{i % 2}", sender_name="AB"[i % 2])
        for i, t in enumerate(times)
    ]


def _all(code: str, messages: list[Message], embedder: Embedder, end: datetime) -> str:
    summary = extractive_digest(embedder, messages, code, "Party", ended_at=end)
    quoted = re.compile(r"“[^”]*”|«[^»]*»")
    return quoted.sub(
        "", "\n".join([summary.summary, *(s.title + s.body for s in summary.sections)])
    )


@pytest.mark.parametrize("code", CODES)
def test_a_digest_over_the_new_year_dates_every_day_with_its_year(
    embedder: Embedder, code: str
) -> None:
    times = [DEC31 - timedelta(hours=3, minutes=3 - i) for i in range(2)]
    times += [JAN1 + timedelta(hours=4, minutes=i) for i in range(2)]
    text = _all(code, _chat(times), embedder, JAN1 + timedelta(days=1))
    assert "2025" in text, text
    assert "2026" in text, text
    within = [DEC31 - timedelta(days=5, minutes=3 - i) for i in range(4)]
    text = _all(code, _chat(within), embedder, DEC31)
    assert "2025" not in text, text  # every date is in the period's year
