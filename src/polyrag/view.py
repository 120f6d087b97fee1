"""How a cited place is shown to a person: a PDF page (a scan's too) or a picture, drawn with
the cited region highlighted, a slide as it is shown (the deck converted to PDF once), a
table's cited rows with their header, and an e-mail's headers, so they can check the answer
where it sits.

A PDF locator's box is in PDF points with the origin at the page's bottom left (as the parser
writes it); a picture's is in its pixels from the top left.
"""

from __future__ import annotations

import io
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from polyrag.errors import (
    CorruptFileError,
    EncryptedFileError,
    PolyragError,
    UnsupportedFormatError,
)
from polyrag.parse.legacy import INSTALL_HINT, convert
from polyrag.types import Table

Box = tuple[float, float, float, float]

MAX_SCALE = 4.0
MAX_PIXELS = 2400  # the longer side of a drawn picture, at most
_FILL = (255, 214, 0, 80)  # a translucent marker yellow
_EDGE = (230, 120, 0, 255)


SLIDE_DECKS = frozenset({"pptx", "ppt", "odp"})
MESSAGES = frozenset({"email", "msg"})


def slides_as_pdf(path: Path, kind: str, sha256: str, cache: Path, timeout: float = 120) -> Path:
    """A slide deck converted to PDF by LibreOffice (one page a slide), kept under `cache` by
    the deck's content hash, so each deck is converted once."""
    target = cache / f"{sha256}.pdf"
    if target.is_file():
        return target
    binary = shutil.which("soffice") or shutil.which("libreoffice")
    if binary is None:
        raise UnsupportedFormatError("drawing a slide needs LibreOffice", hint=INSTALL_HINT)
    converted = convert(path.read_bytes(), kind, "pdf", binary, timeout)
    cache.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    partial.write_bytes(converted)
    partial.replace(target)  # whole or not at all, should two requests convert at once
    return target


class PageNotFoundError(PolyragError):
    hint = "pages are counted from 1, as the citation's locator gives them"


def page_png(path: Path, kind: str, page: int, box: Box | None = None, scale: float = 1.5) -> bytes:
    """The page (`kind` "pdf") or picture (`kind` "image", page 1) as PNG, `box` highlighted."""
    if kind == "pdf":
        image, drawn = _pdf_page(path, page, box, min(max(scale, 0.25), MAX_SCALE))
    elif kind == "image":
        if page != 1:
            raise PageNotFoundError(f"a picture has one page, not page {page}")
        image, drawn = _picture(path, box)
    else:
        raise UnsupportedFormatError(
            f"a {kind} source has no pages to draw",
            hint="its citation's text and locator say where the passage is",
        )
    if drawn is not None:
        image = highlight(image, drawn)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False)
    return out.getvalue()


def highlight(image: Image.Image, box: Box) -> Image.Image:
    """`box` (in the image's pixels) filled with translucent yellow and outlined."""
    base = image.convert("RGBA")
    layer = Image.new("RGBA", base.size, (0, 0, 0, 0))
    pad = 3
    x0, y0, x1, y1 = box
    region = (
        max(0, x0 - pad),
        max(0, y0 - pad),
        min(base.width, x1 + pad),
        min(base.height, y1 + pad),
    )
    ImageDraw.Draw(layer).rectangle(region, fill=_FILL, outline=_EDGE, width=3)
    return Image.alpha_composite(base, layer).convert("RGB")


def _pdf_page(
    path: Path, page: int, box: Box | None, scale: float
) -> tuple[Image.Image, Box | None]:
    import pypdfium2 as pdfium

    try:
        document = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as error:
        if "password" in str(error).lower():
            raise EncryptedFileError("the PDF is password-protected: it cannot be drawn") from None
        raise CorruptFileError(f"the PDF cannot be opened: {error}") from None
    try:
        if not 1 <= page <= len(document):
            raise PageNotFoundError(f"the PDF has {len(document)} pages, not page {page}")
        sheet = document[page - 1]
        try:
            height = sheet.get_height()
            image = sheet.render(scale=scale).to_pil()
        finally:
            sheet.close()
    finally:
        document.close()
    if box is None:
        return image, None
    x0, y0, x1, y1 = box  # PDF points, y up from the bottom
    return image, (x0 * scale, (height - y1) * scale, x1 * scale, (height - y0) * scale)


