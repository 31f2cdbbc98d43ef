"""``scripts/house.py``: the house in numbers, counted from the code of a checkout."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def _house() -> ModuleType:
    spec = importlib.util.spec_from_file_location("house_script", ROOT / "scripts" / "house.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _write(root: Path, relative: str, text: str) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_a_small_house_is_counted_by_layer_and_shape(tmp_path: Path) -> None:
    _write(tmp_path, "toolkit/models.py", "X = 1\n")
    _write(
        tmp_path,
        "toolkit/store/base.py",
        "class Reader(Protocol):\n    def a(self): ...\n    def b(self): ...\n"
        "class Keys(Protocol):\n    def c(self): ...\n",
    )
    _write(tmp_path, "toolkit/search/s.py", "def long():\n" + "    x = 1\n" * 9)
    _write(
        tmp_path,
        "service/routes/r.py",
        "class Base(BaseModel):\n    pass\nclass Hit(Base):\n    id: int\nclass Plain:\n    pass\n",
    )
    _write(
        tmp_path,
        "toolkit/workspace/w.py",
        "class Part:\n    def verb(self): ...\n    def _hidden(self): ...\n"
        "class Workspace(Part):\n    def own(self): ...\n",
    )
    _write(tmp_path, "toolkit/config/s.py", "class Settings:\n    a: int\n    b: int\n")

    report = "\n".join(_house().measure(tmp_path))

    expected = (
        "faces         1 files",
        "features      1 files      10 lines",
        "core          3 files",
        "    10 lines  toolkit/search/s.py:long",
        # Hit is a model through Base; Plain is not.
        "pydantic models defined in a face: 2",
        "service/routes/r.py:Hit",
        "store protocols: 2, the largest Reader with 2 methods",
        "Settings: 2 fields at its top",
        "Workspace: 2 public methods, in itself and 1 parts it inherits",
    )
    assert [line for line in expected if line not in report] == []
    assert "r.py:Plain" not in report


def test_this_checkout_has_its_wire_models_in_one_place() -> None:
    report = _house().measure(ROOT)

    assert not [line for line in report if line.endswith(("Out", "Response", "Info"))]
