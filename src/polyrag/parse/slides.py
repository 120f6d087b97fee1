"""PPTX → Blocks with python-pptx: per slide its title, shape texts, tables, charts, pictures
(their text read by OCR), notes and reviewers' comments. A deck's layout is "slides": one chunk
per slide."""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from typing import Any

from lxml import etree
from pptx import Presentation
from pptx.enum.shapes import MSO_SHAPE_TYPE, PP_PLACEHOLDER
from pptx.opc.constants import RELATIONSHIP_TYPE as RT
from pptx.shapes.base import BaseShape
from pptx.shapes.picture import Picture

from polyrag.parse.base import Document
from polyrag.parse.opendocument import xml_parser
from polyrag.parse.pictures import ImageText, PictureReader, alt_text, picture_text
from polyrag.parse.safety import check_zip
from polyrag.parse.tables import cell_at, clean_cell, markdown_table
from polyrag.settings import LimitsSettings
from polyrag.types import Block, BlockKind, Locator

_TITLES = {PP_PLACEHOLDER.TITLE, PP_PLACEHOLDER.CENTER_TITLE, PP_PLACEHOLDER.VERTICAL_TITLE}
_BULLETED = {PP_PLACEHOLDER.BODY, PP_PLACEHOLDER.OBJECT, PP_PLACEHOLDER.VERTICAL_BODY}
_LABELS = {
    PP_PLACEHOLDER.SUBTITLE: "Subtitle: ",
    PP_PLACEHOLDER.FOOTER: "Footer: ",
    PP_PLACEHOLDER.DATE: "Date: ",
}
_SKIPPED = {PP_PLACEHOLDER.SLIDE_NUMBER}
_CHART_NS = {
    "c": "http://schemas.openxmlformats.org/drawingml/2006/chart",
    "a": "http://schemas.openxmlformats.org/drawingml/2006/main",
}
_C_V = f"{{{_CHART_NS['c']}}}v"
_chart_title = etree.XPath("./c:chart/c:title//a:t/text()", namespaces=_CHART_NS)
_chart_series = etree.XPath("./c:chart/c:plotArea/*/c:ser", namespaces=_CHART_NS)
_series_name = etree.XPath("./c:tx//c:v/text() | ./c:tx//a:t/text()", namespaces=_CHART_NS)
_chart_points = etree.XPath("./*[local-name() = $kind]//c:pt", namespaces=_CHART_NS)
# Comments as PowerPoint wrote them before 2018 (ppt/comments/comment1.xml, authors in
# ppt/commentAuthors.xml) and since (threaded, modernComment_*.xml and ppt/authors.xml).
_MODERN = "http://schemas.microsoft.com/office/2018/10/relationships/"
_COMMENT_PARTS = frozenset({RT.COMMENTS, _MODERN + "comments"})
_AUTHOR_PARTS = frozenset({RT.COMMENT_AUTHORS, _MODERN + "authors"})
_comment_elements = etree.XPath("//*[local-name() = 'cm' or local-name() = 'reply']")
_author_elements = etree.XPath("//*[local-name() = 'cmAuthor' or local-name() = 'author']")
_comment_text = etree.XPath(
    "./*[local-name() = 'text']//text() | ./*[local-name() = 'txBody']//*[local-name() = 't']"
    "/text()"
)


class SlidesParser:
    """PowerPoint presentations (.pptx, .pptm, .ppsx)."""

    media_types = frozenset({"pptx"})
    version = "5"

    def __init__(
        self, limits: LimitsSettings | None = None, *, ocr: ImageText | None = None
    ) -> None:
        self._limits = limits or LimitsSettings()
        self._ocr = ocr  # reads the text of pictures; None: only their descriptions are kept

    def parse(self, data: bytes, *, name: str, password: str | None = None) -> Document:
        check_zip(data, self._limits, office=True)
        presentation = Presentation(io.BytesIO(data))
        blocks: list[Block] = []
        pictures = PictureReader(self._ocr)
        first_title: str | None = None
        count = 0
        authors = _authors(presentation)
        for number, slide in enumerate(presentation.slides, start=1):
            count = number
            where = Locator(slide=number)
            blocks.append(Block(BlockKind.BREAK, "", where))
            title_shape = _title_shape(slide.shapes)
            title = _shape_text(title_shape) if title_shape is not None else ""
            title = " ".join(title.split())
            first_title = first_title or title or None
            blocks.append(Block(BlockKind.HEADING, title or f"Slide {number}", where, level=1))
            size = (presentation.slide_width or 0, presentation.slide_height or 0)
            found = list(_shape_blocks(slide.shapes, title_shape, pictures))
            texts = sum(1 for kind, _text, _box in found if kind is BlockKind.TEXT)
            for kind, text, box in found:
                if kind is BlockKind.TEXT and texts > 1 and box is not None:
                    text = _labelled(text, box, size)  # which box says what, and where
                blocks.append(Block(kind, text, where))
            notes = _notes(slide)
            if notes:
                blocks.append(Block(BlockKind.TEXT, "Speaker notes: " + notes, where))
            for comment in _comments(slide, authors):
                blocks.append(Block(BlockKind.TEXT, comment, where))
        deck_title = (presentation.core_properties.title or "").strip() or first_title
        return Document(
            media_type="pptx",
            blocks=tuple(blocks),
            pages=count,
            title=deck_title,
            warnings=tuple(pictures.warnings),
            layout="slides",
        )


