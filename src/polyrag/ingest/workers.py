"""Parsing in worker processes, each job under a time and a memory limit.

The main process embeds and stores while `ParsePool` workers read, fetch, hash, parse and chunk
sources, so the embedder never waits for a parser. Each worker is a long-lived, freshly started
interpreter (no fork of the threaded main process, and unlike multiprocessing's spawn it never
imports the caller's `__main__`, so a script without a main guard may ingest); it builds its
parsers once, so models held by parsers (speech, OCR) load once per worker. A job that runs past
`ingest.parse_timeout_s` has its worker killed; a worker may reserve at most
`ingest.parse_memory_mb` of address space (RLIMIT_AS), so a file that needs more fails. Either
way the job ends as a one-line failure, a fresh worker takes the dead one's place and the batch
goes on.

Each worker process is a small composition root of its own: it builds the parser router, the
chunker and its token counter from the settings it is given.
"""

from __future__ import annotations

import hashlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections import deque
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Protocol

import numpy as np

from polyrag.chunk.chunker import Chunker
from polyrag.chunk.tables import TABLES_VERSION, collect_tables
from polyrag.errors import IngestError, PolyragError
from polyrag.ingest.tokens import WordPieceCounter
from polyrag.models.files import model_path
from polyrag.models.registry import MINILM_TOKENIZER
from polyrag.parse.base import Attachment
from polyrag.parse.router import ParserRouter, default_parsers
from polyrag.settings import Settings
from polyrag.types import Chunk, Source, Table

_WORKER_MAIN = "from polyrag.ingest.workers import main; main()"


@dataclass(frozen=True)
class Known:
    """The indexed version of a source: content with this hash is not parsed again."""

    sha256: str
    media_type: str
    version: str


@dataclass(frozen=True)
class ParseJob:
    """One source to read (from a file, from bytes, or from a URL), parse and chunk."""

    job_id: int
    source_path: str  # its path in the index: a file, `<parent>#<name>` or a URL
    name: str  # the file name the format sniffer sees
    file: str | None = None
    data: bytes | None = None
    url: str | None = None
    known: Known | None = None
    password: str | None = None


@dataclass(frozen=True)
class ParseResult:
    job_id: int
    sha256: str = ""
    size: int = 0
    media_type: str = ""
    version: str = ""
    pages: int = 0
    chunks: tuple[Chunk, ...] = ()
    tables: tuple[Table, ...] = ()  # its tables as cells, for SQL
    attachments: tuple[Attachment, ...] = ()
    unchanged: bool = False
    error: str | None = None
    # On a cluster the worker embeds too: one vector per chunk, made by `embed_model`.
    vectors: np.ndarray | None = None
    embed_model: str = ""

    @property
    def source_id(self) -> str:
        return self.sha256[:20]


class Pool(Protocol):
    """Where parse jobs run: worker processes here (`ParsePool`) or a cluster (`RayPool`)."""

    @property
    def size(self) -> int:
        """How many jobs run at once."""
        ...

    @property
    def load(self) -> int:
        """Jobs waiting or running."""
        ...

    def submit(self, job: ParseJob, *, first: bool = False) -> None: ...

    def results(self, timeout: float) -> list[ParseResult]:
        """Start waiting jobs, then return what finished within `timeout` seconds."""
        ...

    def close(self) -> None:
        """Stop now; running jobs are abandoned."""
        ...


@dataclass
class _Slot:
    """A worker process and the job it is running."""

    process: subprocess.Popen[bytes]
    conn: Connection
    job: ParseJob | None = None
    started: float = 0.0


