"""Sources: upload files or add a URL (each starts an ingest job), list, inspect, re-index and
delete what is indexed."""

from __future__ import annotations

import logging
import os
import re
import tempfile
import unicodedata
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, File, Query, Response, UploadFile
from fastapi.responses import FileResponse

from polyrag import build
from polyrag.api.deps import EngineDep, JobsDep, WorkspaceName
from polyrag.api.jobs import Job, Jobs
from polyrag.api.schemas import UrlBody
from polyrag.api.workspaces import Workspaces
from polyrag.engine import Engine
from polyrag.errors import ConfigError, SourceNotFoundError, UploadError, UploadTooLargeError
from polyrag.ingest.manifest import INDEXED, REMOVING, Entry
from polyrag.settings import Settings
from polyrag.view import SLIDE_DECKS, mail_headers, page_png, slides_as_pdf, table_rows

router = APIRouter(prefix="/api/v1/workspaces/{workspace}", tags=["sources"])

UPLOADS = "uploads"  # under the workspace's home: the files people uploaded, kept as given
_PARTIAL = ".upload-"  # a file still being received, beside its target in UPLOADS
_CHUNK = 1 << 20
log = logging.getLogger(__name__)


@router.get("/sources", summary="List the sources with their status, chunks and pages")
def list_sources(engine: EngineDep) -> dict[str, Any]:
    entries = engine.sources()
    return {
        "sources": [_shown(entry) for entry in entries],
        "indexed": sum(1 for e in entries if e.status == "indexed"),
        "failed": sum(1 for e in entries if e.status != "indexed"),
    }


@router.get("/sources/diagnostics", summary="Chunks per source and modality")
def diagnostics(engine: EngineDep) -> dict[str, Any]:
    """What the index holds of each source (text, table, picture and audio chunks) beside what
    the manifest says, and the totals: a source whose counts disagree, or that holds no text at
    all, shows here."""
    counts = engine.store.counts_by_modality()
    shown = []
    totals: dict[str, int] = {}
    for entry in engine.sources():
        found = counts.get(entry.source_id, {})
        for modality, n in found.items():
            totals[modality] = totals.get(modality, 0) + n
        shown.append(
            {
                "source_id": entry.source_id,
                "name": _shown(entry)["name"],
                "status": entry.status,
                "chunks": entry.chunks,
                "indexed_chunks": sum(found.values()),
                "by_modality": found,
                "error": entry.error,
            }
        )
    orphans = sorted(set(counts) - {e.source_id for e in engine.sources()})
    return {"sources": shown, "totals": totals, "orphaned_sources": orphans}


@router.get("/sources/{source_id}", summary="One source")
def get_source(source_id: str, engine: EngineDep) -> dict[str, Any]:
    return _shown(_entry(engine, source_id))


@router.delete("/sources/{source_id}", summary="Delete a source and every chunk of it")
def delete_source(source_id: str, engine: EngineDep) -> dict[str, Any]:
    """The sources inside it (attachments, archive members) go with it, and an uploaded file's
    stored copy is deleted too."""
    entry = _entry(engine, source_id)
    # The stored copy goes first: a server stopped in between finds an indexed upload whose
    # file is gone and finishes the removal at start, instead of indexing the file again.
    uploads = (engine.home / UPLOADS).resolve()
    stored = Path(entry.path)
    if stored.is_file() and stored.resolve().parent == uploads:
        stored.unlink()
    removed = engine.remove(entry.source_id)
    return {"removed": [{"source_id": e.source_id, "path": e.path} for e in removed]}


@router.post("/sources", status_code=202, summary="Upload files to index")
def upload(
    workspace: WorkspaceName,
    files: Annotated[list[UploadFile], File(description="One or more files.")],
    engine: EngineDep,
    jobs: JobsDep,
) -> dict[str, Any]:
    """The files are stored under the workspace (a file uploaded again under the same name
    replaces its earlier version) and an ingest job indexes them; follow it at
    `/jobs/{job_id}`."""
    limit = int(engine.settings.server.max_upload_mb * 2**20)
    folder = engine.home / UPLOADS
    folder.mkdir(parents=True, exist_ok=True)
    names = [safe_name(upload_file.filename or "") for upload_file in files]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise UploadError(f"{twice[0]}: uploaded twice in one request", hint="upload it once")
    # Every file is received whole before any takes its place: a refused file leaves the
    # folder as it was (an earlier version of the same name included).
    received: list[Path] = []
    try:
        for upload_file, name in zip(files, names, strict=True):
            received.append(_receive(upload_file, name, folder, limit))
        stored = [folder / name for name in names]
        for partial, target in zip(received, stored, strict=True):
            os.replace(partial, target)
    finally:
        for partial in received:
            partial.unlink(missing_ok=True)
    job = jobs.start(workspace, engine, stored)
    return job.to_dict()


