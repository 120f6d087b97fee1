"""Workspaces: each its own home, sources and chats."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response

from polyrag.api.deps import WorkspaceName, WorkspacesDep, allowed, check_allowed
from polyrag.api.schemas import WorkspaceBody

router = APIRouter(prefix="/api/v1/workspaces", tags=["workspaces"])


@router.get("", summary="List the workspaces (those the access token opens)")
def list_workspaces(workspaces: WorkspacesDep, request: Request) -> dict[str, Any]:
    names = [name for name in workspaces.names() if allowed(request, name)]
    return {"workspaces": [{"name": name} for name in names]}


@router.post("", status_code=201, summary="Create a workspace")
def create_workspace(
    body: WorkspaceBody, workspaces: WorkspacesDep, request: Request
) -> dict[str, Any]:
    check_allowed(request, body.name)
    workspaces.create(body.name)
    return {"name": body.name}


@router.delete("/{workspace}", status_code=204, summary="Delete a workspace and its index")
def delete_workspace(workspace: WorkspaceName, workspaces: WorkspacesDep) -> Response:
    workspaces.delete(workspace)
    return Response(status_code=204)
