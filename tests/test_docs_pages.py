"""The docs are generated where they can be, and true where they are written.

- ``docs/configuration.md`` and every ``<!-- generated:… -->`` block of the README and
  ``docs/`` are what ``scripts/gen_docs.py`` renders from ``Settings`` and the results
  files (a stale number fails here);
- the published evaluation was measured by today's engine (``make eval`` again when not);
- every repository path the docs name exists, and every relative link resolves;
- no notebook output holds a path of the machine that ran it.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import gen_docs  # noqa: E402

PAGES = gen_docs.pages()
TOP = ("toolkit/", "cli/", "service/", "app_pages/", "mcp_face/", "tests/", "scripts/",
       "benchmarks/", "notebooks/", "docs/", "app_streamlit.py", "Makefile", "pyproject.toml",
       "environment.yml")  # fmt: skip
CODE_PATH = re.compile(r"`([A-Za-z0-9_./-]+)`")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def named_paths(text: str) -> set[str]:
    """Repository paths in code spans (``toolkit/config.py``); placeholders are skipped."""
    return {m for m in CODE_PATH.findall(text) if m.startswith(TOP) and "<" not in m}


@pytest.mark.parametrize("path", [*PAGES, gen_docs.CONFIGURATION], ids=lambda p: p.name)
def test_generated_parts_are_current(path: Path) -> None:
    expected = gen_docs.expected()[path]
    assert path.read_text(encoding="utf-8") == expected, (
        f"{path.relative_to(ROOT)} is stale: run `python scripts/gen_docs.py` "
        "(after `make eval` / `make bench` when a result moved)"
    )


def test_a_moved_number_makes_its_block_stale(tmp_path: Path) -> None:
    document = json.loads(gen_docs.EVAL_RESULTS.read_text(encoding="utf-8"))
    block = "<!-- generated:ranking-headline -->\n<!-- /generated:ranking-headline -->"
    rendered = gen_docs.render_blocks(block)
    assert "| en_stsb | .964 |" in rendered or "| en_stsb |" in rendered
    document["ranking"]["results"]["hybrid"]["en_stsb"]["nDCG@10"] = 0.5
    moved = gen_docs.ranking_headline_block(document)
    assert moved not in rendered
    assert "| en_stsb | .500 |" in moved


def test_every_block_is_known_and_filled() -> None:
    for page in PAGES:
        for match in gen_docs.BLOCK.finditer(page.read_text(encoding="utf-8")):
            assert match["name"] in gen_docs.RENDERERS, (page.name, match["name"])
            assert match["body"].strip(), f"{page.name}: empty block {match['name']}"


def test_configuration_names_every_setting_with_its_description() -> None:
    text = gen_docs.CONFIGURATION.read_text(encoding="utf-8")
    for variable, _, description in gen_docs.settings_rows():
        assert f"`{variable}`" in text
        assert description, f"{variable} has no Field description in toolkit/config/sections.py"


def test_published_evaluation_is_of_todays_engine() -> None:
    from toolkit import Settings
    from toolkit.embeddings import get_embedder
    from toolkit.evaluate.published import current_engines, read_published

    engines = current_engines(get_embedder(Settings()).model_name)
    stale = read_published().stale_parts(engines)
    assert not stale, f"docs/results/eval.json: {stale} measured by another engine: make eval"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_path_the_docs_name_exists(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    missing = sorted(p for p in named_paths(text) if not (ROOT / p.rstrip("/")).exists())
    assert not missing, f"{page.name} names paths that do not exist: {missing}"
    links = [
        link.split("#")[0]
        for link in LINK.findall(text)
        if "://" not in link and not link.startswith(("#", "mailto:"))
    ]
    broken = [
        link
        for link in links
        if link and not link.startswith("../../shared") and not link.startswith("../shared")
        and not (page.parent / link).exists()
    ]  # fmt: skip
    assert not broken, f"{page.name} links to missing files: {broken}"


def test_the_path_check_can_fail() -> None:
    assert named_paths("see `toolkit/config.py`, `toolkit/no_such.py` and `lang/<code>/`") == {
        "toolkit/config.py",
        "toolkit/no_such.py",
    }


def test_no_notebook_output_holds_a_machine_path() -> None:
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        outputs = json.dumps([c.get("outputs", []) for c in cells], ensure_ascii=False)
        for marker in ("/work/", "/home/", "/tmp/", "/root/", "site-packages"):
            assert marker not in outputs, f"{notebook.name}: an output holds {marker!r}"
