"""The README documents every setting and both commands."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from settings_table import rows  # noqa: E402


def test_readme_names_every_setting_and_the_two_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    missing = [var for var, _, _ in rows() if f"`{var}`" not in readme]
    assert not missing, f"README lacks settings: {missing}"
    assert "make serve" in readme
    assert "make test" in readme
