"""Print the README's configuration table from ``Settings`` (one row per MLENS_ variable).

``.venv/bin/python scripts/settings_table.py`` — ``tests/test_readme.py`` checks that the
README names every variable.
"""

from __future__ import annotations

from pydantic import BaseModel

from toolkit.config import Settings


def rows() -> list[tuple[str, str, str]]:
    """(variable, default, description) for every setting, nested ones flattened with ``__``."""
    out: list[tuple[str, str, str]] = []
    for name, field in Settings.model_fields.items():
        default = field.get_default(call_default_factory=True)
        if isinstance(default, BaseModel):
            for sub, subfield in type(default).model_fields.items():
                out.append(
                    (
                        f"MLENS_{name.upper()}__{sub.upper()}",
                        repr(getattr(default, sub)),
                        subfield.description or f"{name}.{sub}",
                    )
                )
            continue
        shown = "" if default is None else str(default)
        out.append((f"MLENS_{name.upper()}", shown, field.description or ""))
    return out


def main() -> None:
    """Print the markdown table."""
    print("| Variable | Default | Meaning |")
    print("|---|---|---|")
    for var, default, description in rows():
        print(
            f"| `{var}` | `{default}` | {description} |"
            if default
            else f"| `{var}` | | {description} |"
        )


if __name__ == "__main__":
    main()
