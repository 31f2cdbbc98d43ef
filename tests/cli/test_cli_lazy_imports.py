"""``mlens --help`` loads what drawing the help needs and nothing the commands use.

Each probe runs in a fresh interpreter (``sys.modules`` of this process holds everything
the other tests imported) and reports what it loaded. What the commands import inside
their bodies (Rich's tables and consoles, the toolkit's features, hashing) and what
``cli.lean_help`` keeps from Typer's help renderer (Markdown, tracebacks, Pygments) must
stay out; each probe also shows that it did draw the help, so that none passes by
printing nothing. The help itself is Typer's: drawn lean or with Typer's plain import, it
is the same text, byte for byte.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from startup_support import among, run_probe

from cli.app import COMMANDS, KEY_COMMANDS

# What the command modules import only inside their commands, and what Typer's help
# renderer is loaded without (``cli.lean_help.DEFERRED`` and what those import).
NOT_FOR_HELP = (
    "rich.markdown",
    "rich.traceback",
    "rich.syntax",
    "rich.pretty",
    "markdown_it",
    "pygments",
    "attr",
    "hashlib",
    "_hashlib",
    "secrets",
    "hmac",
    "toolkit.controls",
    "toolkit.models",
    "toolkit.refs",
    "toolkit.config",
    "toolkit.workspace",
    "toolkit.store",
    "toolkit.notebook",
    "toolkit.requests",
    "toolkit.wire",
    "service",
    "mcp_face",
    "pydantic",
    "numpy",
    "sqlite3",
    "fastapi",
    "lxml",
)

# Prints the help of each command line in argv[1] (a JSON list of argument lists), and
# then, on the last line, the modules loaded.
HELP_PROBE = """
import contextlib, io, json, sys
every, mode = json.loads(sys.argv[1]), sys.argv[2]
if mode == "plain":
    import typer.rich_utils  # Typer's own import, as without cli.lean_help
from cli import main
pages = {}
for args in every:
    sys.argv = ["mlens", *args]
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            main()
        except SystemExit as exc:
            code = exc.code
    pages[" ".join(args)] = [code, out.getvalue()]
print(json.dumps(pages))
print(json.dumps(sorted(sys.modules)))
"""

EVERY_HELP = [
    ["--help"],
    [],
    ["keys"],
    ["keys", "--help"],
    *([name, "--help"] for name, _ in COMMANDS),
    *(["keys", name, "--help"] for name, _ in KEY_COMMANDS),
]


def help_pages(mode: str, cwd: Path, **extra_env: str) -> tuple[dict[str, list[object]], set[str]]:
    """Every help page as ``mode`` (``lean`` or ``plain``) draws it, and what it loaded."""
    lines = run_probe(HELP_PROBE, json.dumps(EVERY_HELP), mode, cwd=cwd, **extra_env)
    assert len(lines) == 2, lines[:-1]  # the pages went to the probe, not to stdout
    return json.loads(lines[0]), set(json.loads(lines[1]))


@pytest.fixture(scope="module")
def lean(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, list[object]], set[str]]:
    """Every help page drawn as ``mlens`` draws it, and the modules that loaded."""
    return help_pages("lean", tmp_path_factory.mktemp("lean"))


def test_every_help_page_loads_nothing_the_commands_use(
    lean: tuple[dict[str, list[object]], set[str]],
) -> None:
    pages, modules = lean
    assert len(pages) == len(EVERY_HELP)
    for args, (code, text) in pages.items():
        assert code in (0, 2), args  # 2: a group given no command shows its help
        assert "Usage: mlens" in str(text), args
    assert "typer.rich_utils" in modules  # the help was drawn by Typer's renderer
    assert "toolkit.apikeys" in modules  # the scopes in `keys create --help`
    assert among(modules, NOT_FOR_HELP) == []


def test_the_lean_help_is_typers_help_byte_for_byte(
    lean: tuple[dict[str, list[object]], set[str]], tmp_path: Path
) -> None:
    pages, modules = lean
    plain_pages, plain_modules = help_pages("plain", tmp_path)
    assert "rich.markdown" in plain_modules
    assert "rich.markdown" not in modules
    assert pages == plain_pages


def test_help_without_rich_loads_no_rich(tmp_path: Path) -> None:
    # TYPER_USE_RICH=0: Typer draws click's plain help, and nothing loads Rich for it.
    pages, modules = help_pages("lean", tmp_path, TYPER_USE_RICH="0")
    assert all("Usage: mlens" in str(text) for _, text in pages.values())
    assert "╭" not in str(pages["--help"][1])  # not the panels Rich draws
    assert among(modules, ("rich", *NOT_FOR_HELP)) == []


def test_building_the_command_line_loads_no_rich(tmp_path: Path) -> None:
    probe = (
        "import json, sys, typer.main\n"
        "from cli import app\n"
        "group = typer.main.get_command(app)\n"
        "print(json.dumps(sorted(group.commands)))\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    lines = run_probe(probe, cwd=tmp_path)
    assert json.loads(lines[-2]) == sorted([name for name, _ in COMMANDS] + ["keys"])
    modules = set(json.loads(lines[-1]))
    assert among(modules, ("rich", *NOT_FOR_HELP)) == []


def test_the_stand_ins_are_the_real_classes_when_used(tmp_path: Path) -> None:
    probe = (
        "import sys\n"
        "from cli.lean_help import load_help_renderer\n"
        "load_help_renderer()\n"
        "import typer.rich_utils as utils\n"
        "assert 'rich.markdown' not in sys.modules and 'rich.traceback' not in sys.modules\n"
        "markdown = utils.Markdown('*x*', style='dim')\n"
        "from_exception = utils.Traceback.from_exception\n"
        "import rich.markdown, rich.traceback\n"
        "assert isinstance(markdown, rich.markdown.Markdown), markdown\n"
        "assert from_exception == rich.traceback.Traceback.from_exception\n"
        "assert rich.markdown.Markdown.__module__ == 'rich.markdown'\n"
        "print('real')\n"
    )
    assert run_probe(probe, cwd=tmp_path)[-1] == "real"


@pytest.mark.parametrize("command", [c for _, c in COMMANDS + KEY_COMMANDS])
def test_typer_reads_annotations_as_objects(command: Callable[..., None]) -> None:
    # A string annotation (``from __future__ import annotations``) is compiled by Typer
    # four times on every start; the command modules are written without it.
    strings = {k: v for k, v in inspect.get_annotations(command).items() if isinstance(v, str)}
    assert strings == {}
