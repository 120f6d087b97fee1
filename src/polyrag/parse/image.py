"""Image files → Blocks: OCR text regions, a description when a vision model is configured.

PNG, JPEG, TIFF (every page of a multi-page TIFF), BMP, WebP and GIF (the first frame of an
animation) are read with Pillow; HEIC/HEIF only with the optional pillow-heif decoder. The size
in the header is checked against the pixel limit before anything is decoded. An image with no
readable text is not dropped: it becomes a PICTURE block naming what it is (size, format, and
the camera, date and place from its EXIF data), so a search for it by name or date finds it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from polyrag.errors import CorruptFileError, ParseError, PolyragError
from polyrag.parse.base import Document
from polyrag.parse.ocr import Ocr, open_image
from polyrag.types import Block, BlockKind, Locator

if TYPE_CHECKING:
    from PIL import Image

    from polyrag.parse.vision import PictureDescriber

_EXIF_IFD = 0x8769
_GPS_IFD = 0x8825
_MAKE, _MODEL, _DATETIME, _DATETIME_ORIGINAL = 271, 272, 306, 36867


class ImageParser:
    """Raster images: OCR regions as TEXT blocks (bbox in image pixels) and one PICTURE block."""

    media_types = frozenset({"image"})
    version = "1"

    def __init__(
        self,
        ocr: Ocr | None = None,
        describer: PictureDescriber | None = None,
        *,
        max_image_pixels: int = 200_000_000,
    ) -> None:
        self._ocr = ocr if ocr is not None else Ocr(max_image_pixels=max_image_pixels)
        self._describer = describer
        self._max_pixels = max_image_pixels

    def parse(self, data: bytes, *, name: str, password: str | None = None) -> Document:
        image = open_image(data, self._max_pixels)
        label = name.rsplit("/", 1)[-1]
        image_format = image.format or "image"
        pages = _page_count(image)
        paged = pages > 1
        blocks: list[Block] = []
        warnings: list[str] = []
        for index in range(pages):
            number = index + 1 if paged else None
            try:
                image.seek(index)
                if image.width * image.height > self._max_pixels:  # each TIFF page has its own
                    raise ValueError(f"{image.width}×{image.height} pixels is over the limit")
                image.load()
            except (OSError, ValueError, EOFError) as exc:
                if index == 0:
                    raise CorruptFileError(
                        f"cannot be read: damaged {image_format} ({exc})"
                    ) from None
                warnings.append(f"page {index + 1} could not be read: {exc}")
                continue
            if index:
                blocks.append(Block(BlockKind.BREAK, "", Locator(page=number)))
            blocks.extend(self._page_blocks(image, label, image_format, number, warnings))
        return Document(
            media_type="image", blocks=tuple(blocks), pages=pages, warnings=tuple(warnings)
        )

    def _page_blocks(
        self,
        image: Image.Image,
        label: str,
        image_format: str,
        page: int | None,
        warnings: list[str],
    ) -> list[Block]:
        blocks: list[Block] = []
        if self._ocr.enabled:
            try:
                result = self._ocr.read(image)
            except PolyragError as exc:
                if not isinstance(exc, ParseError):
                    raise  # tesseract or a language pack is missing: the user must install it
                warnings.append(_where(page) + exc.one_line())  # OCR failed or took too long
            else:
                blocks = [
                    Block(BlockKind.TEXT, region.text, Locator(page=page, bbox=_box(region.box)))
                    for region in result.regions
                ]
        description = ""
        if self._describer is not None:
            try:
                description = self._describer.describe(image)
            except PolyragError as exc:
                warnings.append(_where(page) + "no picture description: " + exc.one_line())
        width, height = image.size
        if description:
            text = f"{label} ({width}×{height} {image_format} image): {description}"
            blocks.insert(0, Block(BlockKind.PICTURE, text, Locator(page=page)))
        elif not blocks:
            blocks.append(
                Block(
                    BlockKind.PICTURE, _placeholder(image, label, image_format), Locator(page=page)
                )
            )
        return blocks


def _page_count(image: Image.Image) -> int:
    """Pages of a multi-page TIFF; animations and other multi-frame formats count as one."""
    if image.format != "TIFF":
        return 1
    return max(1, int(getattr(image, "n_frames", 1)))


def _box(box: tuple[int, int, int, int]) -> tuple[float, float, float, float]:
    return (float(box[0]), float(box[1]), float(box[2]), float(box[3]))


def _where(page: int | None) -> str:
    return f"page {page}: " if page is not None else ""


def _placeholder(image: Image.Image, label: str, image_format: str) -> str:
    """What can be said of a picture with no readable text: name, size, format, EXIF facts."""
    width, height = image.size
    parts = [f"{label}: {width}×{height} pixels, {image_format} image, no readable text"]
    parts.extend(_exif_facts(image))
    return "; ".join(parts) + "."


def _exif_facts(image: Image.Image) -> list[str]:
    try:
        exif = image.getexif()
    except Exception:  # malformed EXIF is common in the wild; it only costs the extra facts
        return []
    facts: list[str] = []
    try:
        details = exif.get_ifd(_EXIF_IFD)
    except Exception:
        details = {}
    taken = details.get(_DATETIME_ORIGINAL) or exif.get(_DATETIME)
    if isinstance(taken, str) and taken.strip("\x00 "):
        facts.append(f"taken {_exif_date(taken.strip(chr(0) + ' '))}")
    make = str(exif.get(_MAKE, "")).strip("\x00 ")
    model = str(exif.get(_MODEL, "")).strip("\x00 ")
    camera = model if model.lower().startswith(make.lower()) else f"{make} {model}".strip()
    if camera:
        facts.append(f"camera {camera}")
    try:
        gps = exif.get_ifd(_GPS_IFD)
    except Exception:
        gps = {}
    position = _gps_position(gps)
    if position is not None:
        facts.append(f"GPS {position[0]:.5f}, {position[1]:.5f}")
    return facts


def _exif_date(value: str) -> str:
    """EXIF writes '2019:07:14 10:22:05'; people write 2019-07-14 10:22:05."""
    date, _, time = value.partition(" ")
    return (date.replace(":", "-") + (" " + time if time else "")).strip()


def _gps_position(gps: dict[int, object]) -> tuple[float, float] | None:
    try:
        latitude = _degrees(gps[2]) * (-1 if str(gps.get(1, "N")).upper().startswith("S") else 1)
        longitude = _degrees(gps[4]) * (-1 if str(gps.get(3, "E")).upper().startswith("W") else 1)
    except (KeyError, TypeError, ValueError, ZeroDivisionError, IndexError):
        return None
    if not (-90 <= latitude <= 90 and -180 <= longitude <= 180):
        return None
    return latitude, longitude


def _degrees(value: object) -> float:
    parts = [float(part) for part in value]  # type: ignore[attr-defined]
    return parts[0] + parts[1] / 60 + parts[2] / 3600
