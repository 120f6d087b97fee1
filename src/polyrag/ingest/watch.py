"""Live folders: sync again whenever files under them change, until Ctrl-C.

A polling loop rather than file-system events: it needs no extra package and works the same
on every file system (network mounts included). Every `interval_s` it lists the files with
their sizes and modification times; after a change it waits until two listings in a row agree
(a file still being written settles first), then syncs.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

R = TypeVar("R")

Snapshot = dict[str, tuple[int, int]]


def watch_folders(
    paths: Sequence[Path | str],
    sync: Callable[[], R],
    on_report: Callable[[R], None],
    *,
    interval_s: float,
    since: Snapshot | None = None,
    should_stop: Callable[[], bool] = lambda: False,
) -> None:
    """Call `sync` after each settled change under `paths`; hand its result to `on_report`.

    `since` is the listing taken before the caller's own first sync: a file that changed while
    that sync ran is synced again rather than missed.
    """
    seen = snapshot(paths) if since is None else since
    while not should_stop():
        time.sleep(interval_s)
        current = snapshot(paths)
        if current == seen:
            continue
        while True:  # debounce: wait for the files to stop changing
            time.sleep(interval_s)
            settled = snapshot(paths)
            if settled == current:
                break
            current = settled
        on_report(sync())
        seen = current


def snapshot(paths: Sequence[Path | str]) -> Snapshot:
    """Size and modification time of every file under `paths` (hidden ones skipped)."""
    found: Snapshot = {}
    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_file():
            _note(found, str(path))
            continue
        for folder, folders, files in os.walk(path):
            folders[:] = [name for name in folders if not name.startswith(".")]
            for name in files:
                if not name.startswith("."):
                    _note(found, os.path.join(folder, name))
    return found


def _note(found: Snapshot, file: str) -> None:
    try:
        stat = os.stat(file)
    except OSError:  # removed while we looked
        return
    found[file] = (stat.st_mtime_ns, stat.st_size)
