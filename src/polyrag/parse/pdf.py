"""PDF → Blocks with pypdfium2: the text layer page by page, grouped into paragraph-like units.

Lines come from PDFium in content order (which is reading order for born-digital files); a new
block starts where the vertical gap, the text height or the column changes. Only two character
boxes per line are looked up, which keeps this well above 100 pages per second.

Scanned and mixed PDFs: a page whose text layer has too few letters and digits and which holds a
picture is rendered (300 dpi, gray; /Rotate applied) and OCR'd, with tesseract's orientation
detection for scans turned inside the picture. Pages with a usable text layer are never OCR'd
whole; only their big embedded pictures (charts, screenshots, scanned inserts) are, when the text
layer has no text over them, and each becomes a PICTURE block. Every box is in PDF points.
"""

from __future__ import annotations

import ctypes
import hashlib
import re
import statistics
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from itertools import pairwise
from typing import TYPE_CHECKING, Any

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from PIL import Image as PILImage

from polyrag.errors import (
    CorruptFileError,
    EmptyFileError,
    EncryptedFileError,
    ParseError,
)
from polyrag.parse.base import Document, Layout
from polyrag.parse.ocr import Ocr, OcrResult
from polyrag.parse.pdf_grids import grid_at, with_grids
from polyrag.parse.pdf_statements import header_part, month_day, period_groups, with_statements
from polyrag.parse.pdf_tables import PdfTable, PdfTables, with_tables
from polyrag.parse.protected import WRONG_PASSWORD_HINT
from polyrag.parse.tables import TABLE_TOP
from polyrag.types import Block, BlockKind, Locator

_CONTROL = re.compile(r"[\x00-\x1f\x7f\ufffd]")
_SPACES = re.compile(r"[ \t\u00a0]+")
_WORD = re.compile(r"[^ \t\u00a0]+")
_OCR_OFF = "no text layer (scanned PDF) and OCR is turned off"
_OCR_OFF_HINT = "set parse.ocr.enabled = true"
_COVERED_CHARS = 20  # text-layer letters over a picture that show its text is already there
_SLIDE_CHARS = 1200  # decks: most pages landscape and at most this many letters (median)

_FORM_DEPTH = 4  # form XObjects nested deeper than this are not searched for pictures
_IMAGE_SUBTYPE = re.compile(rb"/Subtype\s*/Image\b")
_DIMENSION_WIDTH = re.compile(rb"/Width\s*(\d+)\b(?!\s+\d+\s+R)")
_DIMENSION_HEIGHT = re.compile(rb"/Height\s*(\d+)\b(?!\s+\d+\s+R)")

_NOT_ALNUM = re.compile(r"[\W_]+")
_FONT_NAME = 128  # bytes read of a font's name
_BOLD_FACE = re.compile(r"bold|black|heavy|demi|semibd", re.IGNORECASE)
# A table's printed caption: "Table 3-2 Built-in global variables", "Exhibit 4. Sales".
_CAPTION = re.compile(
    r"(?:Table|TABLE|Exhibit|EXHIBIT|Schedule|SCHEDULE)\s+[A-Z]?\d+(?:[-.]\d+)*\b"
)
_CAPTION_CHARS = 160
_HEADING_WORDS = 16  # longer paragraphs are not headings
_FURNITURE_MIN_PAGES = 4  # running headers and footers are looked for in longer documents
_EDGE_BLOCKS = 2  # paragraphs at each end of a page that may be a running header or footer
_FURNITURE_WORDS = 12  # a running header or footer is at most this long
_PRINTED_MIN_PAGES = 3  # printed page numbers are looked for in longer documents
_PRINTED_DIGITS = 4  # a printed page number has at most this many digits
_MIN_PICTURE_CHARS = 12  # OCR of a logo reads a word or two of noise; a chart reads more

Box = tuple[float, float, float, float]

if TYPE_CHECKING:
    from PIL import Image


@dataclass
class _Line:
    text: str
    box: tuple[float, float, float, float] | None  # x0, y0, x1, y1 (PDF points, y up)
    size: float = 0.0  # font size of the line's first character (0: unknown)
    bold: bool = False  # its first character is set in a bold face
    # Each word with its box, for a short line (a table's row or header may be one).
    words: tuple[tuple[str, tuple[float, float, float, float]], ...] = ()

    @property
    def height(self) -> float:
        return self.box[3] - self.box[1] if self.box else 0.0


@dataclass
class _Reading:
    """What is gathered while a document's pages are read."""

    blocks: list[Block] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    chars: list[int] = field(default_factory=list)  # letters and digits per page
    landscape: list[bool] = field(default_factory=list)
    unread_scans: int = 0  # pages that needed OCR while it is off
    pictures_left: int = 0  # embedded pictures that may still be OCR'd
    pictures_seen: set[str] = field(default_factory=set)  # digests: a repeated logo is read once
    pending: list[_PendingPage] = field(default_factory=list)  # scanned pages being OCR'd
    pool: ThreadPoolExecutor | None = None  # runs tesseract on several pages at once
    tables: PdfTables | None = None  # finds ruled tables (parse/pdf_tables.py)
    last_table: PdfTable | None = None  # the previous page's last ruled table


