"""The real Telegram exports of the development corpus: where each one comes from.

Each source is a public repository holding a Telegram Desktop export, pinned to a
commit, with the paths of its export files (``scripts/real_corpus.py fetch`` copies
them into the cache, never into this repository). ``held_out`` sources are never
labelled for training: a person reads their digests last. The list and what each chat
is about: ``../shared/data/real_exports.md`` (the row number is ``row``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath


@dataclass(frozen=True, slots=True)
class RealSource:
    """One real export: a short key, where it is, and what kind of chat it is."""

    key: str
    row: int
    repo: str
    commit: str
    paths: tuple[str, ...]
    format: str  # "html" or "json"
    kind: str  # group, supergroup, forum, channel, personal
    language: str
    held_out: bool = False

    def cached_name(self, path: str) -> str:
        """The file name ``path`` is cached as: its own, except that an ``index.html``
        (a renamed first page) is ``messages.html`` again."""
        name = PurePosixPath(path).name
        return "messages.html" if name == "index.html" else name


def _pages(folder: str, last: int, *, index: bool = False) -> tuple[str, ...]:
    """An HTML export's pages ``messages.html`` … ``messages<last>.html`` in ``folder``."""
    prefix = f"{folder}/" if folder else ""
    first = f"{prefix}index.html" if index else f"{prefix}messages.html"
    return (first, *(f"{prefix}messages{n}.html" for n in range(2, last + 1)))


_BLANKED_PALS = ("messages.html", "messages10.html", "messages11.html")

SOURCES: tuple[RealSource, ...] = (
    RealSource("tsj", 1, "dantist1976/dantist1976.github.io",
               "60b71fc39139b78b7f0e671cf77e3f770081fce4", _pages("", 18),
               "html", "supergroup", "ru"),
    RealSource("payroll", 2, "Helen-Parakhnevich/support-chat-history",
               "0250508ce70692e658e74f851720220d71ef42ee", _pages("chats/chat_02", 5),
               "html", "supergroup", "ru"),
    RealSource("parents", 3, "mashlessica/mashlessica.github.io",
               "dd942d87131e10ec1d9d7236955ad03072699804", _pages("", 10),
               "html", "supergroup", "ru", held_out=True),
    RealSource("retouch", 4, "vvtsvx/pschat",
               "a3b63c479aad83f656e7d5ca9919fc8aff8736e0", _pages("chats/chat_1", 3),
               "html", "group", "ru"),
    RealSource("cohort", 5, "Sopha-ling/sentiment-analysis",
               "f01e52c81a6ff145b96309411f9a6644553a9638", _pages("", 4),
               "html", "supergroup", "ru"),
    RealSource("miniapp", 6, "Danya11111/TG_BOT_TGTabs",
               "c7890de269c9420b246de4461e01ffaa4682181f", _pages("data/raw_exports", 7),
               "html", "forum", "ru"),
    RealSource("family", 8, "Lifejazzy/serg",
               "1c422c5982c54ca7a4b814273541b72bf9afa01a", _pages("", 2),
               "html", "group", "ru+uk"),
    RealSource("pals", 9, "kocmas/ko",
               "bb3a67321db1f72e7ab07198f417b9c25e49c933",
               # pages 1, 10 and 11 were emptied by the owner at this commit: left out
               tuple(p for p in _pages("", 20) if p not in _BLANKED_PALS),
               "html", "personal", "ru"),
    RealSource("startups", 10, "abrawkin/tg_history",
               "070f59fa95783e8e46418f1ccc02de95bc981332", _pages("", 3),
               "html", "channel", "ru"),
    RealSource("vne", 12, "MariaSerjogina/vne_efira",
               "e41194a2556d6b3386580b513d79f31dc4ec4d52", _pages("", 1, index=True),
               "html", "channel", "ru", held_out=True),
    RealSource("cognition", 13, "LubomyrIvanitskiy/Cognition",
               "56967961d5f938c7c47085d1085fbef213c26bf6", _pages("", 2, index=True),
               "html", "channel", "uk"),
    RealSource("seeds", 14, "okcthulhu/ChatGPTSeeds",
               "ca4cae10f3cf96d76c375dd26271580304ca0b44", _pages("", 15),
               "html", "group", "en"),
    RealSource("blitz", 15, "fluidvoice/blitz-telegram",
               "58d5a353ce6e0ab32e5aab3b36e87727a255b086", _pages("", 10, index=True),
               "html", "supergroup", "en"),
    RealSource("cs2100", 16, "francisyzy/cs2100drama",
               "ca72f4651ce91cef1c0d31e0daeefbea4a20b0f0", _pages("", 2, index=True),
               "html", "group", "en"),
    RealSource("nft", 17, "kevglynn/colab_storage",
               "5002b353daac4d39d5370451a7df19ee028858d7", _pages("", 4),
               "html", "group", "en"),
    RealSource("traders", 18, "Zenzor33/tg-scraper",
               "24d27351f717df17a46ce9db0e7c7c8d5d4260c4", _pages("", 13),
               "html", "group", "en", held_out=True),
    RealSource("singlish", 19, "zyf0717/whatsapp-chats-analysis",
               "911e26055273566befa1fd50bd02b0fa56acb038", ("chats/result.json",),
               "json", "personal", "en"),
)  # fmt: skip
"""Every source of the corpus, by the row order of ``real_exports.md``."""

BY_KEY: dict[str, RealSource] = {s.key: s for s in SOURCES}
"""The sources by key."""


def cache_root() -> Path:
    """The cache folder: ``$MLENS_REAL_CACHE``, else ``~/.cache/mlens/real_exports``."""
    configured = os.environ.get("MLENS_REAL_CACHE")
    if configured:
        return Path(configured).expanduser()
    return Path.home() / ".cache" / "mlens" / "real_exports"


def source_dir(key: str, root: Path | None = None) -> Path:
    """The folder a source's files are cached in."""
    return (root if root is not None else cache_root()) / key


def is_cached(source: RealSource, root: Path | None = None) -> bool:
    """Whether every file of ``source`` is in the cache."""
    folder = source_dir(source.key, root)
    return all((folder / source.cached_name(p)).is_file() for p in source.paths)
