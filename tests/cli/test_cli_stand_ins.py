"""``cli.stand_ins``: what a stand-in holds of a module is the real thing when it is used.

(That ``mlens`` itself, which imports Typer and draws its help with stand-ins, gets the
real modules when it uses them is checked in a fresh interpreter, in
``test_cli_lazy_imports.py``.)
"""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from cli.stand_ins import (
    StandInModule,
    import_with_stand_ins,
    real_module,
    stand_in_class,
    stand_in_module,
)


def test_a_stand_in_class_is_the_real_class_when_used() -> None:
    standin = stand_in_class("uuid", "UUID")
    value = "12345678-1234-5678-1234-567812345678"
    assert standin(value) == uuid.UUID(value)
    assert isinstance(uuid.UUID(value), standin)
    assert issubclass(uuid.UUID, standin)
    assert standin == uuid.UUID
    assert uuid.UUID in (str, standin)  # how Typer tells a UUID option
    assert int in {standin: 1, int: 2}
    assert hash(standin) == hash(uuid.UUID)
    decoder: Any = stand_in_class("json", "JSONDecoder")
    assert decoder.decode is json.JSONDecoder.decode  # a class attribute is the real one's


def test_a_stand_in_module_reads_its_names_from_the_real_module() -> None:
    module = stand_in_module("json", classes=("JSONDecoder",), mappings=("__all__",))
    assert module.dumps is json.dumps
    assert module.JSONDecoder == json.JSONDecoder
    assert list(module.__all__) == json.__all__  # type: ignore[call-overload]
    assert not hasattr(module, "__path__")  # a question of the import system, not the real


def test_import_with_stand_ins_leaves_none_in_sys_modules(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A module imported with a stand-in for one not imported yet: gone afterwards, and
    # what it took of it is the real thing once it is used.
    for name in ("colorsys", "stand_in_target"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    import_with_stand_ins("stand_in_target", {"colorsys": ()})
    target = sys.modules["stand_in_target"]
    assert isinstance(target.colorsys, StandInModule)
    assert "colorsys" not in sys.modules
    assert target.hsv() == (1.0, 0.0, 0.0)
    assert "colorsys" in sys.modules
    assert real_module("colorsys") is sys.modules["colorsys"]
