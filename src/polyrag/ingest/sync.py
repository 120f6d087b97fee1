"""Keeping the index in step with folders: which sources vanished, and removing a source.

A source is removed with every source carried inside it (attachments, archive members): the
manifest first marks the rows `removing`, then the store drops the chunks (and the table store
the tables) no other path still uses, then the manifest drops the rows, in one transaction. A
run stopped in between leaves rows marked `removing` (never `indexed` rows whose chunks are
gone); the next ingest, sync or server start finishes removing them.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

from polyrag.index.store.base import Store
from polyrag.index.tables.base import TableStore
from polyrag.ingest.manifest import REMOVING, Entry, Manifest


def vanished(manifest: Manifest, paths: Sequence[Path | str]) -> list[Entry]:
    """Sources given as files at or under `paths` whose files no longer exist."""
    found: dict[str, Entry] = {}
    for raw in paths:
        base = Path(raw).expanduser().resolve()
        candidates = manifest.top_level_under(str(base))
        exact = manifest.get(str(base))
        if exact is not None and exact.parent is None:
            candidates.append(exact)
        for entry in candidates:
            if not Path(entry.path).exists():
                found[entry.path] = entry
    return [found[path] for path in sorted(found)]


def remove_source(
    manifest: Manifest, store: Store, tables: TableStore, entry: Entry
) -> list[Entry]:
    """Remove a source and the sources inside it; returns every row removed."""
    rows = [entry, *manifest.children(entry.path)]
    paths = [row.path for row in rows]
    ids = {sid for row in rows for sid in (row.source_id, *row.previous_ids)}
    stale = sorted(sid for sid in ids if not manifest.source_in_use(sid, besides=paths))
    with manifest.transaction():
        for path in paths:
            manifest.removing(path)
    store.delete_sources(stale)
    tables.delete_sources(stale)
    with manifest.transaction():
        for path in paths:
            manifest.remove(path)
    return rows


def finish_removals(manifest: Manifest, store: Store, tables: TableStore) -> list[Entry]:
    """Remove again the sources a stopped run was removing; returns every row removed."""
    removed: list[Entry] = []
    for entry in manifest.all():  # by path: a parent before what it carries
        if entry.status == REMOVING and manifest.get(entry.path) is not None:
            removed += remove_source(manifest, store, tables, entry)
    return removed


@contextmanager
def shielded() -> Iterator[None]:
    """Hold back Ctrl-C until the block is done (in the main thread; elsewhere a no-op)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []

    def note(signum: int, _frame: FrameType | None) -> None:
        caught.append(signum)

    previous = signal.signal(signal.SIGINT, note)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught:
            raise KeyboardInterrupt