class PdfParser:
    """Born-digital, scanned and mixed PDFs; pages without a usable text layer are OCR'd."""

    media_types = frozenset({"pdf"})
    version = "18"  # 18: a table the text stream writes last stands under its caption

    def __init__(self, ocr: Ocr | None = None) -> None:
        self._ocr = ocr if ocr is not None else Ocr()

    def parse(self, data: bytes, *, name: str, password: str | None = None) -> Document:
        try:
            document = _open_pdf(data, password)
        except pdfium.PdfiumError as exc:
            if getattr(exc, "err_code", None) == pdfium_c.FPDF_ERR_PASSWORD:
                reason = "encrypted PDF: wrong password" if password else "encrypted PDF"
                raise EncryptedFileError(reason) from None
            raise CorruptFileError(f"cannot be read: damaged PDF ({_reason(exc)})") from None
        try:
            return self._read(document, data)
        finally:
            document.close()

    def _read(self, document: pdfium.PdfDocument, data: bytes) -> Document:
        page_count = len(document)
        settings = self._ocr.settings
        wanted = settings.enabled and settings.pictures
        if wanted and big_images_possible(data, settings.min_picture_px):
            reading = _Reading(pictures_left=settings.max_pictures)
        else:
            reading = _Reading(pictures_left=0)
        reading.tables = PdfTables(data)
        try:
            for index in range(page_count):
                number = index + 1
                if index:
                    reading.blocks.append(Block(BlockKind.BREAK, "", Locator(page=number)))
                try:
                    self._read_page(document, index, reading)
                except pdfium.PdfiumError as exc:
                    reading.warnings.append(f"page {number} could not be read: {_reason(exc)}")
            _place_ocr_pages(reading)
            labels = [_page_label(document, index) for index in range(page_count)]
            reading.blocks = _with_printed_pages(reading.blocks, labels)
            reading.blocks = _without_furniture(reading.blocks, page_count)
        finally:
            if reading.pool is not None:
                reading.pool.shutdown(wait=True, cancel_futures=True)
        reading.tables.close()
        reading.warnings.extend(reading.tables.warnings)
        if not any(block.text for block in reading.blocks):
            if page_count == 0:
                raise EmptyFileError("the PDF has no pages")
            if len(reading.warnings) == page_count:
                raise CorruptFileError(f"cannot be read: damaged PDF ({reading.warnings[0]})")
            if reading.unread_scans:
                raise ParseError(_OCR_OFF, hint=_OCR_OFF_HINT)
            raise EmptyFileError("no text found (the pages are blank)")
        if reading.unread_scans:
            reading.warnings.append(
                f"{reading.unread_scans} scanned page(s) not read: OCR is turned off"
            )
        return Document(
            media_type="pdf",
            blocks=tuple(reading.blocks),
            pages=page_count,
            title=_title(document),
            warnings=tuple(reading.warnings),
            layout=_layout(reading),
        )

    def _read_page(self, document: pdfium.PdfDocument, index: int, reading: _Reading) -> None:
        number = index + 1
        page = document[index]
        try:
            width, height = page.get_size()
            reading.landscape.append(width > height * 1.05)
            textpage = page.get_textpage()
            try:
                lines = _lines(textpage)
            finally:
                textpage.close()
            chars = sum(_alnum(line.text) for line in lines)
            settings = self._ocr.settings
            usable = chars >= max(1, settings.min_page_chars)
            pictures = _pictures(page) if not usable or reading.pictures_left > 0 else []
            if not usable and pictures:
                if not settings.enabled:
                    reading.unread_scans += 1
                else:
                    weak = [
                        Block(BlockKind.TEXT, _reflow(group), _locator(number, group))
                        for group in _paragraphs(lines)
                    ]
                    self._start_ocr(page, number, reading, weak)
                    return
            reading.chars.append(chars)
            tables = reading.tables.on_page(page, index) if reading.tables and usable else []
            tables = [_years_above(table, lines) if table.headless else table for table in tables]
            tables = [_named(table, lines, number, reading) for table in tables]
            earlier = reading.last_table
            if tables and earlier is not None and tables[0].continues(earlier):
                tables[0] = tables[0].with_header(earlier.cells[0])
            reading.last_table = tables[-1] if tables else None
            headings = _Headings(lines)
            for run in with_tables(lines, tables, box=_box, text=lambda line: line.text):
                if isinstance(run, PdfTable):  # a table, where its lines stood
                    caption = _caption_over(reading.blocks, number, run) or headings.over
                    reading.blocks.append(run.block(number, caption=caption))
                    headings.passed()
                    continue
                for part in _statements(run, number, reading):
                    if isinstance(part, PdfTable):  # a statement without ruling lines
                        reading.blocks.append(part.block(number, caption=headings.title))
                        headings.passed()
                        continue
                    for piece in _grids(part, number, reading):
                        if isinstance(piece, PdfTable):  # columns of figures, unruled
                            reading.blocks.append(piece.block(number, caption=headings.over))
                            headings.passed()
                            continue
                        for group in _paragraphs(piece):
                            reading.blocks.extend(headings.blocks(number, group))
            if usable and reading.pictures_left > 0:
                self._read_pictures(page, pictures, lines, number, reading)
        finally:
            page.close()

    def _read_pictures(
        self,
        page: pdfium.PdfPage,
        pictures: list[_Picture],
        lines: list[_Line],
        number: int,
        reading: _Reading,
    ) -> None:
        """OCR the page's big pictures that the text layer does not cover, each once."""
        settings = self._ocr.settings
        width, height = page.get_size()
        for picture in pictures:
            if reading.pictures_left <= 0:
                return
            if not _worth_reading(
                picture, width * height, lines, settings.min_picture_px, settings.min_picture_area
            ):
                continue
            if not _first_sight(picture, reading):
                continue
            reading.pictures_left -= 1
            self._start_picture(page, picture, number, reading)

    def _start_ocr(
        self, page: pdfium.PdfPage, number: int, reading: _Reading, weak: list[Block]
    ) -> None:
        """Render a page and hand it to tesseract; its blocks are placed when it is done.

        Up to `ocr.workers` pages are OCR'd at once (one tesseract process each), while the
        next page is rendered: a page waits only when all of them are busy.
        """
        settings = self._ocr.settings
        width, height = page.get_size()
        scale = min(settings.page_dpi / 72, settings.max_image_side / max(width, height, 1.0))
        bitmap = page.render(scale=scale, grayscale=True)
        image = bitmap.to_pil().copy()  # its own pixels: the bitmap is freed with the page
        result = self._submit(reading, image, round(scale * 72))
        transform = _Transform.of(page, image.size)
        reading.pending.append(_PendingPage(number, len(reading.blocks), result, transform, weak))

    def _start_picture(
        self, page: pdfium.PdfPage, picture: _Picture, number: int, reading: _Reading
    ) -> None:
        """Extract one embedded picture and hand it to tesseract; placed when it is done."""
        if picture.pixels[0] * picture.pixels[1] > self._ocr.max_image_pixels:
            return
        try:
            bitmap = picture.image.get_bitmap(render=True)
            image = bitmap.to_pil()  # may share the bitmap's memory: `bitmap` stays referenced
            image, dpi = _at_most(image, picture.bounds, self._ocr.settings.page_dpi)
            image = image.copy()  # its own pixels for the OCR thread
        except pdfium.PdfiumError as exc:
            reading.warnings.append(f"page {number}: a picture could not be read: {_reason(exc)}")
            return
        left, bottom, right, top = picture.bounds
        box = (round(left, 1), round(bottom, 1), round(right, 1), round(top, 1))
        result = self._submit(reading, image, dpi)
        reading.pending.append(_PendingPage(number, len(reading.blocks), result, picture=box))

    def _submit(self, reading: _Reading, image: Image.Image, dpi: int | None) -> Future[OcrResult]:
        """OCR `image` in the pool, after waiting while `ocr.workers` images are being read."""
        workers = self._ocr.settings.workers
        if reading.pool is None:
            reading.pool = ThreadPoolExecutor(workers, thread_name_prefix="ocr")
        busy = [pending.result for pending in reading.pending if not pending.result.done()]
        if len(busy) >= workers:
            wait(busy[:1])
        return reading.pool.submit(self._ocr.read, image, dpi=dpi)


