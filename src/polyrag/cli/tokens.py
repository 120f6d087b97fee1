"""`polyrag tokens`: access tokens for a server that other machines reach."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from polyrag.api.access import TokenStore, tokens_of
from polyrag.cli.common import HomeOption, JsonOption, err, out, print_json
from polyrag.errors import PolyragError
from polyrag.settings import load_settings

tokens_app = typer.Typer(
    help="Access tokens for `polyrag serve` on an address other machines reach.",
    no_args_is_help=True,
)


@tokens_app.command("add")
def add(
    name: Annotated[str, typer.Argument(help="A name to know the token by.")],
    workspace: Annotated[
        list[str] | None,
        typer.Option("--workspace", help="Limit it to this workspace (repeat for several)."),
    ] = None,
    read_only: Annotated[
        bool, typer.Option("--read-only", help="It may ask and search, not change sources.")
    ] = False,
    home: HomeOption = None,
) -> None:
    """Make a token; it is printed once and stored only as a hash."""
    with _store(home) as store:
        secret = store.add(name, workspaces=workspace or None, read_only=read_only)
    out.print(secret, markup=False)
    err.print("keep it now: it is not shown again", markup=False, style="dim")


@tokens_app.command("list")
def list_tokens(home: HomeOption = None, as_json: JsonOption = False) -> None:
    """The tokens' names and what each allows (never the tokens themselves)."""
    with _store(home) as store:
        grants = store.grants()
    if as_json:
        print_json({"tokens": [grant.to_dict() for grant in grants]})
        return
    for grant in grants:
        scope = ", ".join(sorted(grant.workspaces)) if grant.workspaces else "every workspace"
        kind = "read-only" if grant.read_only else "read and write"
        out.print(f"{grant.name}: {scope}, {kind}", markup=False)


@tokens_app.command("remove")
def remove(
    name: Annotated[str, typer.Argument(help="The token's name.")], home: HomeOption = None
) -> None:
    """Revoke a token at once."""
    with _store(home) as store:
        store.remove(name)
    out.print(f"removed {name}", markup=False)


@contextmanager
def _store(home: Path | None) -> Iterator[TokenStore]:
    """The home's tokens; polyrag errors end the command with one line."""
    store: TokenStore | None = None
    try:
        store = tokens_of(Path(load_settings(home).home))
        yield store
    except PolyragError as error:
        err.print(f"error: {error.one_line()}", markup=False)
        raise typer.Exit(2) from None
    finally:
        if store is not None:
            store.close()
