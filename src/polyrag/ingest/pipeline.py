"""Sources → parsed, chunked, embedded and stored; one atomic replace per source and its children.

Worker processes (`ParsePool`) read each source, skip it when the manifest already holds its
content from the current parser and chunker, else parse and chunk it. Files carried inside a
source (e-mail attachments, archive members) come back as attachments and are parsed as child
sources at `<parent path>#<name>`, up to `parse.limits.max_archive_depth` levels deep. When a
source and all its children are parsed, a committer thread embeds the chunk texts not already
in the store and swaps the family in for its previous version: the manifest marks the rows
`indexing` (one transaction), the table store takes the family's tables (keyed by content, so
writing them early is harmless), the store commits every chunk of the family at once, and the
manifest marks them `indexed` and drops children that are gone (one transaction). A run that
stops in between leaves the parent `indexing`, and the next run redoes it.

While the committer embeds, the workers parse the next sources, so the embedder never waits
for a parser. On Ctrl-C the family being committed either commits or not; the workers stop.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from polyrag.errors import PolyragError
from polyrag.index.embed.base import Embedder
from polyrag.index.store.base import Store
from polyrag.index.tables.base import TableStore
from polyrag.ingest.discover import discover
from polyrag.ingest.manifest import INDEXED, INDEXING, Entry, Manifest
from polyrag.ingest.sync import finish_removals, remove_source, shielded, vanished
from polyrag.ingest.workers import Known, ParseJob, ParseResult, Pool
from polyrag.settings import Settings
from polyrag.types import Chunk

EMBED_SLICE = 64  # texts embedded between checks for Ctrl-C
_POLL_S = 0.1


@dataclass
class IngestReport:
    ingested: list[dict[str, object]] = field(default_factory=list)
    skipped: list[dict[str, object]] = field(default_factory=list)
    failed: list[dict[str, object]] = field(default_factory=list)
    removed: list[dict[str, object]] = field(default_factory=list)
    pages: int = 0

    @property
    def ok(self) -> bool:
        return not self.failed

    def to_dict(self) -> dict[str, object]:
        return {
            "ingested": self.ingested,
            "skipped": self.skipped,
            "failed": self.failed,
            "removed": self.removed,
        }

    def summary(self) -> str:
        return (
            f"ingested {len(self.ingested)}, unchanged {len(self.skipped)}, "
            f"failed {len(self.failed)}, removed {len(self.removed)}"
        )


@dataclass(frozen=True)
class Progress:
    """What a progress display needs after each source given (children count with it)."""

    done: int
    total: int
    path: str
    outcome: str  # "ingested", "skipped" or "failed"
    detail: str


@dataclass(frozen=True)
class _Item:
    """A source the user gave: a file or a URL."""

    path: str
    name: str
    file: str | None = None
    url: str | None = None


@dataclass
class _Family:
    """A source given by the user and every source carried inside it."""

    root: str
    waiting: int = 0
    parsed: list[tuple[str, str | None, ParseResult]] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failures: list[dict[str, object]] = field(default_factory=list)  # report items
    root_error: str | None = None


@dataclass(frozen=True)
class _Job:
    family: _Family
    path: str
    parent: str | None
    depth: int


@dataclass
class _Outcome:
    """What committing a family did, for the report and the progress display."""

    root: str
    outcome: str
    detail: str
    ingested: list[dict[str, object]] = field(default_factory=list)
    failed: list[dict[str, object]] = field(default_factory=list)
    pages: int = 0
    crash: BaseException | None = None


class Ingestor:
    """Ingests and syncs sources; owns the parse workers until `close()`."""

    def __init__(
        self,
        pool: Pool,
        embedder: Embedder,
        store: Store,
        manifest: Manifest,
        settings: Settings,
        tables: TableStore,
    ) -> None:
        self._pool = pool
        self._embedder = embedder
        self._store = store
        self._tables = tables
        self._manifest = manifest
        self._settings = settings
        self._job_ids = 0
        self._force = False  # set by each ingest(): read unchanged sources again

    def close(self) -> None:
        self._pool.close()

    def __enter__(self) -> Ingestor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def ingest(
        self,
        paths: Iterable[Path | str],
        *,
        password: str | None = None,
        on_progress: Callable[[Progress], None] | None = None,
        force: bool = False,
    ) -> IngestReport:
        """Index files, folders (recursively) and URLs; unchanged sources are skipped, unless
        `force` has them read again (each new version replaces its old one in one commit)."""
        self._force = force
        found = discover(paths)
        report = IngestReport()
        with shielded():  # what a stopped run was removing goes first
            rows = finish_removals(self._manifest, self._store, self._tables)
        report.removed += [{"source_id": row.source_id, "path": row.path} for row in rows]
        for missing in found.missing:
            report.failed.append({"path": str(missing), "error": "no such file or folder"})
        items = [_Item(str(file), file.name, file=str(file)) for file in found.files]
        items += [_Item(url, "", url=url) for url in found.urls]
        self._run(items, password, on_progress, report)
        return report

    def sync(
        self,
        paths: Sequence[Path | str],
        *,
        password: str | None = None,
        on_progress: Callable[[Progress], None] | None = None,
    ) -> IngestReport:
        """Ingest `paths`, then drop the sources under them whose files are gone."""
        report = self.ingest(paths, password=password, on_progress=on_progress)
        for entry in vanished(self._manifest, paths):
            with shielded():
                rows = remove_source(self._manifest, self._store, self._tables, entry)
            report.removed += [{"source_id": row.source_id, "path": row.path} for row in rows]
        return report

    # -- the main thread: schedule parse jobs, settle finished families -----------------------

    def _run(
        self,
        items: list[_Item],
        password: str | None,
        on_progress: Callable[[Progress], None] | None,
        report: IngestReport,
    ) -> None:
        jobs: dict[int, _Job] = {}
        in_flight = 0
        done = 0
        committer = _Committer(self._commit)
        committer.start()
        try:
            upcoming = iter(items)
            exhausted = not items
            while not exhausted or in_flight or committer.pending:
                while not exhausted and in_flight < self._pool.size + 2 and committer.pending < 2:
                    item = next(upcoming, None)
                    if item is None:
                        exhausted = True
                        break
                    self._submit(jobs, _Family(item.path), item, password)
                    in_flight += 1
                outcomes: list[_Outcome] = []
                if in_flight:
                    for result in self._pool.results(timeout=_POLL_S):
                        family = self._settle(jobs, result, password)
                        if family is None:
                            continue
                        in_flight -= 1
                        outcome = self._without_commit(family)
                        if outcome is None:
                            committer.put(family)
                        else:
                            outcomes.append(outcome)
                    outcomes += committer.finished(wait=0)
                else:
                    outcomes += committer.finished(wait=_POLL_S)
                for outcome in outcomes:
                    if outcome.crash is not None:
                        raise outcome.crash
                    done += 1
                    _record(outcome, report)
                    if on_progress:
                        on_progress(
                            Progress(
                                done, len(items), outcome.root, outcome.outcome, outcome.detail
                            )
                        )
        finally:
            committer.stop()
            if committer.pending or in_flight:  # interrupted: abandon the parse jobs too
                self._pool.close()

    def _submit(
        self, jobs: dict[int, _Job], family: _Family, item: _Item, password: str | None
    ) -> None:
        self._job_ids += 1
        job = ParseJob(
            self._job_ids,
            item.path,
            item.name,
            file=item.file,
            url=item.url,
            known=self._known(item.path),
            password=password,
        )
        jobs[job.job_id] = _Job(family, item.path, None, 0)
        family.waiting += 1
        self._pool.submit(job)

    def _known(self, path: str) -> Known | None:
        if self._force:
            return None
        entry = self._manifest.get(path)
        if entry is None or entry.status != INDEXED:
            return None
        return Known(entry.sha256, entry.media_type, entry.parser_version)

    def _settle(
        self, jobs: dict[int, _Job], result: ParseResult, password: str | None
    ) -> _Family | None:
        """Book a parse result; returns its family once nothing of it is left to parse."""
        job = jobs.pop(result.job_id)
        family = job.family
        family.waiting -= 1
        if result.error:
            family.failures.append(_failure(job.path, job.parent, result.error))
            if job.parent is None:
                family.root_error = result.error
        elif result.unchanged:
            family.unchanged.append(job.path)
        else:
            family.parsed.append((job.path, job.parent, result))
            self._submit_children(jobs, job, result, password)
        return family if family.waiting == 0 else None

    def _submit_children(
        self, jobs: dict[int, _Job], job: _Job, result: ParseResult, password: str | None
    ) -> None:
        family = job.family
        max_depth = self._settings.parse.limits.max_archive_depth
        taken: set[str] = set()
        for attachment in result.attachments:
            path = _unique(f"{job.path}#{attachment.name}", taken)
            if job.depth + 1 > max_depth:
                too_deep = f"nested more than {max_depth} levels deep"
                family.failures.append(
                    _failure(path, job.path, f"{too_deep} (parse.limits.max_archive_depth)")
                )
                continue
            self._job_ids += 1
            child = ParseJob(
                self._job_ids,
                path,
                Path(attachment.name).name or attachment.name,
                data=attachment.data,
                known=self._known(path),
                password=password,
            )
            jobs[child.job_id] = _Job(family, path, job.path, job.depth + 1)
            family.waiting += 1
            self._pool.submit(child, first=True)

    def _without_commit(self, family: _Family) -> _Outcome | None:
        """The outcome of a family that needs no commit (skipped or failed), else None."""
        root = family.root
        if family.root_error is not None:
            if self._manifest.get(root):
                self._manifest.note_error(root, family.root_error)
            failed: list[dict[str, object]] = [*family.failures]
            return _Outcome(root, "failed", family.root_error, failed=failed)
        if root in family.unchanged:
            return _Outcome(root, "skipped", "unchanged")
        has_chunks = any(result.chunks for _path, _parent, result in family.parsed)
        if not has_chunks and not family.unchanged:
            error = "no text found in it or in the files inside it"
            failed = [{"path": root, "error": error}]
            failed += family.failures
            return _Outcome(root, "failed", error, failed=failed)
        return None

    # -- the committer thread: embed and swap a family in -------------------------------------

    def _commit(self, family: _Family, stopping: threading.Event) -> _Outcome | None:
        """Embed and store one family; None when stopped before anything was written."""
        root = family.root
        old = {
            row.path: row
            for row in [self._manifest.get(root), *self._manifest.children(root)]
            if row is not None
        }
        kept = {
            path
            for path in old
            if any(path == same or path.startswith(same + "#") for same in family.unchanged)
        }
        chunks = [chunk for _p, _parent, result in family.parsed for chunk in result.chunks]
        made = {  # vectors a cluster worker made with the same model
            chunk.embedded_sha256: vector
            for _p, _parent, result in family.parsed
            if result.vectors is not None and result.embed_model == self._embedder.model_id
            for chunk, vector in zip(result.chunks, result.vectors, strict=True)
        }
        vectors = self._vectors(chunks, stopping, made)
        if vectors is None:
            return None
        entries = [
            _entry(path, parent, result, old.get(path)) for path, parent, result in family.parsed
        ]
        new_paths = {entry.path for entry in entries}
        family_paths = sorted(set(old) | new_paths)
        kept_ids = {old[path].source_id for path in kept}
        candidates = {entry.source_id for entry in entries}
        for path, row in old.items():
            if path not in kept:
                candidates |= {row.source_id, *row.previous_ids}
        replaces = sorted(
            sid
            for sid in candidates - kept_ids - {""}
            if not self._manifest.source_in_use(sid, besides=family_paths)
        )
        gone = [path for path in old if path not in kept and path not in new_paths]
        try:
            with self._manifest.transaction():
                for entry in entries:
                    self._manifest.begin(entry)
            for path, _parent, result in family.parsed:  # keyed by content: safe to write first
                self._tables.put(result.source_id, path, result.tables)
            self._store.replace(chunks, vectors, replaces=replaces)
            # Before the rows are finished: a stop in between leaves them `indexing`, naming
            # the replaced ids, so that no table outlives the manifest's knowledge of it.
            written = {entry.source_id for entry in entries}
            self._tables.delete_sources(sorted(set(replaces) - written))
            with self._manifest.transaction():
                for entry in entries:
                    self._manifest.finish(entry.path, entry.chunks)
                for path in gone:
                    self._manifest.remove(path)
        except PolyragError as error:
            return _Outcome(
                root, "failed", error.one_line(), failed=[{"path": root, "error": error.one_line()}]
            )
        ingested: list[dict[str, object]] = [
            {"source_id": e.source_id, "path": e.path, "chunks": e.chunks, "pages": e.pages}
            | ({"parent": e.parent} if e.parent else {})
            for e in entries
        ]
        failed: list[dict[str, object]] = [*family.failures]
        inside = len(entries) - 1 + len(kept)
        detail = f"{len(chunks)} chunks" + (f", {inside} inside" if inside else "")
        pages = sum(entry.pages for entry in entries)
        return _Outcome(root, "ingested", detail, ingested, failed, pages)

    def _vectors(
        self, chunks: list[Chunk], stopping: threading.Event, made: dict[str, np.ndarray]
    ) -> np.ndarray | None:
        """Embeddings for the chunks: those `made` already (by a cluster worker), stored vectors
        of identical embedded texts, and the rest embedded here."""
        hashes = [chunk.embedded_sha256 for chunk in chunks]
        missing = sorted(set(hashes) - made.keys())
        known = {**(self._store.vectors_for(missing) if missing else {}), **made}
        out = np.empty((len(chunks), self._embedder.dim), dtype=np.float32)
        todo = [i for i, h in enumerate(hashes) if h not in known]
        for i, h in enumerate(hashes):
            if h in known:
                out[i] = known[h]
        for start in range(0, len(todo), EMBED_SLICE):
            if stopping.is_set():
                return None
            part = todo[start : start + EMBED_SLICE]
            out[part] = self._embedder.embed([chunks[i].embedded_text for i in part])
        return out


class _Committer(threading.Thread):
    """Commits families one after another, beside the main thread's scheduling."""

    def __init__(self, commit: Callable[[_Family, threading.Event], _Outcome | None]) -> None:
        super().__init__(name="polyrag-commit", daemon=True)
        self._commit = commit
        self._inbox: queue.Queue[_Family | None] = queue.Queue()
        self._outbox: queue.Queue[_Outcome] = queue.Queue()
        self._stopping = threading.Event()
        self.pending = 0  # families put and not yet returned (main thread only)

    def put(self, family: _Family) -> None:
        self.pending += 1
        self._inbox.put(family)

    def finished(self, wait: float) -> list[_Outcome]:
        out: list[_Outcome] = []
        try:
            out.append(self._outbox.get(timeout=wait) if wait else self._outbox.get_nowait())
            while True:
                out.append(self._outbox.get_nowait())
        except queue.Empty:
            pass
        self.pending -= len(out)
        return out

    def stop(self) -> None:
        """Finish the family being committed (or abandon it while it embeds), then end."""
        if self.pending:
            self._stopping.set()
        self._inbox.put(None)
        self.join()

    def run(self) -> None:
        while (family := self._inbox.get()) is not None:
            if self._stopping.is_set():
                continue
            try:
                outcome = self._commit(family, self._stopping)
            except BaseException as error:  # handed to the main thread, which raises it
                outcome = _Outcome(family.root, "failed", str(error), crash=error)
            if outcome is not None:
                self._outbox.put(outcome)


