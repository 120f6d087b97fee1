"""Expand the paths a user gave into the files to ingest."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Discovery:
    files: list[Path]
    missing: list[Path]  # paths that do not exist


def discover(paths: Iterable[Path | str]) -> Discovery:
    """Files as given, folders walked recursively (hidden files and folders skipped), sorted."""
    files: dict[Path, None] = {}
    missing: list[Path] = []
    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_file():
            files[path.resolve()] = None
        elif path.is_dir():
            for child in sorted(path.rglob("*")):
                relative = child.relative_to(path).parts
                if any(part.startswith(".") for part in relative):
                    continue
                if child.is_file():
                    files[child.resolve()] = None
        else:
            missing.append(path)
    return Discovery(files=list(files), missing=missing)
