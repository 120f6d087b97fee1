"""Tables and pictures of Word and PowerPoint files, from parsing to chunks with anchors.

Pictures are read by the real tesseract (parse/ocr.py): the test image is tesseract's own
phototest page, whose exact text is in the shared corpus.
"""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import docx
import pytest
from docx.shared import Inches as DocxInches
from PIL import Image
from pptx import Presentation
from pptx.util import Inches

from polyrag.chunk.chunker import Chunker
from polyrag.errors import CorruptFileError, MissingDependencyError
from polyrag.parse.pictures import MAX_PICTURES, ImageText, PictureReader, picture_ocr
from polyrag.parse.slides import SlidesParser
from polyrag.parse.word import WordParser
from polyrag.settings import ChunkSettings, ParseSettings
from polyrag.types import BlockKind, Chunk, Modality, Source

CORPUS = Path(__file__).parents[3] / "shared" / "eval" / "corpus"
PHOTOTEST = CORPUS / "image" / "test__phototest.tif"
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared eval corpus is absent")
needs_tesseract = pytest.mark.skipif(shutil.which("tesseract") is None, reason="no tesseract")


def ocr() -> ImageText:
    reader = picture_ocr(ParseSettings())
    assert reader is not None
    return reader


class WordCounter:
    def count_tokens(self, text: str) -> int:
        return len(text.split())


def chunks_of(data: bytes, name: str, media_type: str) -> list[Chunk]:
    parser = WordParser(ocr=ocr()) if media_type == "docx" else SlidesParser(ocr=ocr())
    document = parser.parse(data, name=name)
    source = Source("src01", f"/docs/{name}", "c" * 64, len(data), document.media_type)
    return Chunker(WordCounter(), ChunkSettings()).chunk(source, document.blocks, document.layout)


def phototest_png() -> bytes:
    buffer = io.BytesIO()
    Image.open(PHOTOTEST).convert("L").save(buffer, format="PNG")
    return buffer.getvalue()


def anchors_hold_placeholders(chunks: list[Chunk]) -> None:
    """Every table or picture chunk points to the text chunk naming it, which comes before it."""
    for chunk in chunks:
        if chunk.modality in (Modality.TABLE, Modality.PICTURE) and chunk.anchor is not None:
            parent = chunks[chunk.anchor]
            title = chunk.text.split(":")[0].splitlines()[0]  # "Table 2" or "Picture 1"
            assert parent.modality is Modality.TEXT and parent.ordinal < chunk.ordinal
            assert (
                f"[{title}:" in parent.text
                or f"[{title}]" in parent.text
                or (
                    f"\n{title}" in "\n" + parent.text  # a slide holds the table itself
                )
            )


@needs_corpus
@needs_tesseract
def test_word_picture_is_read_in_place_and_linked() -> None:
    document = docx.Document()
    document.add_heading("Scanned note", level=1)
    document.add_paragraph("The page below was scanned from the archive.")
    document.add_picture(io.BytesIO(phototest_png()), width=DocxInches(5))
    document.add_paragraph("It was filed in 1998.")
    table = document.add_table(rows=3, cols=2)
    cells = [("Box", "Shelf"), ("A-17", "North"), ("B-02", "South")]
    for row, values in zip(table.rows, cells, strict=True):
        for cell, value in zip(row.cells, values, strict=True):
            cell.text = value
    buffer = io.BytesIO()
    document.save(buffer)

    parsed = WordParser(ocr=ocr()).parse(buffer.getvalue(), name="note.docx")
    kinds = [block.kind for block in parsed.blocks]
    assert kinds == [
        BlockKind.HEADING,
        BlockKind.TEXT,
        BlockKind.PICTURE,
        BlockKind.TEXT,
        BlockKind.TABLE,
    ]
    assert "The quick brown dog jumped over the" in parsed.blocks[2].text
    assert parsed.layout == "report"

    chunks = chunks_of(buffer.getvalue(), "note.docx", "docx")
    text = chunks[0]
    assert text.text.splitlines() == [
        "Scanned note",
        "The page below was scanned from the archive.",
        "[Picture 1: This is a lot of 12 point text …]",
        "It was filed in 1998.",
        "[Table 1: Box, Shelf]",
    ]
    pictures = [c for c in chunks if c.modality is Modality.PICTURE]
    tables = [c for c in chunks if c.modality is Modality.TABLE]
    assert pictures and all(c.anchor == 0 for c in pictures + tables)
    assert "lazy fox" in " ".join(c.text for c in pictures)
    assert "Row 3: Box is B-02, Shelf is South" in tables[-1].text
    anchors_hold_placeholders(chunks)


