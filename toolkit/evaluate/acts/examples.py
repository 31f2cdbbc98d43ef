"""Labelled examples for the act scorers: one feature row per message of a labelled window.

Sources (a source is what leave-one-source-out holds out): each real chat of
``data/real_acts*.jsonl`` (read from the local cache; left out with one line when it is
absent), the hand-written windows of ``data/digest_windows.jsonl`` (one source,
``windows``) and the dev cases of ``digest_acts.jsonl`` (one source, ``cases``: only
each case's target is labelled). A message of a labelled window that no act's list
names is a negative for that act; an ``acceptable`` one is neither.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, timedelta, tzinfo
from pathlib import Path

import numpy as np
import numpy.typing as npt

from toolkit.errors import InvalidRequest
from toolkit.evaluate.corpus.labels import ACTS, LABELS_FILE, LabelledWindow, load_labels
from toolkit.evaluate.corpus.sources import BY_KEY
from toolkit.evaluate.corpus.store import CorpusMissing, source_timezone, window_messages
from toolkit.evaluate.digests.calibration import Case
from toolkit.evaluate.digests.windows import Window
from toolkit.models import Message, SectionKind, SourceKind
from toolkit.summarize.context import SummaryContext, message_text
from toolkit.summarize.extractive.choose.scoring.features import Rows, features
from toolkit.summarize.extractive.choose.scoring.model import SCORED, candidates
from toolkit.summarize.extractive.draft.lexical import lexical_vectors
from toolkit.summarize.extractive.engine import read_messages
from toolkit.timeparse import zone_of

LABEL_NAMES = dict(zip(SCORED, ACTS, strict=False))
"""The label file's name of each scored act."""
UNKNOWN = -1
"""Neither a positive nor a negative (an acceptable id, an unlabelled message of a case)."""

Labels = npt.NDArray[np.int8]


@dataclass(frozen=True)
class Example:
    """One labelled window as feature rows: labels (1, 0, ``UNKNOWN``) and candidates per act."""

    source: str
    name: str
    rows: Rows
    labels: Mapping[SectionKind, Labels]
    candidates: Mapping[SectionKind, npt.NDArray[np.bool_]]

    def count(self, kind: SectionKind, value: int) -> int:
        """How many messages have label ``value`` for ``kind``."""
        return int((self.labels[kind] == value).sum())


def _example(
    source: str,
    name: str,
    messages: Sequence[Message],
    ctx: SummaryContext,
    positives: Mapping[SectionKind, Iterable[int]],
    unknown: Mapping[SectionKind, Iterable[int]] | None = None,
    *,
    default: int = 0,
) -> Example:
    draft, seq = read_messages(messages, lexical_vectors([m.text for m in messages]), ctx)
    rows = features(draft, seq)
    ids = [m.messenger_message_id for m in messages]
    labels, chosen = {}, {}
    for kind in SCORED:
        yes = set(positives.get(kind, ()))
        skip = set((unknown or {}).get(kind, ())) - yes
        labels[kind] = np.array(
            [1 if i in yes else UNKNOWN if i in skip else default for i in ids], dtype=np.int8
        )
        chosen[kind] = candidates(kind, rows, seq)
    return Example(source, name, rows, labels, chosen)


def _context(
    messages: Sequence[Message], kind: SourceKind, language: str, zone: tzinfo, **more: object
) -> SummaryContext:
    start, end = messages[0].posted_at, messages[-1].posted_at + timedelta(minutes=1)
    return SummaryContext("period", kind, "", language, start, end, timezone=zone, **more)  # type: ignore[arg-type]


def label_files(folder: Path = LABELS_FILE.parent) -> list[Path]:
    """Every ``real_acts*.jsonl`` of the data folder, in name order."""
    return sorted(folder.glob("real_acts*.jsonl"))


def _zone(key: str) -> tzinfo:
    try:
        return zone_of(source_timezone(key))
    except InvalidRequest:  # a zone this machine does not know: the store's UTC
        return UTC


def real_examples(files: Sequence[Path] | None = None) -> Iterator[Example]:
    """The labelled real-chat windows (raises ``CorpusMissing`` when the cache is absent)."""
    windows: list[LabelledWindow] = []
    for path in files if files is not None else label_files():
        windows += load_labels(path)
    for lw in windows:
        source = BY_KEY[lw.window.source]
        messages = [
            m for m in window_messages(lw.window) if not m.is_service and message_text(m).strip()
        ]
        kind = SourceKind.CHANNEL if source.kind == "channel" else SourceKind.CHAT
        ctx = _context(messages, kind, source.language.split("+")[0], _zone(source.key))
        positives = {kind: lw.acts[name] for kind, name in LABEL_NAMES.items()}
        yield _example(source.key, lw.id, messages, ctx, positives)


def window_examples(windows: Sequence[Window]) -> Iterator[Example]:
    """The hand-written windows (one source, ``windows``)."""
    for w in windows:
        ctx = _context(w.messages, w.kind, w.language, w.zone, topics=w.topics)
        positives = {kind: w.labels.required(kind) for kind in SCORED}
        unknown = {kind: w.labels.acceptable.get(kind, frozenset()) for kind in SCORED}
        yield _example("windows", w.id, w.messages, ctx, positives, unknown)


def case_examples(cases: Sequence[Case]) -> Iterator[Example]:
    """The dev cases (one source, ``cases``): only each case's target is labelled."""
    by_name = {name: kind for kind, name in LABEL_NAMES.items()}
    for case in cases:
        kind = by_name.get(case.act)
        if kind is None:
            continue  # agreements and reported speech are no act a scorer names
        ctx = _context(case.messages, case.kind, case.language, case.zone)
        target = int(case.target)
        ex = _example("cases", case.id, case.messages, ctx, {}, default=UNKNOWN)
        ids = [m.messenger_message_id for m in case.messages]
        ex.labels[kind][ids.index(target)] = int(case.truth)
        yield ex


def all_examples(
    windows: Sequence[Window], cases: Sequence[Case], *, real: bool = True
) -> tuple[list[Example], str | None]:
    """Every example, and the line saying the real corpus was skipped (``None`` when read)."""
    out = [*window_examples(windows), *case_examples(cases)]
    if not real:
        return out, "real corpus: not used"
    try:
        return [*real_examples(), *out], None
    except CorpusMissing:
        return out, "real corpus not cached: skipped"
