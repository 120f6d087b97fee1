"""Web pages, Markdown and plain text."""

from __future__ import annotations

from pathlib import Path

import pytest

from polyrag.parse.plain import PlainTextParser
from polyrag.parse.router import ParserRouter
from polyrag.parse.web import WebParser
from polyrag.types import Block, BlockKind

CORPUS = Path(__file__).parents[3] / "shared" / "eval" / "corpus"
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared eval corpus is absent")


def parse_file(relative: str) -> tuple[Block, ...]:
    return ParserRouter().parse((CORPUS / relative).read_bytes(), Path(relative).name).blocks


def all_text(blocks: tuple[Block, ...]) -> str:
    return "\n".join(block.text for block in blocks)


PAGE = b"""<!doctype html><html><head><title>Ducks</title><style>p {color: red}</style></head>
<body><nav><a href="/">Home</a> <a href="/x">Menu item</a></nav>
<header><h1>Site banner</h1></header>
<main><article><h1>All about ducks</h1>
<p>Ducks   are <b>birds</b>.<br>They swim.</p>
<ul><li>Mallard</li><li>Teal<ul><li>Blue-winged</li></ul></li></ul>
<table><caption>Sizes</caption><tr><th>Duck</th><th>Length</th></tr>
<tr><td>Mallard</td><td>60 cm</td></tr></table>
<script>var tracking = 1;</script><div style="display:none">hidden text</div>
</article></main><footer>Copyright footer</footer></body></html>"""


def test_web_page_main_content() -> None:
    document = WebParser().parse(PAGE, name="ducks.html")
    assert document.title == "Ducks"
    texts = [(b.kind, b.text) for b in document.blocks]
    assert texts == [
        (BlockKind.HEADING, "All about ducks"),
        (BlockKind.TEXT, "Ducks are birds.\nThey swim."),
        (BlockKind.TEXT, "- Mallard"),
        (BlockKind.TEXT, "- Teal"),
        (BlockKind.TEXT, "  - Blue-winged"),
        (BlockKind.TEXT, "Sizes"),
        (BlockKind.TABLE, "| Duck | Length |\n| --- | --- |\n| Mallard | 60 cm |"),
    ]


def test_a_web_table_cell_spanning_rows_stands_in_each_row() -> None:
    """The rows under a cell spanning rows hold fewer cells: placed on the grid, their figures
    stay under their own column names instead of shifting left under the row's name."""
    page = b"""<html><body><table>
<tr><th rowspan="2">Region</th><th colspan="2">Sales</th></tr>
<tr><th>2023</th><th>2024</th></tr>
<tr><td rowspan="2">East</td><td>10</td><td>12</td></tr>
<tr><td>7</td><td>9</td></tr>
<tr><td>West</td><td colspan="2">n/a</td></tr>
</table></body></html>"""
    (table,) = [b for b in WebParser().parse(page, name="s.html").blocks if b.kind.name == "TABLE"]
    assert table.text.splitlines() == [
        "| Region | Sales |  |",
        "| --- | --- | --- |",
        "|  | 2023 | 2024 |",
        "| East | 10 | 12 |",
        "| East | 7 | 9 |",
        "| West | n/a |  |",
    ]


def test_markdown_structure_and_spans() -> None:
    text = (
        "Title\n=====\n\nIntro paragraph\nwrapped.\n\n## Table\n\n"
        "| a | b |\n|---|:-:|\n| 1 | 2 |\n\n```python\nprint('x')\n```\n"
    )
    blocks = PlainTextParser().parse(text.encode(), name="doc.md").blocks
    assert [(b.kind, b.level) for b in blocks] == [
        (BlockKind.HEADING, 1),
        (BlockKind.TEXT, 0),
        (BlockKind.HEADING, 2),
        (BlockKind.TABLE, 0),
        (BlockKind.TEXT, 0),
    ]
    assert blocks[0].text == "Title"
    assert blocks[3].text == "| a | b |\n| --- | --- |\n| 1 | 2 |"
    assert blocks[4].text == "```python\nprint('x')\n```"
    for block in (blocks[1], blocks[4]):
        assert block.locator.char_span is not None
        start, end = block.locator.char_span
        assert text[start:end] == block.text


def test_plain_text_paragraph_spans() -> None:
    text = "First paragraph\nstill first.\n\n  \nSecond one.\n"
    document = PlainTextParser().parse(text.encode(), name="notes.txt")
    assert document.media_type == "text"
    assert [b.text for b in document.blocks] == ["First paragraph\nstill first.", "Second one."]
    for block in document.blocks:
        start, end = block.locator.char_span or (0, 0)
        assert text[start:end] == block.text


@needs_corpus
def test_scripts_are_not_text() -> None:
    text = all_text(parse_file("html/unstructured__example-with-scripts.html"))
    assert "Belarusian forces" in text
    for code in ("function(", "var ", "window.", "gtag("):
        assert code not in text


@needs_corpus
@pytest.mark.parametrize(
    "relative",
    [
        "html/unstructured__example-steelJIS-datasheet.html",
        "html/unstructured__example-steelJIS-datasheet-utf-16.html",
    ],
)
def test_html_in_utf8_and_utf16_gives_the_same_text(relative: str) -> None:
    blocks = parse_file(relative)
    assert "SNB22-3 Chemical composition, standards and properties" in all_text(blocks)
    assert any(b.kind == BlockKind.TABLE and "0.39 - 0.46" in b.text for b in blocks)


@needs_corpus
def test_cp1252_html() -> None:
    text = all_text(parse_file("html/unstructured__fake-html-cp1252.html"))
    assert "L'été était très chaud" in text
    assert "15,50 €" in text


@needs_corpus
def test_text_and_markdown_corpus_files() -> None:
    assert "26 June 1968" in all_text(parse_file("text_md/unstructured__norwich-city.txt"))
    umlauts = parse_file("text_md/unstructured__umlauts-non-utf8.md")
    assert [b.text for b in umlauts] == ["können", "können", "äöüß"]
    assert "This is a test document" in all_text(
        parse_file("text_md/unstructured__fake-text-utf-16-be.txt")
    )
    assert "This is a test document" in all_text(
        parse_file("text_md/unstructured__fake-text-utf-32.txt")
    )
    table = parse_file("text_md/unstructured__simple-table.md")
    assert table[0].kind == BlockKind.TABLE and "| Bananas | 1.89 | 6 |" in table[0].text
