"""What an export import did: per source, what changed, what was skipped and why.

``ImportReport.line()`` is the one line the CLI and the app print after an import:
what was stored, what was skipped and why, and how dates without ``date_unixtime``
were read.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import reduce
from pathlib import Path

from toolkit.models import Source, UpsertResult

SKIP_UNSUPPORTED = "unsupported entry"
SKIP_DUPLICATE = "duplicate id"
SKIP_DATE = "impossible date"


@dataclass(frozen=True, slots=True)
class ImportedSource:
    """One source an import touched: what changed, what was skipped (by reason), notes."""

    source: Source
    result: UpsertResult
    skipped_by_reason: dict[str, int] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def skipped(self) -> int:
        """How many entries of the chat were not stored."""
        return sum(self.skipped_by_reason.values())


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


@dataclass(frozen=True, slots=True)
class ImportReport:
    """What an import did, per source in the order the export lists them, and notes
    that concern the whole file (how lone dates were read)."""

    path: Path
    sources: tuple[ImportedSource, ...]
    notes: tuple[str, ...] = ()

    @property
    def total(self) -> UpsertResult:
        """Inserted, updated and unchanged messages over every source."""
        return reduce(lambda a, b: a + b, (s.result for s in self.sources), UpsertResult())

    @property
    def skipped_by_reason(self) -> dict[str, int]:
        """Skipped entries over every source, by reason."""
        total: Counter[str] = Counter()
        for item in self.sources:
            total.update(item.skipped_by_reason)
        return dict(total)

    def line(self) -> str:
        """One line: ``3 chats: 120 new, 0 updated, 4 unchanged; skipped 2 (…); …``."""
        t = self.total
        parts = [
            f"{self.path.name}: {_plural(len(self.sources), 'chat')}: {t.inserted} new, "
            f"{t.updated} updated, {t.unchanged} unchanged"
        ]
        skipped = self.skipped_by_reason
        if skipped:
            reasons = ", ".join(f"{n} {reason}" for reason, n in sorted(skipped.items()))
            parts.append(f"skipped {sum(skipped.values())} ({reasons})")
        parts.extend(note for s in self.sources for note in s.notes)
        parts.extend(self.notes)
        return "; ".join(parts)


class SeenIds:
    """Message ids seen in one chat, to report duplicates, in little memory: a bitmap
    for the usual positive ids (one bit each, up to the largest), a set for the rest
    (the negative ids a migrated group keeps)."""

    _BITMAP_LIMIT = 1 << 28

    def __init__(self) -> None:
        self._bits = bytearray()
        self._other: set[int] = set()

    def add(self, message_id: int) -> bool:
        """Record an id; ``False`` when it was seen before."""
        if not 0 < message_id < self._BITMAP_LIMIT:
            if message_id in self._other:
                return False
            self._other.add(message_id)
            return True
        byte, bit = divmod(message_id, 8)
        if byte >= len(self._bits):
            self._bits.extend(bytes(max(byte + 1 - len(self._bits), len(self._bits))))
        if self._bits[byte] >> bit & 1:
            return False
        self._bits[byte] |= 1 << bit
        return True
