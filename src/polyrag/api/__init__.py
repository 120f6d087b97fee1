"""The REST API (FastAPI): `create_app(settings)`; `polyrag serve` runs it.

`create_app` is imported on first use, so that the MCP server can use this package's parts
(workspaces, access) while the app, which mounts the MCP server, imports it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from polyrag.api.app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from polyrag.api.app import create_app

        return create_app
    raise AttributeError(f"module 'polyrag.api' has no attribute {name!r}")
