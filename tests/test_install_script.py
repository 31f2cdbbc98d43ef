"""``scripts/install.py``: uv installs with the indexes, find-links, constraints,
certificate and timeout pip is configured with, its cache beside pip's."""

from __future__ import annotations

import importlib.util
import itertools
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]

SHOWN = """\
:env:.find-links='/opt/wheels /srv/more'
:env:.default-timeout='180'
global.cert='/etc/ssl/certs/ca-certificates.crt'
global.constraint='/etc/xdg/pip/constraints.txt'
global.extra-index-url='file:///opt/pypi/simple file:///opt/pypi-more/simple'
global.find-links='/ignored/by/the/environment'
global.index-url='https://mirror.example/simple'
install.index-url='https://install.example/simple'
"""


@pytest.fixture(scope="module")
def install() -> ModuleType:
    spec = importlib.util.spec_from_file_location("install", ROOT / "scripts" / "install.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["install"] = module
    spec.loader.exec_module(module)
    return module


def test_pip_settings_keep_pips_precedence(install: ModuleType) -> None:
    config = install.parse_config(SHOWN)
    assert config["find-links"] == "/opt/wheels /srv/more"  # the environment wins
    assert config["index-url"] == "https://install.example/simple"  # install. over global.
    assert config["constraint"] == "/etc/xdg/pip/constraints.txt"


def test_uv_gets_every_index_link_and_constraint_with_pips_version_rule(
    install: ModuleType,
) -> None:
    config = install.parse_config(SHOWN)
    command = install.uv_command(Path("/v/bin/uv"), "/v/bin/python", config, ["-e", ".[x]"])
    assert command[:5] == ["/v/bin/uv", "pip", "install", "--python", "/v/bin/python"]
    pairs = list(itertools.pairwise(command))
    assert ("--index-strategy", "unsafe-best-match") in pairs
    assert "--compile-bytecode" not in command  # Python compiles what it imports, once
    assert ("--index-url", "https://install.example/simple") in pairs
    assert ("--extra-index-url", "file:///opt/pypi/simple") in pairs
    assert ("--extra-index-url", "file:///opt/pypi-more/simple") in pairs
    assert ("--find-links", "/opt/wheels") in pairs
    assert ("--find-links", "/srv/more") in pairs
    assert ("--find-links", "/ignored/by/the/environment") not in pairs
    assert ("--constraint", "/etc/xdg/pip/constraints.txt") in pairs
    assert command[-2:] == ["-e", ".[x]"]


def test_uvs_cache_follows_pips_and_takes_its_certificate_and_timeout(
    install: ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PIP_CACHE_DIR", str(tmp_path))
    for name in ("UV_CACHE_DIR", "SSL_CERT_FILE", "UV_HTTP_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)
    env = install.uv_environment(install.parse_config(SHOWN))
    assert env["UV_CACHE_DIR"] == str(tmp_path / "uv")  # an empty pip cache: an empty uv one
    assert env["SSL_CERT_FILE"] == "/etc/ssl/certs/ca-certificates.crt"
    assert env["UV_HTTP_TIMEOUT"] == "180"
    monkeypatch.setenv("UV_CACHE_DIR", "/chosen")
    assert install.uv_environment({})["UV_CACHE_DIR"] == "/chosen"  # the user's choice kept
