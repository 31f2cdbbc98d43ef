"""A module that imports another at its top and uses it only in a function
(``tests/cli/test_cli_stand_ins.py`` imports it with a stand-in for that one)."""

import colorsys


def hsv() -> tuple[float, float, float]:
    """Pure red, from HSV."""
    return colorsys.hsv_to_rgb(0.0, 1.0, 1.0)
