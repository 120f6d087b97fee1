"""`polyrag serve`: the REST API on this machine."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from polyrag.cli.common import HomeOption, err
from polyrag.errors import PolyragError
from polyrag.settings import Settings, load_settings


def serve(
    host: Annotated[
        str | None,
        typer.Option("--host", help="Address to listen on (default: server.host, 127.0.0.1)."),
    ] = None,
    port: Annotated[
        int | None, typer.Option("--port", help="TCP port (default: server.port, 8731).")
    ] = None,
    home: HomeOption = None,
) -> None:
    """Run the REST API, the web app (at /) and MCP (at /mcp) until Ctrl-C. On an address other
    machines reach it requires access tokens (`polyrag tokens add`), and without any it does
    not start."""
    try:
        settings = _settings(home, host, port)
        import uvicorn

        from polyrag.api import create_app

        app = create_app(settings)
    except PolyragError as error:
        err.print(f"error: {error.one_line()}", markup=False)
        raise typer.Exit(2) from None
    err.print(
        f"polyrag serving {settings.home} at http://{_shown(settings.server.host)}:"
        f"{settings.server.port} (API reference at /docs; Ctrl-C stops)",
        markup=False,
    )
    uvicorn.run(app, host=settings.server.host, port=settings.server.port, log_level="warning")


def _settings(home: Path | None, host: str | None, port: int | None) -> Settings:
    given = {"host": host, "port": port}
    overrides = {key: value for key, value in given.items() if value is not None}
    return load_settings(home, **({"server": overrides} if overrides else {}))


def _shown(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host
