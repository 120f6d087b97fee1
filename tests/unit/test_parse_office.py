"""Word and PowerPoint parsing: body order, headings, lists, tables, slides and notes."""

from __future__ import annotations

import io
from pathlib import Path

import docx
import pytest
from pptx import Presentation
from pptx.util import Inches

from polyrag.errors import CorruptFileError, EncryptedFileError
from polyrag.parse.router import ParserRouter
from polyrag.parse.slides import SlidesParser
from polyrag.parse.word import WordParser
from polyrag.types import Block, BlockKind

CORPUS = Path(__file__).parents[3] / "shared" / "eval" / "corpus"
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared eval corpus is absent")


def parse_file(relative: str) -> tuple[Block, ...]:
    return ParserRouter().parse((CORPUS / relative).read_bytes(), Path(relative).name).blocks


def all_text(blocks: tuple[Block, ...]) -> str:
    return "\n".join(block.text for block in blocks)


def test_word_body_keeps_tables_in_place() -> None:
    document = docx.Document()
    document.add_heading("Report", level=1)
    document.add_paragraph("Before the table.")
    table = document.add_table(rows=2, cols=2)
    for row, values in zip(table.rows, [("Team", "Cups"), ("Maple Leafs", "13")], strict=True):
        for cell, value in zip(row.cells, values, strict=True):
            cell.text = value
    document.add_heading("Details", level=2)
    document.add_paragraph("First point", style="List Bullet")
    document.add_paragraph("Second point", style="List Number")
    document.add_paragraph("Third point", style="List Number")
    buffer = io.BytesIO()
    document.save(buffer)

    blocks = WordParser().parse(buffer.getvalue(), name="report.docx").blocks

    kinds = [(b.kind, b.level) for b in blocks]
    assert kinds[:4] == [
        (BlockKind.HEADING, 1),
        (BlockKind.TEXT, 0),
        (BlockKind.TABLE, 0),
        (BlockKind.HEADING, 2),
    ]
    assert blocks[2].text.splitlines()[0] == "| Team | Cups |"
    assert "| Maple Leafs | 13 |" in blocks[2].text
    items = [b.text for b in blocks[4:]]
    assert items[0] == "- First point"
    assert items[1].endswith("Second point") and items[1][0].isdigit()
    assert items[2].startswith("2. ")


def test_slides_have_titles_tables_and_notes() -> None:
    presentation = Presentation()
    slide = presentation.slides.add_slide(presentation.slide_layouts[5])  # title only
    slide.shapes.title.text = "Colours"
    shape = slide.shapes.add_table(2, 2, Inches(1), Inches(2), Inches(4), Inches(1))
    for (row, col), value in {(0, 0): "Name", (0, 1): "Hex", (1, 0): "Red", (1, 1): "#f00"}.items():
        shape.table.cell(row, col).text = value
    slide.notes_slide.notes_text_frame.text = "Mention the palette."
    untitled = presentation.slides.add_slide(presentation.slide_layouts[6])  # blank
    box = untitled.shapes.add_textbox(Inches(1), Inches(1), Inches(3), Inches(1))
    box.text_frame.text = "Loose text"
    buffer = io.BytesIO()
    presentation.save(buffer)

    document = SlidesParser().parse(buffer.getvalue(), name="deck.pptx")

    assert document.pages == 2
    first = [b for b in document.blocks if b.locator.slide == 1]
    assert [b.kind for b in first] == [
        BlockKind.BREAK,
        BlockKind.HEADING,
        BlockKind.TABLE,
        BlockKind.TEXT,
    ]
    assert first[1].text == "Colours" and first[1].level == 1
    assert "| Red | #f00 |" in first[2].text
    assert first[3].text == "Speaker notes: Mention the palette."
    second = [b for b in document.blocks if b.locator.slide == 2]
    assert second[1].text == "Slide 2"
    assert second[2].text == "Loose text"


