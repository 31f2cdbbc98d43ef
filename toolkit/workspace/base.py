"""What every part of the ``Workspace`` shares: settings, store, embedder, references."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Self

from toolkit.config import Settings
from toolkit.embeddings import Embedder
from toolkit.models import Source, SourceRef
from toolkit.refs import parse_ref, ref_topic
from toolkit.store import MessageStore, open_store
from toolkit.store.files import private_dir
from toolkit.weights import SearchWeights

if TYPE_CHECKING:
    from toolkit.evaluate.compare import PreparedQuery
    from toolkit.search.searcher import Searcher

Progress = Callable[[int, int], None]
"""``progress(done, total)`` while embedding; the app turns it into a progress bar."""
WeightsArg = SearchWeights | Mapping[str, float] | None
"""Per-call weights: a ``SearchWeights``, or a mapping of some fields (the rest from the
settings), or ``None`` for the settings' weights."""


class WorkspaceBase:
    """Settings, store and (loaded on first use) embedder of one data folder.

    Args:
        settings: the settings (their ``database_path`` names the store).
        store: an open store; by default the one ``settings`` name.
        embedder: an embedder to share (tests, the app); by default loaded on first use.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        store: MessageStore | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        self.settings = settings
        if store is None:
            if settings.database is None and settings.postgres_url is None:
                private_dir(settings.data_dir)  # 0700: the store holds private chats
            store = open_store(settings)
        self.store = store
        self._embedder = embedder
        self._searcher: Searcher | None = None
        self._prepared: dict[tuple[str, int | None], list[PreparedQuery]] = {}

    @classmethod
    def open(
        cls,
        data_dir: str | Path | None = None,
        *,
        settings: Settings | None = None,
        embedder: Embedder | None = None,
    ) -> Self:
        """Open the workspace of a data folder (created when missing).

        Args:
            data_dir: the folder of the store; by default ``settings.data_dir``.
            settings: settings to use; by default read from the environment (``MLENS_*``).
            embedder: an already loaded embedder to reuse.
        """
        settings = settings if settings is not None else Settings()
        if data_dir is not None:
            settings = settings.model_copy(update={"data_dir": Path(data_dir)})
        return cls(settings, embedder=embedder)

    @property
    def embedder(self) -> Embedder:
        """The configured embedder, loaded once on first use."""
        if self._embedder is None:
            from toolkit.embeddings import get_embedder

            self._embedder = get_embedder(self.settings)
        return self._embedder

    def close(self) -> None:
        """Close the store."""
        self.store.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        count = len(self.store.list_sources())
        return f"<{type(self).__name__} {self.settings.store_label}: {count} sources>"

    def source(self, ref: str | Source) -> Source:
        """The stored source a reference names (``@handle``, a t.me link, ``c/<id>``)."""
        if isinstance(ref, Source):
            return ref
        if ref.startswith("c/") and ref[2:].isdigit():
            ref = f"https://t.me/{ref}"
        return self.store.get_source(parse_ref(ref))

    def weights(self, weights: WeightsArg = None) -> SearchWeights:
        """Resolve per-call weights against the settings' (see ``WeightsArg``).

        Raises:
            InvalidWeights: a mapping that makes the weights invalid.
        """
        if weights is None:
            return self.settings.search
        if isinstance(weights, SearchWeights):
            return weights
        return self.settings.search.replace(**dict(weights))


def source_ref(source: Source, ref: str | Source) -> SourceRef:
    """The reference to pass on: the caller's own text (echoed in results) when given."""
    raw = ref if isinstance(ref, str) else source.key
    return SourceRef(
        raw=raw, handle=source.handle, internal_id=source.internal_id, topic_id=ref_topic(ref)
    )
