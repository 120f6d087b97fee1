"""Find packaged model files, join split ones into the cache, and check their sha256.

A file is hashed in full when it is first used from a package or assembled. The verified
(size, mtime, sha256) is then recorded beside the cache, and a later load re-hashes only when
size or mtime differ, so a 1 GB model is not read twice on every start.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
from pathlib import Path

from polyrag.errors import ModelFileError
from polyrag.models.registry import PackagedModel, Part

_CHUNK = 1 << 20


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()


def part_path(part: Part, model: PackagedModel) -> Path:
    spec = importlib.util.find_spec(part.package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelFileError(
            f"{model.name}: package {part.package} is not installed",
            hint=model.install_hint,
        )
    path = Path(next(iter(spec.submodule_search_locations))) / part.path
    if not path.is_file():
        raise ModelFileError(f"{model.name}: {path} is missing", hint=model.install_hint)
    return path


def model_path(model: PackagedModel, cache_dir: Path) -> Path:
    """The verified file for `model`, assembling it into `cache_dir` when it is split."""
    if model.joined:
        target = cache_dir / model.filename
        if not target.is_file() or target.stat().st_size != model.size:
            _assemble(model, target)
    else:
        target = part_path(model.parts[0], model)
    _verify(model, target, cache_dir)
    return target


def _assemble(model: PackagedModel, target: Path) -> None:
    paths = [part_path(part, model) for part in model.parts]
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + f".{os.getpid()}.partial")
    try:
        with partial.open("wb") as out:
            for path in paths:
                with path.open("rb") as handle:
                    while block := handle.read(_CHUNK):
                        out.write(block)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)


def _verify(model: PackagedModel, path: Path, cache_dir: Path) -> None:
    stat = path.stat()
    stamp_file = cache_dir / "verified.json"
    stamps: dict[str, dict[str, object]] = {}
    if stamp_file.is_file():
        try:
            stamps = json.loads(stamp_file.read_text())
        except (OSError, ValueError):
            stamps = {}
    key = str(path)
    expected = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": model.sha256}
    if stamps.get(key) == expected:
        return
    if stat.st_size != model.size:
        raise ModelFileError(
            f"{model.name}: {path} has {stat.st_size} bytes, expected {model.size}",
            hint=model.install_hint,
        )
    actual = sha256_of(path)
    if actual != model.sha256:
        raise ModelFileError(
            f"{model.name}: sha256 of {path} is {actual[:12]}…, expected {model.sha256[:12]}…",
            hint=model.install_hint,
        )
    stamps[key] = expected
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = stamp_file.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(stamps, indent=1))
        os.replace(tmp, stamp_file)
    except OSError:
        pass  # a read-only cache only costs a re-hash next time