@dataclass(frozen=True)
class _Transform:
    """Maps pixels of a rendered page (y down) to PDF points (y up), whatever its /Rotate."""

    origin: tuple[float, float]  # where pixel (0, 0) is on the page
    across: tuple[float, float]  # the page vector from pixel (0, 0) to (width, 0)
    down: tuple[float, float]  # and to (0, height)
    size: tuple[int, int]

    @classmethod
    def of(cls, page: pdfium.PdfPage, size: tuple[int, int]) -> _Transform:
        width, height = size
        x, y = ctypes.c_double(), ctypes.c_double()

        def point(px: int, py: int) -> tuple[float, float]:
            pdfium_c.FPDF_DeviceToPage(page.raw, 0, 0, width, height, 0, px, py, x, y)
            return x.value, y.value

        origin, right, bottom = point(0, 0), point(width, 0), point(0, height)
        return cls(
            origin,
            (right[0] - origin[0], right[1] - origin[1]),
            (bottom[0] - origin[0], bottom[1] - origin[1]),
            size,
        )

    def box(self, pixels: tuple[int, int, int, int]) -> Box:
        corners = [self._point(pixels[0], pixels[1]), self._point(pixels[2], pixels[3])]
        (x0, y0), (x1, y1) = corners
        return (round(min(x0, x1), 1), round(min(y0, y1), 1), round(max(x0, x1), 1),
                round(max(y0, y1), 1))  # fmt: skip

    def _point(self, px: float, py: float) -> tuple[float, float]:
        u, v = px / max(self.size[0], 1), py / max(self.size[1], 1)
        return (
            self.origin[0] + u * self.across[0] + v * self.down[0],
            self.origin[1] + u * self.across[1] + v * self.down[1],
        )


@dataclass
class _PendingPage:
    """A scanned page or an embedded picture handed to tesseract, and where its blocks go."""

    number: int
    position: int  # index in the document's blocks where the page's blocks belong
    result: Future[OcrResult]
    transform: _Transform | None = None  # a whole page: where its pixels are on the page
    weak: list[Block] = field(default_factory=list)  # its scant text layer, if OCR finds none
    picture: Box | None = None  # an embedded picture: its place on the page


def _place_ocr_pages(reading: _Reading) -> None:
    """Wait for the OCR'd pages and put their blocks in place (last first: indexes hold)."""
    placed: list[tuple[int, list[Block]]] = []
    for pending in reading.pending:
        try:
            result = pending.result.result()
        except ParseError as exc:  # a page OCR could not read; other errors concern the user
            what = "a picture: " if pending.picture is not None else ""
            reading.warnings.append(f"page {pending.number}: {what}{exc.one_line()}")
            blocks = pending.weak
        else:
            blocks = (
                _picture_blocks(pending, result)
                if pending.picture
                else _page_blocks(pending, result)
            )
        if pending.picture is None:
            reading.chars.append(sum(_alnum(block.text) for block in blocks))
        placed.append((pending.position, blocks))
    for position, blocks in reversed(placed):
        reading.blocks[position:position] = blocks
    reading.pending.clear()


def _page_blocks(pending: _PendingPage, result: OcrResult) -> list[Block]:
    """A scanned page's paragraphs with their boxes in PDF points."""
    transform = pending.transform
    if transform is None:
        return pending.weak
    return [
        Block(BlockKind.TEXT, region.text,
              Locator(page=pending.number, bbox=transform.box(region.box)))
        for region in result.regions
    ] or pending.weak  # fmt: skip


def _picture_blocks(pending: _PendingPage, result: OcrResult) -> list[Block]:
    """An embedded picture's text as one PICTURE block, when it is more than a logo's noise."""
    text = result.text
    if _alnum(text) < _MIN_PICTURE_CHARS:
        return []
    return [Block(BlockKind.PICTURE, text, Locator(page=pending.number, bbox=pending.picture))]


@dataclass
class _Picture:
    image: pdfium.PdfImage
    bounds: Box  # left, bottom, right, top in PDF points
    pixels: tuple[int, int]


def _pictures(page: pdfium.PdfPage) -> list[_Picture]:
    """The page's image objects (also inside form XObjects), biggest first.

    Objects are walked with PDFium's raw calls and only images are wrapped: a 10-K page holds
    thousands of text and path objects, and wrapping each one cost 70 ms a page.
    """
    handles: list[object] = []
    _collect_images(pdfium_c.FPDFPage_CountObjects, pdfium_c.FPDFPage_GetObject, page.raw, 0,
                    handles)  # fmt: skip
    found: list[_Picture] = []
    for handle in handles:
        try:
            image = pdfium.PdfObject(handle, page=page, pdf=page.pdf)
            left, bottom, right, top = image.get_bounds()
            if not isinstance(image, pdfium.PdfImage):
                continue
            width, height = image.get_px_size()
        except (pdfium.PdfiumError, AttributeError, ValueError):
            continue
        bounds = (float(left), float(bottom), float(right), float(top))
        found.append(_Picture(image, bounds, (int(width), int(height))))
    found.sort(key=lambda p: -(p.bounds[2] - p.bounds[0]) * (p.bounds[3] - p.bounds[1]))
    return found


