"""The embedder seam: texts → unit-length float32 vectors."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np


class TokenCounter(Protocol):
    """Counts tokens the way the embedder will see them (used by the chunker)."""

    def count_tokens(self, text: str) -> int: ...


class Embedder(TokenCounter, Protocol):
    model_id: str
    dim: int
    max_tokens: int  # longer inputs are truncated by the model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Shape (len(texts), dim), float32, each row L2-normalised."""
        ...
