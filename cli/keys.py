"""``mlens keys create / list / revoke``: API keys of the /v1 service.

``create`` writes the key alone on stdout (``KEY=$(mlens keys create ...)`` works) and
everything else, the warning that it is shown only once included, on stderr.
"""

from datetime import datetime
from typing import Annotated

import typer

from cli.filters import JsonOption
from cli.render import key_record, literal, print_json, print_table
from cli.state import console, err_console, store
from toolkit.apikeys import SCOPES, create_api_key, list_api_keys, revoke_api_key


def _when(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M") if value is not None else "—"


def create(
    scope: Annotated[
        list[str],
        typer.Option(
            "--scope",
            "-s",
            help=f"A scope to grant (repeatable): {', '.join(sorted(SCOPES))}.",
        ),
    ],
    name: Annotated[str, typer.Option("--name", "-n", help="What the key is for.")],
) -> None:
    """Create a key with the given scopes and print it once."""
    token, record = create_api_key(store(), name=name, scopes=scope)
    err_console().print(
        f"Created key {record.id} ({literal(record.name)}, prefix {literal(record.prefix)}) "
        f"with scopes {', '.join(sorted(record.scopes))}.",
        highlight=False,
        soft_wrap=True,
    )
    err_console().print(
        "[bold yellow]Store it now: it will not be shown again.[/] "
        "Send it as 'Authorization: Bearer <key>'.",
        highlight=False,
        soft_wrap=True,
    )
    # Plain print: no wrapping or markup may touch the key.
    print(token)


def list_(as_json: JsonOption = False) -> None:
    """List every key (revoked ones too); secrets are never stored, so never shown."""
    records = list_api_keys(store())
    if as_json:
        print_json([key_record(r) for r in records])
        return
    if not records:
        console().print(
            "No API keys yet: create one with `mlens keys create --scope ... --name ...`."
        )
        return
    from rich.table import Table

    table = Table(title="API keys")
    for column in ("id", "name", "prefix", "scopes", "created", "last used", "revoked"):
        # The prefix is what `revoke` takes: never truncate it.
        table.add_column(
            column, justify="right" if column == "id" else "left", no_wrap=column == "prefix"
        )
    for record in records:
        table.add_row(
            str(record.id),
            literal(record.name),
            literal(record.prefix),
            " ".join(sorted(record.scopes)),
            _when(record.created_at),
            _when(record.last_used_at),
            _when(record.revoked_at),
            style="dim" if record.revoked_at else None,
        )
    print_table(table)


def revoke(
    key: Annotated[
        str, typer.Argument(metavar="ID_OR_PREFIX", help="Key id, prefix (mlk_xxxxxxxx) or key.")
    ],
) -> None:
    """Revoke a key: requests with it are refused from now on."""
    record = revoke_api_key(store(), key)
    console().print(
        f"Revoked key {record.id} ({literal(record.name)}, prefix {literal(record.prefix)}) "
        f"at {_when(record.revoked_at)} UTC.",
        highlight=False,
    )
