"""The README: read in five minutes, its commands and links true; the rest under docs/."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
MAX_LINES = 250


def test_readme_is_short() -> None:
    assert len(README.splitlines()) <= MAX_LINES


def test_readme_gives_the_two_commands_and_their_makefile_targets() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for target in ("serve", "test"):
        assert f"make {target}" in README
        assert re.search(rf"^{target}:", makefile, re.MULTILINE), target


def test_readme_links_every_docs_page() -> None:
    pages = {p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md")}
    linked = set(re.findall(r"\]\((docs/[^)#]+\.md)", README))
    assert pages <= linked, f"docs pages the README does not link: {sorted(pages - linked)}"


def test_readme_shows_one_screenshot_that_exists() -> None:
    (image,) = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", README)
    assert image.startswith("docs/screenshots/")
    assert (ROOT / image).is_file()


def test_readme_commands_are_real_cli_commands() -> None:
    from cli.app import COMMANDS

    known = {name for name, _ in COMMANDS} | {"keys"}
    used = set(re.findall(r"^mlens ([a-z-]+)", README, re.MULTILINE))
    assert used, "the README shows no mlens command"
    assert used <= known, f"README uses unknown commands: {sorted(used - known)}"


def test_readme_headline_numbers_are_generated_blocks() -> None:
    for block in ("ranking-headline", "summaries-headline", "bench-headline"):
        assert f"<!-- generated:{block} -->" in README
