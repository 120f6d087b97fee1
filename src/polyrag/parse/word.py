"""DOCX → Blocks with python-docx: headings, paragraphs, list items, tables and pictures (their
text read by OCR) in body order; reviewers' comments right after what they comment on."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import docx
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.opc.part import Part
from lxml import etree

from polyrag.parse.base import Document
from polyrag.parse.pictures import ImageText, PictureReader, alt_text, picture_text
from polyrag.parse.safety import check_zip
from polyrag.parse.tables import cell_at, clean_cell, labels_below, markdown_table
from polyrag.settings import LimitsSettings
from polyrag.types import Block, BlockKind

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_NS = {
    "w": _W,
    "m": "http://schemas.openxmlformats.org/officeDocument/2006/math",
    "mc": "http://schemas.openxmlformats.org/markup-compatibility/2006",
}
_P, _TBL, _SDT, _SDT_CONTENT, _CUSTOM_XML = (
    f"{{{_W}}}{t}" for t in ("p", "tbl", "sdt", "sdtContent", "customXml")
)
_T, _TAB, _BR, _CR = (f"{{{_W}}}{t}" for t in ("t", "tab", "br", "cr"))
_MATH_T = f"{{{_NS['m']}}}t"
_SKIPPED = {f"{{{_W}}}txbxContent", f"{{{_NS['mc']}}}Fallback", f"{{{_W}}}del", f"{{{_W}}}pPr"}
_HEADING_NAME = re.compile(r"^heading\s*(\d)$", re.IGNORECASE)
_LINE_SPACE = re.compile(r"[ \t\u00a0]+")
_MAX_SPAN = 64  # columns a merged cell may claim; guards against absurd values
_A = "http://schemas.openxmlformats.org/drawingml/2006/main"
_R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_WP = "http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"
_V = "urn:schemas-microsoft-com:vml"
_BLIP, _IMAGE_DATA, _DRAWING = f"{{{_A}}}blip", f"{{{_V}}}imagedata", f"{{{_W}}}drawing"
_NOT_HERE = {f"{{{_W}}}txbxContent", f"{{{_NS['mc']}}}Fallback"}  # read elsewhere, or twice
_DOC_PROPERTIES = f"{{{_WP}}}docPr"
_COMMENT, _COMMENT_REFERENCE = f"{{{_W}}}comment", f"{{{_W}}}commentReference"

_text_boxes = etree.XPath(".//w:txbxContent[not(ancestor::mc:Fallback)]", namespaces=_NS)
_style_id = etree.XPath("string(./w:pPr/w:pStyle/@w:val)", namespaces=_NS)
_outline = etree.XPath("string(./w:pPr/w:outlineLvl/@w:val)", namespaces=_NS)
_num_id = etree.XPath("string(./w:pPr/w:numPr/w:numId/@w:val)", namespaces=_NS)
_num_level = etree.XPath("string(./w:pPr/w:numPr/w:ilvl/@w:val)", namespaces=_NS)
_paragraphs = etree.XPath(".//w:p[not(ancestor::mc:Fallback)]", namespaces=_NS)
_style_uses = etree.XPath(".//w:pStyle/@w:val", namespaces=_NS)
_rows = etree.XPath("./w:tr", namespaces=_NS)
_cells = etree.XPath("./w:tc | ./w:sdt/w:sdtContent/w:tc", namespaces=_NS)
_span = etree.XPath("string(./w:tcPr/w:gridSpan/@w:val)", namespaces=_NS)
_merged_down = etree.XPath("./w:tcPr/w:vMerge", namespaces=_NS)
_grid_before = etree.XPath("string(./w:trPr/w:gridBefore/@w:val)", namespaces=_NS)


@dataclass
class _Style:
    heading: int = 0  # 0: not a heading
    num_id: str = ""
    bullet_hint: bool = False  # "List Bullet" and friends


@dataclass
class _Numbering:
    """Which list formats a numId uses, and the running counters of numbered lists."""

    formats: dict[tuple[str, int], str] = field(default_factory=dict)
    counters: dict[tuple[str, int], int] = field(default_factory=dict)

    def prefix(self, num_id: str, level: int, bullet_hint: bool) -> str:
        fmt = self.formats.get((num_id, level), "bullet" if bullet_hint else "decimal")
        indent = "  " * level
        if fmt in ("bullet", "none", ""):
            return indent + "- "
        for key in [k for k in self.counters if k[0] == num_id and k[1] > level]:
            del self.counters[key]  # a parent item restarts its children's numbering
        count = self.counters.get((num_id, level), 0) + 1
        self.counters[(num_id, level)] = count
        return f"{indent}{_label(count, fmt)}. "


class WordParser:
    """Word documents (.docx, .docm, .dotx)."""

    media_types = frozenset({"docx"})
    version = "5"

    def __init__(
        self, limits: LimitsSettings | None = None, *, ocr: ImageText | None = None
    ) -> None:
        self._limits = limits or LimitsSettings()
        self._ocr = ocr  # reads the text of embedded pictures; None: pictures are skipped

    def parse(self, data: bytes, *, name: str, password: str | None = None) -> Document:
        check_zip(data, self._limits, office=True)
        document = docx.Document(io.BytesIO(data))
        body = document.element.body
        pictures = PictureReader(self._ocr)
        reader = _Reader(_styles(document, body), _numbering(document), document.part, pictures)
        reader.comments = _comments(document)
        blocks = list(reader.blocks(body))
        blocks += [Block(BlockKind.TEXT, text) for text in reader.comments.values()]  # unplaced
        headers, footers = _headers_and_footers(document)
        if headers:
            blocks.insert(0, Block(BlockKind.TEXT, "Page header: " + " | ".join(headers)))
        if footers:
            blocks.append(Block(BlockKind.TEXT, "Page footer: " + " | ".join(footers)))
        title = (document.core_properties.title or "").strip() or None
        return Document(
            media_type="docx", blocks=tuple(blocks), title=title, warnings=tuple(pictures.warnings)
        )


class _Reader:
    def __init__(
        self,
        styles: dict[str, _Style],
        numbering: _Numbering,
        part: Part | None = None,
        pictures: PictureReader | None = None,
    ) -> None:
        self.styles = styles
        self.numbering = numbering
        self.part = part  # the document part, whose relationships hold the pictures
        self.pictures = pictures
        self.comments: dict[str, str] = {}  # comment id → its text, until placed

    def blocks(self, container: etree._Element) -> Iterator[Block]:
        for child in container:
            if child.tag == _P:
                yield from self._paragraph(child)
            elif child.tag == _TBL:
                yield from self._table(child)
            elif child.tag in (_SDT, _SDT_CONTENT, _CUSTOM_XML):
                yield from self.blocks(child)

    def _paragraph(self, p: etree._Element) -> Iterator[Block]:
        text = paragraph_text(p)
        if text:
            style = self.styles.get(_style_id(p), _Style())
            level = _outline_level(p) or style.heading
            num_id = _num_id(p) or style.num_id
            if level:
                yield Block(BlockKind.HEADING, " ".join(text.split()), level=level)
            elif (num_id and num_id != "0") or style.bullet_hint:
                ilvl = min(_number(_num_level(p), 0), 8)
                yield Block(
                    BlockKind.TEXT, self.numbering.prefix(num_id, ilvl, style.bullet_hint) + text
                )
            else:
                yield Block(BlockKind.TEXT, text)
        yield from self._pictures(p)
        for box in _text_boxes(p):
            yield from self.blocks(box)
        yield from self._comments(p)

    def _comments(self, element: etree._Element) -> Iterator[Block]:
        """The comments the element refers to (outside its text boxes), each once."""
        for reference in element.iter(_COMMENT_REFERENCE):
            if _inside(reference, element, _NOT_HERE):
                continue
            text = self.comments.pop(reference.get(f"{{{_W}}}id") or "", "")
            if text:
                yield Block(BlockKind.TEXT, text)

    def _pictures(self, p: etree._Element) -> Iterator[Block]:
        """The paragraph's pictures: their text as PICTURE blocks, or their description."""
        for relationship, description in _picture_refs(p):
            data = self._image(relationship)
            text = self.pictures.text(data) if self.pictures is not None and data else ""
            alt = alt_text(description)
            if text:
                yield Block(BlockKind.PICTURE, picture_text(alt, text))
            elif alt:
                yield Block(BlockKind.TEXT, "Picture: " + alt)

    def _image(self, relationship: str) -> bytes:
        if self.part is None:
            return b""
        try:
            return bytes(self.part.related_parts[relationship].blob)
        except (KeyError, AttributeError, ValueError):
            return b""  # a linked (external) picture, or a broken reference

    def _table(self, table: etree._Element) -> Iterator[Block]:
        rows: list[list[str]] = []
        for tr in _rows(table):
            row = [""] * min(_number(_grid_before(tr), 0), _MAX_SPAN)
            for tc in _cells(tr):
                text = clean_cell(" ".join(paragraph_text(p) for p in _paragraphs(tc)))
                merged = _merged_down(tc)
                if (
                    merged
                    and merged[0].get(f"{{{_W}}}val", "continue") == "continue"
                    and len(rows) > 1
                ):
                    # A cell merged with the one above holds its text for this row too: the
                    # row "Cell 4.0" reads "Header 0.1 is Merged Cell 3.1 4.1", not nothing.
                    text = text or cell_at(rows[-1], len(row))
                row.append(text)
                row.extend([""] * (min(_number(_span(tc), 1), _MAX_SPAN) - 1))
            if any(row):
                rows.append(row)
        cells = [cell for row in rows for cell in row if cell]
        if len(cells) == 1 or (rows and max(len(row) for row in rows) == 1):
            yield Block(BlockKind.TEXT, "\n".join(cells))  # a one-column box used for layout
        elif cells:
            yield Block(BlockKind.TABLE, markdown_table(labels_below(rows) or rows))
        yield from self._comments(table)


