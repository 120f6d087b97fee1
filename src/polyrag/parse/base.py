"""The parser seam: bytes of one file → an ordered list of Blocks, each with a Locator."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from polyrag.types import Block


@dataclass(frozen=True)
class Document:
    """What a parser read from one file."""

    media_type: str
    blocks: tuple[Block, ...]
    pages: int = 0  # pages, slides or sheets, for progress and throughput
    title: str | None = None
    warnings: tuple[str, ...] = field(default=())


class Parser(Protocol):
    """Reads one family of formats.

    `parse` raises a `ParseError` subclass (encrypted, empty, corrupt, unsupported) with a
    message that names the reason; it never returns a half-read document silently.
    """

    media_types: frozenset[str]
    version: str  # bump when output changes, so the manifest re-parses old sources

    def parse(self, data: bytes, *, name: str) -> Document: ...
