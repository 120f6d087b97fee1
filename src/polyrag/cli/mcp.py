"""`polyrag mcp`: polyrag as an MCP server over stdio, for assistants that start it."""

from __future__ import annotations

import typer

from polyrag.api.workspaces import Workspaces
from polyrag.cli.common import HomeOption, err
from polyrag.errors import PolyragError
from polyrag.settings import load_settings


def mcp(home: HomeOption = None) -> None:
    """Serve the home's workspaces to an MCP client over stdin and stdout (tools: search, ask,
    list_sources, get_passage; ingest with server.mcp_ingest)."""
    from polyrag.mcp.server import build_server

    try:
        settings = load_settings(home)
    except PolyragError as error:
        err.print(f"error: {error.one_line()}", markup=False)
        raise typer.Exit(2) from None
    workspaces = Workspaces(settings)
    try:
        build_server(workspaces, allow_ingest=settings.server.mcp_ingest).run("stdio")
    finally:
        workspaces.close()