def test_a_slide_table_cell_merged_down_stands_in_each_row() -> None:
    presentation = Presentation()
    slide = presentation.slides.add_slide(presentation.slide_layouts[6])
    shape = slide.shapes.add_table(4, 3, Inches(1), Inches(1), Inches(6), Inches(2))
    table = shape.table
    values = [("Region", "Team", "Cups"), ("East", "Leafs", "13"), ("", "Bruins", "6")]
    values.append(("West", "Blues", "1"))
    for r, row in enumerate(values):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    table.cell(1, 0).merge(table.cell(2, 0))
    buffer = io.BytesIO()
    presentation.save(buffer)
    document = SlidesParser().parse(buffer.getvalue(), name="cups.pptx")
    (block,) = [b for b in document.blocks if b.kind is BlockKind.TABLE]
    assert block.text.splitlines()[2:] == [
        "| East | Leafs | 13 |",
        "| East | Bruins | 6 |",
        "| West | Blues | 1 |",
    ]


@needs_corpus
def test_handbook_docx() -> None:
    blocks = parse_file("docx/unstructured__handbook-1p.docx")
    assert "chapter 13" in all_text(blocks)
    assert blocks[0].text == "Page header: US Trustee Handbook"


@needs_corpus
def test_word_sample_headings_lists_and_table() -> None:
    blocks = parse_file("docx/docling__word_sample.docx")
    headings = [(b.text, b.level) for b in blocks if b.kind == BlockKind.HEADING]
    assert headings == [("Swimming in the lake", 1), ("Let’s swim!", 2), ("Let’s eat", 3)]
    assert "- Paddle about" in [b.text for b in blocks]
    assert "1. Wear sunglasses" in [b.text for b in blocks]
    table = next(b for b in blocks if b.kind == BlockKind.TABLE)
    assert "| Berries | Blueberry, Strawberry, Cranberry | 150 |" in table.text


@needs_corpus
def test_docx_text_boxes_and_headers_are_read() -> None:
    assert "Student falls ill" in all_text(parse_file("docx/docling__textbox.docx"))
    text = all_text(parse_file("docx/unstructured__docx-hdrftr.docx"))
    assert "First header para" in text and "para2" in text


@needs_corpus
def test_misnamed_docx_is_parsed_as_docx() -> None:
    document = ParserRouter().parse(
        (CORPUS / "malformed/derived__docx-tables-really-a-docx.pdf").read_bytes(), "x.pdf"
    )
    assert document.media_type == "docx"
    assert any(b.kind == BlockKind.TABLE for b in document.blocks)


@needs_corpus
def test_pptx_table() -> None:
    blocks = parse_file("pptx/unstructured__fake-power-point-table.pptx")
    table = next(b for b in blocks if b.kind == BlockKind.TABLE)
    assert "Purple" in table.text and "Orange" in table.text
    assert table.locator.slide == 1
    assert all(b.locator.slide == 1 for b in blocks)


@needs_corpus
def test_pptx_notes_groups_and_charts() -> None:
    sample = parse_file("pptx/docling__powerpoint_sample.pptx")
    assert "Speaker notes: Some notes on the second slide." in [b.text for b in sample]
    nested = all_text(parse_file("pptx/unstructured__group-shapes-nested.pptx"))
    assert all(letter in nested.split() for letter in "ABCDEFGHIJ")
    chart = next(
        b for b in parse_file("pptx/docling__pptx_chart.pptx") if b.kind == BlockKind.TABLE
    )
    assert chart.text.startswith("Chart: Wild Duck Observations by Year")
    assert "| 2019 | 120 | 80 |" in chart.text


@needs_corpus
@pytest.mark.parametrize(
    "relative",
    ["docx/tika__testWORD_protected_passtika.docx", "pptx/tika__testPPT_protected_passtika.pptx"],
)
def test_password_protected_office_files(relative: str) -> None:
    with pytest.raises(EncryptedFileError):
        parse_file(relative)


@needs_corpus
def test_truncated_docx_is_corrupt() -> None:
    with pytest.raises(CorruptFileError):
        parse_file("malformed/tika__testWORD_truncated.docx")