def _collect_images(count: Any, get: Any, parent: Any, depth: int, handles: list[object]) -> None:
    get_type = pdfium_c.FPDFPageObj_GetType
    for index in range(max(0, count(parent))):
        handle = get(parent, index)
        kind = get_type(handle)
        if kind == pdfium_c.FPDF_PAGEOBJ_IMAGE:
            handles.append(handle)
        elif kind == pdfium_c.FPDF_PAGEOBJ_FORM and depth < _FORM_DEPTH:
            _collect_images(pdfium_c.FPDFFormObj_CountObjects, pdfium_c.FPDFFormObj_GetObject,
                            handle, depth + 1, handles)  # fmt: skip


def big_images_possible(data: bytes, min_px: int) -> bool:
    """Whether the file holds an image XObject at least `min_px` wide and high.

    Image XObjects are streams, and streams are never packed into object streams, so their
    dictionaries are in the file as plain bytes: a regex finds them in milliseconds, and a
    document with none (most born-digital reports) needs no page-by-page object walk.
    """
    for match in _IMAGE_SUBTYPE.finditer(data):
        start = data.rfind(b"<<", max(0, match.start() - 2048), match.start())
        end = data.find(b"stream", match.end(), match.end() + 2048)
        dictionary = data[
            start if start >= 0 else match.start() : end if end >= 0 else match.end() + 512
        ]
        width = _DIMENSION_WIDTH.search(dictionary)
        height = _DIMENSION_HEIGHT.search(dictionary)
        if width is None or height is None:
            return True  # indirect or unusual: assume it may be big
        if int(width.group(1)) >= min_px and int(height.group(1)) >= min_px:
            return True
    return False


def _first_sight(picture: _Picture, reading: _Reading) -> bool:
    """True the first time this picture's data is met in the document."""
    try:
        data = picture.image.get_data(decode_simple=False)
    except pdfium.PdfiumError:
        return True
    digest = hashlib.sha1(bytes(data), usedforsecurity=False).hexdigest()
    if digest in reading.pictures_seen:
        return False
    reading.pictures_seen.add(digest)
    return True


def _at_most(image: Image.Image, bounds: Box, dpi: int) -> tuple[Image.Image, int | None]:
    """The picture scaled down to `dpi` at the size it is shown on the page, and its dpi.

    Charts are often embedded at 400-600 dpi; tesseract reads them as well at 300 and the time
    it takes grows with the pixels.
    """
    shown = max(bounds[2] - bounds[0], bounds[3] - bounds[1]) / 72  # inches
    if shown <= 0:
        return image, None
    actual = max(image.size) / shown
    if actual <= dpi * 1.2:
        return image, round(actual) if actual >= 70 else None
    factor = dpi / actual
    size = (max(1, round(image.width * factor)), max(1, round(image.height * factor)))
    return image.convert("L").resize(size, PILImage.Resampling.LANCZOS), dpi


def _worth_reading(
    picture: _Picture, page_area: float, lines: list[_Line], min_px: int, min_area: float
) -> bool:
    """Big enough to hold text, and not already covered by the page's own text layer."""
    if min(picture.pixels) < min_px:
        return False
    left, bottom, right, top = picture.bounds
    if (right - left) * (top - bottom) < min_area * page_area:
        return False
    covered = 0
    for line in lines:
        if line.box is None:
            continue
        x = (line.box[0] + line.box[2]) / 2
        y = (line.box[1] + line.box[3]) / 2
        if left <= x <= right and bottom <= y <= top:
            covered += _alnum(line.text)
            if covered >= _COVERED_CHARS:
                return False
    return True


