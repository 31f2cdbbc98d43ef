"""``mlens --help`` loads what drawing the help needs and nothing the commands use.

Each probe runs in a fresh interpreter (``sys.modules`` of this process holds everything
the other tests imported) and reports what it loaded. What the commands import inside
their bodies (Rich's tables and consoles, the toolkit's features, hashing), the command
modules themselves for the pages that list commands (``cli.lazy``), and what
``cli.lean_help`` keeps from Typer's help renderer (Markdown, tracebacks, Pygments) must
stay out; each probe also shows that it did draw the help, so that none passes by
printing nothing. The help itself is Typer's: every page and usage error, plain or in
colour, is the same text, byte for byte, as Typer draws it with every command built at
start and its renderer imported as Typer imports it.
"""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path

import pytest
from startup_support import among, run_probe

from cli.app import ALERT_COMMANDS, COMMANDS, KEY_COMMANDS, SCHEDULE_COMMANDS
from cli.lazy import Lazy

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
# then, on the last line, the modules loaded. Mode ``eager`` is the reference: Typer's
# plain import of its renderer, and the application as it was declared before its
# commands were lazy (each one built by Typer at start, through ``typer.Typer.command``).
HELP_PROBE = """
import contextlib, io, json, sys
every, mode = json.loads(sys.argv[1]), sys.argv[2]
from cli import main
if mode == "eager":
    import typer, typer.rich_utils  # Typer's own import, as without cli.lean_help
    from cli.app import COMMANDS, KEY_COMMANDS, SCHEDULE_COMMANDS, app, keys_app, schedule_app
    from cli.app import ALERT_COMMANDS, alert_app
    from cli.lazy import guarded
    from cli.lean_help import LeanHelpCommand, LeanHelpGroup
    from cli.usage import LineErrorsGroup
    eager = typer.Typer(
        name="mlens", cls=LineErrorsGroup, help=app.info.help, no_args_is_help=True,
        add_completion=False, pretty_exceptions_enable=False,
    )
    keys = typer.Typer(cls=LeanHelpGroup, help=keys_app.info.help, no_args_is_help=True)
    plans = typer.Typer(cls=LeanHelpGroup, help=schedule_app.info.help, no_args_is_help=True)
    alerts = typer.Typer(cls=LeanHelpGroup, help=alert_app.info.help, no_args_is_help=True)
    for group, table in ((eager, COMMANDS), (keys, KEY_COMMANDS), (plans, SCHEDULE_COMMANDS),
                         (alerts, ALERT_COMMANDS)):
        for name, entry in table:
            group.command(name, cls=LeanHelpCommand)(guarded(entry.load()))
    eager.add_typer(keys, name="keys")
    eager.add_typer(plans, name="schedule")
    eager.add_typer(alerts, name="alert")
    assert LineErrorsGroup.table == ()  # none lazy: Typer builds them all
    main = eager
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
    ["schedule", "--help"],
    *(["schedule", name, "--help"] for name, _ in SCHEDULE_COMMANDS),
    ["alert", "--help"],
    *(["alert", name, "--help"] for name, _ in ALERT_COMMANDS),
]
# Usage errors: an unknown command (with and without a close one), option or argument
# of a group or a command, a missing argument.
USAGE_ERRORS = [
    ["serch", "x"],
    ["nope", "--help"],
    ["--nope"],
    ["keys", "crate"],
    ["search"],
    ["search", "--nope", "x", "y"],
    ["summarize", "--since", "never", "x"],
    ["keys", "create"],
]


def help_pages(
    mode: str, cwd: Path, every: list[list[str]] = EVERY_HELP, **extra_env: str
) -> tuple[dict[str, list[object]], set[str]]:
    """Each page of ``every`` as ``mode`` (``lean`` or ``eager``) draws it, and what it
    loaded."""
    lines = run_probe(HELP_PROBE, json.dumps(every), mode, cwd=cwd, **extra_env)
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


def test_the_root_help_imports_no_command_module(tmp_path: Path) -> None:
    pages, modules = help_pages("lean", tmp_path, [["--help"], ["keys", "--help"]])
    assert all("Usage: mlens" in str(text) for _, text in pages.values())
    for name, entry in COMMANDS + KEY_COMMANDS + SCHEDULE_COMMANDS + ALERT_COMMANDS:
        assert entry.module not in modules, name
    assert among(modules, ("toolkit", *NOT_FOR_HELP)) == []  # not even its errors


def test_the_lean_help_is_typers_help_byte_for_byte(
    lean: tuple[dict[str, list[object]], set[str]], tmp_path: Path
) -> None:
    pages, modules = lean
    eager_pages, eager_modules = help_pages("eager", tmp_path)
    assert "rich.markdown" in eager_modules
    assert "rich.markdown" not in modules
    assert pages == eager_pages


@pytest.mark.parametrize(
    "env",
    [{}, {"TYPER_USE_RICH": "0"}, {"NO_COLOR": "1"}, {"FORCE_COLOR": "1", "COLUMNS": "100"}],
    ids=["default", "without-rich", "no-color", "color"],
)
def test_every_page_and_usage_error_is_typers_byte_for_byte(
    env: dict[str, str], tmp_path: Path
) -> None:
    every = EVERY_HELP + USAGE_ERRORS
    pages, _ = help_pages("lean", tmp_path, every, **env)
    eager_pages, _ = help_pages("eager", tmp_path, every, **env)
    assert pages == eager_pages
    uncoloured = [re.sub("\x1b\\[[0-9;]*m", "", str(text)) for _, text in pages.values()]
    assert all("sage: mlens" in text for text in uncoloured)  # Usage or usage
    coloured = [args for args, (_, text) in pages.items() if "\x1b[" in str(text)]
    assert coloured == (list(pages) if "FORCE_COLOR" in env else [])


@pytest.mark.parametrize(
    ("name", "entry"), COMMANDS + KEY_COMMANDS + SCHEDULE_COMMANDS + ALERT_COMMANDS
)
def test_each_summary_is_the_first_paragraph_of_its_help(name: str, entry: Lazy) -> None:
    # The group's page lists a command by its summary; its own page shows the docstring.
    doc = inspect.getdoc(entry.load())
    assert doc is not None, name
    assert doc.split("\n\n")[0] == entry.summary


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
    assert json.loads(lines[-2]) == sorted(
        [name for name, _ in COMMANDS] + ["keys", "schedule", "alert"]
    )
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


@pytest.mark.parametrize(
    "entry", [e for _, e in COMMANDS + KEY_COMMANDS + SCHEDULE_COMMANDS + ALERT_COMMANDS]
)
def test_typer_reads_annotations_as_objects(entry: Lazy) -> None:
    # A string annotation (``from __future__ import annotations``) is compiled by Typer
    # four times each time it builds the command; the command modules are written
    # without it.
    annotations = inspect.get_annotations(entry.load())
    strings = {k: v for k, v in annotations.items() if isinstance(v, str)}
    assert strings == {}


# Draws the help, then uses what Typer's help renderer and Rich were given stand-ins for
# (cli.stand_ins, cli.lean_help); prints what the help had loaded of them, and what each
# use gave.
USE_PROBE = """
import json, sys, io, contextlib
sys.argv = ["mlens", "--help"]
from cli import main
with contextlib.redirect_stdout(io.StringIO()) as out:
    try:
        main()
    except SystemExit:
        pass
assert "Usage: mlens" in out.getvalue()
loaded = sorted(m for m in json.loads(%r) if m in sys.modules)
codes = type(sys.modules["rich._emoji_codes"]).__name__
# Now each is used, and is the real one.
import rich.markdown, typer.rich_utils
assert isinstance(typer.rich_utils.Markdown("*x*"), rich.markdown.Markdown)
from rich.console import Console
console = Console(file=io.StringIO(), color_system=None)
console.print("a :smile: b")
emoji = console.file.getvalue()
print(json.dumps([loaded, codes, emoji]))
"""


def test_help_loads_none_and_each_is_real_when_used(tmp_path: Path) -> None:
    deferred = ("rich.markdown", "rich.traceback")
    probe = USE_PROBE % json.dumps(deferred)
    loaded, codes, emoji = json.loads(run_probe(probe, cwd=tmp_path)[-1])
    assert loaded == []
    assert codes == "StandInModule"  # the emoji codes untouched by the help
    from rich._emoji_codes import EMOJI

    assert emoji == f"a {EMOJI['smile']} b\n"  # the code was looked up in the real table
