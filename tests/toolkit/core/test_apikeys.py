"""API keys: format, hash at rest, constant-time verification, scopes, revocation, dev key."""

from __future__ import annotations

import hashlib
import hmac
import sqlite3
import stat
from datetime import timedelta
from pathlib import Path

import pytest

from toolkit.apikeys import (
    SCOPES,
    check_scope,
    create_api_key,
    ensure_dev_key,
    key_prefix,
    list_api_keys,
    revoke_api_key,
    verify_api_key,
)
from toolkit.errors import ApiKeyNotFound, AuthenticationError, InvalidRequest, PermissionDenied
from toolkit.store import SQLiteStore


def test_key_format_and_record(store: SQLiteStore) -> None:
    token, record = create_api_key(store, name=" ci bot ", scopes=["search.read", "sources.read"])
    prefix, secret = token[:12], token[13:]
    assert token.startswith("mlk_")
    assert key_prefix(token) == record.prefix == prefix
    assert len(secret) >= 43  # 32 random bytes, base64url: 256 bits
    assert record.name == "ci bot"
    assert record.scopes == {"search.read", "sources.read"}
    assert record.active
    assert record.last_used_at is None


def test_keys_are_unique(store: SQLiteStore) -> None:
    tokens = {create_api_key(store, name="k", scopes=["search.read"])[0] for _ in range(50)}
    assert len(tokens) == 50
    assert len({key_prefix(t) for t in tokens}) == 50


def test_only_the_hash_is_stored(store: SQLiteStore, db: Path, tmp_path: Path) -> None:
    token, _ = create_api_key(store, name="secretive", scopes=SCOPES)
    secret = token.split("_", 2)[2]
    store.close()
    with sqlite3.connect(db) as conn:
        dump = "\n".join(conn.iterdump())
    assert hashlib.sha256(token.encode()).hexdigest() in dump
    assert secret not in dump
    assert token not in dump
    for path in tmp_path.iterdir():  # the raw pages and the WAL too
        assert secret.encode() not in path.read_bytes()


def test_verify_accepts_the_key_and_records_use(store: SQLiteStore) -> None:
    token, record = create_api_key(store, name="k", scopes=["search.read"])
    verified = verify_api_key(store, token)
    assert verified.id == record.id
    (stored,) = list_api_keys(store)
    assert stored.last_used_at is not None


def test_last_use_is_written_at_most_once_a_minute(store: SQLiteStore) -> None:
    token, _ = create_api_key(store, name="k", scopes=["search.read"])
    verify_api_key(store, token)
    first = list_api_keys(store)[0].last_used_at
    assert first is not None
    verify_api_key(store, token, now=first + timedelta(seconds=30))
    assert list_api_keys(store)[0].last_used_at == first
    later = first + timedelta(minutes=2)
    verify_api_key(store, token, now=later)
    assert list_api_keys(store)[0].last_used_at == later


@pytest.mark.parametrize(
    "mangle",
    [
        lambda t: t[:-1] + ("A" if t[-1] != "A" else "B"),  # right prefix, wrong secret
        lambda t: "mlk_ffffffff" + t[12:],  # unknown prefix, right secret
        lambda t: t.upper(),
        lambda t: "",
        lambda t: t + " ",
        lambda t: t.replace("mlk_", "xyz_"),
    ],
    ids=["wrong-secret", "unknown-prefix", "upper", "empty", "trailing-space", "other-scheme"],
)
def test_verify_refuses_anything_else(store: SQLiteStore, mangle: object) -> None:
    token, _ = create_api_key(store, name="k", scopes=["search.read"])
    with pytest.raises(AuthenticationError) as refused:
        verify_api_key(store, mangle(token))  # type: ignore[operator]
    assert refused.value.error == "invalid_token"


def test_verify_compares_digests_in_constant_time(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    token, _ = create_api_key(store, name="k", scopes=["search.read"])
    calls: list[tuple[str, str]] = []
    real = hmac.compare_digest

    def spy(a: str, b: str) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)  # apikeys imports hmac where it compares
    verify_api_key(store, token)
    with pytest.raises(AuthenticationError):
        verify_api_key(store, "mlk_00000000_" + "A" * 43)  # unknown prefix: compared too
    assert len(calls) == 2