class _Headings:
    """Which paragraphs of a page are headings, and how deep.

    A heading is short, mostly letters, not a sentence or a row label ("Current assets:"), and
    stands out: set in bold on a page whose text is mostly not, or at least 15% larger than
    the page's body text. Paragraphs in capitals that open the page ("CONSOLIDATED BALANCE
    SHEETS") count too, for PDFs whose fonts do not say bold. The page's first heading is
    level 1 (a statement's title); later ones are level 2 (its sections) unless set larger.
    """

    def __init__(self, lines: list[_Line]) -> None:
        weights = [(line.size, _alnum(line.text), line.bold) for line in lines if line.size > 0]
        total = sum(n for _, n, _ in weights) or 1
        self.body = _weighted_median([(size, n) for size, n, _ in weights])
        self.bold_stands_out = sum(n for _, n, bold in weights if bold) < 0.6 * total
        self.leading = True  # nothing but headings on the page yet
        self.first: float | None = None  # the size of the page's first heading
        # The last two headings set one after the other ("3M Company and Subsidiaries" over
        # "Consolidated Statement of Cash Flows"; a running "Table of Contents" above them is
        # left out): a statement's title, for its table. A heading after text starts a new
        # title ("6. Inventories, Net" under a page whose first heading was "Customer
        # Deposits").
        self.title = ""
        self._run: list[str] = []  # the title's headings: the last two of a run
        # Nothing but the title's unit or period since its last heading: the next heading
        # joins the title, and a table takes it (`over`).
        self._joining = False
        self._opening = False  # the title's headings open the page

    @property
    def over(self) -> str:
        """The page's title when it stands right over what comes next (its unit or period
        between at most): a table found by its rules or columns takes it when it has no
        caption of its own. Lower on a page, a bold line over a table is as often its column
        names ("Noncontrolling" over "Interest Total"), and the sentence that leads into a
        table names it better."""
        return self.title if self._joining and self._opening else ""

    def passed(self) -> None:
        """Something that is no heading (text, a table) stood on the page: the page no longer
        opens with headings, and the next heading starts a new title."""
        self.leading = False
        self._joining = False

    def blocks(self, page: int, group: list[_Line]) -> list[Block]:
        """The paragraph's blocks: a heading set over its unit or period ("CONSOLIDATED
        BALANCE SHEETS" over "(Amounts in millions, except share data)"; "CONSOLIDATED
        STATEMENTS OF OPERATIONS" over "(Unaudited)", "Three Months Ended", "June 30,") is a
        heading and a line of text."""
        head = group
        while len(head) > 1 and _table_top(head[-1].text):
            head = head[:-1]
        if len(head) < len(group) and self._is_heading(head, _reflow(head)):
            return [self.block(page, head), self.block(page, group[len(head) :])]
        return [self.block(page, group)]

    def block(self, page: int, group: list[_Line]) -> Block:
        text = _reflow(group)
        if not self._is_heading(group, text):
            if not TABLE_TOP.match(" ".join(text.split())):
                self.passed()  # a unit or a period between a title and its table is no break
            return Block(BlockKind.TEXT, text, _locator(page, group))
        size = min(line.size for line in group)
        if self.first is None:
            self.first, level = size, 1
        else:
            level = 1 if size >= 1.1 * self.first > 0 else 2
        heading = " ".join(text.split())
        if not self._joining:
            self._opening = self.leading
        self._run = [*self._run[-1:], heading] if self._joining else [heading]
        self.title = " ".join(self._run)
        self._joining = True
        return Block(BlockKind.HEADING, text, _locator(page, group), level=level)

    def _is_heading(self, group: list[_Line], text: str) -> bool:
        words = text.split()
        if not words or len(group) > 3 or len(words) > _HEADING_WORDS:
            return False
        letters = sum(char.isalpha() for char in text)
        digits = sum(char.isdigit() for char in text)
        if letters < 3 or letters < 2 * digits or (not text[0].isupper() and text[0].isalpha()):
            return False
        if text.endswith((":", ",", ";")) or (text.endswith(".") and len(words) > 6):
            return False
        if TABLE_TOP.match(" ".join(words)):
            return False  # "(In millions, except per share data)", "Years Ended": no heading
        bold = self.bold_stands_out and all(line.bold for line in group)
        larger = self.body > 0 and min(line.size for line in group) >= 1.15 * self.body
        capitals = sum(char.isupper() for char in text) >= 0.7 * letters
        return bold or larger or (self.leading and capitals)


def _caption_over(blocks: list[Block], page: int, table: PdfTable) -> str:
    """The caption printed right over a ruled table that has none of its own ("Table 3-2
    Built-in global variables"), taken off the page's text: the last block read, a line of
    text on the same page opening with "Table", "Exhibit" or "Schedule" and a number, standing
    within two lines' height above the table's top. Empty otherwise."""
    if table.caption or not blocks:
        return ""
    last = blocks[-1]
    box = last.locator.bbox
    if last.kind is not BlockKind.TEXT or last.locator.page != page or box is None:
        return ""
    text = " ".join(last.text.split())
    gap = box[1] - table.bbox[3]
    if len(text) > _CAPTION_CHARS or not _CAPTION.match(text):
        return ""
    if not 0 <= gap <= 2 * (box[3] - box[1]):
        return ""
    blocks.pop()
    return text


def _table_top(line: str) -> bool:
    """A line between a table's title and its rows: its unit or a note in parentheses, its
    period ("Three Months Ended"), or a month and day of it ("June 30,")."""
    text = " ".join(line.split())
    return bool(TABLE_TOP.match(text)) or month_day(text)  # TABLE_TOP takes "(…)" lines too


def _weighted_median(values: list[tuple[float, int]]) -> float:
    """The value below which half the weight lies (0 when there is none)."""
    total = sum(weight for _, weight in values)
    seen = 0
    for value, weight in sorted(values):
        seen += weight
        if seen * 2 >= total > 0:
            return value
    return 0.0


def _page_label(document: pdfium.PdfDocument, index: int) -> int | None:
    """The page's number as the PDF labels it (/PageLabels), when that is a plain number."""
    try:
        label = document.get_page_label(index)
    except pdfium.PdfiumError:
        return None
    return int(label) if label.isdigit() and len(label) <= _PRINTED_DIGITS else None


def _with_printed_pages(blocks: list[Block], labels: list[int | None]) -> list[Block]:
    """Blocks whose page has a printed number other than its physical one, with it in their
    locators (`printed_page`): "page 9" in a question may mean the page that says 9.

    A PDF that labels its pages (/PageLabels) is taken at its word where a label is a plain
    number. Otherwise a page's number opens or closes one of the short paragraphs at either end
    of the page ("9", "(1)", "Version 1.3 9", "Page 9 of 40") and counts on from the page
    before or to the page after: a figure that happens to stand at a page's edge rarely does.
    Where several do (a numbered step at the top of two pages besides their page numbers), the
    one that keeps the document's most common distance from the physical page wins.
    """
    pages = len(labels)
    if pages < _PRINTED_MIN_PAGES:
        return blocks
    if any(label is not None for label in labels):
        printed = {index + 1: n for index, n in enumerate(labels) if n is not None}
    else:
        printed = _counted_pages(blocks)
    printed = {page: n for page, n in printed.items() if n != page}
    if not printed:
        return blocks
    return [
        replace(block, locator=replace(block.locator, printed_page=printed[block.locator.page]))
        if block.locator.page in printed
        else block
        for block in blocks
    ]