def _picture_refs(p: etree._Element) -> Iterator[tuple[str, str]]:
    """(relationship id, description) of the pictures in a paragraph, not in its text boxes."""
    for element in p.iter(_BLIP, _IMAGE_DATA):
        if _inside(element, p, _NOT_HERE):
            continue
        attribute = "embed" if element.tag == _BLIP else "id"
        relationship = element.get(f"{{{_R}}}{attribute}") or ""
        if relationship:
            yield relationship, _description(element, p)


def _inside(element: etree._Element, root: etree._Element, tags: set[str]) -> bool:
    parent = element.getparent()
    while parent is not None and parent is not root:
        if parent.tag in tags:
            return True
        parent = parent.getparent()
    return False


def _description(element: etree._Element, root: etree._Element) -> str:
    parent = element.getparent()
    while parent is not None and parent is not root and parent.tag != _DRAWING:
        parent = parent.getparent()
    if parent is None or parent.tag != _DRAWING:
        return ""
    properties = next(parent.iter(_DOC_PROPERTIES), None)
    return (properties.get("descr") or "") if properties is not None else ""


def paragraph_text(p: etree._Element) -> str:
    """The visible text of one w:p, without text boxes (read separately) or deleted runs."""
    parts: list[str] = []
    _collect(p, parts)
    lines = (_LINE_SPACE.sub(" ", line).strip() for line in "".join(parts).split("\n"))
    return "\n".join(line for line in lines if line)


