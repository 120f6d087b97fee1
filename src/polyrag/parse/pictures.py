"""Pictures embedded in Word and PowerPoint files → their text, by OCR.

A picture is read when it is a raster image big enough to hold text, once per distinct image
(a logo repeated on every slide is read once), and at most `MAX_PICTURES` per document, so one
file cannot take minutes of OCR. The text becomes a PICTURE block at the picture's place.
"""

from __future__ import annotations

import hashlib
import io
import re
from typing import Protocol

from PIL import Image, UnidentifiedImageError

from polyrag.errors import MissingDependencyError, PolyragError
from polyrag.settings import ParseSettings

MAX_PICTURES = 30  # pictures read per document
MIN_BYTES = 2_048  # smaller files are icons and bullets
MIN_SIDE = 48  # pixels; a narrower or lower picture holds no readable line of text
_RASTER = frozenset({"PNG", "JPEG", "GIF", "BMP", "TIFF", "WEBP", "MPO"})
_FILE_NAME = re.compile(r"^[\w\- .]+\.(png|jpe?g|gif|bmp|emf|wmf|svg|tiff?|webp)$", re.IGNORECASE)


class ImageText(Protocol):
    """What reads the text in an image: `polyrag.parse.ocr.Ocr`."""

    def image_text(self, data: bytes) -> str: ...


def picture_ocr(settings: ParseSettings) -> ImageText | None:
    """The OCR that Word and PowerPoint parsers give their pictures to; None when it is off."""
    if not settings.ocr.enabled:
        return None
    from polyrag.parse.ocr import Ocr

    return Ocr(settings.ocr, max_image_pixels=settings.limits.max_image_pixels)


class PictureReader:
    """Reads one document's pictures; make one per document."""

    def __init__(self, ocr: ImageText | None, limit: int = MAX_PICTURES) -> None:
        self._ocr = ocr
        self._limit = limit
        self._seen: set[str] = set()
        self._read = 0
        self.warnings: list[str] = []

    def text(self, data: bytes) -> str:
        """The picture's text; "" when it is skipped (small, repeated, over the cap) or blank."""
        if self._ocr is None or len(data) < MIN_BYTES:
            return ""
        digest = hashlib.sha256(data).hexdigest()
        if digest in self._seen:
            return ""
        self._seen.add(digest)
        if not _readable(data):
            return ""
        if self._read >= self._limit:
            if self._read == self._limit:
                self.warnings.append(f"only the first {self._limit} pictures were read by OCR")
                self._read += 1
            return ""
        self._read += 1
        try:
            text = self._ocr.image_text(data)
        except MissingDependencyError as error:
            self.warnings.append(f"pictures were not read: {error.one_line()}")
            self._ocr = None  # the same for every other picture
            return ""
        except PolyragError as error:
            self.warnings.append(f"a picture could not be read: {error.one_line()}")
            return ""
        lines = (" ".join(line.split()) for line in text.splitlines())
        return "\n".join(line for line in lines if line)


def alt_text(description: str | None) -> str:
    """A picture's description as its author wrote it; a default one (its file name) is none."""
    text = " ".join((description or "").split())
    return "" if _FILE_NAME.match(text) else text


def picture_text(alt: str, ocr_text: str) -> str:
    """What a PICTURE block says: the author's description, then the text read in the image."""
    return "\n".join(part for part in (alt, ocr_text) if part)


def _readable(data: bytes) -> bool:
    """A raster image at least MIN_SIDE pixels each way (vector formats cannot be OCR'd)."""
    try:
        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
            return image.format in _RASTER and min(width, height) >= MIN_SIDE
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError):
        return False