def _title_shape(shapes: Iterable[BaseShape]) -> BaseShape | None:
    for shape in shapes:
        if shape.is_placeholder and _placeholder_type(shape) in _TITLES:
            return shape
    return None


Box = tuple[str, int, int, int, int]  # kind label, left, top, width, height (EMU)


def _shape_blocks(
    shapes: Iterable[BaseShape],
    title_shape: BaseShape | None,
    pictures: PictureReader,
    *,
    grouped: bool = False,
) -> Iterator[tuple[BlockKind, str, Box | None]]:
    """(kind, text, box) of each shape; `box` locates a text shape on the slide (None inside
    a group, whose coordinates are its own)."""
    title_id = title_shape.shape_id if title_shape is not None else None
    for shape in shapes:
        if title_id is not None and shape.shape_id == title_id:
            continue
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            yield from _shape_blocks(shape.shapes, None, pictures, grouped=True)  # type: ignore[attr-defined]
        elif getattr(shape, "has_table", False):
            rows = _table_rows(shape.table)  # type: ignore[attr-defined]
            if any(clean_cell(cell) for row in rows for cell in row):
                yield BlockKind.TABLE, markdown_table(rows), None
        elif getattr(shape, "has_chart", False):
            chart = _chart_table(shape)
            if chart:
                yield BlockKind.TABLE, chart, None
        elif shape.has_text_frame:
            kind = _placeholder_type(shape) if shape.is_placeholder else None
            if kind in _SKIPPED:
                continue
            text = _shape_text(shape, bulleted=kind in _BULLETED)
            if text:
                labelled = _LABELS.get(kind, "") + text if kind else text
                yield BlockKind.TEXT, labelled, _box(shape, kind, grouped)
        elif isinstance(shape, Picture) or shape.shape_type == MSO_SHAPE_TYPE.PICTURE:
            description = _alt_text(shape)
            text = pictures.text(_image(shape))
            if text:
                yield BlockKind.PICTURE, picture_text(description, text), None
            elif description:
                yield BlockKind.TEXT, "Picture: " + description, None


def _box(shape: BaseShape, kind: Any, grouped: bool) -> Box | None:
    """The shape's kind label and place, when it has a place of its own on the slide."""
    if kind in _LABELS:
        return None  # already labelled (subtitle, footer, date)
    label = "Body text" if kind in _BULLETED else "Text box"
    try:
        left, top, width, height = shape.left, shape.top, shape.width, shape.height
    except (AttributeError, ValueError):
        return None
    if grouped or None in (left, top, width, height):
        return None
    return (label, int(left), int(top), int(width), int(height))


def _labelled(text: str, box: Box, size: tuple[int, int]) -> str:
    """ "Text box (top right): …" — a small model told which box is which reads a slide right."""
    label, left, top, width, height = box
    slide_width, slide_height = size
    if slide_width <= 0 or slide_height <= 0:
        return f"{label}: {text}"
    x = (left + width / 2) / slide_width
    y = (top + height / 2) / slide_height
    row = "top" if y < 1 / 3 else "bottom" if y > 2 / 3 else "middle"
    column = "left" if x < 1 / 3 else "right" if x > 2 / 3 else "centre"
    return f"{label} ({row} {column}): {text}"


def _shape_text(shape: BaseShape, *, bulleted: bool = False) -> str:
    lines = []
    for paragraph in shape.text_frame.paragraphs:  # type: ignore[attr-defined]
        text = " ".join(paragraph.text.replace("\v", " ").split())
        if text:
            prefix = "  " * paragraph.level + "- " if bulleted else ""
            lines.append(prefix + text)
    return "\n".join(lines)


