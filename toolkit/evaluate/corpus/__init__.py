"""The development corpus of real Telegram chats (issue 40): sources, cache, windows, labels.

``sources`` names each public export (repository, commit, paths); ``scripts/real_corpus.py
fetch`` copies them into a cache outside the repository; ``store`` imports a cached
export once, through the project's importer, and reads windows of it; ``labels`` reads
``data/real_acts.jsonl`` (message ids and act names only). ``python -m
toolkit.evaluate.corpus`` shows windows for labelling.
"""

from toolkit.evaluate.corpus.labels import LABELS_FILE, LabelledWindow, load_labels, problems
from toolkit.evaluate.corpus.sources import BY_KEY, SOURCES, RealSource, cache_root
from toolkit.evaluate.corpus.store import CorpusMissing, Window, window_messages

__all__ = [
    "BY_KEY",
    "LABELS_FILE",
    "SOURCES",
    "CorpusMissing",
    "LabelledWindow",
    "RealSource",
    "Window",
    "cache_root",
    "load_labels",
    "problems",
    "window_messages",
]
