"""The labelled retrieval files (``../shared/data/eval/dev/retrieval_*.jsonl``) and their vectors.

Each line is one query with its candidate pool; the pool plays the part of a source's
scan window, so every method ranks exactly the messages a search would score.

Vectors of the pools and queries are cached under ``data/cache/`` in one ``.npz`` per
(model, file content) pair: the first run embeds every distinct text once (a few
minutes on two cores), later runs read them back in a fraction of a second.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from toolkit.embeddings import Embedder, Matrix
from toolkit.store.files import private_dir

DEV_DIR = Path(__file__).resolve().parents[3] / "shared" / "data" / "eval" / "dev"
"""The dev files, beside the repository (``../shared/data/eval/dev``)."""

DEV_FILES = ("ru_xquad", "en_xquad", "ru_stsb", "en_stsb")
"""The four retrieval dev sets, in the order tables show them."""

CROSS_SETS: dict[str, tuple[str, str]] = {
    "en-ru_xquad": ("en_xquad", "ru_xquad"),
    "ru-en_xquad": ("ru_xquad", "en_xquad"),
}
"""The cross-language sets: name → (file of the questions, file of the candidates).

XQuAD is parallel: the 100 questions of the English file exist in the Russian one
under the same ids, and a paragraph has the same id in both languages. So each
language's questions are asked over the other language's candidate pool, with the
same labels (``en-ru_xquad``: English questions, Russian paragraphs)."""


@dataclass(frozen=True, slots=True)
class RetrievalQuery:
    """One labelled query: its text, its candidate pool and the relevant candidates."""

    query_id: str
    query: str
    lang: str
    candidate_ids: tuple[str, ...]
    candidate_texts: tuple[str, ...]
    relevant: frozenset[str]


@dataclass(frozen=True, slots=True)
class RetrievalSet:
    """A loaded retrieval file with every query's vector and every candidate's vector."""

    name: str
    queries: list[RetrievalQuery]
    query_vectors: Matrix
    passage_vectors: dict[str, Matrix]

    def pool_vectors(self, query: RetrievalQuery) -> Matrix:
        """The vectors of one query's candidates, in pool order."""
        return np.vstack([self.passage_vectors[c] for c in query.candidate_ids])


def dev_path(name: str, dev_dir: Path = DEV_DIR) -> Path:
    """The path of a dev file by its short name (``ru_xquad`` …)."""
    return Path(dev_dir) / f"retrieval_{name}.jsonl"


def load_queries(path: Path | str, *, limit: int | None = None) -> list[RetrievalQuery]:
    """Read a retrieval file (see the dev README for its schema).

    Args:
        path: a ``retrieval_*.jsonl`` file.
        limit: read only the first ``limit`` queries.
    """
    queries: list[RetrievalQuery] = []
    with Path(path).open(encoding="utf-8") as lines:
        for line in lines:
            if not line.strip():
                continue
            row = json.loads(line)
            candidates = row["candidates"]
            queries.append(
                RetrievalQuery(
                    query_id=row["query_id"],
                    query=row["query"],
                    lang=row.get("lang", ""),
                    candidate_ids=tuple(c["id"] for c in candidates),
                    candidate_texts=tuple(c["text"] for c in candidates),
                    relevant=frozenset(row["relevant"]),
                )
            )
            if limit is not None and len(queries) >= limit:
                break
    return queries


def cache_file(cache_dir: Path, model: str, path: Path, limit: int | None) -> Path:
    """The cache of one model's vectors of a dev file (or its first ``limit`` queries)."""
    digest = hashlib.sha256(Path(path).read_bytes())
    digest.update(f"\0{model}\0{limit}".encode())
    slug = "".join(ch if ch.isalnum() else "-" for ch in model)[:48]
    return Path(cache_dir) / f"eval-{Path(path).stem}-{slug}-{digest.hexdigest()[:16]}.npz"


def _embed(embedder: Embedder, texts: Sequence[str], kind: str, batch: int = 64) -> Matrix:
    from tqdm.auto import tqdm

    embed = embedder.embed_queries if kind == "query" else embedder.embed_passages
    name = "queries" if kind == "query" else "passages"
    parts = []
    with tqdm(total=len(texts), desc=f"embedding {name}", unit="text") as bar:
        for start in range(0, len(texts), batch):
            parts.append(embed(list(texts[start : start + batch])))
            bar.update(len(parts[-1]))
    return np.vstack(parts) if parts else np.zeros((0, embedder.dimension), dtype=np.float32)