class ParsePool:
    """Runs `ParseJob`s on `workers` processes; results come back in completion order."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._size = settings.ingest.workers
        self._queue: deque[ParseJob] = deque()
        self._slots: list[_Slot] = []

    @property
    def size(self) -> int:
        return self._size

    @property
    def load(self) -> int:
        """Jobs waiting or running."""
        return len(self._queue) + sum(slot.job is not None for slot in self._slots)

    def submit(self, job: ParseJob, *, first: bool = False) -> None:
        """Queue a job; `first` puts it before the others (a child of a source in progress)."""
        if first:
            self._queue.appendleft(job)
        else:
            self._queue.append(job)

    def results(self, timeout: float) -> list[ParseResult]:
        """Start waiting jobs, then return what finished within `timeout` seconds."""
        self._dispatch()
        busy = [slot for slot in self._slots if slot.job is not None]
        if not busy:
            return []
        limit = self._settings.ingest.parse_timeout_s
        now = time.monotonic()
        earliest = min(slot.started for slot in busy) + limit
        # A worker that dies closes its end of the socket: its connection turns readable too.
        waits = wait([slot.conn for slot in busy], timeout=max(0.0, min(timeout, earliest - now)))
        done: list[ParseResult] = []
        for slot in busy:
            if slot.conn in waits:
                done.append(self._collect(slot))
            elif time.monotonic() - slot.started > limit:
                done.append(
                    self._fail(slot, f"took longer than {limit:g} s (ingest.parse_timeout_s)")
                )
        self._dispatch()
        return done

    def close(self) -> None:
        """Stop every worker now (a running job is abandoned)."""
        for slot in self._slots:
            _stop(slot)
        self._slots.clear()
        self._queue.clear()

    def __enter__(self) -> ParsePool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- workers --------------------------------------------------------------------------------

    def _dispatch(self) -> None:
        while self._queue:
            slot = next((slot for slot in self._slots if slot.job is None), None)
            if slot is None:
                if len(self._slots) >= self._size:
                    return
                slot = self._start()
            job = self._queue.popleft()
            slot.job, slot.started = job, time.monotonic()
            try:
                slot.conn.send(job)
            except (OSError, ValueError):  # died while idle: a fresh worker runs the job
                self._retire(slot)
                self._queue.appendleft(job)

    def _start(self) -> _Slot:
        """A fresh interpreter (no fork of this threaded process, no import of its __main__)."""
        ours, theirs = socket.socketpair()
        package_root = str(Path(__file__).resolve().parents[2])
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
        try:
            process = subprocess.Popen(
                [sys.executable, "-c", _WORKER_MAIN, str(theirs.fileno())],
                pass_fds=[theirs.fileno()],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                env=env,
            )
        finally:
            theirs.close()
        conn = Connection(ours.detach())
        conn.send(self._settings)
        slot = _Slot(process, conn)
        self._slots.append(slot)
        return slot

    def _collect(self, slot: _Slot) -> ParseResult:
        job = slot.job
        assert job is not None
        try:
            result: ParseResult = slot.conn.recv()
        except (EOFError, OSError):
            try:
                code: int | None = slot.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                code = None
            return self._fail(slot, _death(code, self._settings))
        slot.job = None
        if result.error and result.error.startswith(_MEMORY_PREFIX):
            self._retire(slot)  # its heap may be left fragmented; start afresh
        return result

    def _fail(self, slot: _Slot, reason: str) -> ParseResult:
        job = slot.job
        assert job is not None
        self._retire(slot)
        return ParseResult(job.job_id, error=reason)

    def _retire(self, slot: _Slot) -> None:
        _stop(slot)
        self._slots.remove(slot)


def _stop(slot: _Slot) -> None:
    if slot.process.poll() is None:
        slot.process.kill()
    slot.process.wait()
    slot.conn.close()


_MEMORY_PREFIX = "needed more than"


def _death(exitcode: int | None, settings: Settings) -> str:
    """Why a worker died while parsing: almost always an allocation the memory limit refused."""
    limit = settings.ingest.parse_memory_mb
    how = f"signal {signal.Signals(-exitcode).name}" if exitcode and exitcode < 0 else exitcode
    return f"{_MEMORY_PREFIX} {limit} MB or crashed the parser (ingest.parse_memory_mb; exit {how})"


# -- inside a worker process ----------------------------------------------------------------------


def main() -> None:
    """A worker's life: limit memory, build the parsers once, then run jobs until told to stop.

    Started as `python -c ... FD`: FD is its end of a socket to the main process, which sends
    the settings first, then jobs (None: stop)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's to handle
    conn = Connection(int(sys.argv[1]))
    settings: Settings = conn.recv()
    _limit_memory(settings.ingest.parse_memory_mb)
    worker = _Worker(settings)
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        result = worker.run(job)
        try:
            conn.send(result)
        except OSError:  # the main process is gone (killed): nobody wants the result
            return


