"""Rich Text Format (.rtf) → Blocks with striprtf: one TEXT block per paragraph."""

from __future__ import annotations

import re

from polyrag.errors import MissingDependencyError
from polyrag.parse.base import Document
from polyrag.parse.plain import normalize_newlines, text_blocks

_CODEPAGE = re.compile(rb"\\ansicpg(\d+)")
_SPACES = re.compile(r"[ \t\u00a0]+")
_BLANK_RUNS = re.compile(r"\n{3,}")


class RtfParser:
    """RTF documents (WordPad, TextEdit, older word processors)."""

    media_types = frozenset({"rtf"})
    version = "1"

    def parse(self, data: bytes, *, name: str, password: str | None = None) -> Document:
        text = rtf_to_plain(data)
        return Document(media_type="rtf", blocks=tuple(text_blocks(text)))


def rtf_to_plain(data: bytes) -> str:
    """The text of an RTF document, paragraphs separated by blank lines."""
    try:
        from striprtf.striprtf import rtf_to_text
    except ImportError:
        raise MissingDependencyError("reading RTF needs striprtf") from None
    declared = _CODEPAGE.search(data[:4096])
    encoding = f"cp{declared.group(1).decode()}" if declared else "cp1252"
    try:
        "".encode(encoding)
    except LookupError:
        encoding = "cp1252"
    # RTF is 7-bit text; bytes above 127 only occur in broken files, latin-1 keeps them as-is.
    text = rtf_to_text(data.decode("latin-1"), encoding=encoding, errors="replace")
    text = normalize_newlines(text)
    lines = [_SPACES.sub(" ", line).strip() for line in text.split("\n")]
    return _BLANK_RUNS.sub("\n\n", "\n\n".join(lines)).strip()
