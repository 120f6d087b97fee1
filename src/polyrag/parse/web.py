"""HTML → Blocks with selectolax: the main content's headings, paragraphs, list items and tables."""

from __future__ import annotations

import re
from collections.abc import Iterator

from selectolax.lexbor import LexborHTMLParser, LexborNode

from polyrag.parse.base import Document
from polyrag.parse.encoding import decode_text
from polyrag.parse.tables import clean_cell, labels_below, markdown_table
from polyrag.types import Block, BlockKind

_DROPPED = [
    "script", "style", "noscript", "nav", "aside", "form", "svg", "iframe",
    "template", "head", "button", "select", "textarea", "canvas", "object", "embed",
]  # fmt: skip
_HIDDEN = '[hidden], [aria-hidden="true"], [style*="display:none"], [style*="display: none"]'
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_BLOCKS = {
    "address", "article", "blockquote", "body", "caption", "center", "dd", "details", "dialog",
    "div", "dl", "dt", "fieldset", "figcaption", "figure", "hr", "html", "li", "main", "ol", "p",
    "pre", "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
}  # fmt: skip
_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([\w-]+)""", re.IGNORECASE)
_SPACE = re.compile(r"[ \t\r\n\f\u00a0\u200b]+")
_LINE_SPACE = re.compile(r"[ \t\u00a0\u200b]+")
_LONG_CELL = 300  # a cell longer than this means the table is page layout, not data
_MAX_ROW_SPAN = 500  # rows a cell may claim; guards against absurd values


class WebParser:
    """Web pages saved as HTML or XHTML."""

    media_types = frozenset({"html"})
    version = "3"

    def parse(self, data: bytes, *, name: str, password: str | None = None) -> Document:
        declared = _CHARSET.search(data[:4096])
        text = decode_text(data, hint=declared.group(1).decode("ascii") if declared else None)
        tree = LexborHTMLParser(text)
        title_node = tree.css_first("title")
        title = " ".join(title_node.text().split()) if title_node is not None else ""
        tree.strip_tags(_DROPPED)
        for node in tree.css(_HIDDEN):
            node.decompose()
        for node in tree.css("header, footer"):
            if not _inside(node, ("main", "article")):  # a site's banner, not an article's title
                node.decompose()
        root = _main_content(tree)
        blocks = list(_Walker().blocks(root)) if root is not None else []
        if title and not any(b.kind == BlockKind.HEADING and b.level == 1 for b in blocks):
            blocks.insert(0, Block(BlockKind.HEADING, title, level=1))
        return Document(media_type="html", blocks=tuple(blocks), title=title or None)


def _main_content(tree: LexborHTMLParser) -> LexborNode | None:
    for selector in ("main", '[role="main"]'):
        node = tree.css_first(selector)
        if node is not None and node.text(strip=True):
            return node
    articles = [node for node in tree.css("article") if node.text(strip=True)]
    if len(articles) == 1:
        return articles[0]
    return tree.body or tree.root


class _Walker:
    """Walks the DOM in order; inline content gathers into a paragraph until a block ends it."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._prefix = ""  # the list marker of the item being read
        self._depth = 0  # how many lists we are inside

    def blocks(self, root: LexborNode) -> Iterator[Block]:
        yield from self._visit(root)
        yield from self._flush()

    def _visit(self, node: LexborNode) -> Iterator[Block]:
        child = node.child
        while child is not None:
            yield from self._visit_one(child)
            child = child.next

    def _visit_one(self, node: LexborNode) -> Iterator[Block]:
        tag = node.tag or ""
        if tag == "-text":
            self._parts.append(_SPACE.sub(" ", node.text_content or ""))
        elif tag == "br":
            self._parts.append("\n")
        elif tag in _HEADINGS:
            yield from self._flush()
            text = " ".join(node.text().split())
            if text:
                yield Block(BlockKind.HEADING, text, level=_HEADINGS[tag])
        elif tag == "header":  # an article's header: its title, without menus and bylines
            yield from self._flush()
            for heading in node.css("h1, h2, h3, h4, h5, h6"):
                yield from self._visit_one(heading)
        elif tag == "pre":
            yield from self._flush()
            text = node.text().strip("\n")
            if text.strip():
                yield Block(BlockKind.TEXT, text)
        elif tag == "table" and _is_data_table(node):
            yield from self._flush()
            caption = node.css_first("caption")
            if caption is not None and caption.text(strip=True):
                yield Block(BlockKind.TEXT, " ".join(caption.text().split()))
            rows = _table_rows(node)
            yield Block(BlockKind.TABLE, markdown_table(labels_below(rows) or rows))
        elif tag in ("ul", "ol"):
            yield from self._list(node, ordered=tag == "ol")
        elif tag in _BLOCKS:
            yield from self._flush()
            yield from self._visit(node)
            yield from self._flush()
        elif tag.startswith("-") or tag == "img":
            return  # comments, doctype; images have no text
        else:
            yield from self._visit(node)  # inline element: its text joins the paragraph

    def _list(self, node: LexborNode, *, ordered: bool) -> Iterator[Block]:
        yield from self._flush()
        saved = self._prefix
        indent = "  " * self._depth
        self._depth += 1
        number = 0
        item = node.child
        while item is not None:
            if item.tag == "li":
                number += 1
                self._prefix = f"{indent}{number}. " if ordered else f"{indent}- "
                yield from self._visit(item)
                yield from self._flush()
            elif item.tag not in ("-text", "-comment"):
                yield from self._visit_one(item)
            item = item.next
        self._depth -= 1
        self._prefix = saved

    def _flush(self) -> Iterator[Block]:
        text = "".join(self._parts)
        self._parts = []
        lines = [_LINE_SPACE.sub(" ", line).strip() for line in text.split("\n")]
        text = "\n".join(line for line in lines if line)
        if text:
            yield Block(BlockKind.TEXT, self._prefix + text)
            if self._prefix:  # later paragraphs of the same item are not new items
                self._prefix = " " * len(self._prefix)