def _limit_memory(megabytes: int) -> None:
    import resource

    limit = megabytes * 2**20
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


class _Worker:
    """Reads, parses and chunks jobs; builds its parsers and token counter on first use."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._parts: tuple[ParserRouter, Chunker] | None = None

    def run(self, job: ParseJob) -> ParseResult:
        try:
            return self._run(job)
        except MemoryError:
            return self._memory_failure(job)
        except PolyragError as error:
            if isinstance(error.__context__, MemoryError):
                return self._memory_failure(job)
            return ParseResult(job.job_id, error=error.one_line())
        except OSError as error:
            return ParseResult(job.job_id, error=f"cannot read: {error.strerror or error}")

    def _memory_failure(self, job: ParseJob) -> ParseResult:
        limit = self.settings.ingest.parse_memory_mb
        return ParseResult(
            job.job_id, error=f"{_MEMORY_PREFIX} {limit} MB (ingest.parse_memory_mb)"
        )

    def _run(self, job: ParseJob) -> ParseResult:
        data, name = self._read(job)
        sha = hashlib.sha256(data).hexdigest()
        router, chunker = self._build()
        known = job.known
        if known and known.sha256 == sha and known.version == self._version(known.media_type):
            return ParseResult(job.job_id, sha256=sha, size=len(data), unchanged=True)
        document = router.parse(data, name=name, password=job.password)
        source = Source(sha[:20], job.source_path, sha, len(data), document.media_type)
        chunks = chunker.chunk(source, document.blocks, document.layout)
        if not chunks and not document.attachments:
            raise IngestError("no text found")
        return ParseResult(
            job.job_id,
            sha256=sha,
            size=len(data),
            media_type=document.media_type,
            version=self._version(document.media_type),
            pages=document.pages,
            chunks=tuple(chunks),
            tables=tuple(collect_tables(document.blocks)),
            attachments=document.attachments,
        )

    def _read(self, job: ParseJob) -> tuple[bytes, str]:
        if job.data is not None:
            return job.data, job.name
        if job.url is not None:
            from polyrag.ingest.fetch import fetch

            page = fetch(job.url, self.settings.web)
            return page.data, page.name
        if job.file is None:
            raise IngestError("nothing to read")
        file = Path(job.file)
        size = file.stat().st_size
        limit = self.settings.ingest.max_file_mb
        if size > limit * 2**20:
            raise IngestError(
                f"file is {size / 2**20:.0f} MB, over the {limit:g} MB limit (ingest.max_file_mb)"
            )
        return file.read_bytes(), job.name

    def _build(self) -> tuple[ParserRouter, Chunker]:
        if self._parts is None:
            counter = WordPieceCounter(model_path(MINILM_TOKENIZER, self.settings.model_cache))
            self._parts = (
                ParserRouter(default_parsers(self.settings.parse, self.settings.model_cache)),
                Chunker(counter, self.settings.chunk),
            )
        return self._parts

    def _version(self, media_type: str) -> str:
        router, chunker = self._build()
        return parse_version(router, chunker, media_type)


def parse_version(router: ParserRouter, chunker: Chunker, media_type: str) -> str:
    """The parser's, the chunker's and the table reader's versions: when one changes, sources
    are redone."""
    try:
        parser = router.parser_version(media_type)
    except PolyragError:  # a format no parser reads any more
        return ""
    return f"{parser}+{chunker.version}+{TABLES_VERSION}"
