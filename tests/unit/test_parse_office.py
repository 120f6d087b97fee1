"""Word and PowerPoint parsing: body order, headings, lists, tables, slides, notes and
reviewers' comments."""

from __future__ import annotations

import io
import zipfile
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


def test_a_slides_text_boxes_are_labelled_by_kind_and_place() -> None:
    """Two loose boxes on one slide: each says where it stands, so a small model asked about
    "the box at the bottom right" reads the right one; a lone box needs no label."""
    presentation = Presentation()  # 10 × 7.5 inches
    slide = presentation.slides.add_slide(presentation.slide_layouts[6])  # blank
    for left, top, text in ((0.5, 0.5, "Revenue up 12%"), (7, 6.5, "Costs down 3%")):
        box = slide.shapes.add_textbox(Inches(left), Inches(top), Inches(2), Inches(0.5))
        box.text_frame.text = text
    lone = presentation.slides.add_slide(presentation.slide_layouts[6])
    lone.shapes.add_textbox(Inches(7), Inches(6.5), Inches(2), Inches(0.5)).text_frame.text = "Q&A"
    buffer = io.BytesIO()
    presentation.save(buffer)

    document = SlidesParser().parse(buffer.getvalue(), name="deck.pptx")

    texts = [b.text for b in document.blocks if b.kind is BlockKind.TEXT]
    assert "Text box (top left): Revenue up 12%" in texts
    assert "Text box (bottom right): Costs down 3%" in texts
    assert "Q&A" in texts


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


def test_word_comments_follow_what_they_comment_on() -> None:
    document = docx.Document()
    first = document.add_paragraph("The budget is 40,000 euros.")
    document.add_paragraph("Nothing to say here.")
    table = document.add_table(rows=1, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "Lyon", "12"
    document.add_paragraph("The end.")
    document.add_comment(first.runs, text="Raise it to 45,000.", author="Ann Editor")
    document.add_comment(table.cell(0, 1).paragraphs[0].runs, text="Check this figure.")
    buffer = io.BytesIO()
    document.save(buffer)

    texts = [b.text for b in WordParser().parse(buffer.getvalue(), name="c.docx").blocks]

    assert texts[:2] == [
        "The budget is 40,000 euros.",
        "Comment by Ann Editor: Raise it to 45,000.",
    ]
    at = texts.index("Comment: Check this figure.")  # an anonymous comment in a table cell
    assert texts[at - 1].startswith("| Lyon | 12 |") and texts[at + 1] == "The end."
    assert sum(t.startswith("Comment") for t in texts) == 2


def test_slide_comments_old_and_threaded_are_read() -> None:
    presentation = Presentation()
    for title in ("Plan", "Costs"):
        slide = presentation.slides.add_slide(presentation.slide_layouts[5])
        slide.shapes.title.text = title
    buffer = io.BytesIO()
    presentation.save(buffer)
    p = "http://schemas.openxmlformats.org/presentationml/2006/main"
    p188 = "http://schemas.microsoft.com/office/powerpoint/2018/8/main"
    a = "http://schemas.openxmlformats.org/drawingml/2006/main"
    rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    modern = "http://schemas.microsoft.com/office/2018/10/relationships"
    parts = {  # slide 1: a comment as PowerPoint wrote them before 2018; slide 2: a thread
        "ppt/commentAuthors.xml": f'<p:cmAuthorLst xmlns:p="{p}"><p:cmAuthor id="0" '
        'name="Old Reviewer" initials="OR" lastIdx="1" clrIdx="0"/></p:cmAuthorLst>',
        "ppt/comments/comment1.xml": f'<p:cmLst xmlns:p="{p}"><p:cm authorId="0" idx="1">'
        '<p:pos x="1" y="1"/><p:text>Move the launch to May.</p:text></p:cm></p:cmLst>',
        "ppt/authors.xml": f'<p188:authorLst xmlns:p188="{p188}"><p188:author id="{{A1}}" '
        'name="New Reviewer" initials="NR" userId="n" providerId="None"/></p188:authorLst>',
        "ppt/comments/modernComment_1.xml": f'<p188:cmLst xmlns:p188="{p188}" xmlns:a="{a}">'
        '<p188:cm id="{C1}" authorId="{A1}" created="2026-01-01T00:00:00">'
        '<p188:replyLst><p188:reply id="{R1}" authorId="{A1}" created="2026-01-02T00:00:00">'
        "<p188:txBody><a:bodyPr/><a:p><a:r><a:t>Done.</a:t></a:r></a:p></p188:txBody>"
        "</p188:reply></p188:replyLst>"
        "<p188:txBody><a:bodyPr/><a:p><a:r><a:t>Costs look high.</a:t></a:r></a:p></p188:txBody>"
        "</p188:cm></p188:cmLst>",
    }
    links = {  # part with relationships → (type, target) added to it
        "ppt/_rels/presentation.xml.rels": [
            (f"{rel}/commentAuthors", "commentAuthors.xml"),
            (f"{modern}/authors", "authors.xml"),
        ],
        "ppt/slides/_rels/slide1.xml.rels": [(f"{rel}/comments", "../comments/comment1.xml")],
        "ppt/slides/_rels/slide2.xml.rels": [
            (f"{modern}/comments", "../comments/modernComment_1.xml")
        ],
    }
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as source,
        zipfile.ZipFile(out, "w") as target,
    ):
        for item in source.infolist():
            data = source.read(item)
            for number, (kind, to) in enumerate(links.get(item.filename, ()), start=90):
                extra = f'<Relationship Id="rId{number}" Type="{kind}" Target="{to}"/>'
                data = data.replace(b"</Relationships>", extra.encode() + b"</Relationships>")
            target.writestr(item, data)
        for name, xml in parts.items():
            target.writestr(name, xml)

    document = SlidesParser().parse(out.getvalue(), name="deck.pptx")

    by_slide = {
        slide: [b.text for b in document.blocks if b.locator.slide == slide] for slide in (1, 2)
    }
    assert by_slide[1][-1] == "Comment by Old Reviewer: Move the launch to May."
    assert by_slide[2][-2:] == [
        "Comment by New Reviewer: Costs look high.",
        "Comment by New Reviewer: Done.",
    ]


@needs_corpus
def test_corpus_comments_are_read() -> None:
    word = all_text(parse_file("docx/docling__docx_comments.docx"))
    assert "Comment by John Reviewer: This is a sample reviewer comment on the first" in word
    assert "Comment: Anonymous feedback on this paragraph." in word
    slides = all_text(parse_file("pptx/docling__powerpoint_comments.pptx"))
    assert "Comment by Jane Smith: This is a sample response" in slides


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
