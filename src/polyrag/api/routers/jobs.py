"""Ingest jobs: progress by polling or as server-sent events, and cancel."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fastapi import APIRouter
from fastapi.sse import EventSourceResponse, ServerSentEvent

from polyrag.api.deps import JobsDep, WorkspaceName, WorkspacesDep
from polyrag.api.jobs import Job, Jobs

router = APIRouter(prefix="/api/v1/workspaces/{workspace}/jobs", tags=["jobs"])

_BEAT_S = 15.0  # a progress event at least this often, so proxies keep the stream open


@router.get("", summary="The workspace's ingest jobs, newest first")
def list_jobs(workspace: WorkspaceName, jobs: JobsDep) -> dict[str, Any]:
    return {"jobs": [job.to_dict() for job in jobs.list(workspace)]}


@router.get("/{job_id}", summary="One ingest job's progress")
def get_job(
    workspace: WorkspaceName, job_id: str, jobs: JobsDep, workspaces: WorkspacesDep
) -> dict[str, Any]:
    workspaces.engine(workspace)  # 404 for a workspace that does not exist
    return jobs.get(job_id, workspace).to_dict()


@router.get("/{job_id}/events", response_class=EventSourceResponse, summary="Follow a job")
def follow_job(workspace: WorkspaceName, job_id: str, jobs: JobsDep) -> Iterator[ServerSentEvent]:
    """`progress` events as files are done, then one `done` event with the final state."""
    job = jobs.get(job_id, workspace)
    yield from _progress(jobs, job)


@router.post("/{job_id}/cancel", summary="Stop a job after the source it is committing")
def cancel_job(workspace: WorkspaceName, job_id: str, jobs: JobsDep) -> dict[str, Any]:
    return jobs.cancel(job_id, workspace).to_dict()


def _progress(jobs: Jobs, job: Job) -> Iterator[ServerSentEvent]:
    while not jobs.wait(job, _BEAT_S):
        yield ServerSentEvent(data=job.to_dict(), event="progress")
    yield ServerSentEvent(data=job.to_dict(), event="done")
