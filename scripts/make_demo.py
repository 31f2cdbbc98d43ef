"""Generate the demo sources shipped in ``toolkit/demo/`` (deterministic: fixed seed).

    .venv/bin/python scripts/make_demo.py [--eval-dir ../shared/data/eval/dev] [--out toolkit/demo]

Writes two Telegram Desktop single-chat JSON exports built from real public text:
``mlens_demo_en.json`` (a group chat from ``chitchat_dataset``, MIT) and
``mlens_demo_ru.json`` (a channel from the Russian XQuAD and STSb-multi-mt texts,
CC BY-SA). See ``toolkit/demo/README.md`` for origins and licences.
"""

from __future__ import annotations

import argparse
import random
import sys
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import demo_channel_ru
import demo_chat_en
from demo_export import write_export

SEED = 20240611
# A fixed end keeps the output byte-identical from run to run; move it to refresh.
WINDOW_END = datetime(2026, 11, 1, tzinfo=UTC)
EN_CHAT_ID = 1835469021
RU_CHANNEL_ID = 1962870014
ROOT = Path(__file__).resolve().parent.parent

NEW_YORK = timezone(timedelta(hours=-4))
MSK = demo_channel_ru.MSK


def main(argv: list[str] | None = None) -> int:
    """Build both demo exports and print what each holds."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eval-dir", type=Path, default=ROOT.parent / "shared/data/eval/dev")
    parser.add_argument("--out", type=Path, default=ROOT / "toolkit/demo")
    args = parser.parse_args(argv)

    en = demo_chat_en.build(random.Random(SEED), WINDOW_END)
    ru = demo_channel_ru.build(random.Random(SEED + 1), WINDOW_END, args.eval_dir, RU_CHANNEL_ID)
    # The exporter's local time (no offset in 'date'): New York for the chat, Moscow for
    # the channel.
    exports = (
        ("mlens_demo_en", demo_chat_en.TITLE, "public_supergroup", EN_CHAT_ID, en, NEW_YORK),
        ("mlens_demo_ru", demo_channel_ru.TITLE, "public_channel", RU_CHANNEL_ID, ru, MSK),
    )
    for name, title, chat_type, chat_id, events, tz in exports:
        stats = write_export(
            args.out / f"{name}.json",
            name=title,
            chat_type=chat_type,
            chat_id=chat_id,
            events=events,
            tz=tz,
        )
        print(name, " ".join(f"{k}={v}" for k, v in stats.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