@router.post("/sources/url", status_code=202, summary="Index a web page or file by its URL")
def add_url(
    workspace: WorkspaceName, body: UrlBody, engine: EngineDep, jobs: JobsDep
) -> dict[str, Any]:
    """Fetched under the web.* settings' rules (no private addresses unless allowed)."""
    return jobs.start(workspace, engine, [body.url]).to_dict()


@router.post("/sources/{source_id}/reindex", status_code=202, summary="Read a source again")
def reindex(
    workspace: WorkspaceName, source_id: str, engine: EngineDep, jobs: JobsDep
) -> dict[str, Any]:
    """Parsed and embedded anew even when its file is unchanged; the new version replaces the
    old one in one commit."""
    entry = _entry(engine, source_id)
    root = entry.parent or entry.path  # a file inside another is read with its carrier
    return jobs.start(workspace, engine, [root], force=True).to_dict()


@router.get("/sources/{source_id}/file", summary="The source's original file")
def source_file(source_id: str, engine: EngineDep) -> FileResponse:
    """As it was indexed, for download or (a recording) to play from the cited second: range
    requests are answered."""
    entry = _entry(engine, source_id)
    return FileResponse(_on_disk(entry), filename=_shown(entry)["name"])


@router.get(
    "/sources/{source_id}/pages/{page}.png",
    summary="A page, slide or picture, with the cited region highlighted",
    response_class=Response,
    responses={200: {"content": {"image/png": {}}}},
)
def source_page(
    source_id: str,
    page: int,
    engine: EngineDep,
    box: Annotated[
        str | None,
        Query(description="x0,y0,x1,y1 as the citation's locator gives its bbox."),
    ] = None,
    scale: Annotated[float, Query(gt=0, le=4, description="1 = 72 dots per inch.")] = 1.5,
) -> Response:
    entry = _entry(engine, source_id)
    region = _box(box)
    path, kind = _on_disk(entry), entry.media_type
    if kind in SLIDE_DECKS:  # slide n is page n of the deck as PDF
        path, kind = (
            slides_as_pdf(path, kind, entry.sha256, engine.home / "cache" / "slides"),
            "pdf",
        )
    png = page_png(path, kind, page, region, scale)
    return Response(png, media_type="image/png", headers={"cache-control": "private, max-age=300"})


@router.get("/sources/{source_id}/rows", summary="A table's cited rows with their header")
def source_rows(
    source_id: str,
    engine: EngineDep,
    sheet: Annotated[str | None, Query(description="The locator's sheet.")] = None,
    page: Annotated[int | None, Query(description="The locator's page.")] = None,
    rows: Annotated[
        str | None, Query(description="The locator's rows, first-last (e.g. 4-7).")
    ] = None,
) -> dict[str, Any]:
    """The table (a sheet, a CSV, a table in a PDF or a slide) that holds the cited rows: its
    name, title and header, the cited rows marked, with two rows around them."""
    entry = _entry(engine, source_id)
    tables = [found.table for found in engine.tables.tables([entry.source_id])]
    return table_rows(tables, sheet=sheet, page=page, rows=_span(rows))


@router.get("/sources/{source_id}/message", summary="An e-mail's headers and attachments")
def source_message(source_id: str, engine: EngineDep) -> dict[str, Any]:
    """From, To, Cc, Date and Subject as the message gives them, and the names of the files it
    carried (each indexed as a source of its own)."""
    entry = _entry(engine, source_id)
    return mail_headers(_on_disk(entry), entry.media_type)


def _span(text: str | None) -> tuple[int, int] | None:
    if not text:
        return None
    first, _, last = text.partition("-")
    try:
        return int(first), int(last or first)
    except ValueError:
        raise ConfigError(f"rows {text!r} are not first-last row numbers") from None


def _on_disk(entry: Entry) -> Path:
    """The file a source was read from; a source inside another file, or fetched from the web,
    has none of its own."""
    if entry.parent is not None:
        raise SourceNotFoundError(
            f"{_shown(entry)['name']} is stored inside another file",
            hint=f"download the file that carries it: {Path(entry.parent).name}",
        )
    if "://" in entry.path:
        raise SourceNotFoundError(
            "this source was fetched from the web", hint=f"open it at {entry.path}"
        )
    path = Path(entry.path)
    if not path.is_file():
        raise SourceNotFoundError(
            f"the file {path.name} is no longer where it was indexed",
            hint="index it again from where it is now",
        )
    return path