def test_revoked_keys_are_refused(store: SQLiteStore) -> None:
    token, record = create_api_key(store, name="k", scopes=["search.read"])
    revoked = revoke_api_key(store, str(record.id))
    assert not revoked.active
    with pytest.raises(AuthenticationError, match="revoked"):
        verify_api_key(store, token)


def test_revoke_by_prefix_or_full_key(store: SQLiteStore) -> None:
    _, first = create_api_key(store, name="one", scopes=["search.read"])
    two, _ = create_api_key(store, name="two", scopes=["search.read"])
    assert revoke_api_key(store, first.prefix).id == first.id
    assert revoke_api_key(store, two).name == "two"
    assert all(not r.active for r in list_api_keys(store))
    with pytest.raises(ApiKeyNotFound):
        revoke_api_key(store, "mlk_00000000")
    with pytest.raises(ApiKeyNotFound):
        revoke_api_key(store, "999")
    with pytest.raises(InvalidRequest):
        revoke_api_key(store, "DROP TABLE api_keys")


@pytest.mark.parametrize(
    ("scopes", "name", "field"),
    [
        (["search.read", "admin"], "k", "scopes"),
        ([], "k", "scopes"),
        (["search.read"], "  ", "name"),
        (["search.read"], "x" * 101, "name"),
    ],
    ids=["unknown-scope", "no-scope", "blank-name", "long-name"],
)
def test_create_refuses_bad_input(
    store: SQLiteStore, scopes: list[str], name: str, field: str
) -> None:
    with pytest.raises(InvalidRequest) as refused:
        create_api_key(store, name=name, scopes=scopes)
    assert refused.value.field == field
    assert list_api_keys(store) == []


def test_unknown_scope_message_lists_the_known_ones(store: SQLiteStore) -> None:
    with pytest.raises(InvalidRequest, match=r"'admin'.*search\.read, sources\.read"):
        create_api_key(store, name="k", scopes=["admin"])


def test_check_scope(store: SQLiteStore) -> None:
    _, record = create_api_key(store, name="k", scopes=["search.read"])
    check_scope(record, "search.read")
    with pytest.raises(PermissionDenied) as denied:
        check_scope(record, "summary.run")
    assert denied.value.scope == "summary.run"


def test_dev_key_is_created_once_and_kept_private(store: SQLiteStore, tmp_path: Path) -> None:
    path = tmp_path / "data" / "dev-api-key"
    key = ensure_dev_key(store, path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text().strip() == key
    assert verify_api_key(store, key).scopes == SCOPES
    assert ensure_dev_key(store, path) == key
    assert len(list_api_keys(store)) == 1


def test_dev_key_is_replaced_when_revoked_or_unknown(store: SQLiteStore, tmp_path: Path) -> None:
    path = tmp_path / "dev-api-key"
    first = ensure_dev_key(store, path)
    revoke_api_key(store, first)
    second = ensure_dev_key(store, path)
    assert second != first
    verify_api_key(store, second)
    # A fresh store (the old database deleted) does not know the kept key.
    fresh = SQLiteStore(":memory:")
    third = ensure_dev_key(fresh, path)
    assert third != second
    assert verify_api_key(fresh, third).scopes == SCOPES
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_keys_are_looked_up_by_the_hash_of_the_whole_key(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    token, record = create_api_key(store, name="k", scopes={"search.read"})
    asked: list[str] = []
    by_hash = store.api_key_by_hash

    def spy(digest: str) -> object:
        asked.append(digest)
        return by_hash(digest)

    monkeypatch.setattr(store, "api_key_by_hash", spy)
    monkeypatch.setattr(store, "api_key_by_prefix", lambda _: pytest.fail("looked up by prefix"))
    assert verify_api_key(store, token, touch=lambda *_: None).id == record.id
    wrong = token[:-1] + ("A" if token[-1] != "A" else "B")
    for bad in (wrong, "not a key at all"):
        with pytest.raises(AuthenticationError):
            verify_api_key(store, bad)  # the right prefix alone finds nothing
    digests = [hashlib.sha256(t.encode()).hexdigest() for t in (token, wrong, "not a key at all")]
    assert asked == digests