def _chart_table(shape: BaseShape) -> str:
    """A chart as its cached data (one row per category, one column per series), read from the
    chart XML so that every chart type works, including those python-pptx cannot model."""
    space = etree.fromstring(shape.chart_part.blob, xml_parser())  # type: ignore[attr-defined]
    title = " ".join("".join(_chart_title(space)).split())
    header = ["Category"]
    columns: list[list[str]] = []
    categories: list[str] = []
    for series in _chart_series(space):
        header.append(" ".join(_series_name(series)).strip() or f"Series {len(header)}")
        columns.append(_points(series, "val") or _points(series, "yVal"))
        categories = categories or _points(series, "cat") or _points(series, "xVal")
    if not columns:
        return ""
    length = max(len(categories), *(len(column) for column in columns))
    rows = [header]
    for index in range(length):
        row = [categories[index] if index < len(categories) else str(index + 1)]
        row += [column[index] if index < len(column) else "" for column in columns]
        rows.append(row)
    caption = f"Chart: {title}" if title else "Chart"
    return caption + "\n\n" + markdown_table(rows)


def _points(series: etree._Element, kind: str) -> list[str]:
    """Cached values of one series part (categories or values), in point order."""
    values: dict[int, str] = {}
    for point in _chart_points(series, kind=kind):
        index = point.get("idx", "")
        if index.isdigit():
            values[int(index)] = _number(point.findtext(_C_V) or "")
    return [values.get(i, "") for i in range(max(values) + 1)] if values else []


def _notes(slide: object) -> str:
    if not slide.has_notes_slide:  # type: ignore[attr-defined]
        return ""
    frame = slide.notes_slide.notes_text_frame  # type: ignore[attr-defined]
    return (
        "\n".join(line.strip() for line in frame.text.splitlines() if line.strip()) if frame else ""
    )


def _xml_parts(part: Any, types: frozenset[str]) -> Iterator[etree._Element]:
    """The parts of these relationship types `part` refers to, read as XML (unreadable ones
    left out)."""
    for rel in part.rels.values():
        if rel.is_external or rel.reltype not in types:
            continue
        try:
            yield etree.fromstring(rel.target_part.blob, xml_parser())
        except (etree.XMLSyntaxError, AttributeError, KeyError, ValueError):
            continue


def _authors(presentation: Any) -> dict[str, str]:
    """Comment authors' names by id."""
    return {
        element.get("id", ""): " ".join(element.get("name", "").split())
        for root in _xml_parts(presentation.part, _AUTHOR_PARTS)
        for element in _author_elements(root)
    }


def _comments(slide: Any, authors: dict[str, str]) -> Iterator[str]:
    """The slide's comments and their replies, as "Comment by <author>: <text>"."""
    for root in _xml_parts(slide.part, _COMMENT_PARTS):
        for element in _comment_elements(root):
            text = " ".join(" ".join(_comment_text(element)).split())
            if text:
                author = authors.get(element.get("authorId", ""), "")
                yield (f"Comment by {author}: " if author else "Comment: ") + text


def _placeholder_type(shape: BaseShape) -> PP_PLACEHOLDER | None:
    try:
        return shape.placeholder_format.type
    except (ValueError, AttributeError):
        return None


def _alt_text(shape: BaseShape) -> str:
    properties = shape._element.xpath("./*[1]/p:cNvPr")  # the shape's non-visual properties
    return alt_text(properties[0].get("descr")) if properties else ""


def _image(shape: BaseShape) -> bytes:
    try:
        return bytes(shape.image.blob)  # type: ignore[attr-defined]
    except (AttributeError, KeyError, ValueError):
        return b""  # a linked (external) picture, or a broken reference


def _number(text: str) -> str:
    try:
        value = float(text)
    except ValueError:
        return text.strip()
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else f"{value:.15g}"


def _table_rows(table: Any) -> list[list[str]]:
    """A slide table's rows; a cell merged with the one above holds its text for its own row
    too (not below the header row, whose text names the column)."""
    rows: list[list[str]] = []
    for number, row in enumerate(table.rows):
        cells = []
        for column, cell in enumerate(row.cells):
            text = cell.text
            if not text and number > 1 and cell._tc.vMerge:
                text = cell_at(rows[-1], column)
            cells.append(text)
        rows.append(cells)
    return rows
