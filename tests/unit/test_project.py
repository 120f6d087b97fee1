"""Project-level promises: the public API, permissive default dependencies, prompts as files."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata

import polyrag

from ..conftest import REPO

PERMISSIVE = re.compile(r"\b(MIT|BSD|Apache|ISC|PSF|Python Software Foundation|0BSD|Zlib)\b", re.I)


def test_public_api_is_what_init_says() -> None:
    assert polyrag.__all__ == [
        "REFUSAL",
        "Answer",
        "Chunk",
        "Citation",
        "Filter",
        "Hit",
        "Library",
        "Locator",
        "Modality",
        "PolyragError",
        "Settings",
        "open",
    ]
    for name in polyrag.__all__:
        assert getattr(polyrag, name) is not None
    assert callable(polyrag.open)
    assert hasattr(polyrag.Library, "ask") and hasattr(polyrag.Library, "ingest")


def _requirement_name(spec: str) -> str:
    return re.split(r"[\[<>=!~ ;]", spec, maxsplit=1)[0]


def test_default_dependencies_are_permissive() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    for spec in project["dependencies"]:
        name = _requirement_name(spec)
        meta = metadata.metadata(name)
        classifiers = " ".join(c for c in meta.get_all("Classifier") or [] if "License" in c)
        # The declared licence: the SPDX expression or the classifiers when there are any; the
        # free-text field only otherwise (it may quote bundled parts' options, like matplotlib's
        # FreeType "FTL OR GPL-2.0-or-later", which is not what the package is under).
        declared = " ".join(filter(None, [meta.get("License-Expression"), classifiers])) or (
            meta.get("License") or ""
        )
        assert PERMISSIVE.search(declared), f"{name}: license {declared[:80]!r} is not permissive"
        assert not re.search(r"\bA?GPL", declared), f"{name} is copyleft: {declared[:80]!r}"


def test_prompts_are_files() -> None:
    from polyrag.answer.prompts import prompt

    for name in ("system", "question", "rewrite"):
        assert prompt(name).strip()
