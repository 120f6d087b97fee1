"""What a request needs from the app: the workspaces, the ingest jobs, a workspace's engine."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Path, Request

from polyrag.api.jobs import Jobs
from polyrag.api.workspaces import Workspaces
from polyrag.engine import Engine


def workspaces(request: Request) -> Workspaces:
    registry: Workspaces = request.app.state.workspaces
    return registry


def jobs(request: Request) -> Jobs:
    running: Jobs = request.app.state.jobs
    return running


WorkspaceName = Annotated[str, Path(description="A workspace's name; `default` is the home.")]


def engine(workspace: WorkspaceName, request: Request) -> Engine:
    """The workspace's engine (404 when there is no such workspace)."""
    return workspaces(request).engine(workspace)


WorkspacesDep = Annotated[Workspaces, Depends(workspaces)]
JobsDep = Annotated[Jobs, Depends(jobs)]
EngineDep = Annotated[Engine, Depends(engine)]
