"""Do a digest's sections say true things? The labelled windows and the calibration cases.

Every window of ``digest_windows`` is summarised by the extractive engine as a period
summary of the whole window (the store's view: times in UTC, the window's zone given to
the engine where it takes one), in the window's language and across languages (``CROSS``:
English asked in Russian, Russian and Ukrainian asked in English); ``digest_score`` scores
each digest. ``rows`` gives the table ``make eval`` prints and publishes: precision and
recall of open questions, decisions and plans, the share of digests with no false item,
key-fact recall and the counts that must be 0. The calibration cases
(``digest_calibration``) are run beside them.

    python -m toolkit.evaluate.digests.main               # the table, then every false item
    python -m toolkit.evaluate.digests.main --missed      # … and every labelled act missed
    python -m toolkit.evaluate.digests.main --window trip-tokyo-en --show

It takes a few seconds once the windows' vectors are cached (``data/cache/``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from toolkit.embeddings import Embedder, Matrix
from toolkit.evaluate.digests.calibration import Case, CaseResult, claims
from toolkit.evaluate.digests.score import Item, Output, WindowScore, score_output
from toolkit.evaluate.digests.windows import SCORED, Window
from toolkit.evaluate.summaries import Dialogue, dialogue_vectors
from toolkit.lang import pack
from toolkit.models import Message, SectionKind, SourceKind, Summary
from toolkit.summarize.context import SummaryContext
from toolkit.summarize.extractive.engine import summarize_extractive

CROSS = {"en": "ru", "ru": "en", "uk": "en"}
"""The language each window's language is asked in across languages."""
SHORT = {
    SectionKind.OPEN_QUESTIONS: "open",
    SectionKind.DECISIONS: "decisions",
    SectionKind.PLANS: "plans",
}
"""The column prefix of each scored section."""
ZERO = ("e-mails", "phones", "asks Y … Y")
"""The columns that must be 0."""


@dataclass(frozen=True, slots=True)
class Digest:
    """One digest of one window: the language asked, the summary, its score."""

    window: Window
    asked: str
    summary: Summary
    score: WindowScore


@dataclass(frozen=True, slots=True)
class Measured:
    """The labelled set's digests and the calibration cases' results."""

    digests: list[Digest]
    cases: list[CaseResult]


def _context(
    messages: Sequence[Message], kind: SourceKind, title: str, language: str, **more: Any
) -> SummaryContext:
    """A period summary of all ``messages``; ``timezone`` only where the engine takes one."""
    known = {f.name for f in fields(SummaryContext)}
    extra = {k: v for k, v in more.items() if k in known}
    return SummaryContext(
        "period", kind, title, language,
        messages[0].posted_at, messages[-1].posted_at + timedelta(minutes=1), **extra,
    )  # fmt: skip


def summarize_window(window: Window, vectors: Matrix, language: str) -> Summary:
    """The extractive engine's digest of the whole window, written in ``language``."""
    ctx = _context(
        window.messages, window.kind, window.title, language,
        topics=window.topics, timezone=window.zone,
    )  # fmt: skip
    return summarize_extractive(
        list(window.messages), vectors, ctx, source_ref=window.id, link=lambda _: ""
    )


def output_of(summary: Summary) -> Output:
    """A summary's section items (ids as numbers) and all its text."""
    items = tuple(
        Item(section.kind, tuple(int(i) for i in item.messenger_message_ids), item.text)
        for section in summary.sections
        for item in section.items
    )
    parts = [summary.summary, *(f"{s.title}\n{s.body}" for s in summary.sections)]
    bodies = "\n".join(parts)
    # Items are the bodies' lines; one a body does not show still counts as written.
    return Output(items, "\n".join([bodies, *(i.text for i in items if i.text not in bodies)]))


def _day_writer(language: str) -> Callable[[date], str]:
    book = pack(language)
    return lambda d: book.day(datetime(d.year, d.month, d.day, 12))


def _vectors(
    groups: Sequence[Sequence[Message]], embedder: Embedder, cache_dir: Path | None
) -> list[Matrix]:
    dialogues = [Dialogue(str(n), "", list(m), []) for n, m in enumerate(groups)]
    every = dialogue_vectors(dialogues, embedder, cache_dir=cache_dir)
    out, start = [], 0
    for messages in groups:
        out.append(every[start : start + len(messages)])
        start += len(messages)
    return out


