"""What the parts of a ``Workspace`` share: settings, store, embedder, source lookup."""

from __future__ import annotations

from collections.abc import Callable

from toolkit.config import Settings
from toolkit.embeddings import Embedder, get_embedder
from toolkit.models import Source, SourceRef
from toolkit.refs import SourceArg, resolve_source
from toolkit.store import MessageStore
from toolkit.weights import SearchWeights, WeightsArg, resolve_weights

Progress = Callable[[int, int], None]
"""``progress(done, total)`` while embedding; the app turns it into a progress bar."""


class Context:
    """Settings, store and (loaded on first use) embedder of one data folder.

    Args:
        settings: the settings.
        store: the open store.
        embedder: an embedder to share (tests, the app); by default loaded on first use.
    """

    def __init__(self, settings: Settings, store: MessageStore, embedder: Embedder | None) -> None:
        self.settings = settings
        self.store = store
        self._embedder = embedder

    @property
    def embedder(self) -> Embedder:
        """The configured embedder, loaded once on first use."""
        if self._embedder is None:
            self._embedder = get_embedder(self.settings)
        return self._embedder

    def source(self, ref: SourceArg) -> Source:
        """The stored source a reference names (``@handle``, a t.me link, ``c/<id>``)."""
        return resolve_source(self.store, ref)[0]

    def resolve(self, ref: SourceArg) -> tuple[Source, SourceRef]:
        """The source, and the reference to pass on (results echo the caller's text)."""
        return resolve_source(self.store, ref)

    def weights(self, weights: WeightsArg = None) -> SearchWeights:
        """This call's weights against the settings' (see ``toolkit.weights.WeightsArg``).

        Raises:
            InvalidWeights: a mapping that makes the weights invalid.
        """
        return resolve_weights(weights, self.settings.search)