def load_set(
    name: str,
    embedder: Embedder,
    *,
    dev_dir: Path = DEV_DIR,
    cache_dir: Path = Path("data/cache"),
    limit: int | None = None,
) -> RetrievalSet:
    """Load a dev set with its vectors, embedding (and caching) them on first use.

    A cross-language set of ``CROSS_SETS`` is built from its two files (``cross_set``):
    the questions' file subsampled by ``limit``, the candidates' file whole.

    Args:
        name: the file's short name (``ru_xquad``, ``en_xquad``, ``ru_stsb``, ``en_stsb``),
            or a cross-language set's (``en-ru_xquad``, ``ru-en_xquad``).
        embedder: the model whose vectors to use.
        dev_dir: where the files are.
        cache_dir: where vectors are cached (one ``.npz`` per model and file content).
        limit: only the first ``limit`` queries (quick runs, tests); their vectors come
            from the whole file's cache when there is one.
    """
    if name in CROSS_SETS:
        asked, searched = CROSS_SETS[name]
        questions = load_set(asked, embedder, dev_dir=dev_dir, cache_dir=cache_dir, limit=limit)
        candidates = load_set(searched, embedder, dev_dir=dev_dir, cache_dir=cache_dir)
        return cross_set(name, questions, candidates)
    path = dev_path(name, dev_dir)
    queries = load_queries(path, limit=limit)
    texts: dict[str, str] = {}
    for q in queries:
        texts.update(zip(q.candidate_ids, q.candidate_texts, strict=True))
    ids = sorted(texts)
    # A subsample reads the whole file's vectors when they are cached already.
    cache = cache_file(cache_dir, embedder.model_name, path, None)
    if limit is not None and not cache.exists():
        cache = cache_file(cache_dir, embedder.model_name, path, limit)
    if cache.exists():
        stored = np.load(cache, allow_pickle=False)
        passages, query_vectors = stored["passages"], stored["queries"][: len(queries)]
        ids = [str(i) for i in stored["ids"]]
    else:
        passages = _embed(embedder, [texts[i] for i in ids], "passage")
        query_vectors = _embed(embedder, [q.query for q in queries], "query")
        private_dir(cache.parent)
        np.savez(cache, ids=np.array(ids), passages=passages, queries=query_vectors)
    return RetrievalSet(
        name=name,
        queries=queries,
        query_vectors=query_vectors.astype(np.float32, copy=False),
        passage_vectors={i: passages[row] for row, i in enumerate(ids)},
    )


def cross_set(name: str, questions: RetrievalSet, candidates: RetrievalSet) -> RetrievalSet:
    """Ask the questions of one language over the pools of the other (``CROSS_SETS``).

    A question is kept when the candidates' file has the same ``query_id``; it takes
    that line's pool and labels, and keeps its own text and vector. No text is
    embedded: both files' vectors are already loaded.

    Args:
        name: the cross set's name (``en-ru_xquad``).
        questions: the set whose questions are asked.
        candidates: the set whose pools and labels are searched.
    """
    by_id = {q.query_id: q for q in candidates.queries}
    rows, queries = [], []
    for row, query in enumerate(questions.queries):
        target = by_id.get(query.query_id)
        if target is None:
            continue
        rows.append(row)
        queries.append(
            RetrievalQuery(
                query_id=query.query_id,
                query=query.query,
                lang=f"{query.lang}-{target.lang}",
                candidate_ids=target.candidate_ids,
                candidate_texts=target.candidate_texts,
                relevant=target.relevant,
            )
        )
    return RetrievalSet(
        name=name,
        queries=queries,
        query_vectors=questions.query_vectors[rows],
        passage_vectors=candidates.passage_vectors,
    )


__all__ = [
    "CROSS_SETS",
    "DEV_DIR",
    "DEV_FILES",
    "RetrievalQuery",
    "RetrievalSet",
    "cache_file",
    "cross_set",
    "dev_path",
    "load_queries",
    "load_set",
]