def _counted_pages(blocks: list[Block]) -> dict[int, int]:
    """Physical page → the number printed at its edge, where one counts on (see above)."""
    numbers: dict[int, set[int]] = {}
    for page, paragraphs in _paragraphs_by_page(blocks).items():
        if page is not None:
            edge = _edges(paragraphs)
            numbers[page] = {n for i in edge for n in _edge_numbers(blocks[i].text)}
    counting = {
        page: sorted(
            n
            for n in found
            if n - 1 in numbers.get(page - 1, ()) or n + 1 in numbers.get(page + 1, ())
        )
        for page, found in numbers.items()
    }
    offsets: dict[int, int] = {}
    for page, found in counting.items():
        for n in found:
            offsets[n - page] = offsets.get(n - page, 0) + 1
    return {
        page: max(found, key=lambda n: (offsets[n - page], -n))
        for page, found in counting.items()
        if found
    }


def _edge_numbers(text: str) -> set[int]:
    """The whole numbers that open or close a short paragraph, or follow "page": "Version 1.3
    9" gives 9 and "Page 9 of 40" 9 (40 never counts on); "ends on topic 9." none."""
    words = text.split()
    if len(words) > _FURNITURE_WORDS:
        return set()
    places = {0, len(words) - 1}
    places |= {i + 1 for i, word in enumerate(words) if word.casefold() in ("page", "p.")}
    found = set()
    for i in places & set(range(len(words))):
        word = words[i].strip("()[]|–—-:")
        if word.isdigit() and len(word) <= _PRINTED_DIGITS and int(word) > 0:
            found.add(int(word))
    return found


def _without_furniture(blocks: list[Block], pages: int) -> list[Block]:
    """Drop running headers and footers: short paragraphs that open or close many pages with
    the same words (digits aside: "Page 12 of 90", "Table of Contents", the company's name).
    Their pages stay in the locators of what remains, and a page keeps them when they are all
    it has (one line per slide). A page left with headings but no level-1
    one gets its first heading promoted, so a statement's title still leads its rows."""
    if pages < _FURNITURE_MIN_PAGES:
        return blocks
    by_page = _paragraphs_by_page(blocks)
    # The key of each paragraph at either end of each page (empty: too long to be furniture).
    keys = {
        page: {i: _furniture_key(blocks[i].text) for i in _edges(ends)}
        for page, ends in by_page.items()
    }
    seen: dict[str, set[int | None]] = {}
    for page, edge in keys.items():
        for key in edge.values():
            if key:
                seen.setdefault(key, set()).add(page)
    repeated = {key for key, pages_of in seen.items() if len(pages_of) >= max(3, 0.3 * pages)}
    if not repeated:
        return blocks
    dropped: set[int] = set()
    for page, edge in keys.items():
        found = {i for i, key in edge.items() if key in repeated}
        if len(found) < len(by_page[page]):  # a page's only words are content, not furniture
            dropped |= found
    furniture: dict[int | None, list[str]] = {}
    for i in sorted(dropped):
        furniture.setdefault(blocks[i].locator.page, []).append(" ".join(blocks[i].text.split()))
    kept = [
        _without_running_title(block, furniture.get(block.locator.page, []))
        for i, block in enumerate(blocks)
        if i not in dropped
    ]
    return _promote_titles(kept)


def _without_running_title(block: Block, furniture: list[str]) -> Block:
    """A table whose caption opens with its page's running header ("PART II Item 8 BALANCE
    SHEETS": the headings over a statement are its title) without it."""
    if block.kind is not BlockKind.TABLE or not furniture:
        return block
    caption, _, rest = block.text.partition("\n")
    if caption.startswith("|"):
        return block  # no caption: the Markdown's header
    shorter = caption
    for words in furniture:  # in page order: "Table of Contents" before "PART II Item 8"
        if shorter.startswith(words + " "):
            shorter = shorter[len(words) + 1 :]
    return block if shorter == caption else replace(block, text=f"{shorter}\n{rest}")


def _paragraphs_by_page(blocks: list[Block]) -> dict[int | None, list[int]]:
    """Page → the indexes of its text and heading blocks that hold words, in order."""
    by_page: dict[int | None, list[int]] = {}
    for i, block in enumerate(blocks):
        if block.kind in (BlockKind.TEXT, BlockKind.HEADING) and block.text.strip():
            by_page.setdefault(block.locator.page, []).append(i)
    return by_page


def _edges(paragraphs: list[int]) -> tuple[int, ...]:
    """The paragraphs at either end of a page, where running headers and footers stand."""
    return (*paragraphs[:_EDGE_BLOCKS], *paragraphs[-_EDGE_BLOCKS:])


def _furniture_key(text: str) -> str:
    """The paragraph's words with numbers as "#": page numbers in digits, or in small roman
    numerals at either end ("Pfizer Inc. 2021 Form 10-K iii" on the front matter's pages)."""
    words = text.split()
    if len(words) > _FURNITURE_WORDS:
        return ""
    for end in {0, len(words) - 1}:
        if _SMALL_ROMAN.fullmatch(words[end]):
            words[end] = "#"
    return re.sub(r"\d+", "#", " ".join(words).casefold())


_SMALL_ROMAN = re.compile(r"[ivxl]{1,7}")


def _promote_titles(blocks: list[Block]) -> list[Block]:
    out: list[Block] = []
    titled: set[int | None] = set()
    for block in blocks:
        if block.kind is BlockKind.HEADING:
            page = block.locator.page
            if page not in titled:
                titled.add(page)
                if block.level != 1:
                    block = replace(block, level=1)
        out.append(block)
    return out


def _layout(reading: _Reading) -> Layout:
    """Slide decks (mostly landscape pages with little text each) are read page by page."""
    pages = len(reading.landscape)
    if pages < 2 or sum(reading.landscape) < 0.6 * pages:
        return "report"
    return "slides" if statistics.median(reading.chars or [0]) <= _SLIDE_CHARS else "report"


def _alnum(text: str) -> int:
    """Letters and digits in `text` (a regex in C: this runs over every character of a PDF)."""
    return len(text) - sum(len(run) for run in _NOT_ALNUM.findall(text))


