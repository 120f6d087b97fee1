"""Counting embedder tokens without loading the embedding model (for parse workers)."""

from __future__ import annotations

from pathlib import Path

from polyrag.errors import MissingDependencyError, ModelFileError


class WordPieceCounter:
    """Counts word pieces exactly as `OnnxMiniLM.count_tokens` does, from its tokenizer.json."""

    def __init__(self, tokenizer_file: Path) -> None:
        try:
            from tokenizers import Tokenizer
        except ImportError as error:  # pragma: no cover - part of the default install
            raise MissingDependencyError(f"chunking needs {error.name}") from None
        try:
            self._tokenizer = Tokenizer.from_file(str(tokenizer_file))
        except Exception as error:
            raise ModelFileError(f"cannot load tokenizer {tokenizer_file}: {error}") from None
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()

    def count_tokens(self, text: str) -> int:
        """Word pieces without the [CLS]/[SEP] markers."""
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)
