"""`polyrag serve`: the REST API on this machine."""

from __future__ import annotations

import ipaddress
import socket
from pathlib import Path
from typing import Annotated

import typer

from polyrag.cli.common import HomeOption, err
from polyrag.errors import ConfigError, PolyragError
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
    """Run the REST API (OpenAPI description at /docs) until Ctrl-C."""
    try:
        settings = _settings(home, host, port)
        require_loopback(settings.server.host)
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


def require_loopback(host: str) -> None:
    """A server reachable from other machines needs access tokens, which this server does not
    take yet: it listens on loopback addresses only."""
    if not is_loopback(host):
        raise ConfigError(
            f"refusing to listen on {host}: it is reachable from other machines and no access "
            "tokens are configured",
            hint="listen on 127.0.0.1 (the default) and reach it through an SSH tunnel or a "
            "reverse proxy that authenticates",
        )


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1 or a name that resolves to loopback addresses only ("localhost")."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        pass
    try:
        found = {str(info[4][0]) for info in socket.getaddrinfo(host, None)}
    except OSError:
        return False
    return bool(found) and all(ipaddress.ip_address(a.split("%")[0]).is_loopback for a in found)


def _shown(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host
