"""Names as the chat shows them: never transliterated into the requested language's script
("Alice Example" stays, never «Алисе Ексампле»; "Me" never «Ме»; «Анна» never "Anna")."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from summary_data import extractive_digest

from toolkit.embeddings import Embedder
from toolkit.models import Message

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
ROWS = [
    ("Alice Example", "Has anyone booked the hotel in Kyoto for the second week of April?"),
    ("Me", "Yes, I booked the Gion guesthouse, four nights, 120 euros a night."),
    ("Анна", "Отлично, тогда я беру билеты на поезд из Токио на утро понедельника."),
    ("Alice Example", "Perfect, I will send the deposit to the guesthouse tonight."),
]


@pytest.mark.parametrize("language", ["en", "ru", "uk"])
def test_every_name_is_written_as_the_chat_writes_it(embedder: Embedder, language: str) -> None:
    messages = [
        Message(1, i, T0 + timedelta(minutes=i), text, sender_peer_id=f"u{i}", sender_name=who)
        for i, (who, text) in enumerate(ROWS, 1)
    ]
    end = T0 + timedelta(hours=1)
    summary = extractive_digest(embedder, messages, language, "Trip", started_at=T0, ended_at=end)
    text = "\n".join([summary.summary, *(s.title + "\n" + s.body for s in summary.sections)])
    assert "Alice Example" in text
    for transliterated in ("Алис", "Ексампл", "Ексампле", "Ме ", "Ме:", "Anna"):
        assert transliterated not in text, text