@needs_corpus
@needs_tesseract
def test_slide_pictures_and_tables_join_one_chunk_per_slide() -> None:
    presentation = Presentation()
    first = presentation.slides.add_slide(presentation.slide_layouts[5])  # title only
    first.shapes.title.text = "Archive scan"
    first.shapes.add_picture(io.BytesIO(phototest_png()), Inches(1), Inches(1.5), Inches(6))
    first.notes_slide.notes_text_frame.text = "Read the first line aloud."
    second = presentation.slides.add_slide(presentation.slide_layouts[5])
    second.shapes.title.text = "Revenue by region"
    shape = second.shapes.add_table(3, 2, Inches(1), Inches(2), Inches(4), Inches(1))
    values = {(0, 0): "Region", (0, 1): "Q3 revenue", (1, 0): "Nordics", (1, 1): "4.1 M"}
    values |= {(2, 0): "Iberia", (2, 1): "2.7 M"}
    for (row, col), value in values.items():
        shape.table.cell(row, col).text = value
    buffer = io.BytesIO()
    presentation.save(buffer)

    parsed = SlidesParser(ocr=ocr()).parse(buffer.getvalue(), name="deck.pptx")
    assert parsed.layout == "slides"
    chunks = chunks_of(buffer.getvalue(), "deck.pptx", "pptx")
    slides = [c for c in chunks if c.modality is Modality.TEXT]
    assert [c.locator.slide for c in slides] == [1, 2]
    lines = slides[0].text.splitlines()
    assert lines[0] == "Archive scan" and lines[-1] == "Speaker notes: Read the first line aloud."
    assert (
        lines[1].startswith("Picture 1: This is a lot of 12 point text") and "lazy fox" in lines[1]
    )
    assert (
        "Table 1: Region, Q3 revenue" in slides[1].text and "| Nordics | 4.1 M |" in slides[1].text
    )
    picture = next(c for c in chunks if c.modality is Modality.PICTURE)
    assert picture.anchor == slides[0].ordinal and picture.locator.slide == 1
    rows = next(c for c in chunks if "Row 2:" in c.text)
    assert rows.anchor == slides[1].ordinal and rows.locator.slide == 2
    assert "Row 2: Region is Nordics, Q3 revenue is 4.1 M" in rows.text
    anchors_hold_placeholders(chunks)


@needs_corpus
def test_corpus_word_tables_have_placeholders_and_anchors() -> None:
    data = (CORPUS / "docx" / "docling__word_tables.docx").read_bytes()
    chunks = chunks_of(data, "word_tables.docx", "docx")
    text = [c for c in chunks if c.modality is Modality.TEXT]
    assert len(text) == 1
    assert [line for line in text[0].text.splitlines() if line.startswith("[Table")] == [
        f"[Table {n}: Header 0.0, Header 0.1{suffix}]"
        for n, suffix in [
            (1, ", Header 0.2"),
            (2, ", Header 0.2"),
            (3, ", Header 0.2, Header 0.3"),
            (4, ", Header 0.2"),
            (5, ", Header 0.2"),
            (6, ""),
            (7, ", Merged Cell 0.2 1.2"),
        ]
    ]
    tables = [c for c in chunks if c.modality is Modality.TABLE]
    assert {c.anchor for c in tables} == {text[0].ordinal}
    assert "Row 2: Header 0.0 is Cell 1.0, Header 0.1 is Cell 1.1, Header 0.2 is Cell 1.2" in (
        tables[1].text
    )
    anchors_hold_placeholders(chunks)


