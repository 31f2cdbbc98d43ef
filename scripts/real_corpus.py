"""Fetch the real Telegram exports of the development corpus into a cache outside the
repository (issue 40).

The table of sources (key, repository, commit, paths, format, kind, language,
``held_out``) is ``toolkit.evaluate.corpus.sources.SOURCES``, re-exported here as
``SOURCES``. ``fetch`` reads each listed path at its commit from a git snapshot of the
repository (``<mirror>/<owner>+<name>/repo``, a bare git directory) and writes it to
``${MLENS_REAL_CACHE:-~/.cache/mlens/real_exports}/<key>/`` under the export's own file
name (an ``index.html``, a renamed first page, is stored as ``messages.html``). Nothing
of the chats' text is ever written into the repository.

    python scripts/real_corpus.py fetch [--mirror DIR] [--cache DIR] [KEY ...]
    python scripts/real_corpus.py list
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from toolkit.evaluate.corpus.sources import SOURCES, RealSource, cache_root, source_dir

__all__ = ["SOURCES", "fetch_source", "main"]

DEFAULT_MIRROR = "/work/.mirror"


def git_dir(mirror: Path, repo: str) -> Path | None:
    """The snapshot of ``repo`` (``owner/name``) under ``mirror``, or ``None``."""
    base = mirror / repo.replace("/", "+")
    for candidate in (base / "repo", base, base / ".git"):
        if (candidate / "HEAD").is_file():
            return candidate
    return None


def fetch_source(source: RealSource, mirror: Path, cache: Path) -> str | None:
    """Copy ``source``'s files into the cache; ``None`` when done, else why not."""
    git = git_dir(mirror, source.repo)
    if git is None:
        return f"no snapshot of {source.repo} under {mirror}"
    target = source_dir(source.key, cache)
    target.mkdir(parents=True, exist_ok=True)
    for path in source.paths:
        shown = subprocess.run(
            ["git", f"--git-dir={git}", "show", f"{source.commit}:{path}"],
            capture_output=True,
            check=False,
        )
        if shown.returncode != 0:
            error = shown.stderr.decode(errors="replace").strip().splitlines()
            return f"{source.repo}@{source.commit[:10]}:{path}: {error[-1] if error else '?'}"
        out = target / source.cached_name(path)
        tmp = out.with_suffix(out.suffix + ".part")
        tmp.write_bytes(shown.stdout)
        tmp.replace(out)
    return None


def _fetch(args: argparse.Namespace) -> int:
    mirror = Path(args.mirror)
    cache = Path(args.cache).expanduser() if args.cache else cache_root()
    wanted = set(args.keys)
    unknown = wanted - {s.key for s in SOURCES}
    if unknown:
        print(f"unknown source keys: {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    missing: list[str] = []
    for source in SOURCES:
        if wanted and source.key not in wanted:
            continue
        problem = fetch_source(source, mirror, cache)
        if problem is None:
            print(
                f"{source.key:10} {len(source.paths):3} file(s) -> {source_dir(source.key, cache)}"
            )
        else:
            missing.append(source.key)
            print(f"{source.key:10} NOT FETCHED: {problem}")
    if missing:
        print(
            f"{len(missing)} source(s) not fetched ({', '.join(missing)}): take a snapshot "
            f"of each repository (owner+name/repo under {mirror}) and run again"
        )
        return 1
    return 0


def _list(_: argparse.Namespace) -> int:
    for s in SOURCES:
        held = "  held out" if s.held_out else ""
        print(f"{s.key:10} #{s.row:<3} {s.language:6} {s.kind:11} {s.format:5} {s.repo}{held}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """The command line: ``fetch`` or ``list``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    fetch = commands.add_parser("fetch", help="copy the exports into the cache")
    fetch.add_argument("keys", nargs="*", help="only these sources (default: all)")
    fetch.add_argument(
        "--mirror",
        default=os.environ.get("MLENS_REAL_MIRROR", DEFAULT_MIRROR),
        help="folder of the git snapshots, <owner>+<name>/repo ($MLENS_REAL_MIRROR)",
    )
    fetch.add_argument("--cache", help="the cache folder (default: $MLENS_REAL_CACHE)")
    fetch.set_defaults(run=_fetch)
    commands.add_parser("list", help="the table of sources").set_defaults(run=_list)
    args = parser.parse_args(argv)
    code: int = args.run(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
