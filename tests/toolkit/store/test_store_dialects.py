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


def test_every_migration_names_a_variant_for_every_dialect() -> None:
    from toolkit.store.dialect import DIALECTS, Dialect
    from toolkit.store.migrations import MIGRATIONS, Migration, Variant, everywhere

    assert {cls.name for cls in Dialect.__subclasses__()} == set(DIALECTS)
    for migration in MIGRATIONS:
        assert set(migration.variants) == set(DIALECTS), migration.name
    with pytest.raises(ValueError, match=r"missing \['sqlite'\]"):
        Migration("m099_pg_only", {"postgres": Variant("CREATE TABLE x (a {int})")})
    with pytest.raises(ValueError, match="skips sqlite without a reason"):
        Migration("m099_quiet", {"postgres": Variant("SELECT 1"), "sqlite": Variant(None)})
    with pytest.raises(ValueError, match=r"unknown \['mysql'\]"):
        Migration("m099_x", {d: Variant("SELECT 1") for d in (*DIALECTS, "mysql")})
    shared = everywhere("m099_y", "CREATE TABLE y (a {blob})", extra={"postgres": "SELECT 2"})
    lite, pg = SQLiteDialect(":memory:"), PostgresDialect("postgresql://u@127.0.0.1:1/db")
    assert shared.statements(lite) == ["CREATE TABLE y (a BLOB)"]
    assert shared.statements(pg) == ["CREATE TABLE y (a BYTEA)", "SELECT 2"]
    (buckets,) = [m for m in MIGRATIONS if m.name == "m005_rate_buckets"]
    assert buckets.name_in(lite) is None
    assert buckets.variants["sqlite"].reason


def test_a_dialect_that_is_not_registered_fails_when_it_is_defined() -> None:
    from toolkit.store.dialect import Dialect

    with pytest.raises(TypeError, match="'mysql' is not in DIALECTS"):

        class MySQLDialect(Dialect):  # pragma: no cover - never made
            name = "mysql"


def test_message_store_is_the_union_of_small_protocols_and_rate_buckets_are_optional(
    tmp_path: Path,
) -> None:
    from toolkit.store import SQLiteStore, base

    parts = (
        base.Writes,
        base.SourceStore,
        base.MessageReader,
        base.MessageWriter,
        base.VectorStore,
        base.KeyStore,
        base.CacheStore,
        base.Ledger,
        base.ScheduleStore,
        base.AlertStore,
        base.PostStore,
        base.DeliveryCopies,
        base.HealthCheck,
    )

    def methods(protocol: type) -> set[str]:
        return {n for n, v in vars(protocol).items() if callable(v) and not n.startswith("_")}

    names = [methods(p) for p in parts]
    assert sum(len(n) for n in names) == len(set().union(*names))  # each method once
    assert set().union(*names) == {n for n in dir(base.MessageStore) if not n.startswith("_")}
    assert all(len(n) <= 13 for n in names)
    lite = SQLiteStore(tmp_path / "s.sqlite3")
    try:
        assert not isinstance(lite, base.RateBuckets)
        assert all(hasattr(lite, n) for n in set().union(*names))
    finally:
        lite.close()
    from toolkit.store.postgres import PostgresStore

    assert issubclass(PostgresStore, base.RateBuckets)