def _collect(element: etree._Element, parts: list[str]) -> None:
    for child in element:
        tag = child.tag
        if tag in (_T, _MATH_T):
            parts.append(child.text or "")
        elif tag == _TAB:
            parts.append(" ")
        elif tag in (_BR, _CR):
            parts.append("\n")
        elif tag not in _SKIPPED and isinstance(tag, str):
            _collect(child, parts)


def _number(value: str, default: int) -> int:
    return int(value) if value.isdigit() else default


def _outline_level(p: etree._Element) -> int:
    value = _outline(p)
    return int(value) + 1 if value.isdigit() and int(value) < 9 else 0


def _styles(document: docx.document.Document, body: etree._Element) -> dict[str, _Style]:
    """Paragraph styles by id; if the Title style is used, it is level 1 and headings go below."""
    styles: dict[str, _Style] = {}
    try:
        elements = document.styles.element.findall(f"{{{_W}}}style")
    except (KeyError, AttributeError, NotImplementedError):
        return styles
    names = {e.get(f"{{{_W}}}styleId"): _style_name(e).lower() for e in elements}
    shift = int(any(names.get(style_id) == "title" for style_id in set(_style_uses(body))))
    for element in elements:
        style_id = element.get(f"{{{_W}}}styleId") or ""
        name = _style_name(element)
        match = _HEADING_NAME.match(name)
        heading = int(match.group(1)) if match else _outline_level(element)
        styles[style_id] = _Style(
            heading=1 if name.lower() == "title" else heading + shift if heading else 0,
            num_id=_num_id(element),
            bullet_hint=name.lower().startswith(("list bullet", "list number")),
        )
    return styles


