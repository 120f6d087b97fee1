"""Shared paths and fixtures. The evaluation data lives in ../shared beside the checkout."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from .api.reader import Reader

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


@pytest.fixture
def reader(monkeypatch: pytest.MonkeyPatch) -> Reader:
    """Every engine the test builds answers with a scripted Reader (tests/api/reader.py)."""
    from polyrag import build
    from polyrag.llm.fallback import FallbackChain
    from polyrag.settings import Settings

    from .api.reader import Reader

    model = Reader()

    def chain(settings: Settings) -> FallbackChain:
        return FallbackChain([model])

    monkeypatch.setattr(build, "chat", chain)
    return model
