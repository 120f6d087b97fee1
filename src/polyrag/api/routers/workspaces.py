"""Workspaces: each its own home, sources and chats."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response

from polyrag.api.deps import JobsDep, WorkspaceName, WorkspacesDep, allowed, check_allowed
from polyrag.api.jobs import FINISHED
from polyrag.api.schemas import WorkspaceBody
from polyrag.api.workspaces import WorkspaceBusyError

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
def delete_workspace(
    workspace: WorkspaceName, workspaces: WorkspacesDep, jobs: JobsDep
) -> Response:
    """Refused while an ingest job works in it (cancel the job first)."""
    busy = [job for job in jobs.list(workspace) if job.status not in FINISHED]
    if busy:
        raise WorkspaceBusyError(
            f"an ingest job ({busy[0].job_id}) is working in workspace {workspace!r}",
            hint=f"cancel it at /api/v1/workspaces/{workspace}/jobs/{busy[0].job_id}/cancel",
        )
    workspaces.delete(workspace)
    return Response(status_code=204)
