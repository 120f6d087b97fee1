"""Expand what a user gave to ingest into files and URLs."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from polyrag.ingest.fetch import is_url


@dataclass(frozen=True)
class Discovery:
    files: list[Path]
    missing: list[Path]  # paths that do not exist
    urls: list[str] = field(default_factory=list)


def discover(paths: Iterable[Path | str]) -> Discovery:
    """Files as given, folders walked recursively (hidden files and folders skipped), sorted;
    URLs (`https://…`) as given, in order, once each."""
    files: dict[Path, None] = {}
    urls: dict[str, None] = {}
    missing: list[Path] = []
    for raw in paths:
        if isinstance(raw, str) and is_url(raw):
            urls[raw.strip()] = None
            continue
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
    return Discovery(files=list(files), missing=missing, urls=list(urls))
