"""The parser seam: bytes of one file → an ordered list of Blocks, each with a Locator."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol

from polyrag.types import Block

Layout = Literal["report", "slides"]


@dataclass(frozen=True)
class Attachment:
    """A file carried inside another (an e-mail attachment, an archive member).

    The pipeline ingests it as a child source whose path is `<parent path>#<name>`, so its
    citations name the file that holds it.
    """

    name: str
    data: bytes


@dataclass(frozen=True)
class Document:
    """What a parser read from one file."""

    media_type: str
    blocks: tuple[Block, ...]
    pages: int = 0  # pages, slides or sheets, for progress and throughput
    title: str | None = None
    warnings: tuple[str, ...] = field(default=())
    attachments: tuple[Attachment, ...] = field(default=())
    layout: Layout = "report"  # slide-like documents are chunked one page or slide per chunk


class Parser(Protocol):
    """Reads one family of formats.

    `parse` raises a `ParseError` subclass (encrypted, empty, corrupt, unsupported) with a
    message that names the reason; it never returns a half-read document silently. `password`
    opens protected files; parsers of formats without protection ignore it.
    """

    media_types: frozenset[str]
    version: str  # bump when output changes, so the manifest re-parses old sources

    def parse(self, data: bytes, *, name: str, password: str | None = None) -> Document: ...
