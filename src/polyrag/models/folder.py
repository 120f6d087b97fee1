"""A model folder in the cache: every file of a `PackagedFolder`, verified, in one directory.

Some libraries (CTranslate2, faster-whisper) load a model from a directory, not from files
named one by one. Split files are joined straight into that directory by `model_path`; files
shipped whole are verified in their package and copied beside them (they are small).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from polyrag.errors import ModelFileError
from polyrag.models.files import model_path, sha256_of
from polyrag.models.registry import PackagedFolder


def folder_path(folder: PackagedFolder, cache_dir: Path) -> Path:
    """The cache directory holding every file of `folder`, each checked against its sha256."""
    target_dir = cache_dir / folder.folder
    for model in folder.files:
        source = model_path(model, cache_dir)
        target = target_dir / Path(model.filename).name
        if source.resolve() == target.resolve():
            continue  # joined into the folder and verified by model_path
        if _holds(target, model.size, model.sha256):
            continue
        _copy(source, target)
        if sha256_of(target) != model.sha256:
            raise ModelFileError(
                f"{model.name}: the copy at {target} does not match its sha256",
                hint=model.install_hint,
            )
    return target_dir


def _holds(path: Path, size: int, sha256: str) -> bool:
    return path.is_file() and path.stat().st_size == size and sha256_of(path) == sha256


def _copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + f".{os.getpid()}.partial")
    try:
        shutil.copyfile(source, partial)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
