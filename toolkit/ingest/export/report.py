"""What an export import did: per source, what changed, what was skipped and why.

``ImportReport.line()`` is the one line the CLI and the app print after an import:
what was stored, what was skipped and why, and how dates without ``date_unixtime``
were read. Every import ends with a count: the message blocks (HTML) or records (JSON)
the export holds = stored + skipped, each skip with its reason; a source where they
differ, or with blocks that could not be read, is a warning (``ImportReport.warnings``),
and ``mlens import --strict`` exits non-zero on one.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import reduce
from pathlib import Path
from typing import Any

from toolkit.models import Source, UpsertResult

SKIP_UNSUPPORTED = "unsupported entry"
SKIP_DUPLICATE = "duplicate id"
SKIP_DATE = "impossible date"
SKIP_SEPARATOR = "date separator"
"""An HTML export's day heading (a service block with a negative id): never stored."""
SKIP_UNREAD = "unreadable block"
"""An HTML message block the parser could not give, or with no id or date: named."""
_WARNED = (SKIP_UNREAD,)


@dataclass(frozen=True, slots=True)
class ImportedSource:
    """One source an import touched: what changed, what was skipped (by reason), notes."""

    source: Source
    result: UpsertResult
    skipped_by_reason: dict[str, int] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    seen: int | None = None
    """Message blocks (HTML) or records (JSON) of the chat in the export (``None``: not
    counted)."""
    unit: str = "record"
    lost: tuple[str, ...] = ()
    """What else of the chat the export lacks (a page missing from its set)."""

    @property
    def skipped(self) -> int:
        """How many entries of the chat were not stored."""
        return sum(self.skipped_by_reason.values())

    @property
    def stored(self) -> int:
        """The chat's messages in the store after the import: new, updated, unchanged."""
        r = self.result
        return r.inserted + r.updated + r.unchanged

    @property
    def unaccounted(self) -> int:
        """Entries seen but neither stored nor skipped (negative: more than were seen)."""
        return 0 if self.seen is None else self.seen - self.stored - self.skipped

    def warnings(self) -> list[str]:
        """Lines on what of the chat may be lost: a count that does not add up, blocks
        that could not be read."""
        out = []
        if self.unaccounted:
            out.append(
                f"warning: {self.source.key}: {_plural(self.seen or 0, self.unit)} in the "
                f"export, {self.stored} stored + {self.skipped} skipped: "
                f"{abs(self.unaccounted)} {'unaccounted' if self.unaccounted > 0 else 'too many'}"
            )
        for reason in _WARNED:
            if self.skipped_by_reason.get(reason):
                out.append(
                    f"warning: {self.source.key}: {_plural(self.skipped_by_reason[reason], reason)}"
                    " not stored (named above)"
                )
        out.extend(f"warning: {self.source.key}: {lost}" for lost in self.lost)
        return out


def _plural(count: int, noun: str) -> str:
    if count == 1:
        return f"{count} {noun}"
    return f"{count} {noun[:-1]}ies" if noun.endswith("y") else f"{count} {noun}s"


@dataclass(frozen=True, slots=True)
class ImportReport:
    """What an import did, per source in the order the export lists them, and notes
    that concern the whole file (how lone dates were read)."""

    path: Path
    sources: tuple[ImportedSource, ...]
    notes: tuple[str, ...] = ()
    lost: tuple[str, ...] = ()
    """What of the export belongs to no source and was not read (a chat folder that is a
    symbolic link): warnings."""

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

    def record(self) -> dict[str, Any]:
        """The report as one JSON-ready document (``mlens import --json``): per source its
        counts (seen = stored + skipped, by reason), notes and warnings."""
        return {
            "file": self.path.name,
            "count": self.count_line(),
            "sources": [
                {
                    "ref": s.source.key,
                    "title": s.source.title,
                    "kind": s.source.kind.value,
                    "unit": s.unit,
                    "seen": s.seen,
                    "stored": s.stored,
                    "inserted": s.result.inserted,
                    "updated": s.result.updated,
                    "unchanged": s.result.unchanged,
                    "skipped": s.skipped,
                    "skipped_by_reason": dict(sorted(s.skipped_by_reason.items())),
                    "unaccounted": s.unaccounted,
                    "notes": list(s.notes),
                    "warnings": s.warnings(),
                }
                for s in self.sources
            ],
            "notes": list(self.notes),
            "warnings": self.warnings(),
        }

    def warnings(self) -> list[str]:
        """Every source's warnings (empty: every entry of the export is accounted for)."""
        return [w for s in self.sources for w in s.warnings()] + [
            f"warning: {self.path.name}: {lost}" for lost in self.lost
        ]

    def count_line(self) -> str:
        """``14,625 blocks = 14,413 stored + 212 skipped``, over every source."""
        counted = [s for s in self.sources if s.seen is not None]
        units = {s.unit for s in counted}
        unit = units.pop() if len(units) == 1 else "entry"
        seen = sum(s.seen or 0 for s in counted)
        stored = sum(s.stored for s in counted)
        skipped = sum(s.skipped for s in counted)
        return f"{_plural(seen, unit)} = {stored} stored + {skipped} skipped"

    def line(self) -> str:
        """One line: ``3 chats: 120 new, 0 updated, 4 unchanged; 126 records = 124 stored +
        2 skipped; skipped 2 (…); …`` (the warnings are apart: ``warnings()``)."""
        t = self.total
        parts = [
            f"{self.path.name}: {_plural(len(self.sources), 'chat')}: {t.inserted} new, "
            f"{t.updated} updated, {t.unchanged} unchanged"
        ]
        if self.sources:
            parts.append(self.count_line())
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
