"""Load, ahead of the first request, what the offline engine loads on first use.

The extractive engine reads a few large tables lazily: the language detector's model,
each pack's dictionaries (lemminflect for English, pymorphy3 for Russian and Ukrainian)
and dateparser's data per language. Together they take seconds, which the first digest
after a start would otherwise wait for. ``warm_up`` loads them; the service calls it on a
background thread when it starts, so a request that comes first only waits for what is
not loaded yet.
"""

from __future__ import annotations

import logging
import threading

from toolkit.lang import packs
from toolkit.lang.detect import languages
from toolkit.summarize.extractive.draft import dates

log = logging.getLogger(__name__)


def warm_up() -> None:
    """Load the detector, every pack's dictionaries and dateparser's data for each pack."""
    languages(["warm"])
    for language_pack in packs():
        language_pack.warm()
        dates.warm(language_pack.code)


def warm_up_in_background() -> threading.Thread:
    """Start ``warm_up`` on a daemon thread and return it; a failure is logged, never
    raised (the first digest then loads what it needs itself)."""

    def run() -> None:
        try:
            warm_up()
        except Exception:  # a warm-up is an optimisation: log it, go on
            log.warning("warming the summary engine failed", exc_info=True)

    thread = threading.Thread(target=run, name="mlens-summary-warm-up", daemon=True)
    thread.start()
    return thread
