"""The data folder and the dev key against other users of the machine (issue 33).

A link planted at the key's path is replaced, never followed; a folder others can write
is fixed when it is ours and refused in one line when it is not.
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

import pytest

from toolkit.apikeys import SCOPES, ensure_dev_key, verify_api_key
from toolkit.config import Settings
from toolkit.errors import ConfigError
from toolkit.store import SQLiteStore
from toolkit.store.folder import guard_data_dir, read_private, write_private
from toolkit.workspace import Workspace


@pytest.fixture
def data(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    folder.mkdir(mode=0o700)
    return folder


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    target = tmp_path / "victim.txt"
    target.write_text("precious\n")
    return target


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_a_link_planted_at_the_key_path_is_replaced_never_followed(
    store: SQLiteStore, data: Path, victim: Path
) -> None:
    key_path = data / "dev-api-key"
    key_path.symlink_to(victim)
    key = ensure_dev_key(store, key_path)
    assert victim.read_text() == "precious\n"
    assert not key_path.is_symlink()
    assert stat.S_ISREG(os.lstat(key_path).st_mode)
    assert _mode(key_path) == 0o600
    assert key_path.read_text().strip() == key
    assert verify_api_key(store, key).scopes == SCOPES


def test_a_link_at_the_old_temporary_name_is_not_followed(
    store: SQLiteStore, data: Path, victim: Path
) -> None:
    (data / ".dev-api-key.tmp").symlink_to(victim)  # the fixed name the key once went by
    ensure_dev_key(store, data / "dev-api-key")
    assert victim.read_text() == "precious\n"
    assert [p.name for p in data.iterdir() if p.name.endswith(".tmp")] == [".dev-api-key.tmp"]


def test_a_link_to_a_valid_key_is_not_taken_as_the_key(
    store: SQLiteStore, data: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "planted"
    planted = ensure_dev_key(store, elsewhere / "key")
    (data / "dev-api-key").symlink_to(elsewhere / "key")
    assert ensure_dev_key(store, data / "dev-api-key") != planted


@pytest.mark.timeout(10)
def test_a_pipe_at_the_key_path_is_replaced_at_once(store: SQLiteStore, data: Path) -> None:
    os.mkfifo(data / "dev-api-key")
    assert read_private(data / "dev-api-key") is None  # opened without waiting for a writer
    key = ensure_dev_key(store, data / "dev-api-key")
    assert (data / "dev-api-key").read_text().strip() == key


def test_a_folder_at_the_key_path_is_one_line(store: SQLiteStore, data: Path) -> None:
    (data / "dev-api-key").mkdir()
    with pytest.raises(ConfigError) as refused:
        ensure_dev_key(store, data / "dev-api-key")
    assert "\n" not in str(refused.value)
    assert not [p for p in data.iterdir() if p.name.endswith(".tmp")]  # nothing left behind


def test_a_secret_is_written_whole_and_private_whatever_the_umask(data: Path) -> None:
    old = os.umask(0)
    try:
        write_private(data / "secret", "x" * 100_000)
    finally:
        os.umask(old)
    assert _mode(data / "secret") == 0o600
    assert (data / "secret").read_text() == "x" * 100_000


def test_our_folder_that_others_can_write_is_fixed_with_a_warning(
    data: Path, caplog: pytest.LogCaptureFixture
) -> None:
    os.chmod(data, 0o777)
    with caplog.at_level(logging.WARNING, logger="toolkit.store.folder"):
        guard_data_dir(data)
    assert _mode(data) == 0o755
    (record,) = caplog.records
    assert "writable by others" in record.getMessage()
    caplog.clear()
    guard_data_dir(data)  # a private folder: quiet
    assert not caplog.records


def test_a_folder_of_another_user_that_others_can_write_is_refused(
    data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    os.chmod(data, 0o775)
    monkeypatch.setattr(os, "geteuid", lambda: os.getuid() + 4242)
    with pytest.raises(ConfigError) as refused:
        guard_data_dir(data)
    assert "others can write it" in str(refused.value)
    assert "MLENS_DATA_DIR" in str(refused.value)
    assert _mode(data) == 0o775  # not ours: left as it is


def test_a_shared_sticky_folder_is_refused_even_when_ours(data: Path, store: SQLiteStore) -> None:
    os.chmod(data, 0o1777)
    with pytest.raises(ConfigError):
        ensure_dev_key(store, data / "dev-api-key")
    assert _mode(data) == 0o1777
    assert not (data / "dev-api-key").exists()


def test_a_folder_others_cannot_write_is_used_as_it_is(data: Path) -> None:
    os.chmod(data, 0o755)
    guard_data_dir(data)
    assert _mode(data) == 0o755
    assert _mode(guard_data_dir(data / "new" / "deeper")) == 0o700


def test_the_workspace_refuses_a_data_folder_of_others(
    data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    os.chmod(data, 0o777)
    monkeypatch.setattr(os, "geteuid", lambda: os.getuid() + 4242)
    with pytest.raises(ConfigError):
        Workspace(Settings(data_dir=data))
    assert not (data / "mlens.sqlite3").exists()
