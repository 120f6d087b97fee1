"""What a request needs from the app: the workspaces, the ingest jobs, a workspace's engine."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Path, Request

from polyrag.api.access import Grant
from polyrag.api.jobs import Jobs
from polyrag.api.workspaces import Workspaces
from polyrag.engine import Engine
from polyrag.errors import PolyragError


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


def allowed(request: Request, workspace: str) -> bool:
    """Whether the request's access token (if the server requires one) opens `workspace`."""
    grant: Grant | None = getattr(request.state, "grant", None)
    return grant is None or grant.allows(workspace)


def check_allowed(request: Request, workspace: str) -> None:
    """For a workspace named in a body (the OpenAI endpoint's `model`), where the middleware,
    which reads paths, cannot see it."""
    if not allowed(request, workspace):
        raise ForbiddenError(f"this token does not open workspace {workspace!r}")


class ForbiddenError(PolyragError):
    hint = "ask for a token that allows it"


WorkspacesDep = Annotated[Workspaces, Depends(workspaces)]
JobsDep = Annotated[Jobs, Depends(jobs)]
EngineDep = Annotated[Engine, Depends(engine)]
