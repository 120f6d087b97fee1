"""Headings and running headers/footers in real filings: a statement's title travels with its
rows, and "Table of Contents" or the page number is not read as text on every page."""

from __future__ import annotations

import io
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from polyrag.chunk.chunker import Chunker
from polyrag.parse.base import Document
from polyrag.parse.pdf import PdfParser
from polyrag.settings import ChunkSettings
from polyrag.types import BlockKind, Source

FILINGS = Path(__file__).parents[3] / "shared" / "eval" / "financebench" / "pdfs"
pytestmark = pytest.mark.skipif(not FILINGS.is_dir(), reason="the shared eval data is absent")


class WordCounter:
    def count_tokens(self, text: str) -> int:
        return len(text.split())


def pages_of(filing: str, pages: range) -> Document:
    """Some pages of a real filing (1-based numbers), parsed as one PDF."""
    source = pdfium.PdfDocument(FILINGS / filing)
    excerpt = pdfium.PdfDocument.new()
    excerpt.import_pages(source, [n - 1 for n in pages])
    buffer = io.BytesIO()
    excerpt.save(buffer)
    return PdfParser().parse(buffer.getvalue(), name=filing)


def headings(document: Document, page: int) -> list[tuple[int, str]]:
    return [
        (b.level, " ".join(b.text.split()))
        for b in document.blocks
        if b.kind is BlockKind.HEADING and b.locator.page == page
    ]


def test_a_bold_statement_title_and_the_notes_headings() -> None:
    # 3M's 2018 10-K, pages 60-63: statements set in Times, titles and note headings in bold.
    document = pages_of("3M_2018_10K.pdf", range(60, 64))
    ((level, title),) = headings(document, 1)  # the cash flow statement: its rows are a table
    assert level == 1 and "Consolidated Statement of Cash Flows" in title
    assert headings(document, 2) == [
        (1, "Notes to Consolidated Financial Statements"),
        (2, "NOTE 1. Significant Accounting Policies"),
    ]
    # Rows with figures are never headings, even in bold ("Total assets $ 36,500 …").
    numbered = [t for page in (1, 2, 3, 4) for _, t in headings(document, page)]
    assert all(sum(c.isdigit() for c in text) * 2 <= len(text) for text in numbered)


def test_capitals_opening_a_page_are_its_title_when_fonts_do_not_say_bold() -> None:
    # Amazon's 2017 10-K reports no weight and no bold face name for its statement titles.
    document = pages_of("AMAZON_2017_10K.pdf", range(37, 41))
    level, text = headings(document, 2)[0]
    assert level == 1 and text.startswith("AMAZON.COM, INC. CONSOLIDATED STATEMENTS OF OPERATIONS")


def test_running_headers_and_page_numbers_are_dropped_but_pages_kept() -> None:
    document = pages_of("3M_2018_10K.pdf", range(59, 63))
    texts = [" ".join(b.text.split()) for b in document.blocks if b.text.strip()]
    assert "Table of Contents" not in texts  # a link atop every page of the filing
    assert not [t for t in texts if t.isdigit()]  # "59", "60"… at the foot of each page
    assert {b.locator.page for b in document.blocks if b.text.strip()} == {1, 2, 3, 4}
    # …and the numbers they printed stay in the locators: these four pages are the filing's 59-62.
    assert {b.locator.page: b.locator.printed_page for b in document.blocks} == {
        1: 59,
        2: 60,
        3: 61,
        4: 62,
    }
    # The same words inside a page's body are kept.
    assert any("Notes to Consolidated Financial Statements" in t for t in texts)


def test_a_short_document_keeps_its_repeated_lines() -> None:
    document = pages_of("3M_2018_10K.pdf", range(59, 62))  # three pages: too few to tell
    texts = [" ".join(b.text.split()) for b in document.blocks]
    assert texts.count("Table of Contents") == 3


def test_each_chunk_of_a_statement_carries_its_title() -> None:
    document = pages_of("3M_2018_10K.pdf", range(59, 63))
    source = Source("3m", "/filings/3M_2018_10K.pdf", "c" * 64, 1, "pdf")
    chunks = Chunker(WordCounter(), ChunkSettings()).chunk(source, list(document.blocks))
    capex = [c for c in chunks if "Purchases of property, plant and equipment" in c.text]
    assert capex and all(c.locator.page == 2 for c in capex)
    for chunk in capex:
        assert "Consolidated Statement of Cash Flows" in chunk.locator.heading_path[0]
    # Its row, as a sentence naming each year (the statement has no ruling lines).
    assert any(
        "Purchases of property, plant and equipment (PP&E) — 2018: (1,577), 2017: (1,373), "
        "2016: (1,420)" in c.text
        for c in capex
    )


def test_a_footer_numbered_in_small_roman_numerals_is_furniture_too() -> None:
    # Pfizer's 2021 10-K numbers its contents pages i, ii, iii… and its body 1, 2, 3… under
    # the same footer; the contents' footers were read as headings of their own.
    document = pages_of("PFIZER_2021_10K.pdf", range(4, 10))
    footers = [
        (b.locator.page, " ".join(b.text.split()))
        for b in document.blocks
        if b.text.strip().startswith("Pfizer Inc. 2021 Form 10-K")
    ]
    # Page 2 prints nothing else, and a page's only words are kept (one line per slide).
    assert footers == [(2, "Pfizer Inc. 2021 Form 10-K ii")]
