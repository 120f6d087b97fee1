"""PDF parsing with pypdfium2: pages, breaks, boxes, encryption, damage, scans and OCR."""

from __future__ import annotations

import difflib
import re
import shutil
from pathlib import Path

import pytest

from polyrag.errors import (
    CorruptFileError,
    EmptyFileError,
    EncryptedFileError,
    MissingDependencyError,
    ParseError,
)
from polyrag.parse.base import Document
from polyrag.parse.ocr import Ocr
from polyrag.parse.pdf import PdfParser, big_images_possible
from polyrag.parse.router import ParserRouter
from polyrag.settings import OcrSettings
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


def test_a_listing_of_amounts_keeps_a_line_per_entry() -> None:
    """Each payee's line ends in its amount: joined as wrapped prose, "ARMER, DEREK A" stood
    right after SMITH's 21,000.00, and the model paid him that."""
    document = parse("pdf_tables/pdfplumber__senate-expenditures.pdf")
    text = "\n".join(b.text for b in document.blocks)  # type: ignore[attr-defined]
    assert "21,000.00\nARMER, DEREK A LEGISLATIVE CORRESPONDENT" in text
    assert "TO AUG. 14 12,111.06\nENGLERT" in text


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


def _pdf_of_figures(figures: list[tuple[tuple[float, float], str, object]]) -> bytes:
    """A real PDF made by matplotlib: one page per (size in inches, text, picture or None)."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot
    from matplotlib.backends.backend_pdf import PdfPages

    buffer = io.BytesIO()
    with matplotlib.rc_context({"pdf.fonttype": 42}), PdfPages(buffer) as pages:
        for size, text, picture in figures:
            figure = pyplot.figure(figsize=size)
            figure.text(0.05, 0.9, text, fontsize=9, va="top", wrap=True)
            if picture is not None:
                axes = figure.add_axes((0.05, 0.05, 0.9, 0.5))
                axes.imshow(picture, cmap="gray", interpolation="nearest")
                axes.axis("off")
            pages.savefig(figure)
            pyplot.close(figure)
    return buffer.getvalue()


def _scanned(name: str, ocr: Ocr | None = None) -> Document:
    return PdfParser(ocr).parse((CORPUS / "pdf_scanned" / name).read_bytes(), name=name)


def _similarity(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, " ".join(a.split()), " ".join(b.split()), False).ratio()


needs_tesseract = pytest.mark.skipif(shutil.which("tesseract") is None, reason="no tesseract")


@needs_tesseract
@pytest.mark.parametrize(
    "name",
    [
        "docling__ocr_test.pdf",
        "docling__ocr_test_rotated_90.pdf",
        "docling__ocr_test_rotated_180.pdf",
    ],
)
def test_scanned_pdf_is_ocred_upright_with_boxes_in_points(name: str) -> None:
    truth = (CORPUS / "_groundtruth" / "docling__ocr_test.pdf.groundtruth.md").read_text()
    truth = re.sub(r"[#*_`>]", "", truth)  # the Markdown marks, not text on the page
    document = _scanned(name)
    text_blocks = [b for b in document.blocks if b.kind == BlockKind.TEXT]
    assert _similarity(" ".join(b.text for b in text_blocks), truth) >= 0.95  # measured 1.0
    # /Rotate only turns the display: the text sits at the same place in PDF user space.
    x0, y0, x1, y1 = text_blocks[0].locator.bbox or (0, 0, 0, 0)
    assert text_blocks[0].locator.page == 1
    assert abs(x0 - 72.5) < 3 and abs(y0 - 691.6) < 3 and abs(x1 - 503.3) < 3 and abs(y1 - 764) < 3


@needs_tesseract
def test_pages_of_a_multi_page_scan_are_ocred_together_and_kept_in_order() -> None:
    import io

    import pypdfium2 as pdfium

    scan = pdfium.PdfDocument.new()
    for name in (
        "docling__ocr_test_rotated_180.pdf",
        "pdfjs__scan-bad.pdf",
        "docling__ocr_test.pdf",
    ):
        scan.import_pages(pdfium.PdfDocument(CORPUS / "pdf_scanned" / name))
    buffer = io.BytesIO()
    scan.save(buffer)
    document = PdfParser(Ocr(OcrSettings(workers=2))).parse(buffer.getvalue(), name="scan.pdf")
    assert document.pages == 3
    kinds = [(b.kind, b.locator.page) for b in document.blocks]
    assert kinds.index((BlockKind.BREAK, 2)) < kinds.index((BlockKind.BREAK, 3))
    pages = {
        n: " ".join(b.text for b in document.blocks if b.locator.page == n and b.text)
        for n in (1, 2, 3)
    }
    assert pages[1].startswith("Docling bundles") and pages[3].startswith("Docling bundles")
    assert "pdf.js" in pages[2]
    first = next(b for b in document.blocks if b.locator.page == 1).locator.bbox
    last = next(b for b in document.blocks if b.locator.page == 3 and b.text).locator.bbox
    assert first == pytest.approx(last, abs=3)


@needs_tesseract
def test_scan_turned_against_its_page_rotation_is_read() -> None:
    document = _scanned("docling__sample_with_rotation_mismatch.pdf")
    text = " ".join(b.text for b in document.blocks)
    assert "THE SLEREXE COMPANY LIMITED" in text and "BOOLE" in text


@needs_tesseract
def test_table_drawn_as_a_picture_is_read() -> None:
    document = ParserRouter().parse(
        (CORPUS / "pdf_tables/unstructured__single_table.pdf").read_bytes(), "table.pdf"
    )
    text = " ".join(b.text for b in document.blocks)
    assert "Chipper" in text and "64,058" in text


def test_scanned_pdf_with_ocr_off_is_a_clear_error() -> None:
    parser = PdfParser(Ocr(OcrSettings(enabled=False)))
    with pytest.raises(ParseError, match=r"no text layer .* OCR is turned off") as caught:
        parser.parse((CORPUS / "pdf_tables/unstructured__single_table.pdf").read_bytes(), name="t")
    assert "parse.ocr.enabled" in caught.value.hint


def test_a_scan_with_a_text_layer_is_not_ocred() -> None:
    # Built with a tesseract that does not exist: any OCR call would raise.
    document = _scanned("unstructured__pdf-with-ocr-text.pdf", Ocr(binary="no-such-tesseract"))
    assert sum(len(b.text) for b in document.blocks) > 500


def test_born_digital_pdf_never_calls_ocr() -> None:
    parser = PdfParser(Ocr(binary="no-such-tesseract"))
    document = parser.parse(
        (CORPUS / "pdf_multicolumn/pdfjs__tracemonkey.pdf").read_bytes(), name="tracemonkey.pdf"
    )
    assert document.pages == 14 and document.layout == "report"


def test_missing_tesseract_is_reported_when_a_page_needs_it() -> None:
    with pytest.raises(MissingDependencyError, match="tesseract") as caught:
        ParserRouter([PdfParser(Ocr(binary="no-such-tesseract"))]).parse(
            (CORPUS / "pdf_scanned/docling__ocr_test.pdf").read_bytes(), "scan.pdf"
        )
    assert "apt-get install tesseract-ocr" in caught.value.hint


@needs_tesseract
def test_big_picture_on_a_text_page_becomes_a_picture_block() -> None:
    document = ParserRouter().parse(
        (CORPUS / "pdf_tables/unstructured__embedded-images-tables.pdf").read_bytes(), "e.pdf"
    )
    pictures = [b for b in document.blocks if b.kind == BlockKind.PICTURE]
    assert len(pictures) == 1
    assert pictures[0].locator.page == 1
    assert pictures[0].locator.bbox == pytest.approx((110.9, 452.2, 351.2, 613.6), abs=0.2)
    assert "Current Density" in pictures[0].text


@needs_tesseract
def test_picture_ocr_is_capped_per_document() -> None:
    from PIL import Image

    scan = Image.open(CORPUS / "image/test__phototest.tif").convert("L")
    words = "Quarterly report with a figure that holds text of its own. " * 3
    data = _pdf_of_figures([((8.5, 11), words, scan)] * 3)
    capped = PdfParser(Ocr(OcrSettings(max_pictures=1))).parse(data, name="r.pdf")
    pictures = [b for b in capped.blocks if b.kind == BlockKind.PICTURE]
    assert len(pictures) == 1 and pictures[0].locator.page == 1
    assert "quick brown dog" in pictures[0].text
    off = PdfParser(Ocr(OcrSettings(pictures=False))).parse(data, name="r.pdf")
    assert not [b for b in off.blocks if b.kind == BlockKind.PICTURE]


def test_slide_decks_and_reports_are_told_apart() -> None:
    deck = _pdf_of_figures([((10, 5.625), f"Slide {n}: revenue grew in every region", None)
                            for n in range(1, 5)])  # fmt: skip
    report = _pdf_of_figures([((8.5, 11), "A page of a report. " * 40, None)] * 3)
    assert PdfParser().parse(deck, name="deck.pdf").layout == "slides"
    assert PdfParser().parse(report, name="report.pdf").layout == "report"


def test_image_dictionaries_are_found_without_a_page_walk() -> None:
    assert big_images_possible(b"<< /Type /XObject /Subtype /Image /Width 300 /Height 200 >>", 150)
    assert not big_images_possible(b"<</Subtype/Image/Width 40/Height 40>>stream", 150)
    assert big_images_possible(b"<</Subtype/Image/Width 15 0 R/Height 900>>stream", 150)
    assert not big_images_possible(b"%PDF-1.7 no pictures here", 150)


def test_damaged_but_repairable_pdfs_still_give_text() -> None:
    document = parse("pdf_malformed/pdfjs__helloworld-bad.pdf")
    assert any("Hello" in b.text for b in document.blocks)  # type: ignore[attr-defined]