def _style_name(style: etree._Element) -> str:
    name = style.find(f"{{{_W}}}name")
    return ((name.get(f"{{{_W}}}val") if name is not None else "") or "").strip()


def _numbering(document: docx.document.Document) -> _Numbering:
    numbering = _Numbering()
    try:
        root = document.part.numbering_part.element
    except (KeyError, AttributeError, NotImplementedError):
        return numbering
    abstract: dict[str, dict[int, str]] = {}
    for element in root.findall(f"{{{_W}}}abstractNum"):
        levels: dict[int, str] = {}
        for lvl in element.findall(f"{{{_W}}}lvl"):
            fmt = lvl.find(f"{{{_W}}}numFmt")
            ilvl = lvl.get(f"{{{_W}}}ilvl") or "0"
            if ilvl.isdigit():
                levels[int(ilvl)] = (fmt.get(f"{{{_W}}}val") if fmt is not None else "") or ""
        abstract[element.get(f"{{{_W}}}abstractNumId") or ""] = levels
    for num in root.findall(f"{{{_W}}}num"):
        ref = num.find(f"{{{_W}}}abstractNumId")
        levels = abstract.get(ref.get(f"{{{_W}}}val") or "" if ref is not None else "", {})
        for ilvl, fmt in levels.items():
            numbering.formats[(num.get(f"{{{_W}}}numId") or "", ilvl)] = fmt
    return numbering


def _comments(document: docx.document.Document) -> dict[str, str]:
    """Each comment's text by its id, as "Comment by <author>: <text>", in document order."""
    comments: dict[str, str] = {}
    for rel in document.part.rels.values():
        if rel.is_external or rel.reltype != RT.COMMENTS:
            continue
        element = getattr(rel.target_part, "element", None)  # None: not read as XML
        for comment in element.iter(_COMMENT) if element is not None else ():
            text = " ".join(" ".join(paragraph_text(p) for p in _paragraphs(comment)).split())
            author = " ".join((comment.get(f"{{{_W}}}author") or "").split())
            if text:
                who = f"Comment by {author}: " if author else "Comment: "
                comments[comment.get(f"{{{_W}}}id") or str(len(comments))] = who + text
    return comments


def _headers_and_footers(document: docx.document.Document) -> tuple[list[str], list[str]]:
    """Distinct header and footer texts over all sections, each once."""
    headers: list[str] = []
    footers: list[str] = []
    for rel in document.part.rels.values():
        if rel.is_external or rel.reltype not in (RT.HEADER, RT.FOOTER):
            continue
        element = rel.target_part.element
        text = " ".join(" ".join(paragraph_text(p) for p in _paragraphs(element)).split())
        target = headers if rel.reltype == RT.HEADER else footers
        if text and text not in target:
            target.append(text)
    return headers, footers


def _label(count: int, fmt: str) -> str:
    if fmt == "lowerLetter":
        return _letters(count).lower()
    if fmt == "upperLetter":
        return _letters(count)
    if fmt in ("lowerRoman", "upperRoman"):
        roman = _roman(count)
        return roman.lower() if fmt == "lowerRoman" else roman
    return str(count)


def _letters(count: int) -> str:
    out = ""
    while count > 0:
        count, rest = divmod(count - 1, 26)
        out = chr(ord("A") + rest) + out
    return out


def _roman(count: int) -> str:
    out = ""
    for value, numeral in (
        (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
        (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
    ):  # fmt: skip
        while count >= value:
            out += numeral
            count -= value
    return out