def _inside(node: LexborNode, tags: tuple[str, ...]) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.tag in tags:
            return True
        parent = parent.parent
    return False


def _is_data_table(table: LexborNode) -> bool:
    """Tables of data, as opposed to tables that lay out a page."""
    if len(table.css("table")) > 1:  # the match includes the table itself
        return False
    rows = _table_rows(table)
    if len(rows) < 2 or max(len(row) for row in rows) < 2:
        return False
    return all(len(cell) <= _LONG_CELL for row in rows for cell in row)


def _table_rows(table: LexborNode) -> list[list[str]]:
    """The table's rows on its grid: a cell spanning columns leaves the columns it covers
    empty; a cell spanning rows stands in each row it covers (the rows below hold fewer
    cells, which would otherwise shift left under the wrong column names), except that a
    header cell is not repeated in the rows of data below it."""
    rows: list[list[str]] = []
    below: dict[int, tuple[str, int]] = {}  # column → (text, rows it still covers)
    for number, tr in enumerate(table.css("tr")):
        row: list[str] = []
        cells = [cell for cell in tr.iter() if cell.tag in ("td", "th")]
        while cells or any(column >= len(row) for column in below):
            column = len(row)
            if column in below:
                text, left = below.pop(column)
                row.append(text)
                if left > 1:
                    below[column] = (text, left - 1)
                continue
            if not cells:
                row.append("")
                continue
            cell = cells.pop(0)
            text = clean_cell(cell.text(separator=" "))
            across = _span(cell.attributes.get("colspan"), 50)
            down = _span(cell.attributes.get("rowspan"), _MAX_ROW_SPAN)
            for offset in range(across):
                row.append(text if offset == 0 else "")
                if down > 1:
                    below[column + offset] = (text if offset == 0 and number else "", down - 1)
        if any(row):
            rows.append(row)
    return rows


def _span(value: str | None, most: int) -> int:
    return min(int(value), most) if value and value.isdigit() and int(value) > 0 else 1
