"""OpenDocument (.odt, .ods, .odp) → Blocks from content.xml, read by lxml safely.

The XML parser expands no entities, loads no DTD and never touches the network.

Text documents give headings, paragraphs, list items and Markdown tables; spreadsheets give,
per sheet, what the spreadsheet parser gives for Excel (a Markdown table and one sentence per
row, located by sheet and rows); presentations give one slide per page, like PowerPoint decks.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from lxml import etree

from polyrag.errors import CorruptFileError, EncryptedFileError
from polyrag.parse.base import Document
from polyrag.parse.safety import SafeZip
from polyrag.parse.spreadsheet import _Row, _sheet_blocks
from polyrag.parse.tables import clean_cell, labels_below, markdown_table
from polyrag.settings import LimitsSettings
from polyrag.types import Block, BlockKind, Locator

_NS = {
    "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
    "draw": "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0",
    "presentation": "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0",
    "dc": "http://purl.org/dc/elements/1.1/",
}


def _tag(qualified: str) -> str:
    prefix, local = qualified.split(":")
    return f"{{{_NS[prefix]}}}{local}"


_P, _H, _LIST, _ITEM, _HEADER_ITEM = (
    _tag(t) for t in ("text:p", "text:h", "text:list", "text:list-item", "text:list-header")
)
_SPACE_RUN, _TAB, _LINE_BREAK = _tag("text:s"), _tag("text:tab"), _tag("text:line-break")
_NOTE, _NOTE_BODY = _tag("text:note"), _tag("text:note-body")
_TABLE, _ROW, _CELL, _COVERED = (
    _tag(t)
    for t in ("table:table", "table:table-row", "table:table-cell", "table:covered-table-cell")
)
_FRAME, _PAGE, _NOTES = _tag("draw:frame"), _tag("draw:page"), _tag("presentation:notes")
_SKIPPED = {
    _tag("text:table-of-content"),
    _tag("text:alphabetical-index"),
    _tag("text:tracked-changes"),
    _tag("text:sequence-decls"),
    _tag("table:table-column"),
    _tag("table:table-columns"),
    _tag("office:forms"),
}
_REPEAT_COLUMNS = _tag("table:number-columns-repeated")
_REPEAT_ROWS = _tag("table:number-rows-repeated")
_OUTLINE_LEVEL = _tag("text:outline-level")
_SPACE_COUNT = _tag("text:c")
_PRESENTATION_CLASS = _tag("presentation:class")
_OFFICE_VALUE = _tag("office:value")
_TABLE_NAME = _tag("table:name")
_MAX_REPEAT = 1000  # repeated rows or columns with content are expanded at most this often
_MEDIA_TYPES = {
    "application/vnd.oasis.opendocument.text": "odt",
    "application/vnd.oasis.opendocument.spreadsheet": "ods",
    "application/vnd.oasis.opendocument.presentation": "odp",
}


def xml_parser() -> etree.XMLParser:
    """An lxml parser that expands no entities, loads no DTD and never touches the network."""
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)


class OpenDocumentParser:
    """OpenDocument text, spreadsheets and presentations (LibreOffice, OpenOffice)."""

    media_types = frozenset({"odt", "ods", "odp"})
    version = "4"

    def __init__(self, limits: LimitsSettings | None = None) -> None:
        self._limits = limits or LimitsSettings()

    def parse(self, data: bytes, *, name: str, password: str | None = None) -> Document:
        with SafeZip(data, self._limits) as archive:
            names = set(archive.archive.namelist())
            if "META-INF/manifest.xml" in names:
                manifest = archive.read("META-INF/manifest.xml", 4 * 1024 * 1024)
                if b"encryption-data" in manifest:
                    raise EncryptedFileError(
                        "a password-protected OpenDocument file",
                        hint="save a copy without a password in LibreOffice",
                    )
            if "content.xml" not in names:
                raise CorruptFileError("a damaged OpenDocument file (no content.xml)")
            mimetype = archive.read("mimetype", 200) if "mimetype" in names else b""
            content = _xml(archive.read("content.xml"))
            meta = _xml(archive.read("meta.xml", 4 * 1024 * 1024)) if "meta.xml" in names else None
        media_type = _MEDIA_TYPES.get(mimetype.decode("ascii", "replace").strip(), "")
        title = None
        if meta is not None:
            found = meta.findtext(".//dc:title", namespaces=_NS)
            title = " ".join(found.split()) if found and found.strip() else None
        body = content.find("office:body", _NS)
        if body is None:
            raise CorruptFileError("a damaged OpenDocument file (content.xml has no body)")
        spreadsheet = body.find("office:spreadsheet", _NS)
        presentation = body.find("office:presentation", _NS)
        if media_type == "ods" or spreadsheet is not None:
            return _spreadsheet(spreadsheet if spreadsheet is not None else body, title)
        if media_type == "odp" or presentation is not None:
            return _presentation(presentation if presentation is not None else body, title)
        text = body.find("office:text", _NS)
        blocks = list(_Walker().blocks(text if text is not None else body))
        if title is None:
            title = next((b.text for b in blocks if b.kind == BlockKind.HEADING), None)
        return Document(media_type="odt", blocks=tuple(blocks), title=title)


def _xml(data: bytes) -> Any:
    try:
        return etree.fromstring(data, xml_parser())
    except etree.XMLSyntaxError as exc:
        raise CorruptFileError(f"a damaged OpenDocument file ({exc})") from None


class _Walker:
    """Block-level elements of ODF text in document order."""

    def __init__(self, where: Locator | None = None) -> None:
        self._where = where or Locator()

    def blocks(self, element: Any, depth: int = 0) -> Iterator[Block]:
        for child in element:
            yield from self.element_blocks(child, depth)

    def element_blocks(self, element: Any, depth: int) -> Iterator[Block]:
        tag = element.tag
        if not isinstance(tag, str) or tag in _SKIPPED:
            return
        if tag == _H:
            text = " ".join(inline_text(element).split())
            if text:
                level = element.get(_OUTLINE_LEVEL) or "1"
                number = int(level) if level.isdigit() else 1
                yield Block(BlockKind.HEADING, text, self._where, level=min(max(number, 1), 6))
            yield from self._inside(element, depth)
        elif tag == _P:
            text = inline_text(element).strip()
            if text:
                yield Block(BlockKind.TEXT, text, self._where)
            yield from self._inside(element, depth)
        elif tag == _LIST:
            yield from self._list(element, depth)
        elif tag == _TABLE:
            rows = table_rows(element)
            if rows:
                yield Block(
                    BlockKind.TABLE, markdown_table(labels_below(rows) or rows), self._where
                )
        else:
            yield from self.blocks(element, depth)  # sections, frames, text boxes, shapes

    def _inside(self, paragraph: Any, depth: int) -> Iterator[Block]:
        """Frames anchored in a paragraph (text boxes, tables in frames) and its footnotes."""
        for frame in paragraph.iter(_FRAME):
            yield from self.blocks(frame, depth)
        for note in paragraph.iter(_NOTE_BODY):
            text = " ".join(inline_text(p) for p in note.iter(_P)).strip()
            if text:
                yield Block(BlockKind.TEXT, "Note: " + text, self._where)

    def _list(self, element: Any, depth: int) -> Iterator[Block]:
        indent = "  " * depth
        for item in element:
            if item.tag not in (_ITEM, _HEADER_ITEM):
                continue
            first = True
            for child in item:
                if child.tag in (_P, _H) and first:
                    text = inline_text(child).strip()
                    if text:
                        yield Block(BlockKind.TEXT, f"{indent}- {text}", self._where)
                        first = False
                    yield from self._inside(child, depth)
                elif child.tag == _LIST:
                    yield from self._list(child, depth + 1)
                else:
                    for block in self.element_blocks(child, depth + 1):
                        text = f"{indent}  {block.text}" if block.kind == BlockKind.TEXT else ""
                        yield block if not text else Block(block.kind, text, block.locator)


def inline_text(element: Any) -> str:
    """A paragraph's text with ODF's spaces, tabs and line breaks; frames and notes left out."""
    parts: list[str] = [element.text or ""]
    for child in element:
        tag = child.tag
        if tag == _SPACE_RUN:
            count = child.get(_SPACE_COUNT) or "1"
            parts.append(" " * min(int(count) if count.isdigit() else 1, 100))
        elif tag == _TAB:
            parts.append("\t")
        elif tag == _LINE_BREAK:
            parts.append("\n")
        elif tag in (_NOTE, _FRAME) or not isinstance(tag, str):
            pass
        else:
            parts.append(inline_text(child))
        parts.append(child.tail or "")
    return "".join(parts)


def _cell_text(cell: Any) -> str:
    paragraphs = [inline_text(p) for p in cell.iter(_P, _H)]
    text = clean_cell(" ".join(paragraphs))
    if not text and cell.get(_OFFICE_VALUE) is not None:
        text = clean_cell(cell.get(_OFFICE_VALUE))
    return text


def table_rows(table: Any) -> list[list[str]]:
    """A text table's rows (repeated cells expanded; a spanned cell's covered cells stay empty)."""
    rows = [list(cells) for _, cells in _sheet_rows(table)]
    width = max((len(row) for row in rows), default=0)
    return [row + [""] * (width - len(row)) for row in rows] if width else []


def _sheet_rows(table: Any) -> Iterator[tuple[int, tuple[str, ...]]]:
    """(1-based row number, cell texts) of every row with content; trailing blanks trimmed."""
    number = 0
    for row in table.iter(_ROW):
        if _nearest_table(row) is not table:
            continue  # a row of a table nested in a cell
        repeat = _count(row.get(_REPEAT_ROWS))
        cells: list[str] = []
        for cell in row:
            if cell.tag not in (_CELL, _COVERED):
                continue
            text = _cell_text(cell) if cell.tag == _CELL else ""
            times = _count(cell.get(_REPEAT_COLUMNS))
            cells.extend([text] * (min(times, _MAX_REPEAT) if text else times))
            if len(cells) > 16384:
                break
        while cells and not cells[-1]:
            cells.pop()
        if cells:
            for offset in range(min(repeat, _MAX_REPEAT)):
                yield number + offset + 1, tuple(cells)
        number += repeat


def _nearest_table(element: Any) -> Any:
    parent = element.getparent()
    while parent is not None and parent.tag != _TABLE:
        parent = parent.getparent()
    return parent


def _count(value: str | None) -> int:
    return int(value) if value and value.isdigit() and int(value) > 0 else 1


def _spreadsheet(spreadsheet: Any, title: str | None) -> Document:
    blocks: list[Block] = []
    sheets = 0
    for table in spreadsheet.findall("table:table", _NS):
        sheets += 1
        sheet = table.get(_TABLE_NAME) or f"Sheet{sheets}"
        rows = [_Row(number, cells) for number, cells in _sheet_rows(table)]
        blocks.extend(_sheet_blocks(sheet, rows, regions=True))
    return Document(media_type="ods", blocks=tuple(blocks), pages=sheets, title=title)


def _presentation(presentation: Any, title: str | None) -> Document:
    blocks: list[Block] = []
    first_title: str | None = None
    count = 0
    for number, page in enumerate(presentation.findall("draw:page", _NS), start=1):
        count = number
        where = Locator(slide=number)
        slide_title = ""
        body: list[Block] = []
        walker = _Walker(where)
        for shape in page:
            if shape.tag == _NOTES:
                notes = " ".join(inline_text(p).strip() for p in shape.iter(_P))
                if notes.strip():
                    body.append(Block(BlockKind.TEXT, "Speaker notes: " + notes.strip(), where))
            elif shape.get(_PRESENTATION_CLASS) == "title" and not slide_title:
                slide_title = " ".join(" ".join(inline_text(p) for p in shape.iter(_P)).split())
            else:
                body.extend(walker.element_blocks(shape, 0))
        first_title = first_title or slide_title or None
        blocks.append(Block(BlockKind.BREAK, "", where))
        blocks.append(Block(BlockKind.HEADING, slide_title or f"Slide {number}", where, level=1))
        blocks.extend(body)
    return Document(
        media_type="odp",
        blocks=tuple(blocks),
        pages=count,
        title=title or first_title,
        layout="slides",
    )
