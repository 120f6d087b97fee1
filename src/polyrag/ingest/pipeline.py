"""Files → parsed, chunked, embedded and stored sources, one atomic replace per file.

For each file: read and hash it; skip it when the manifest already holds this content from the
current parser; otherwise parse and chunk it (the next file is parsed while this one embeds),
embed only chunk texts not already in the store, then swap the new chunks in for the file's
previous version in one store commit. The manifest marks the file `indexing` before that commit
and `indexed` after it, so an interrupted run is noticed and redone.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from polyrag.chunk.chunker import Chunker
from polyrag.errors import IngestError, PolyragError
from polyrag.index.embed.base import Embedder
from polyrag.index.store.base import Store
from polyrag.ingest.discover import discover
from polyrag.ingest.manifest import INDEXED, Entry, Manifest
from polyrag.parse.base import Document
from polyrag.parse.router import ParserRouter
from polyrag.settings import IngestSettings
from polyrag.types import Chunk, Source


@dataclass
class IngestReport:
    ingested: list[dict[str, object]] = field(default_factory=list)
    skipped: list[dict[str, object]] = field(default_factory=list)
    failed: list[dict[str, object]] = field(default_factory=list)
    pages: int = 0

    @property
    def ok(self) -> bool:
        return not self.failed

    def to_dict(self) -> dict[str, object]:
        return {"ingested": self.ingested, "skipped": self.skipped, "failed": self.failed}


@dataclass(frozen=True)
class Progress:
    """What a progress display needs after each file."""

    done: int
    total: int
    path: str
    outcome: str  # "ingested", "skipped" or "failed"
    detail: str


@dataclass(frozen=True)
class _Prepared:
    """A file read, hashed and (unless skipped) parsed and chunked."""

    path: str
    entry: Entry | None = None  # the manifest row to write; None when skipped or failed
    chunks: tuple[Chunk, ...] = ()
    skipped_reason: str | None = None
    error: str | None = None


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Ingestor:
    def __init__(
        self,
        router: ParserRouter,
        chunker: Chunker,
        embedder: Embedder,
        store: Store,
        manifest: Manifest,
        settings: IngestSettings,
    ) -> None:
        self._router = router
        self._chunker = chunker
        self._embedder = embedder
        self._store = store
        self._manifest = manifest
        self._settings = settings

    def ingest(
        self, paths: Iterable[Path | str], on_progress: Callable[[Progress], None] | None = None
    ) -> IngestReport:
        found = discover(paths)
        report = IngestReport()
        for missing in found.missing:
            report.failed.append({"path": str(missing), "error": "no such file or folder"})
        total = len(found.files)
        for done, prepared in enumerate(self._prepare_ahead(found.files), start=1):
            outcome, detail = self._finish(prepared, report)
            if on_progress:
                on_progress(Progress(done, total, prepared.path, outcome, detail))
        return report

    def _prepare_ahead(self, files: list[Path]) -> Iterator[_Prepared]:
        """Prepare file i+1 on a worker thread while the caller embeds file i."""
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="polyrag-parse") as pool:
            pending: Future[_Prepared] | None = None
            for path in files:
                upcoming = pool.submit(self._prepare, path)
                if pending is not None:
                    yield pending.result()
                pending = upcoming
            if pending is not None:
                yield pending.result()

    def _prepare(self, file: Path) -> _Prepared:
        path = str(file)
        try:
            size = file.stat().st_size
            if size > self._settings.max_file_mb * 1024 * 1024:
                raise IngestError(
                    f"file is {size / 2**20:.0f} MB, over the {self._settings.max_file_mb:g} MB "
                    "limit (ingest.max_file_mb)"
                )
            data = file.read_bytes()
        except OSError as error:
            return _Prepared(path, error=f"cannot read: {error.strerror or error}")
        except PolyragError as error:
            return _Prepared(path, error=error.one_line())
        sha = hashlib.sha256(data).hexdigest()
        source_id = sha[:20]
        previous = self._manifest.get(path)
        if (
            previous
            and previous.sha256 == sha
            and previous.status == INDEXED
            and previous.parser_version == self._version(previous.media_type)
        ):
            return _Prepared(path, skipped_reason="unchanged")
        try:
            document = self._router.parse(data, name=file.name)
        except PolyragError as error:  # ParseError and its kin: one line naming the reason
            return _Prepared(path, error=error.one_line())
        version = self._version(document.media_type)
        return self._chunked(path, file, data, sha, source_id, document, version, previous)

    def _version(self, media_type: str) -> str:
        """The parser's and the chunker's versions: when either changes, files are redone."""
        try:
            parser = self._router.parser_version(media_type)
        except PolyragError:  # a format no parser reads any more
            return ""
        return f"{parser}+{self._chunker.version}"

    def _chunked(
        self,
        path: str,
        file: Path,
        data: bytes,
        sha: str,
        source_id: str,
        document: Document,
        version: str,
        previous: Entry | None,
    ) -> _Prepared:
        source = Source(source_id, path, sha, len(data), document.media_type)
        chunks = self._chunker.chunk(source, document.blocks)
        if not chunks:
            return _Prepared(path, error="no text found")
        replaced = previous.previous_source_id if previous else None
        if previous and previous.source_id != source_id:
            replaced = previous.source_id
        entry = Entry(
            path=path,
            source_id=source_id,
            sha256=sha,
            size=len(data),
            media_type=document.media_type,
            parser_version=version,
            chunks=len(chunks),
            pages=document.pages,
            status="indexing",
            previous_source_id=replaced,
            error=None,
            updated_at=0.0,
        )
        return _Prepared(path, entry=entry, chunks=tuple(chunks))

    def _finish(self, prepared: _Prepared, report: IngestReport) -> tuple[str, str]:
        path = prepared.path
        if prepared.skipped_reason:
            report.skipped.append({"path": path, "reason": prepared.skipped_reason})
            return "skipped", prepared.skipped_reason
        if prepared.error or prepared.entry is None:
            error = prepared.error or "not prepared"
            report.failed.append({"path": path, "error": error})
            if self._manifest.get(path):
                self._manifest.note_error(path, error)
            return "failed", error
        entry = prepared.entry
        try:
            vectors = self._vectors(prepared.chunks)
            replaces = [
                sid
                for sid in (entry.previous_source_id, entry.source_id)
                if sid and not self._manifest.source_in_use(sid, besides=path)
            ]
            self._manifest.begin(entry)
            self._store.replace(prepared.chunks, vectors, replaces=replaces)
            self._manifest.finish(path, len(prepared.chunks))
        except PolyragError as error:
            report.failed.append({"path": path, "error": error.one_line()})
            return "failed", error.one_line()
        report.pages += entry.pages
        report.ingested.append(
            {"source_id": entry.source_id, "path": path, "chunks": len(prepared.chunks)}
        )
        return "ingested", f"{len(prepared.chunks)} chunks"

    def _vectors(self, chunks: tuple[Chunk, ...]) -> np.ndarray:
        """Embeddings for the chunks, reusing stored vectors of identical texts."""
        texts = [embedding_text(chunk) for chunk in chunks]
        hashes = [text_hash(chunk.text) for chunk in chunks]
        known = self._store.vectors_for(sorted(set(hashes)))
        out = np.empty((len(chunks), self._embedder.dim), dtype=np.float32)
        todo = [i for i, h in enumerate(hashes) if h not in known]
        for i, h in enumerate(hashes):
            if h in known:
                out[i] = known[h]
        if todo:
            out[todo] = self._embedder.embed([texts[i] for i in todo])
        return out


def embedding_text(chunk: Chunk) -> str:
    """What the embedder reads: the section path, then the chunk text."""
    path = " > ".join(chunk.locator.heading_path)
    return f"{path}\n{chunk.text}" if path else chunk.text
