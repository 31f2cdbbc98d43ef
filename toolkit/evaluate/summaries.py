"""ROUGE of the ``summary`` field on the dev dialogues, beside baselines run alongside.

Each dialogue becomes a chat whose turns are messages (one minute apart, the speaker
as author). The extractive engine writes a period summary of it; its ``summary`` field
is what is scored (the LLM engine joins when an endpoint is configured). Baselines in
the same run, as the field reports them: the first three messages (lead-3), the three
longest (longest-3), and LexRank and TextRank (``sumy``) picking two; a baseline
renders a message as ``author: text``.

ROUGE is ``rouge-score``'s, as the field computes it for English: ``use_stemmer=True``,
F1, the best over a dialogue's references. For Russian (whose letters ``rouge-score``'s
default tokenizer drops) our own tokenizer is used: lower-cased ``\\w+`` words,
Snowball-stemmed by script. Each difference to a baseline gets a paired bootstrap
interval (``bootstrap``). sumy gets pre-split messages and our word splitter, so it
never asks for nltk's punkt data.
"""

from __future__ import annotations

import hashlib
import json
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from toolkit.config import Settings
from toolkit.embeddings import Embedder, Matrix
from toolkit.evaluate.results import ROUGE_TYPES
from toolkit.evaluate.retrieval import DEV_DIR
from toolkit.models import Message, SourceKind
from toolkit.store.files import private_dir
from toolkit.summarize.context import SummaryContext
from toolkit.summarize.extractive.draft.tokens import words
from toolkit.summarize.extractive.engine import summarize_extractive
from toolkit.text import STOP_WORDS, stem

# rouge_score and sumy (with nltk under it) load where a score or a baseline is computed.
if TYPE_CHECKING:
    from rouge_score.rouge_scorer import RougeScorer