def _reflow(group: list[_Line]) -> str:
    """A paragraph's lines as a reader sees them: wrapped prose joined, other lines kept apart.

    A line is a wrapped line of prose when it nearly fills the paragraph's width and is mostly
    words; table rows, lists and headings keep their line breaks. A word hyphenated at the
    line end is joined again.
    """
    widths = [line.box[2] - line.box[0] for line in group if line.box is not None]
    full = max(widths, default=0.0)
    text = group[0].text
    for previous, line in pairwise(group):
        width = previous.box[2] - previous.box[0] if previous.box is not None else 0.0
        listed = _AMOUNT_AT_END.search(previous.text) and line.text[:1].isupper()
        if full and width >= 0.8 * full and _is_prose(previous.text) and not listed:
            if text.endswith("-") and line.text[:1].islower():
                text = text[:-1] + line.text
            else:
                text += " " + line.text
        else:
            text += "\n" + line.text
    return text


# A line ending in an amount ("… LEGISLATIVE CORRESPONDENT 21,000.00") before one opening
# with a capital is a row of a listing, not wrapped prose: joined, each payee ran into the
# amount of the one before.
_AMOUNT_AT_END = re.compile(
    r"(?<![\w.,])[$€£]?\(?\d{1,3}(?:,\d{3})*\.\d{2}\)?$|(?<![\w.,])\(?\d{1,3}(?:,\d{3})+\)?$"
)


def _is_prose(text: str) -> bool:
    words = text.split()
    return len(words) >= 5 and sum(w.strip(".,;:()").isalpha() for w in words) >= 0.7 * len(words)


def _lines(textpage: pdfium.PdfTextPage) -> list[_Line]:
    text = textpage.get_text_range()
    at = _char_indices(textpage, text)
    lines: list[_Line] = []
    position = 0
    for raw in text.split("\r\n"):
        start, position = position, position + len(raw) + 2
        cleaned = _SPACES.sub(" ", _CONTROL.sub(" ", raw.replace("\ufffe", ""))).strip()
        if not cleaned:
            continue
        box, size, bold = None, 0.0, False
        words: tuple[tuple[str, tuple[float, float, float, float]], ...] = ()
        if at is not None:
            first = at[start + len(raw) - len(raw.lstrip())]
            last = at[start + len(raw.rstrip()) - 1]
            try:
                box = _union(
                    textpage.get_charbox(first, loose=True), textpage.get_charbox(last, loose=True)
                )
            except pdfium.PdfiumError:
                box = None
            size, bold = _font(textpage, first)
            if box is not None:
                words = _words(textpage, raw, [at[start + k] for k in range(len(raw))])
        lines.append(_Line(cleaned, box, size, bold, words))
    return lines


def _char_indices(textpage: pdfium.PdfTextPage, text: str) -> list[int] | None:
    """PDFium's character index of each character of the page's text, or None when they
    cannot be matched. The text usually holds one character per PDFium character; some PDFs
    have characters the text leaves out (control codes between figures), so the two are
    walked side by side."""
    count = textpage.count_chars()
    if len(text) == count:
        return list(range(count))
    if len(text) > count:
        return None
    at: list[int] = []
    j = 0
    for char in text:
        while j < count and chr(pdfium_c.FPDFText_GetUnicode(textpage.raw, j)) != char:
            j += 1
        if j == count:
            return None
        at.append(j)
        j += 1
    return at


# Lines whose words' places are looked up (for tables without rules, parse/pdf_grids.py): up
# to this many words when they end in a figure, else up to the length of a header line.
_GRID_LINE_WORDS = 24
_GRID_NAME_WORDS = 12
_ENDS_IN_FIGURE = re.compile(r"[\d%)—–-]\s*$")


def _words(
    textpage: pdfium.PdfTextPage, raw: str, at: list[int]
) -> tuple[tuple[str, tuple[float, float, float, float]], ...]:
    """A short line's words with their boxes (from their first and last characters); `at`
    holds PDFium's index of each character of the line."""
    found = list(_WORD.finditer(raw))
    if len(found) > _GRID_LINE_WORDS or (
        len(found) > _GRID_NAME_WORDS and not _ENDS_IN_FIGURE.search(raw)
    ):
        return ()  # prose: neither a table's row (it ends in a figure) nor its column names
    words = []
    for match in found:
        text = _CONTROL.sub("", match.group().replace("\ufffe", ""))
        if not text:
            continue
        try:
            box = _union(
                textpage.get_charbox(at[match.start()], loose=True),
                textpage.get_charbox(at[match.end() - 1], loose=True),
            )
        except pdfium.PdfiumError:
            return ()
        words.append((text, box))
    return tuple(words)


def _statements(lines: list[_Line], page: int, reading: _Reading) -> list[list[_Line] | PdfTable]:
    """The lines with the statements among them as tables. Finding them is a help, not a
    need: should it fail on some page, the page's lines are read as text, with a warning."""
    try:
        return list(with_statements(lines, text=lambda line: line.text, box=_box))
    except Exception as exc:  # never lose a page to the statement finder
        reading.warnings.append(f"page {page}: statement tables not read ({_reason(exc)})")
        return [lines]


def _grids(lines: list[_Line], page: int, reading: _Reading) -> list[list[_Line] | PdfTable]:
    """The lines with the unruled tables of figures among them as tables (a help, like
    `_statements`: should it fail, the lines are read as text, with a warning)."""
    try:
        return list(with_grids(lines, text=lambda line: line.text, words=_line_words))
    except Exception as exc:  # never lose a page to the grid finder
        reading.warnings.append(f"page {page}: unruled tables not read ({_reason(exc)})")
        return [lines]


_HEADER_REACH = 40.0  # points above a ruled table searched for the years that head it


def _years_above(table: PdfTable, lines: list[_Line]) -> PdfTable:
    """A ruled table whose figures start on its first row takes the years printed just above
    its grid ("2020 2019 2018", or "November 27," over "2015"), when they are as many as its
    figure columns and all different — or repeated under the periods that group them
    ("Three Months Ended June 30," and "Six Months Ended June 30," over "2023 2022 2023
    2022"); otherwise it stays without a header."""
    x0, _bottom, x1, top = table.bbox
    years: list[str] = []
    header: list[int] = []  # the lines that hold them
    for k, line in enumerate(lines):  # top to bottom
        box = _box(line)
        if box is None or not (top - 1 <= box[1] <= top + _HEADER_REACH):
            continue
        if box[2] < x0 or box[0] > x1:
            continue
        part = header_part(line.text)
        if part is not None:
            years += part[0]
            header.append(k)
    if len(years) != table.columns - 1:
        return table
    if len(set(years)) != len(years):
        grouped = period_groups(lines, header[0], header[-1] + 1, lambda line: line.text, years)
        if grouped is None:
            return table
        years = grouped[1]
    return table.with_header(["", *years])