def _entry(path: str, parent: str | None, result: ParseResult, old: Entry | None) -> Entry:
    """The row that marks `path` as being indexed at its new version. It names every older
    version that may still have chunks in the index: the last indexed one, and the versions
    of runs that stopped between starting and finishing (their chunks may or may not have been
    committed), so that whichever is there is deleted by the commit that finishes."""
    previous: set[str] = set()
    if old is not None:
        previous.add(old.source_id)
        if old.status != INDEXED:
            previous.update(old.previous_ids)
    previous.discard(result.source_id)
    return Entry(
        path=path,
        source_id=result.source_id,
        sha256=result.sha256,
        size=result.size,
        media_type=result.media_type,
        parser_version=result.version,
        chunks=len(result.chunks),
        pages=result.pages,
        status=INDEXING,
        previous_source_id=" ".join(sorted(previous)) or None,
        error=None,
        updated_at=0.0,
        parent=parent,
    )


def _failure(path: str, parent: str | None, error: str) -> dict[str, object]:
    item: dict[str, object] = {"path": path, "error": error}
    if parent:
        item["parent"] = parent
    return item


def _record(outcome: _Outcome, report: IngestReport) -> None:
    if outcome.outcome == "skipped":
        report.skipped.append({"path": outcome.root, "reason": outcome.detail})
    report.ingested += outcome.ingested
    report.failed += outcome.failed
    report.pages += outcome.pages


def _unique(path: str, taken: set[str]) -> str:
    """`path`, or `path~2`, `path~3`… when a sibling already has that name."""
    candidate, n = path, 1
    while candidate in taken:
        n += 1
        candidate = f"{path}~{n}"
    taken.add(candidate)
    return candidate