DEV_FILE = DEV_DIR / "summaries_en_dialogsum.jsonl"
"""The DialogSum dev sample (100 dialogues)."""
DEV_FILES = {
    "dialogsum": DEV_FILE,
    "samsum": DEV_DIR / "summaries_en_samsum.jsonl",
}
"""Every summary dev file by its short name (SAMSum: messenger-style chats)."""
ENGINE_SYSTEM = "extractive"
"""The row of the extractive engine's ``summary`` field."""
_START = datetime(2024, 1, 1, 9, 0, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class Dialogue:
    """One dialogue of the set: turns as messages and the reference summaries."""

    id: str
    language: str
    messages: list[Message]
    references: list[str]


def load_dialogues(path: Path | str, *, limit: int | None = None) -> list[Dialogue]:
    """Read a ``summaries_*.jsonl`` file (schema in its README) into dialogues."""
    out: list[Dialogue] = []
    with Path(path).open(encoding="utf-8") as lines:
        for line in lines:
            if not line.strip():
                continue
            row = json.loads(line)
            messages = [
                Message(
                    source_id=0,
                    messenger_message_id=i,
                    posted_at=_START + timedelta(minutes=i),
                    text=turn["text"],
                    sender_peer_id=turn["speaker"],
                    sender_name=turn["speaker"],
                )
                for i, turn in enumerate(row["dialogue"], 1)
            ]
            refs = row.get("references") or [row["reference"]]
            out.append(Dialogue(row["id"], row.get("lang", "en"), messages, list(refs)))
            if limit is not None and len(out) >= limit:
                break
    return out


class RougeTokenizer:
    """Lower-cased ``\\w+`` tokens, Snowball-stemmed (Russian for Cyrillic, else English)."""

    def tokenize(self, text: str) -> list[str]:
        """The tokens of ``text``; Cyrillic is kept."""
        return [stem(t) for t in "".join(c if c.isalnum() else " " for c in text.lower()).split()]


class _SumyWords:
    """sumy's tokenizer interface over our splitter: no nltk data needed."""

    def to_sentences(self, paragraph: str) -> tuple[str, ...]:
        return (paragraph,)

    def to_words(self, sentence: str) -> tuple[str, ...]:
        return tuple(words(sentence))


def _line(message: Message) -> str:
    return f"{message.sender_name}: {message.text}"


def first_k(messages: Sequence[Message], k: int) -> str:
    """Baseline: the first ``k`` messages."""
    return " ".join(_line(m) for m in messages[:k])


def sumy_pick(messages: Sequence[Message], k: int, algorithm: str) -> str:
    """Baseline: ``k`` messages picked by sumy's ``lexrank`` or ``textrank``, in order."""
    from sumy.models.dom import ObjectDocumentModel, Paragraph, Sentence
    from sumy.summarizers.lex_rank import LexRankSummarizer
    from sumy.summarizers.text_rank import TextRankSummarizer

    tokenizer = _SumyWords()
    document = ObjectDocumentModel([Paragraph([Sentence(_line(m), tokenizer) for m in messages])])
    summarizer = (LexRankSummarizer if algorithm == "lexrank" else TextRankSummarizer)(stem)
    summarizer.stop_words = STOP_WORDS
    # sumy's power iteration divides by a zero norm on tiny graphs; its answer is still
    # a valid ranking, so the warning is noise.
    with np.errstate(divide="ignore", invalid="ignore"):
        return " ".join(str(s) for s in summarizer(document, k))


def longest_k(messages: Sequence[Message], k: int) -> str:
    """Baseline: the ``k`` longest messages, in posting order."""
    longest = sorted(range(len(messages)), key=lambda i: (-len(messages[i].text), i))[:k]
    return " ".join(_line(messages[i]) for i in sorted(longest))


BASELINES: dict[tuple[str, str], Callable[[Sequence[Message]], str]] = {
    ("lead", "3"): lambda m: first_k(m, 3),
    ("longest", "3"): lambda m: longest_k(m, 3),
    ("lexrank", "2"): lambda m: sumy_pick(m, 2, "lexrank"),
    ("textrank", "2"): lambda m: sumy_pick(m, 2, "textrank"),
}
"""The baselines, by (system, k): what they pick from a dialogue's messages."""


@lru_cache(maxsize=2)
def _scorer(language: str) -> RougeScorer:
    from rouge_score import rouge_scorer

    if language == "en":
        return rouge_scorer.RougeScorer(list(ROUGE_TYPES), use_stemmer=True)
    return rouge_scorer.RougeScorer(list(ROUGE_TYPES), tokenizer=RougeTokenizer())


def rouge_scores(
    references: Sequence[str], prediction: str, language: str = "en"
) -> dict[str, float]:
    """ROUGE-1/2/L F1 of one prediction against its best-matching reference.

    English uses ``rouge-score``'s own tokenizer with its Porter stemmer; other
    languages ``RougeTokenizer``.
    """
    scores = _scorer(language).score_multi(list(references), prediction)
    return {name: float(scores[name].fmeasure) for name in ROUGE_TYPES}


def _mean_row(system: str, k: str, scores: Iterable[dict[str, float]]) -> dict[str, Any]:
    rows = list(scores)
    out: dict[str, Any] = {"system": system, "k": k, "n": len(rows)}
    for name in ROUGE_TYPES:
        out[name] = round(statistics.fmean(r[name] for r in rows), 4) if rows else float("nan")
    return out


def extractive_summary(dialogue: Dialogue, vectors: np.ndarray[Any, Any]) -> str:
    """The extractive engine's summary of one dev dialogue: a chat period covering every turn."""
    ctx = SummaryContext(
        family="period",
        kind=SourceKind.CHAT,
        title=dialogue.id,
        language=dialogue.language,
        started_at=dialogue.messages[0].posted_at,
        ended_at=dialogue.messages[-1].posted_at + timedelta(minutes=1),
    )
    return summarize_extractive(
        dialogue.messages, vectors, ctx, source_ref=dialogue.id, link=lambda i: ""
    ).summary


def dialogue_vectors(
    dialogues: Sequence[Dialogue], embedder: Embedder, *, cache_dir: Path | None = None
) -> Matrix:
    """Every turn's vector, in order; cached per (model, texts) under ``cache_dir``."""
    texts = [m.text for d in dialogues for m in d.messages]
    cache = None
    if cache_dir is not None:
        digest = hashlib.sha256("\0".join([embedder.model_name, *texts]).encode()).hexdigest()
        cache = Path(cache_dir) / f"eval-summaries-{digest[:16]}.npy"
        if cache.exists():
            cached: Matrix = np.load(cache, allow_pickle=False)
            return cached
    from tqdm.auto import tqdm

    parts = [
        embedder.embed_passages(texts[i : i + 64])
        for i in tqdm(range(0, len(texts), 64), desc="embedding turns", unit="batch")
    ]
    vectors = np.vstack(parts) if parts else np.zeros((0, embedder.dimension), np.float32)
    if cache is not None:
        private_dir(cache.parent)
        np.save(cache, vectors, allow_pickle=False)
    return vectors.astype(np.float32, copy=False)


def score_dialogues(
    dialogues: Sequence[Dialogue],
    embedder: Embedder,
    *,
    settings: Settings | None = None,
    cache_dir: Path | None = None,
    progress: Callable[[Iterable[Any]], Iterable[Any]] = lambda it: it,
) -> dict[tuple[str, str], list[dict[str, float]]]:
    """Every system's ROUGE F1 on every dialogue, by (system, k), dialogues in order.

    Args:
        dialogues: from ``load_dialogues``.
        embedder: the extractive engine's embedder.
        settings: when they configure an LLM endpoint, the LLM engine joins.
        cache_dir: where turn vectors are cached between runs (none: always embed).
        progress: wraps the dialogue loop (e.g. ``tqdm``).
    """
    all_vectors = dialogue_vectors(dialogues, embedder, cache_dir=cache_dir)
    systems: dict[tuple[str, str], list[dict[str, float]]] = {}
    llm = _llm_runner(settings)
    offset = 0
    for dialogue in progress(dialogues):
        vectors = all_vectors[offset : offset + len(dialogue.messages)]
        offset += len(dialogue.messages)
        refs, lang = dialogue.references, dialogue.language
        systems.setdefault((ENGINE_SYSTEM, "—"), []).append(
            rouge_scores(refs, extractive_summary(dialogue, vectors), lang)
        )
        if llm is not None:
            systems.setdefault(("llm", "—"), []).append(rouge_scores(refs, llm(dialogue), lang))
        for key, pick in BASELINES.items():
            systems.setdefault(key, []).append(rouge_scores(refs, pick(dialogue.messages), lang))
    return systems


def mean_rows(scores: dict[tuple[str, str], list[dict[str, float]]]) -> list[dict[str, Any]]:
    """One row per system: ``{"system", "k", "n", "rouge1", "rouge2", "rougeL"}``."""
    return [_mean_row(system, k, rows) for (system, k), rows in scores.items()]


def evaluate_summaries(
    dialogues: Sequence[Dialogue],
    embedder: Embedder,
    *,
    settings: Settings | None = None,
    cache_dir: Path | None = None,
    progress: Callable[[Iterable[Any]], Iterable[Any]] = lambda it: it,
) -> list[dict[str, Any]]:
    """Mean ROUGE F1 of every system on ``dialogues`` (``score_dialogues``, averaged).

    Returns:
        Rows ``{"system", "k", "n", "rouge1", "rouge2", "rougeL"}``, the engines first.
    """
    return mean_rows(
        score_dialogues(
            dialogues, embedder, settings=settings, cache_dir=cache_dir, progress=progress
        )
    )


def _llm_runner(settings: Settings | None) -> Callable[[Dialogue], str] | None:
    if settings is None or not settings.llm.configured:
        return None
    from toolkit.summarize.llm.engine import engine_for

    engine = engine_for(settings.llm)

    def run(dialogue: Dialogue) -> str:
        ctx = SummaryContext(
            "period",
            SourceKind.CHAT,
            dialogue.id,
            dialogue.language,
            dialogue.messages[0].posted_at,
            dialogue.messages[-1].posted_at + timedelta(minutes=1),
        )
        return engine.summarize(dialogue.messages, ctx).summary

    return run
