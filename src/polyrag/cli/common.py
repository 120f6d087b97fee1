"""What every command shares: the home and --json options, consoles, errors as one line."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from polyrag.engine import Engine
from polyrag.errors import PolyragError
from polyrag.settings import load_settings

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)

HomeOption = Annotated[
    Path | None,
    typer.Option("--home", help="The polyrag home (default: $POLYRAG_HOME or ./.polyrag)."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON for machines.")]


@contextmanager
def engine_for(home: Path | None, **overrides: Any) -> Iterator[Engine]:
    """An engine for the chosen home (settings overridden as given); polyrag errors end the
    command with one line."""
    engine: Engine | None = None
    try:
        engine = Engine(load_settings(home, **overrides))
        yield engine
    except PolyragError as error:
        err.print(f"error: {error.one_line()}", markup=False)
        raise typer.Exit(2) from None
    except KeyboardInterrupt:
        err.print("interrupted", markup=False)
        raise typer.Exit(130) from None
    finally:
        if engine is not None:
            engine.close()


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
