"""One store over dialects: a backend is its dialect alone (a few functions), the shared
modules never reach for one, and the dialects' own statements are what they claim."""

from __future__ import annotations

import ast
from pathlib import Path

import grimp
import pytest

from toolkit.store.dialect import rewrite
from toolkit.store.postgres import PostgresDialect
from toolkit.store.sqlite import SQLiteDialect

STORE = Path(__file__).resolve().parents[3] / "toolkit" / "store"
DIALECTS = ("sqlite.py", "postgres.py")


def _functions(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


@pytest.mark.parametrize("module", DIALECTS)
def test_a_backend_is_a_dialect_of_at_most_ten_functions(module: str) -> None:
    assert len(_functions(STORE / module)) <= 10, _functions(STORE / module)


def test_shared_modules_import_no_dialect_and_no_module_imports_itself_back() -> None:
    graph = grimp.build_graph("toolkit")
    store = sorted(m for m in graph.modules if m.startswith("toolkit.store."))
    backends = {"toolkit.store.sqlite", "toolkit.store.postgres"}
    for module in store:
        imported = graph.find_modules_directly_imported_by(module)
        if module not in backends | {"toolkit.store.backends"}:  # the table by URL scheme
            assert not imported & backends, (module, imported & backends)
        for other in imported & set(store):
            assert not graph.chain_exists(importer=other, imported=module), (module, other)


def test_shared_sql_is_rewritten_for_each_driver() -> None:
    sql = "SELECT * FROM t WHERE a = ? AND b LIKE '5%' AND c = ANY(?)"
    assert rewrite(sql, "?") == sql
    assert rewrite(sql, "%s") == "SELECT * FROM t WHERE a = %s AND b LIKE '5%%' AND c = ANY(%s)"


def test_id_lists_are_chunked_or_one_array() -> None:
    lite = SQLiteDialect(":memory:")
    chunks = lite.id_lists("message_id", list(range(1, 1202)))
    assert [len(params) for _, params in chunks] == [500, 500, 201]
    assert chunks[0][0] == f"message_id IN ({','.join('?' * 500)})"
    assert lite.id_lists("message_id", []) == []
    pg = PostgresDialect("postgresql://u:secret@127.0.0.1:1/db")
    ((clause, params),) = pg.id_lists("message_id", [3, 1, 2])
    assert (clause, params) == ("message_id IN (SELECT unnest(?::bigint[]))", [[3, 1, 2]])
    assert "secret" not in pg.label


def test_backends_are_a_table_by_url_scheme(tmp_path: Path) -> None:
    from toolkit.errors import ConfigError
    from toolkit.store.backends import BACKENDS, open_location, scheme_of
    from toolkit.store.sqlite import SQLiteStore

    assert {"", "sqlite", "postgresql", "postgres"} <= set(BACKENDS)
    assert scheme_of("postgresql://u@h/db") == "postgresql"
    assert scheme_of(str(tmp_path / "a:b.sqlite3")) == ""
    assert scheme_of("relative/store.sqlite3") == ""
    for location in (str(tmp_path / "a.sqlite3"), f"sqlite://{tmp_path / 'b.sqlite3'}"):
        store = open_location(location)
        try:
            assert isinstance(store, SQLiteStore)
        finally:
            store.close()
    assert (tmp_path / "b.sqlite3").is_file()
    with pytest.raises(ConfigError, match=r"unsupported database URL mysql://; use one of"):
        open_location("mysql://x@localhost/db")
