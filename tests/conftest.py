"""Shared paths and fixtures. The evaluation data lives in ../shared beside the checkout."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
CORPUS = SHARED / "eval" / "corpus"
MODELS_DIR = Path(os.environ.get("POLYRAG_MODELS_DIR") or REPO / ".polyrag" / "models")

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ["POLYRAG_MODELS_DIR"] = str(MODELS_DIR)


@pytest.fixture(scope="session")
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.fail(f"evaluation corpus missing at {CORPUS}: clone with ../shared beside it")
    return CORPUS
