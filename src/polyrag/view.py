"""How a cited place is shown to a person: a PDF page (a scan's too) or a picture, drawn with
the cited region highlighted, so they can check the answer where it sits.

A PDF locator's box is in PDF points with the origin at the page's bottom left (as the parser
writes it); a picture's is in its pixels from the top left.
"""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image, ImageDraw

from polyrag.errors import (
    CorruptFileError,
    EncryptedFileError,
    PolyragError,
    UnsupportedFormatError,
)

Box = tuple[float, float, float, float]

MAX_SCALE = 4.0
MAX_PIXELS = 2400  # the longer side of a drawn picture, at most
_FILL = (255, 214, 0, 80)  # a translucent marker yellow
_EDGE = (230, 120, 0, 255)


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
