"""Key-sentence labels: a message of a real chat and the hash of the sentence that carries
its point (never its text), read from and written to ``data/real_key_sentences.jsonl``."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkit.evaluate.corpus.sources import BY_KEY

DEV_SETS = ("dialogsum", "samsum")
"""The dev sets whose turns are labelled beside the real chats (``../shared/data/eval/dev``)."""

KEYS_FILE = Path(__file__).resolve().parents[1] / "data" / "real_key_sentences.jsonl"
"""The labelled messages, shipped with the package."""


def sentence_hash(sentence: str) -> str:
    """A short, stable name of a sentence (its white space folded): what a label keeps."""
    folded = " ".join(sentence.split()).casefold()
    return hashlib.sha1(folded.encode("utf-8")).hexdigest()[:12]


@dataclass(frozen=True, slots=True)
class KeyLabel:
    """One message and the hashes of the sentence(s) that carry its point."""

    source: str
    id: int
    key: tuple[str, ...]
    """The sentence a quote must hold (usually one)."""
    count: int
    """How many sentences the message had when it was labelled."""

    def row(self) -> dict[str, Any]:
        """The label as one JSON object of the labels file."""
        return {"source": self.source, "id": self.id, "key": list(self.key), "n": self.count}


def problems(row: dict[str, Any]) -> list[str]:
    """What is wrong with one row of the labels file (nothing: ``[]``)."""
    found = []
    if set(row) != {"source", "id", "key", "n"}:
        found.append(f"fields {sorted(row)} are not source, id, key, n")
    if row.get("source") not in BY_KEY and row.get("source") not in DEV_SETS:
        found.append(f"unknown source {row.get('source')!r}")
    key = row.get("key")
    if not isinstance(key, list) or not key or not all(isinstance(k, str) for k in key):
        found.append("key is not a non-empty list of hashes")
    elif not all(len(k) == 12 and all(c in "0123456789abcdef" for c in k) for k in key):
        found.append("a key is not a 12-digit hash")
    if not isinstance(row.get("id"), int) or not isinstance(row.get("n"), int):
        found.append("id and n must be integers")
    return found


def read_labels(path: Path | str = KEYS_FILE) -> list[KeyLabel]:
    """Every label of the file (``[]`` when it is missing).

    Raises:
        ValueError: a row with problems (named, with its line number).
    """
    path = Path(path)
    if not path.is_file():
        return []
    labels = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        row = json.loads(line)
        wrong = problems(row)
        if wrong:
            raise ValueError(f"{path.name}:{number}: {'; '.join(wrong)}")
        labels.append(KeyLabel(row["source"], row["id"], tuple(row["key"]), row["n"]))
    return labels
