"""The cross-language grounding check on its dev pairs: faithful translations kept,
invented and mistranslated lines dropped, in both directions.

``python -m toolkit.evaluate.grounding`` reads ``data/grounding_pairs.jsonl`` (lines we
wrote: messages in one language, a line in another, labelled ``faithful``,
``invented`` or ``mistranslated``), judges each line as the LLM engine does
(``llm.grounding.item_problem``) and prints, per direction and label, how many were
kept, with the meaning score of each.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

from toolkit.models import Message
from toolkit.summarize.llm.answer import LLMItem
from toolkit.summarize.llm.grounding import Window, item_problem

PAIRS = Path(__file__).with_name("data") / "grounding_pairs.jsonl"


def judge(path: Path = PAIRS) -> list[tuple[str, str, str | None, float]]:
    """Each pair's direction (``en→ru``), label, problem (``None``: kept) and score."""
    out = []
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    for row in map(json.loads, path.read_text(encoding="utf-8").splitlines()):
        messages = [
            Message(
                source_id=1,
                messenger_message_id=i,
                posted_at=t0 + timedelta(minutes=i),
                text=text,
                sender_name=sender,
            )
            for i, (sender, text) in enumerate(zip(row["senders"], row["messages"], strict=True), 1)
        ]
        window = Window(messages)
        ids = [str(i) for i in range(1, len(messages) + 1)]
        problem = item_problem(LLMItem(text=row["line"], ids=ids), window, row["language"])
        score = window.meaning.support(row["line"], window.texts(ids))
        direction = f"{_language(row['messages'][0])}→{row['language']}"
        out.append((direction, row["label"], problem, score))
    return out


def _language(text: str) -> str:
    from toolkit.lang.detect import language

    return language(text) or "?"


def main() -> None:
    """Print the table."""
    rows = judge()
    kept: Counter[tuple[str, str]] = Counter()
    total: Counter[tuple[str, str]] = Counter()
    for direction, label, problem, score in rows:
        total[direction, label] += 1
        kept[direction, label] += problem is None
        print(f"{direction:7} {label:13} {score:.3f} {problem or 'kept'}")
    print()
    for key in sorted(total):
        print(f"{key[0]:7} {key[1]:13} kept {kept[key]}/{total[key]}")


if __name__ == "__main__":
    main()
