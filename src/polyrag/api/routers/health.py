"""Is the server up, and which language models can answer."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from polyrag import __version__
from polyrag.api.deps import WorkspacesDep
from polyrag.api.workspaces import DEFAULT

router = APIRouter(tags=["health"])


@router.get("/health", summary="The server is up")
def health(workspaces: WorkspacesDep) -> dict[str, Any]:
    return {"status": "ok", "version": __version__, "workspaces": len(workspaces.names())}


@router.get("/api/v1/providers", summary="The language models in the fallback chain")
def providers(workspaces: WorkspacesDep) -> dict[str, Any]:
    """Each provider in the order it is tried, with its health and its last error; `offline`
    is true when no remote provider can answer (none is configured, or none is reachable), so
    answers come from the embedded model."""
    listed = workspaces.engine(DEFAULT).chat.status()
    online = any(p["kind"] == "remote" and p["healthy"] for p in listed)
    return {"providers": listed, "offline": not online}
