"""Messages to label: those of the labelled real-chat windows a quote must choose from.

A message is worth a label when a quote of it cannot be the whole message: more than one
sentence left after chatter (``quotes.quoted_sentences``) and longer than the shorter quote
length the engine uses (a message in another language than the digest's). The sheet shows
each with what it answers and what came before it, its sentences numbered.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from toolkit.evaluate.corpus.labels import load_labels
from toolkit.evaluate.corpus.sources import BY_KEY
from toolkit.evaluate.corpus.store import window_messages
from toolkit.evaluate.keysentences.labels import DEV_SETS
from toolkit.evaluate.retrieval import DEV_DIR
from toolkit.evaluate.summaries import load_dialogues
from toolkit.models import Message
from toolkit.summarize.context import message_text
from toolkit.summarize.extractive.compose.cite import FOREIGN_QUOTE_CHARS
from toolkit.summarize.extractive.draft.quotes import one_line, quoted_sentences

CONTEXT_CHARS = 220
"""How much of an answered or previous message the sheet shows."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """A message whose quote must choose among its sentences, in its window or dialogue."""

    source: str
    """A real chat's key, or a dev set's name (``dialogsum``, ``samsum``)."""
    group: str
    """The labelled window's id, or the dev dialogue's."""
    label_id: int
    """The message's id in the labels: its message id in a real chat, the dialogue's place
    in its file times ``DIALOGUE_STRIDE`` plus the turn's index in a dev set."""
    index: int
    messages: list[Message]
    sentences: list[str]

    @property
    def message(self) -> Message:
        """The message itself."""
        return self.messages[self.index]


DIALOGUE_STRIDE = 1000


def needs_choice(text: str) -> list[str] | None:
    """The sentences a quote of ``text`` chooses from, or ``None`` when it never must."""
    sentences = quoted_sentences(text)
    if len(sentences) < 2 or len(" ".join(sentences)) <= FOREIGN_QUOTE_CHARS:
        return None
    return sentences


def _choices(
    source: str, group: str, messages: list[Message], ids: list[int]
) -> Iterator[Candidate]:
    for i, m in enumerate(messages):
        sentences = needs_choice(message_text(m))
        if sentences is not None:
            yield Candidate(source, group, ids[i], i, messages, sentences)


def candidates(
    sources: set[str] | None = None, dev_dir: Path | None = DEV_DIR
) -> Iterator[Candidate]:
    """Every message needing a choice in the labelled windows of ``sources`` (all real
    chats not held out, and both dev sets where ``dev_dir`` is, when ``None``).

    Raises:
        CorpusMissing: a source is not cached.
    """
    for window in load_labels():
        key = window.window.source
        if BY_KEY[key].held_out or (sources is not None and key not in sources):
            continue
        messages = [m for m in window_messages(window.window) if not m.is_service]
        ids = [m.messenger_message_id for m in messages]
        yield from _choices(key, window.id, messages, ids)
    for name in DEV_SETS:
        path = dev_dir / f"summaries_en_{name}.jsonl" if dev_dir is not None else None
        if path is None or not path.is_file() or (sources is not None and name not in sources):
            continue
        for place, dialogue in enumerate(load_dialogues(path)):
            ids = [place * DIALOGUE_STRIDE + k for k in range(len(dialogue.messages))]
            yield from _choices(name, dialogue.id, dialogue.messages, ids)


def sample(found: list[Candidate], per_source: int, seed: int = 7) -> list[Candidate]:
    """At most ``per_source`` candidates of each source, drawn with a fixed seed, in order."""
    by_source: dict[str, list[Candidate]] = {}
    for c in found:
        by_source.setdefault(c.source, []).append(c)
    rng = random.Random(seed)
    chosen = []
    for key in sorted(by_source):
        pool = by_source[key]
        chosen += rng.sample(pool, min(per_source, len(pool)))
    return sorted(chosen, key=lambda c: (c.source, c.label_id))


def _short(message: Message) -> str:
    text = one_line(message_text(message))
    text = text if len(text) <= CONTEXT_CHARS else text[:CONTEXT_CHARS] + "…"
    return f"#{message.messenger_message_id} {message.sender_name or '?'}: {text}"


def sheet(chosen: list[Candidate]) -> str:
    """The labelling sheet: per message its source and id, context and numbered sentences."""
    blocks = []
    for c in chosen:
        m = c.message
        by_id = {x.messenger_message_id: x for x in c.messages}
        lines = [f"## {c.source}:{c.label_id} ({c.group})"]
        if m.reply_to is not None and m.reply_to in by_id:
            lines.append(f"answers   {_short(by_id[m.reply_to])}")
        if c.index > 0:
            lines.append(f"after     {_short(c.messages[c.index - 1])}")
        lines.append(f"sender    {m.sender_name or '?'}")
        lines += [f"[{k}] {s}" for k, s in enumerate(c.sentences)]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"