_NAME_LINES = 10  # lines above a ruled table searched for the names of its columns


def _named(table: PdfTable, lines: list[_Line], page: int, reading: _Reading) -> PdfTable:
    """`_names_above` for a headless table, a help like `_grids`: should it fail, the table
    stays as it is, with a warning."""
    if not table.headless:
        return table
    try:
        return _names_above(table, lines)
    except Exception as exc:  # never lose a page to the names' reader
        reading.warnings.append(f"page {page}: a table's column names not read ({_reason(exc)})")
        return table


def _names_above(table: PdfTable, lines: list[_Line]) -> PdfTable:
    """A ruled table whose rules leave its column names out ("($ in millions) Flexibles" over
    "Rigid" over "Packaging Total" above Amcor's grid of regions) takes them, read from where
    their words stand as an unruled table's (parse/pdf_grids.py), when that reading of the
    same lines gives the same rows; its region then reaches over them. Otherwise it stays as
    it is."""
    inside = [k for k, line in enumerate(lines) if table.covers(line.box)]
    if not inside:
        return table
    start, end = max(0, inside[0] - _NAME_LINES), inside[-1] + 1
    found = grid_at(lines[start:end], inside[0] - start, lambda line: line.text, _line_words)
    if found is None:
        return table
    first, _end, grid = found
    header, *rows = grid.cells
    ruled = table.cells if any(table.cells[0]) else table.cells[1:]
    if len(header) != table.columns or [[_bare(c) for c in row] for row in rows] != [
        [_bare(c) for c in row] for row in ruled
    ]:
        return table
    bbox = table.bbox
    for line in lines[start + first : inside[0]]:  # the lines of names: now the table's
        if line.box is not None:
            bbox = _union(bbox, line.box)
    named = replace(table.with_header(header), bbox=bbox)
    return replace(named, caption=named.caption or grid.caption)


def _line_words(line: _Line) -> tuple[tuple[str, Box], ...]:
    return line.words


def _bare(cell: str) -> str:
    """A cell without its currency sign and spaces: "$ 4,411" as the unruled reading has it."""
    return "".join(cell.replace("$", "").split())


def _box(line: _Line) -> Box | None:
    return line.box


def _font(textpage: pdfium.PdfTextPage, index: int) -> tuple[float, bool]:
    """The size of a character's font and whether its face is bold (by weight or by name:
    many PDFs report no weight for an embedded "TimesNewRoman-Bold")."""
    size = float(pdfium_c.FPDFText_GetFontSize(textpage.raw, index))
    weight = pdfium_c.FPDFText_GetFontWeight(textpage.raw, index)
    name = ctypes.create_string_buffer(_FONT_NAME)
    flags = ctypes.c_int()
    pdfium_c.FPDFText_GetFontInfo(textpage.raw, index, name, _FONT_NAME, ctypes.byref(flags))
    face = name.value.decode("latin-1", errors="replace")
    return size, weight >= 600 or bool(_BOLD_FACE.search(face))


def _paragraphs(lines: list[_Line]) -> list[list[_Line]]:
    """Split lines where a reader sees a new paragraph: extra space, another size, a new column."""
    groups: list[list[_Line]] = []
    for line in lines:
        if groups and not _starts_paragraph(groups[-1][-1], line):
            groups[-1].append(line)
        else:
            groups.append([line])
    return groups


def _starts_paragraph(previous: _Line, line: _Line) -> bool:
    if previous.box is None or line.box is None:
        return False
    height = max(previous.height, line.height, 1.0)
    gap = previous.box[1] - line.box[3]  # space between the lines, positive going down
    moved_up = line.box[1] > previous.box[3]  # the next column, or a jump back
    resized = abs(previous.height - line.height) > 0.25 * height
    # A bold line among plain ones (or the reverse) is a heading or the end of one.
    restyled = previous.bold != line.bold
    return gap > 0.5 * height or moved_up or resized or restyled


def _locator(page: int, group: list[_Line]) -> Locator:
    boxes = [line.box for line in group if line.box is not None]
    if not boxes:
        return Locator(page=page)
    box = (
        round(min(b[0] for b in boxes), 1),
        round(min(b[1] for b in boxes), 1),
        round(max(b[2] for b in boxes), 1),
        round(max(b[3] for b in boxes), 1),
    )
    return Locator(page=page, bbox=box)


def _union(
    a: tuple[float, float, float, float], b: tuple[float, float, float, float]
) -> tuple[float, float, float, float]:
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def _title(document: pdfium.PdfDocument) -> str | None:
    try:
        title = document.get_metadata_dict().get("Title", "")
    except pdfium.PdfiumError:
        return None
    return title.strip() or None


def _reason(exc: Exception) -> str:
    text = str(exc).replace("Failed to load document", "").strip(" .()")
    return text.removeprefix("PDFium: ").strip() or type(exc).__name__


def _open_pdf(data: bytes, password: str | None) -> pdfium.PdfDocument:
    """Open with `password`; one given for a whole folder may not be this file's, and a PDF
    whose user password is empty (copying or printing restricted) opens without any."""
    try:
        return pdfium.PdfDocument(data, password=password)
    except pdfium.PdfiumError as exc:
        if password is None or getattr(exc, "err_code", None) != pdfium_c.FPDF_ERR_PASSWORD:
            raise
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        if getattr(exc, "err_code", None) == pdfium_c.FPDF_ERR_PASSWORD:
            raise EncryptedFileError(
                "encrypted PDF: wrong password", hint=WRONG_PASSWORD_HINT
            ) from None
        raise
