"""PDF parsing with pypdfium2: pages, breaks, boxes, encryption and damage."""

from __future__ import annotations

from pathlib import Path

import pytest

from polyrag.errors import CorruptFileError, EmptyFileError, EncryptedFileError, ParseError
from polyrag.parse.pdf import PdfParser
from polyrag.parse.router import ParserRouter
from polyrag.types import BlockKind

CORPUS = Path(__file__).parents[3] / "shared" / "eval" / "corpus"
pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared eval corpus is absent")

# Files in pdf_encrypted/ that need a user password to open.
PASSWORD_PROTECTED = [
    "docling__2206.01062_pg3.pdf",
    "pdfplumber__password-example.pdf",
    "sample-files__libreoffice-writer-password.pdf",
    "tika__testUnicodePassword.pdf",
    "unstructured__password.pdf",
]
# Encrypted with owner restrictions only: they open without a password and must parse.
OWNER_RESTRICTED = ["tika__testPDF_protected.pdf", "unstructured__copy-protected.pdf"]


def parse(relative: str) -> object:
    return PdfParser().parse((CORPUS / relative).read_bytes(), name=Path(relative).name)


def test_pages_are_separated_and_located() -> None:
    document = ParserRouter().parse(
        (CORPUS / "pdf_multicolumn/pdfjs__tracemonkey.pdf").read_bytes(), "tracemonkey.pdf"
    )
    assert document.media_type == "pdf"
    assert document.pages == 14
    breaks = [b for b in document.blocks if b.kind == BlockKind.BREAK]
    assert len(breaks) == document.pages - 1
    first_page = " ".join(b.text for b in document.blocks if b.locator.page == 1)
    assert "Trace-based Just-in-Time Type Specialization" in first_page
    # The paper names its system from page 2 on; page 1 has no "TraceMonkey" in its text layer.
    assert "TraceMonkey" in " ".join(b.text for b in document.blocks if b.locator.page == 2)
    text_blocks = [b for b in document.blocks if b.kind == BlockKind.TEXT]
    assert all(b.locator.page is not None and b.locator.bbox is not None for b in text_blocks)
    x0, y0, x1, y1 = text_blocks[0].locator.bbox or (0, 0, 0, 0)
    assert 0 <= x0 < x1 <= 700 and 0 <= y0 < y1 <= 900


def test_hyphenation_marks_are_removed() -> None:
    document = ParserRouter().parse(
        (CORPUS / "pdf_multicolumn/pdfjs__tracemonkey.pdf").read_bytes(), "tracemonkey.pdf"
    )
    text = "\n".join(b.text for b in document.blocks)
    assert "\ufffe" not in text
    assert "compile than statically typed" in text


@pytest.mark.parametrize("name", PASSWORD_PROTECTED)
def test_password_protected_pdfs_are_reported(name: str) -> None:
    with pytest.raises(EncryptedFileError, match="encrypted PDF"):
        ParserRouter().parse((CORPUS / "pdf_encrypted" / name).read_bytes(), name)


@pytest.mark.parametrize("name", OWNER_RESTRICTED)
def test_owner_restricted_pdfs_parse(name: str) -> None:
    document = ParserRouter().parse((CORPUS / "pdf_encrypted" / name).read_bytes(), name)
    assert sum(len(b.text) for b in document.blocks) > 1000


def test_blank_pdf_behind_an_empty_password_is_empty() -> None:
    with pytest.raises(EmptyFileError):
        ParserRouter().parse(
            (CORPUS / "pdf_encrypted/pdfjs__empty_protected.pdf").read_bytes(), "e.pdf"
        )


def test_truncated_pdf_is_corrupt() -> None:
    with pytest.raises(CorruptFileError, match="cannot be read"):
        parse("malformed/derived__tracemonkey-truncated-300KB.pdf")


def test_scanned_pdf_has_no_text_layer() -> None:
    with pytest.raises(ParseError, match="no text layer"):
        parse("pdf_tables/unstructured__single_table.pdf")


def test_damaged_but_repairable_pdfs_still_give_text() -> None:
    document = parse("pdf_malformed/pdfjs__helloworld-bad.pdf")
    assert any("Hello" in b.text for b in document.blocks)  # type: ignore[attr-defined]
