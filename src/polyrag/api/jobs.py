"""Ingest jobs: an upload or a request starts one; it runs in its own thread while the server
answers other requests, reports its progress (files done, pages, an estimate of the time left)
and can be cancelled.

A cancelled job stops after the source it is committing: every source is then wholly indexed or
untouched, as after Ctrl-C on `polyrag ingest`; running it again finishes the work.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polyrag.engine import Engine
from polyrag.errors import PolyragError
from polyrag.ingest.pipeline import IngestReport, Progress

QUEUED, RUNNING, DONE, FAILED, CANCELLED = "queued", "running", "done", "failed", "cancelled"
FINISHED = (DONE, FAILED, CANCELLED)
_KEPT = 200  # finished jobs remembered per server, newest first


class JobNotFoundError(PolyragError):
    hint = "list the ingest jobs with GET /api/v1/workspaces/{workspace}/jobs"


class _Cancelled(Exception):
    """Raised from the progress callback: the ingestor stops as it does on Ctrl-C."""


@dataclass
class Job:
    """One ingest run and what it has done so far."""

    job_id: str
    workspace: str
    inputs: list[str]
    status: str = QUEUED
    done: int = 0
    total: int = 0
    current: str = ""
    files: list[dict[str, Any]] = field(default_factory=list)  # one per source, as it settles
    error: str | None = None
    started_at: float | None = None
    finished_at: float | None = None
    created_at: float = field(default_factory=time.time)
    cancel: threading.Event = field(default_factory=threading.Event)
    changed: threading.Condition = field(default_factory=threading.Condition)

    def to_dict(self) -> dict[str, Any]:
        elapsed = (self.finished_at or time.time()) - self.started_at if self.started_at else 0.0
        remaining = None
        if self.status == RUNNING and self.done and self.total > self.done:
            remaining = round(elapsed / self.done * (self.total - self.done), 1)
        return {
            "job_id": self.job_id,
            "workspace": self.workspace,
            "status": self.status,
            "done": self.done,
            "total": self.total,
            "current": self.current,
            "pages": sum(int(f.get("pages") or 0) for f in self.files),
            "ingested": sum(1 for f in self.files if f["outcome"] == "ingested"),
            "unchanged": sum(1 for f in self.files if f["outcome"] == "skipped"),
            "failed": sum(1 for f in self.files if f["outcome"] == "failed"),
            "files": list(self.files),
            "error": self.error,
            "elapsed_s": round(elapsed, 1),
            "eta_s": remaining,
            "cancel_requested": self.cancel.is_set(),
        }


class Jobs:
    """The server's ingest jobs; one runs at a time per workspace, the rest wait their turn."""

    def __init__(self) -> None:
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()
        self._turns: dict[str, threading.Lock] = {}  # workspace → one ingest at a time

    def start(
        self,
        workspace: str,
        engine: Engine,
        inputs: Sequence[Path | str],
        *,
        password: str | None = None,
        force: bool = False,
    ) -> Job:
        job = Job(uuid.uuid4().hex[:16], workspace, [str(i) for i in inputs])
        with self._lock:
            self._jobs[job.job_id] = job
            self._forget_old()
            turn = self._turns.setdefault(workspace, threading.Lock())
        thread = threading.Thread(
            target=self._run,
            args=(job, engine, turn, password, force),
            name=f"polyrag-ingest-{job.job_id}",
            daemon=True,
        )
        thread.start()
        return job

    def get(self, job_id: str, workspace: str | None = None) -> Job:
        with self._lock:
            job = self._jobs.get(job_id)
        if job is None or (workspace is not None and job.workspace != workspace):
            raise JobNotFoundError(f"no ingest job {job_id!r}")
        return job

    def list(self, workspace: str) -> list[Job]:
        with self._lock:
            jobs = [job for job in self._jobs.values() if job.workspace == workspace]
        return sorted(jobs, key=lambda job: job.created_at, reverse=True)

    def cancel(self, job_id: str, workspace: str | None = None) -> Job:
        job = self.get(job_id, workspace)
        if job.status not in FINISHED:
            job.cancel.set()
            _changed(job)
        return job

    def wait(self, job: Job, timeout: float) -> bool:
        """Block until the job changes or `timeout` passes; True when it has finished."""
        with job.changed:
            if job.status not in FINISHED:
                job.changed.wait(timeout)
        return job.status in FINISHED

    def _run(
        self,
        job: Job,
        engine: Engine,
        turn: threading.Lock,
        password: str | None,
        force: bool,
    ) -> None:
        with turn:
            if job.cancel.is_set():
                job.status, job.finished_at = CANCELLED, time.time()
                _changed(job)
                return
            job.status, job.started_at = RUNNING, time.time()
            _changed(job)

            def progress(step: Progress) -> None:
                job.done, job.total, job.current = step.done, step.total, step.path
                job.files.append(
                    {"path": step.path, "outcome": step.outcome, "detail": step.detail}
                )
                _changed(job)
                if job.cancel.is_set():
                    raise _Cancelled

            try:
                report = engine.ingest(job.inputs, progress, password=password, force=force)
                _settle(job, report)
                job.status = DONE
            except _Cancelled:
                job.status = CANCELLED
            except PolyragError as error:
                job.status, job.error = FAILED, error.one_line()
            except Exception as error:  # a bug must not kill the server's thread silently
                job.status, job.error = FAILED, f"{type(error).__name__}: {error}"
            finally:
                job.finished_at = time.time()
                _changed(job)

    def _forget_old(self) -> None:
        finished = [j for j in self._jobs.values() if j.status in FINISHED]
        for job in sorted(finished, key=lambda j: j.created_at)[: max(0, len(finished) - _KEPT)]:
            del self._jobs[job.job_id]


def _settle(job: Job, report: IngestReport) -> None:
    """The report's pages per source given (with the files inside it), and its failures that
    never reached the progress callback (inputs that do not exist)."""
    for item in job.files:
        inside = [
            entry
            for entry in report.ingested
            if str(entry.get("path")) == item["path"]
            or str(entry.get("path")).startswith(item["path"] + "#")  # attachments, members
        ]
        if inside:
            item["pages"] = sum(int(str(entry.get("pages") or 0)) for entry in inside)
    seen = {item["path"] for item in job.files}
    for failure in report.failed:
        path = str(failure.get("path"))
        if path not in seen:
            job.files.append({"path": path, "outcome": "failed", "detail": failure.get("error")})
    job.total = max(job.total, len(job.files))
    job.done = len(job.files)


def _changed(job: Job) -> None:
    with job.changed:
        job.changed.notify_all()