def _picture(path: Path, box: Box | None) -> tuple[Image.Image, Box | None]:
    try:
        with Image.open(path) as opened:
            image = opened.convert("RGB")
    except (OSError, Image.DecompressionBombError) as error:
        raise CorruptFileError(f"the picture cannot be read: {error}") from None
    shrink = min(1.0, MAX_PIXELS / max(image.size))
    if shrink < 1.0:
        image = image.resize((round(image.width * shrink), round(image.height * shrink)))
    if box is None:
        return image, None
    return image, (box[0] * shrink, box[1] * shrink, box[2] * shrink, box[3] * shrink)


def table_rows(
    tables: Sequence[Table],
    *,
    sheet: str | None = None,
    page: int | None = None,
    rows: tuple[int, int] | None = None,
    context: int = 2,
) -> dict[str, Any]:
    """The cited rows of a source's table, as a person checks them: the table's name and
    title, its header, the rows from `rows` (row numbers as the locator counts them) with
    `context` rows around, and which of them were cited. The table is the one on `sheet` (or
    `page`) holding those rows; without rows, its first rows."""
    # A table printed over several pages is checked page by page, as its chunks cite it.
    chosen = _table_for([piece for table in tables for piece in table.pieces()], sheet, page, rows)
    numbers = [chosen.row_number(index) for index in range(len(chosen.rows))]
    if rows is None:  # no rows cited: the table's first rows
        window = numbers[:10]
        first, last, around = (window[0], window[-1], 0) if window else (0, -1, 0)
    else:
        (first, last), around = rows, context
    shown = [
        {"row": number, "cells": list(cells), "cited": rows is not None and first <= number <= last}
        for number, cells in zip(numbers, chosen.rows, strict=True)
        if first - around <= number <= last + around
    ]
    return {
        "name": chosen.name,
        "title": chosen.title,
        "sheet": chosen.locator.sheet or (chosen.name if sheet else None),
        "page": chosen.locator.page,
        "header": list(chosen.header),
        "columns": list(chosen.columns),
        "rows": shown,
        "total_rows": len(chosen.rows),
    }


def _table_for(
    tables: Sequence[Table], sheet: str | None, page: int | None, rows: tuple[int, int] | None
) -> Table:
    def holds(table: Table) -> bool:
        if sheet is not None and sheet not in (table.name, table.locator.sheet):
            return False
        if page is not None and table.locator.page not in (None, page):
            return False
        if rows is None:
            return True
        numbers = {table.row_number(index) for index in range(len(table.rows))}
        return rows[0] in numbers or rows[1] in numbers

    for table in tables:
        if holds(table):
            return table
    where = ", ".join(
        part
        for part in (
            f"sheet {sheet}" if sheet else "",
            f"page {page}" if page else "",
            f"rows {rows[0]}-{rows[1]}" if rows else "",
        )
        if part
    )
    raise TableNotFoundError(f"the source has no table {('at ' + where) if where else ''}".strip())


class TableNotFoundError(PolyragError):
    hint = "the citation's text shows the passage as it was indexed"


def mail_headers(path: Path, kind: str) -> dict[str, Any]:
    """Who sent an e-mail to whom, when and about what, and the names of what it carried."""
    from polyrag.parse.email import HEADER_FIELDS, mail_content, unique_names
    from polyrag.parse.outlook import outlook_content

    if kind not in MESSAGES:
        raise UnsupportedFormatError(f"a {kind} file is not an e-mail")
    data = path.read_bytes()
    content = outlook_content(data) if kind == "msg" else mail_content(data)
    return {
        "headers": [
            {"name": name, "value": content.headers[name]}
            for name in HEADER_FIELDS
            if name in content.headers
        ],
        "attachments": [item.name for item in unique_names(content.attachments)],
    }