def digest_windows(
    windows: Sequence[Window],
    embedder: Embedder,
    *,
    cache_dir: Path | None = None,
    cross: bool = True,
) -> list[Digest]:
    """Every window summarised and scored in its language, then (``cross``) across languages."""
    vectors = _vectors([w.messages for w in windows], embedder, cache_dir)
    asks = [False, True] if cross else [False]
    out = []
    for across in asks:
        for window, matrix in zip(windows, vectors, strict=True):
            asked = CROSS[window.language] if across else window.language
            summary = summarize_window(window, matrix, asked)
            score = score_output(
                window, output_of(summary), asked=asked, render_day=_day_writer(asked)
            )
            out.append(Digest(window, asked, summary, score))
    return out


def run_cases(
    cases: Sequence[Case], embedder: Embedder, *, cache_dir: Path | None = None
) -> list[CaseResult]:
    """Every calibration case summarised in its language and checked (``claims``)."""
    vectors = _vectors([c.messages for c in cases], embedder, cache_dir)
    out = []
    for case, matrix in zip(cases, vectors, strict=True):
        ctx = _context(case.messages, case.kind, case.id, case.language, timezone=case.zone)
        summary = summarize_extractive(
            list(case.messages), matrix, ctx, source_ref=case.id, link=lambda _: ""
        )
        claimed = claims(case, summary, pack(case.language))
        out.append(CaseResult(case, claimed, output_of(summary).text))
    return out


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def _row(scope: str, scores: Sequence[WindowScore]) -> dict[str, Any]:
    row: dict[str, Any] = {"scope": scope, "windows": len(scores)}
    for kind in SCORED:
        parts = [s.sections[kind] for s in scores]
        true, false = sum(p.true for p in parts), sum(len(p.false) for p in parts)
        found, required = sum(p.found for p in parts), sum(p.required for p in parts)
        short = SHORT[kind]
        row |= {f"{short} P": _ratio(true, true + false), f"{short} n": true + false}
        row[f"{short} R"] = _ratio(found, required)
    row["no false item"] = _ratio(sum(s.clean for s in scores), len(scores))
    row["key facts"] = _ratio(
        sum(s.facts_found for s in scores), sum(s.facts_total for s in scores)
    )
    row["e-mails"] = sum(len(s.emails) for s in scores)
    row["phones"] = sum(len(s.phones) for s in scores)
    row["asks Y … Y"] = sum(len(s.repeated_addressee) for s in scores)
    row["wrong dates"] = sum(len(s.dates_wrong) for s in scores)
    return row


def rows(digests: Iterable[Digest]) -> list[dict[str, Any]]:
    """The table: all same-language digests, then each language; the same across languages."""
    scores = [d.score for d in digests]
    out = []
    for same, label in ((True, "same language"), (False, "across languages")):
        mine = [s for s in scores if s.same_language == same]
        if not mine:
            continue
        out.append(_row(label, mine))
        for language in dict.fromkeys(s.language for s in mine):
            these = [s for s in mine if s.language == language]
            name = language if same else f"{language} → {these[0].asked}"
            out.append(_row(f"  {name}", these))
    return out


COLUMNS = [
    "scope", "windows",
    *(f"{SHORT[k]} {m}" for k in SCORED for m in ("P", "n", "R")),
    "no false item", "key facts", *ZERO, "wrong dates",
]  # fmt: skip
"""The table's columns, in order."""


def false_items(digests: Iterable[Digest]) -> list[dict[str, Any]]:
    """Every false item: window, the language asked, section, ids, text."""
    return [
        {"window": d.window.id, "asked": d.asked, "section": SHORT[kind],
         "ids": list(item.ids), "text": item.text}
        for d in digests
        for kind in SCORED
        for item in d.score.sections[kind].false
    ]  # fmt: skip


def measure(
    windows: Sequence[Window],
    embedder: Embedder,
    *,
    cases: Sequence[Case] = (),
    cache_dir: Path | None = None,
    cross: bool = True,
) -> Measured:
    """The labelled windows' digests (same- and cross-language) and the calibration cases."""
    digests = digest_windows(windows, embedder, cache_dir=cache_dir, cross=cross)
    return Measured(digests, run_cases(cases, embedder, cache_dir=cache_dir) if cases else [])


__all__ = [
    "COLUMNS",
    "CROSS",
    "SHORT",
    "ZERO",
    "Digest",
    "Measured",
    "false_items",
    "measure",
    "output_of",
    "rows",
    "run_cases",
    "summarize_window",
]