def _box(text: str | None) -> tuple[float, float, float, float] | None:
    if not text:
        return None
    try:
        x0, y0, x1, y1 = (float(part) for part in text.split(","))
    except ValueError:
        raise ConfigError(f"box {text!r} is not four numbers x0,y0,x1,y1") from None
    return (x0, y0, x1, y1)


def _entry(engine: Engine, source_id: str) -> Entry:
    for entry in engine.sources():
        if entry.source_id == source_id:
            return entry
    raise SourceNotFoundError(f"no source with id {source_id!r}")


def _shown(entry: Entry) -> dict[str, Any]:
    shown = entry.to_dict()
    shown["name"] = Path(entry.path.split("#")[-1]).name
    shown["updated_at"] = entry.updated_at
    return shown


def resume_uploads(registry: Workspaces, jobs: Jobs) -> list[Job]:
    """At start: delete what a stopped server was still receiving (its client got no answer, so
    it knows to send again), finish the removals it was making (a source marked `removing`,
    an upload whose stored copy was deleted), and start an ingest job for each workspace whose
    uploaded files are not indexed at their current version (the server stopped before or
    while their job ran). Returns the jobs started."""
    started: list[Job] = []
    for name in registry.names():
        home = registry.home(name)
        pending, unfinished = _left_by_a_stop(registry.settings_for(name), home)
        for path in unfinished:  # by path: a parent before what it carries
            log.info("workspace %s: finishing the removal of %s", name, path)
            try:
                registry.engine(name).remove(path)
            except SourceNotFoundError:  # gone with its parent
                continue
        if pending:
            log.info("workspace %s: indexing %d upload(s) left by a stop", name, len(pending))
            started.append(jobs.start(name, registry.engine(name), pending))
    return started


def _left_by_a_stop(settings: Settings, home: Path) -> tuple[list[Path], list[str]]:
    """Uploads not indexed at their current version, and sources whose removal was begun."""
    folder = (home / UPLOADS).resolve()
    if folder.is_dir():
        for partial in folder.glob(f"{_PARTIAL}*"):
            partial.unlink(missing_ok=True)
    manifest = build.manifest(settings)
    try:
        entries = {entry.path: entry for entry in manifest.all()}
    finally:
        manifest.close()
    unfinished = [
        path
        for path, entry in entries.items()
        if entry.status == REMOVING
        or (entry.parent is None and Path(path).parent == folder and not Path(path).exists())
    ]
    pending: list[Path] = []
    for file in sorted(folder.iterdir()) if folder.is_dir() else []:
        if not file.is_file():
            continue
        entry, stat = entries.get(str(file.resolve())), file.stat()
        if (
            entry is None
            or entry.status != INDEXED
            or entry.size != stat.st_size
            or stat.st_mtime > entry.updated_at
        ):
            pending.append(file)
    return pending, unfinished


def _receive(upload_file: UploadFile, name: str, folder: Path, limit: int) -> Path:
    """One upload written to a temporary file beside its target, within the size limit."""
    handle, partial = tempfile.mkstemp(dir=folder, prefix=_PARTIAL)
    written = 0
    try:
        with os.fdopen(handle, "wb") as out:
            while piece := upload_file.file.read(_CHUNK):
                written += len(piece)
                if written > limit:
                    raise UploadTooLargeError(
                        f"{name}: larger than the upload limit of {limit / 2**20:g} MB"
                    )
                out.write(piece)
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise
    return Path(partial)


def safe_name(filename: str) -> str:
    """A file name that stays inside the upload folder: the last part of whatever path was
    given, without control characters, leading dots or separators."""
    base = re.split(r"[\\/]", unicodedata.normalize("NFC", filename))[-1]
    base = "".join(ch for ch in base if unicodedata.category(ch)[0] != "C").strip()
    base = base.lstrip(".").strip()
    if not base:
        raise UploadError("an uploaded file has no usable name", hint="give the file a name")
    if len(base.encode("utf-8")) > 200:
        stem, dot, suffix = base.rpartition(".")
        keep = suffix if dot and len(suffix) <= 16 else ""
        base = (stem or base)[:120] + (f".{keep}" if keep else "")
    return base
