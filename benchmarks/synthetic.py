"""Synthetic Telegram Desktop exports of any size, for load tests and benchmarks.

``write_export(path, count)`` streams a single-chat export of ``count`` text messages
to disk (constant memory, ~120 bytes per message), with varied, searchable texts
built from a small bilingual vocabulary. Nothing random leaks in: the same arguments
write the same file.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

_WORDS = [
    "meeting",
    "release",
    "deploy",
    "server",
    "database",
    "backup",
    "schedule",
    "invoice",
    "budget",
    "design",
    "review",
    "question",
    "answer",
    "weekend",
    "travel",
    "ticket",
    "train",
    "coffee",
    "pizza",
    "guitar",
    "movie",
    "встреча",
    "релиз",
    "сервер",
    "база",
    "резервная",
    "копия",
    "расписание",
    "счёт",
    "бюджет",
    "дизайн",
    "отзыв",
    "вопрос",
    "ответ",
    "выходные",
    "поездка",
    "билет",
    "поезд",
    "кофе",
    "пицца",
    "гитара",
    "фильм",
]
_START = 1_700_000_000


def write_export(
    path: str | Path,
    count: int,
    *,
    chat_id: int = 4_000_000_001,
    name: str = "Load test",
    first_id: int = 1,
    seed: int = 0,
    big_text: str | None = None,
) -> Path:
    """Write a single-chat export of ``count`` messages to ``path``; return the path.

    Args:
        path: the file to write.
        count: how many text messages.
        chat_id: the chat's numeric id (two files with different ids are two sources).
        name: the chat's name.
        first_id: the first message id (ids then count up).
        seed: seed of the texts.
        big_text: when given, the last message's text (e.g. a 10 MB message).
    """
    rng = random.Random(seed)
    path = Path(path)
    with path.open("w", encoding="utf-8") as out:
        out.write(json.dumps({"name": name, "type": "public_supergroup", "id": chat_id})[:-1])
        out.write(', "messages": [\n')
        for i in range(count):
            mid = first_id + i
            text = " ".join(rng.choices(_WORDS, k=rng.randint(3, 14)))
            if big_text is not None and i == count - 1:
                text = big_text
            when = _START + 60 * mid
            message = {
                "id": mid,
                "type": "message",
                "date": "2023-11-14T22:13:20",
                "date_unixtime": str(when),
                "from": f"User {mid % 37}",
                "from_id": f"user{1000 + mid % 37}",
                "text": text,
                "text_entities": [{"type": "plain", "text": text}],
            }
            out.write(("," if i else "") + json.dumps(message, ensure_ascii=False) + "\n")
        out.write("]}\n")
    return path


__all__ = ["write_export"]
