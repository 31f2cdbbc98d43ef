"""``mlens config``: where the settings come from, so that a ``.env`` left in a folder
never decides in silence (issue 42). It names the files read (the working folder's
``.env``, a search weights file) and each ``MLENS_`` variable set with where it is set
(the environment wins over ``.env``): paths and names only, never a value, since keys and
passwords are among them. ``mlens serve`` prints the same sources in one line at start
(``sources_line``).
"""

import os
from pathlib import Path
from typing import Annotated, Any

import typer

from cli.state import console

PREFIX = "MLENS_"
ENVIRONMENT = "environment"


def _dotenv() -> tuple[Path | None, list[str]]:
    """The working folder's ``.env`` (absolute) and the ``MLENS_`` names it sets, or
    ``(None, [])`` when there is none."""
    from toolkit.config import ENV_FILE

    if not ENV_FILE.is_file():
        return None, []
    from dotenv import dotenv_values

    names = [k.upper() for k in dotenv_values(ENV_FILE) if k.upper().startswith(PREFIX)]
    return ENV_FILE.resolve(), sorted(set(names))


def sources() -> dict[str, Any]:
    """Where the settings come from: ``files`` (``what`` and ``path``) and ``variables``
    (each ``MLENS_`` ``variable`` and where it is ``set_in``: ``environment`` or the
    ``.env`` path)."""
    env_file, in_file = _dotenv()
    environment = {k.upper(): v for k, v in os.environ.items() if k.upper().startswith(PREFIX)}
    variables = [{"variable": name, "set_in": ENVIRONMENT} for name in sorted(environment)]
    variables += [
        {"variable": name, "set_in": str(env_file)} for name in in_file if name not in environment
    ]
    files = [{"what": ".env", "path": str(env_file)}] if env_file is not None else []
    weights = environment.get("MLENS_WEIGHTS_FILE")
    if weights is None and env_file is not None and "MLENS_WEIGHTS_FILE" in in_file:
        from dotenv import dotenv_values

        found = {k.upper(): v for k, v in dotenv_values(env_file).items()}
        weights = found.get("MLENS_WEIGHTS_FILE")
    if weights:
        files.append({"what": "search weights", "path": str(Path(weights).resolve())})
    return {"files": files, "variables": variables}


def sources_line() -> str:
    """The sources in one line: ``settings: environment (2 MLENS_ variables), /x/.env
    (1), search weights /x/w.json``."""
    found = sources()
    counts: dict[str, int] = {}
    for variable in found["variables"]:
        counts[variable["set_in"]] = counts.get(variable["set_in"], 0) + 1
    parts = [f"environment ({counts.get(ENVIRONMENT, 0)} {PREFIX} variables)"]
    for file in found["files"]:
        if file["what"] == ".env":
            parts.append(f"{file['path']} ({counts.get(file['path'], 0)})")
        else:
            parts.append(f"{file['what']} {file['path']}")
    return "settings: " + ", ".join(parts)


def config(
    as_json: Annotated[
        bool, typer.Option("--json", help="One JSON document: files and variables.")
    ] = False,
) -> None:
    """Show where the settings come from: the files read and the MLENS_ variables set.

    Paths and variable names only, never a value (keys and passwords are among them);
    a variable set in both the environment and .env is the environment's.
    """
    import json

    found = sources()
    if as_json:
        typer.echo(json.dumps(found, ensure_ascii=False))
        return
    out = console()
    if not found["files"]:
        out.print("No settings file read (no .env in this folder).", highlight=False, markup=False)
    for file in found["files"]:
        out.print(f"{file['what']}: {file['path']}", highlight=False, markup=False, soft_wrap=True)
    if not found["variables"]:
        out.print(
            f"No {PREFIX} variable set: every setting has its default.",
            highlight=False,
            markup=False,
        )
    for variable in found["variables"]:
        out.print(
            f"{variable['variable']}  ({variable['set_in']})",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
