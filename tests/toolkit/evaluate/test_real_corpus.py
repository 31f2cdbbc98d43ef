"""The real-chat corpus (``toolkit.evaluate.corpus``, ``scripts/real_corpus.py``): the label
file keeps ids and act names only and its schema holds; the loader imports a cached
export once and reads a window of it; without the cache every command says so in one
line. None of this needs the real cache (a fresh clone, CI); where it is present, the
labelled windows are also checked against the messages."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from export_builders import chat, message

from toolkit.evaluate.corpus import __main__ as corpus_cli
from toolkit.evaluate.corpus.labels import ACTS, FIELDS, LABELS_FILE, problems, read_rows
from toolkit.evaluate.corpus.sources import BY_KEY, SOURCES, RealSource, cache_root, is_cached
from toolkit.evaluate.corpus.store import CorpusMissing, Window, store_path, window_messages

ROOT = Path(__file__).resolve().parents[3]
ROWS = read_rows()


def script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "real_corpus", ROOT / "scripts" / "real_corpus.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_label_file_ships_with_its_readme() -> None:
    assert LABELS_FILE.is_file()
    assert "real_acts.jsonl" in LABELS_FILE.with_name("README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("row", ROWS, ids=[str(r.get("id")) for r in ROWS])
def test_each_window_is_sound(row: dict[str, Any]) -> None:
    assert problems(row) == []
    assert set(row) <= FIELDS  # no text of the chat: ids, act names and the note only
    assert all(type(i) is int for act in ACTS for i in row[act])
    assert all(type(i) is int for pair in row["answered"] for i in pair)


def test_the_windows_cover_the_issue() -> None:
    ids = [row["id"] for row in ROWS]
    assert len(ids) == len(set(ids))
    table = {s.key: s for s in script().SOURCES}
    assert {row["source"] for row in ROWS} <= set(table)
    assert not any(table[row["source"]].held_out for row in ROWS)
    assert len(ROWS) >= 20
    assert len({row["source"] for row in ROWS}) >= 6
    languages = {table[row["source"]].language for row in ROWS}
    assert {"en", "ru", "uk"} <= {lang for value in languages for lang in value.split("+")}


def test_the_table_holds_out_three_and_covers_the_kinds() -> None:
    assert len(BY_KEY) == len(SOURCES) >= 14
    assert sum(s.held_out for s in SOURCES) == 3
    assert {"json", "html"} <= {s.format for s in SOURCES}
    assert {"group", "supergroup", "channel", "forum", "personal"} <= {s.kind for s in SOURCES}
    assert all(len(s.commit) == 40 for s in SOURCES)


def test_problems_finds_what_an_editor_may_break() -> None:
    good = {
        "id": "blitz-99", "source": "blitz", "first_id": 100, "last_id": 150,
        "decision": [101], "plan": [], "open_question": [120], "answered": [[110, 111]],
        "advert": [], "secret": [], "note": "a paraphrase",
    }  # fmt: skip
    assert problems(good) == []
    assert any("fields other" in p for p in problems(good | {"text": "words"}))
    assert any("held out" in p for p in problems(good | {"source": "traders", "id": "traders-01"}))
    assert any("integer" in p for p in problems(good | {"plan": [True]}))
    assert any("outside" in p for p in problems(good | {"plan": [99]}))
    assert any("advert" in p for p in problems(good | {"advert": [101]}))
    assert any("open and answered" in p for p in problems(good | {"open_question": [110]}))
    assert any("quotes" in p for p in problems(good | {"note": 'someone said "hi"'}))
    assert any("unknown source" in p for p in problems(good | {"source": "nowhere"}))


def write_export(root: Path) -> RealSource:
    """A tiny JSON export cached as the ``singlish`` source."""
    source = BY_KEY["singlish"]
    folder = root / source.key
    folder.mkdir(parents=True)
    export = chat(
        [
            message(1, "hello"),
            message(2, "dinner tomorrow at 19:00?", sender="Bob", sender_id="user1002"),
            message(3, "yes, booked", reply_to_message_id=2),
            message(4, "see you"),
        ],
        name="Two friends",
        type_="personal_chat",
        id_=4242,
    )
    (folder / "result.json").write_text(json.dumps(export), encoding="utf-8")
    return source


def test_a_window_is_read_through_the_importer_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MLENS_REAL_CACHE", str(tmp_path))
    source = write_export(tmp_path)
    assert is_cached(source)
    messages = window_messages(Window("singlish", 2, 3))
    assert [(m.messenger_message_id, m.reply_to) for m in messages] == [(2, None), (3, 2)]
    built = store_path("singlish").stat().st_mtime_ns
    window_messages(Window.parse("singlish:1-4"))
    assert store_path("singlish").stat().st_mtime_ns == built  # imported once
    assert corpus_cli.main(["show", "singlish:2-3"]) == 0
    shown = capsys.readouterr().out
    assert "#3 |" in shown
    assert "reply_to=#2" in shown
    assert "    dinner tomorrow at 19:00?" in shown


def test_without_the_cache_each_command_says_so_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MLENS_REAL_CACHE", str(tmp_path / "none"))
    assert cache_root() == tmp_path / "none"
    with pytest.raises(CorpusMissing, match="not cached"):
        window_messages(Window("blitz", 1, 40))
    for argv in (["status"], ["show", "blitz:1-40"]):
        assert corpus_cli.main(argv) == 0
        out = capsys.readouterr().out
        assert out.count("\n") == 1
        assert "not cached" in out


def test_a_window_spec_is_checked() -> None:
    assert Window.parse("payroll:-999644567--999644500").first_id == -999644567
    for bad in ("blitz", "nowhere:1-40", "blitz:40-1"):
        with pytest.raises(ValueError, match=r"window|unknown|ends"):
            Window.parse(bad)


def test_fetch_copies_the_paths_at_the_commit(tmp_path: Path) -> None:
    git = tmp_path / "mirror" / "someone+export" / "repo"
    work = tmp_path / "work"
    work.mkdir()
    (work / "index.html").write_text("page one", encoding="utf-8")
    (work / "messages2.html").write_text("page two", encoding="utf-8")

    def run(*args: str) -> str:
        done = subprocess.run(args, cwd=work, check=True, capture_output=True, text=True)
        return done.stdout.strip()

    run("git", "init", "-q", "--bare", str(git))
    run("git", f"--git-dir={git}", f"--work-tree={work}", "add", ".")
    run(
        "git", f"--git-dir={git}", f"--work-tree={work}",
        "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", "export",
    )  # fmt: skip
    commit = run("git", f"--git-dir={git}", "rev-parse", "HEAD")
    source = RealSource(
        "demo", 0, "someone/export", commit, ("index.html", "messages2.html"), "html",
        "group", "en",
    )  # fmt: skip
    real_corpus = script()
    cache = tmp_path / "cache"
    assert real_corpus.fetch_source(source, tmp_path / "mirror", cache) is None
    assert (cache / "demo" / "messages.html").read_text(encoding="utf-8") == "page one"
    assert (cache / "demo" / "messages2.html").is_file()
    missing = real_corpus.fetch_source(source, tmp_path / "elsewhere", cache)
    assert missing is not None
    assert "no snapshot of someone/export" in missing


@pytest.mark.skipif(
    not all(is_cached(BY_KEY[str(r["source"])]) for r in ROWS if r.get("source") in BY_KEY),
    reason="the real corpus is not cached (python scripts/real_corpus.py fetch)",
)
@pytest.mark.slow
def test_labelled_ids_are_messages_of_their_windows() -> None:
    for row in ROWS:
        messages = window_messages(Window(row["source"], row["first_id"], row["last_id"]))
        regular = {m.messenger_message_id for m in messages if not m.is_service}
        assert 30 <= len(regular) <= 80, row["id"]
        for act in ACTS:
            assert set(row[act]) <= regular, (row["id"], act, set(row[act]) - regular)
        assert {q for q, _ in row["answered"]} <= regular, row["id"]


if __name__ == "__main__":
    sys.exit(pytest.main([__file__]))
