"""Reading, parsing, chunking and embedding on a Ray cluster (`polyrag ingest --cluster ADDR`).

This process (the driver) schedules sources and commits them exactly as a local ingest does:
the same manifest, one commit per file and its attachments, the same chunk ids. What moves to
the cluster is the work before the commit, the part that takes the time: Ray actors, one per
CPU the cluster offers, each with its own parsers and embedder (built once per actor), return
a source's chunks with their vectors.

* Files are read here and shipped as bytes, so workers need not see this machine's disks (URLs
  are fetched by the worker). Every node needs polyrag and its model packages installed.
* A job whose worker dies (a killed process, a lost node) runs again on another worker, at most
  `RETRIES` times; then it fails with one line and the batch goes on. A run that is itself
  stopped is finished by the next one, as locally.
* A job that runs past `ingest.parse_timeout_s` has its actor killed and fails. Memory is left
  to Ray's own memory monitor (there is no RLIMIT_AS on a worker that embeds too).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import socket
import time
from collections import deque
from dataclasses import dataclass
from typing import Any

from polyrag.errors import ConfigError, IngestError
from polyrag.ingest.workers import ParseJob, ParseResult, _Worker
from polyrag.settings import Settings

log = logging.getLogger(__name__)

RETRIES = 2  # further attempts for a job whose worker died


class ClusterWorker:
    """Inside a Ray actor: parses and chunks a job, then embeds its chunks."""

    def __init__(self, settings: Settings) -> None:
        from polyrag import build

        self._worker = _Worker(settings)
        self._embedder = build.embedder(settings)

    def run(self, job: ParseJob) -> ParseResult:
        result = self._worker.run(job)
        if not result.chunks:
            return result
        vectors = self._embedder.embed([chunk.embedded_text for chunk in result.chunks])
        return dataclasses.replace(result, vectors=vectors, embed_model=self._embedder.model_id)

    def pid(self) -> int:
        return os.getpid()


@dataclass
class _Running:
    actor: Any  # a Ray actor handle
    job: ParseJob
    started: float
    attempts: int


class RayPool:
    """Runs `ParseJob`s on Ray actors; results come back in completion order (as `ParsePool`)."""

    def __init__(self, settings: Settings, address: str) -> None:
        try:
            import ray
        except ImportError:
            raise ConfigError(
                "ingesting on a cluster needs Ray (ray is not installed)",
                hint="pip install 'polyrag[cluster]'",
            ) from None
        self._ray = ray
        self._settings = settings
        try:
            ray.init(
                address=address,
                namespace="polyrag",
                logging_level=logging.ERROR,
                log_to_driver=False,
                configure_logging=False,
                _node_ip_address=_local_address_towards(address),
            )
        except Exception as error:  # ConnectionError, RuntimeError, ValueError, ...
            raise ConfigError(
                f"cannot join the Ray cluster at {address}: {' '.join(str(error).split())[:300]}",
                hint="start it with `ray start --head` and give its address (host:6379 or "
                "ray://host:10001)",
            ) from None
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self._size = settings.ingest.cluster_workers or max(1, cpus)
        self._actor_class = ray.remote(num_cpus=1, max_restarts=0)(ClusterWorker)
        self._idle: list[Any] = []
        self._actors = 0
        self._queue: deque[tuple[ParseJob, int]] = deque()
        self._running: dict[Any, _Running] = {}  # ObjectRef → what it is running

    @property
    def size(self) -> int:
        return self._size

    @property
    def load(self) -> int:
        return len(self._queue) + len(self._running)

    def submit(self, job: ParseJob, *, first: bool = False) -> None:
        entry = (job, 0)
        if first:
            self._queue.appendleft(entry)
        else:
            self._queue.append(entry)

    def results(self, timeout: float) -> list[ParseResult]:
        """Start waiting jobs, then return what finished within `timeout` seconds."""
        done = self._dispatch()
        if not self._running:
            return done
        ready, _ = self._ray.wait(list(self._running), num_returns=1, timeout=timeout)
        if ready:  # and whatever else is ready by now
            ready, _ = self._ray.wait(
                list(self._running), num_returns=len(self._running), timeout=0
            )
        for ref in ready:
            done.extend(self._collect(ref))
        limit = self._settings.ingest.parse_timeout_s
        now = time.monotonic()
        for ref, running in list(self._running.items()):
            if now - running.started > limit:
                del self._running[ref]
                self._retire(running.actor)
                reason = f"took longer than {limit:g} s (ingest.parse_timeout_s)"
                done.append(ParseResult(running.job.job_id, error=reason))
        done += self._dispatch()
        return done

    def close(self) -> None:
        """Stop every actor now (running jobs are abandoned); the cluster stays up."""
        for running in self._running.values():
            self._retire(running.actor)
        for actor in self._idle:
            self._retire(actor)
        self._running.clear()
        self._idle.clear()
        self._queue.clear()
        if self._ray.is_initialized():
            self._ray.shutdown()

    def __enter__(self) -> RayPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- actors ---------------------------------------------------------------------------------

    def _dispatch(self) -> list[ParseResult]:
        """Send waiting jobs to free actors; returns jobs that failed before they were sent."""
        failed: list[ParseResult] = []
        while self._queue and (self._idle or self._actors < self._size):
            job, attempts = self._queue.popleft()
            try:
                shipped = self._with_bytes(job)
            except (IngestError, OSError) as error:
                message = (
                    error.one_line()
                    if isinstance(error, IngestError)
                    else (f"cannot read: {error.strerror or error}")
                )
                failed.append(ParseResult(job.job_id, error=message))
                continue
            actor = self._idle.pop() if self._idle else self._start()
            ref = actor.run.remote(shipped)
            self._running[ref] = _Running(actor, job, time.monotonic(), attempts)
        return failed

    def _with_bytes(self, job: ParseJob) -> ParseJob:
        """The job with its file's bytes, within the size limit (workers may be elsewhere)."""
        if job.file is None or job.data is not None:
            return job
        size = os.stat(job.file).st_size
        limit = self._settings.ingest.max_file_mb
        if size > limit * 2**20:
            raise IngestError(
                f"file is {size / 2**20:.0f} MB, over the {limit:g} MB limit (ingest.max_file_mb)"
            )
        with open(job.file, "rb") as handle:
            return dataclasses.replace(job, data=handle.read(), file=None)

    def _start(self) -> Any:
        self._actors += 1
        return self._actor_class.remote(self._settings)

    def _retire(self, actor: Any) -> None:
        self._actors -= 1
        with contextlib.suppress(Exception):  # already dead
            self._ray.kill(actor)

    def _collect(self, ref: Any) -> list[ParseResult]:
        running = self._running.pop(ref)
        try:
            result: ParseResult = self._ray.get(ref)
        except self._ray.exceptions.RayError as error:  # the actor or its node died
            self._retire(running.actor)
            if running.attempts < RETRIES:
                log.warning("a cluster worker died; running %s again", running.job.source_path)
                self._queue.appendleft((running.job, running.attempts + 1))
                return []
            reason = " ".join(str(error).split())[:200]
            return [ParseResult(running.job.job_id, error=f"the cluster worker died: {reason}")]
        self._idle.append(running.actor)
        return [result]


def _local_address_towards(address: str) -> str | None:
    """This machine's address on the route to the cluster (Ray would otherwise probe a public
    DNS server for it, and warn when there is no network); None when the address names no
    host ("auto")."""
    host = address.removeprefix("ray://").rsplit(":", 1)[0].strip("[]")
    if not host or host == "auto":
        return None
    try:
        with socket.socket(
            socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_DGRAM
        ) as probe:
            probe.connect((host, 9))  # UDP: nothing is sent
            return str(probe.getsockname()[0])
    except OSError:
        return None
