"""Every corpus file either parses to text or fails with a ParseError, quickly."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from polyrag.errors import ParseError
from polyrag.parse.router import ParserRouter
from polyrag.types import BlockKind

CORPUS = Path(__file__).parents[3] / "shared" / "eval" / "corpus"
FOLDERS = (
    "csv", "docx", "html", "pptx", "text_md", "xlsx", "pdf_multicolumn", "pdf_tables",
    "pdf_encrypted", "pdf_malformed", "malformed",
)  # fmt: skip
FILES = sorted(path for folder in FOLDERS for path in (CORPUS / folder).glob("*") if path.is_file())
SECONDS = 60.0  # a bound against hangs, not a speed measure (OCR of scanned tables takes ~15 s)

pytestmark = pytest.mark.skipif(not FILES, reason="the shared eval corpus is absent")


@pytest.mark.parametrize("path", FILES, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_file_parses_or_fails_with_a_reason(path: Path) -> None:
    data = path.read_bytes()
    started = time.perf_counter()
    try:
        document = ParserRouter().parse(data, path.name)
    except ParseError as error:
        assert str(error).strip(), "a ParseError must say why"
    else:
        assert any(b.text.strip() for b in document.blocks if b.kind != BlockKind.BREAK)
        assert document.media_type in ParserRouter().media_types
    assert time.perf_counter() - started < SECONDS