@needs_corpus
@pytest.mark.parametrize(
    ("relative", "pictures"),
    [("docx/unstructured__contains-pictures.docx", 2), ("docx/docling__word_sample.docx", 0)],
)
def test_corpus_word_pictures(relative: str, pictures: int) -> None:
    chunks = chunks_of((CORPUS / relative).read_bytes(), Path(relative).name, "docx")
    found = [c for c in chunks if c.modality is Modality.PICTURE]
    # Its two logos have text; a third picture (a photo) may yield a few words or none.
    assert len({c.text.split(":")[0] for c in found}) in (pictures, pictures + 1)
    if pictures:
        assert any("python" in c.text.lower() for c in found)  # the "python powered" logo
    anchors_hold_placeholders(chunks)


@needs_corpus
@pytest.mark.parametrize(
    "relative",
    [
        "pptx/unstructured__fake-power-point-table.pptx",
        "pptx/docling__powerpoint_with_image.pptx",
        "pptx/docling__powerpoint_sample.pptx",
        "pptx/unstructured__fake-power-point-many-pages.pptx",
        "pptx/unstructured__picture.pptx",
    ],
)
def test_corpus_decks_are_one_chunk_per_slide(relative: str) -> None:
    data = (CORPUS / relative).read_bytes()
    parsed = SlidesParser().parse(data, name=Path(relative).name)
    slides_with_text = {
        b.locator.slide
        for b in parsed.blocks
        if b.kind is not BlockKind.BREAK and b.kind is not BlockKind.HEADING
    }
    chunks = chunks_of(data, Path(relative).name, "pptx")
    pages = [c.locator.slide for c in chunks if c.modality is Modality.TEXT]
    assert pages == sorted(pages) and len(pages) == len(set(pages))  # one chunk per slide
    assert slides_with_text <= set(pages)
    anchors_hold_placeholders(chunks)


def test_corpus_deck_table_is_linked_to_its_slide() -> None:
    if not CORPUS.is_dir():
        pytest.skip("the shared eval corpus is absent")
    data = (CORPUS / "pptx" / "unstructured__fake-power-point-table.pptx").read_bytes()
    slide, markdown, rows = chunks_of(data, "table.pptx", "pptx")
    assert slide.text.startswith("A Slide with a Table\nTable 1: Column 1, Column 2, Column 3\n|")
    assert markdown.anchor == rows.anchor == slide.ordinal
    assert rows.text.splitlines()[1] == (
        "Row 2: Column 1 is Red, Column 2 is Green, Column 3 is Blue"
    )
    assert rows.locator.slide == 1 and rows.locator.rows == (2, 4)


class Counting:
    """Counts what it is asked to read (the reader's skipping rules are under test)."""

    def __init__(self, error: Exception | None = None) -> None:
        self.calls = 0
        self.error = error

    def image_text(self, data: bytes) -> str:
        self.calls += 1
        if self.error:
            raise self.error
        return f"text {self.calls}"


def image(seed: int, size: tuple[int, int] = (200, 100)) -> bytes:
    buffer = io.BytesIO()
    noise = Image.effect_noise(size, 40 + seed)  # noise: no two images compress alike
    noise.save(buffer, format="PNG")
    return buffer.getvalue()


def test_pictures_are_capped_deduplicated_and_small_ones_skipped() -> None:
    counting = Counting()
    reader = PictureReader(counting)
    images = [image(i) for i in range(MAX_PICTURES + 5)]
    texts = [reader.text(data) for data in images]
    assert counting.calls == MAX_PICTURES
    assert texts[-1] == "" and texts[0] == "text 1"
    assert reader.warnings == [f"only the first {MAX_PICTURES} pictures were read by OCR"]
    again = PictureReader(counting)
    assert again.text(images[0]) and again.text(images[0]) == ""  # a repeated logo: once
    assert again.text(image(1, (300, 20))) == ""  # a thin rule: no line of text fits
    assert again.text(b"\x89PNG tiny") == ""
    assert PictureReader(None).text(images[0]) == ""


@pytest.mark.parametrize(
    "error",
    [
        MissingDependencyError("tesseract is not installed"),
        CorruptFileError("cannot be read: truncated PNG"),
    ],
)
def test_ocr_failures_become_warnings(error: Exception) -> None:
    counting = Counting(error)
    reader = PictureReader(counting)
    assert reader.text(image(1)) == "" and reader.text(image(2)) == ""
    assert reader.warnings and str(error) in reader.warnings[0]
    if isinstance(error, MissingDependencyError):
        assert counting.calls == 1  # not tried again
