"""Tesseract OCR: image → text regions with pixel boxes, upright whatever the scan's rotation.

The `tesseract` binary is called directly (stdin → TSV on stdout) with one OpenMP thread: on two
shared cores tesseract's own threads made a 300 dpi page 5× slower (11.4 s against 2.3 s), and
the limit has to be set for the child process only — process-wide it would also throttle the
embedder's and llama.cpp's thread pools. Page segmentation mode 1 detects the orientation in the
same pass (90° and 270° turns read right with no second run); a weakly detected 180° turn is
caught by its low confidence and read again upside down, the only case that costs a second pass.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import warnings
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from polyrag.errors import (
    CorruptFileError,
    MissingDependencyError,
    ParseError,
    UnsupportedFormatError,
)
from polyrag.settings import OcrSettings

if TYPE_CHECKING:
    from PIL import Image

_TESSERACT_HINT = (
    "install it with `apt-get install tesseract-ocr` (or `make system`), "
    "or turn OCR off with parse.ocr.enabled = false"
)
_LOW_CONFIDENCE = 60.0  # below this mean word confidence, an upside-down page is tried too
_LOW_DPI = 150  # scans below this resolution are read at twice their size
_SMALL_SIDE = 1200  # images without a DPI and smaller than this are read at twice their size
_MIN_FLIP_LETTERS = 20  # a few noisy words (a photo, a logo) are not worth a second pass
_MIN_REGION_CONFIDENCE = 45.0  # regions read with less are noise (photos, textures)
_HEIF_BRANDS = (b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1")


@dataclass(frozen=True)
class TextRegion:
    """A paragraph tesseract found: its text, box and mean word confidence (0-100)."""

    text: str
    box: tuple[int, int, int, int]  # left, top, right, bottom in the image's pixels (y down)
    confidence: float


@dataclass(frozen=True)
class OcrResult:
    """What OCR read in one image, in reading order."""

    regions: tuple[TextRegion, ...]
    rotation: int  # degrees the content was turned clockwise (0, 90, 180, 270)
    width: int
    height: int

    @property
    def text(self) -> str:
        return "\n\n".join(region.text for region in self.regions)


@dataclass
class _Word:
    text: str
    confidence: float
    box: tuple[int, int, int, int]
    key: tuple[int, int, int]  # block, paragraph, line


class Ocr:
    """OCR with tesseract, configured by `OcrSettings` (languages, sizes, time limit)."""

    def __init__(
        self,
        settings: OcrSettings | None = None,
        *,
        max_image_pixels: int = 200_000_000,
        binary: str = "tesseract",
    ) -> None:
        self.settings = settings or OcrSettings()
        self.max_image_pixels = max_image_pixels
        self._binary = binary
        self._checked: tuple[str, bool] | None = None  # resolved binary, has orientation data

    @property
    def enabled(self) -> bool:
        return self.settings.enabled

    def check(self) -> None:
        """Raise MissingDependencyError unless tesseract and every configured language exist."""
        self._tesseract()

    def image_text(self, data: bytes) -> str:
        """The OCR text of an image file's bytes (the first frame), "" when it has none.

        Any bytes are accepted: an unreadable, unsupported or oversized image gives "". Only a
        missing tesseract or language pack raises (MissingDependencyError).
        """
        if not self.enabled:
            return ""
        try:
            image = open_image(data, self.max_image_pixels)
            return self.read(image).text
        except MissingDependencyError:
            raise
        except (ParseError, OSError, ValueError, SyntaxError, MemoryError):
            return ""
        except Exception:  # a decoder's own failure on hostile bytes: no text, not a crash
            return ""

    def read(self, image: Image.Image, *, dpi: int | None = None) -> OcrResult:
        """OCR one image (its current frame) into paragraphs with boxes in its own pixels.

        `dpi` tells tesseract the scan resolution (rendered PDF pages); otherwise the image's
        own DPI is used when it has one.
        """
        binary, has_osd = self._tesseract()
        width, height = image.size
        gray = _grayscale(image)
        if dpi is None:
            dpi = _image_dpi(image)
        scale = _scale(max(width, height), dpi, self.settings.max_image_side)
        if scale != 1.0:
            from PIL import Image as PILImage

            size = (max(1, round(width * scale)), max(1, round(height * scale)))
            gray = gray.resize(size, PILImage.Resampling.LANCZOS)
        if dpi is not None:
            dpi = max(70, min(1200, round(dpi * scale)))
        words = self._words(binary, gray, dpi, psm=1 if has_osd else 3)
        flipped = False
        if _letters(words) >= _MIN_FLIP_LETTERS and _mean_confidence(words) < _LOW_CONFIDENCE:
            upside_down = self._words(binary, gray.rotate(180), dpi, psm=3)
            if _mean_confidence(upside_down) > _mean_confidence(words) + 10:
                words = [_unflip(word, gray.width, gray.height) for word in upside_down]
                flipped = True
        if scale != 1.0:
            words = [_scaled(word, 1 / scale) for word in words]
        rotation = _rotation(words, flipped)
        return OcrResult(tuple(_regions(words)), rotation, width, height)

    def _words(self, binary: str, gray: Image.Image, dpi: int | None, *, psm: int) -> list[_Word]:
        buffer = io.BytesIO()
        gray.save(buffer, format="PPM")  # uncompressed PGM: nothing to spend on encoding
        command = [binary, "stdin", "stdout", "-l", self.settings.languages, "--psm", str(psm)]
        if dpi is not None:
            command += ["--dpi", str(dpi)]
        command.append("tsv")
        try:
            completed = subprocess.run(
                command,
                input=buffer.getvalue(),
                capture_output=True,
                timeout=self.settings.timeout_s,
                env={**os.environ, "OMP_THREAD_LIMIT": "1"},
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise ParseError(
                f"OCR took longer than {self.settings.timeout_s:g} s",
                hint="raise parse.ocr.timeout_s",
            ) from None
        except OSError as exc:
            raise MissingDependencyError(
                f"OCR needs tesseract, which cannot be run ({exc.strerror})", hint=_TESSERACT_HINT
            ) from None
        if completed.returncode != 0:
            detail = _first_line(completed.stderr.decode("utf-8", "replace"))
            raise CorruptFileError(f"OCR failed: {detail or f'exit code {completed.returncode}'}")
        return _parse_tsv(completed.stdout.decode("utf-8", "replace"))

    def _tesseract(self) -> tuple[str, bool]:
        if self._checked is not None:
            return self._checked
        binary = shutil.which(self._binary)
        if binary is None:
            raise MissingDependencyError(
                "OCR needs tesseract, which is not installed", hint=_TESSERACT_HINT
            )
        try:
            listed = subprocess.run(
                [binary, "--list-langs"], capture_output=True, timeout=30, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise MissingDependencyError(
                f"OCR needs tesseract, which cannot be run ({exc})", hint=_TESSERACT_HINT
            ) from None
        lines = listed.stdout.decode("utf-8", "replace").splitlines()
        available = {line.strip() for line in lines[1:] if line.strip()}
        wanted = [lang for lang in self.settings.languages.split("+") if lang]
        if not wanted:
            raise MissingDependencyError(
                "no OCR language configured", hint="set parse.ocr.languages, e.g. eng"
            )
        for lang in wanted:
            if lang not in available:
                package = "tesseract-ocr-" + lang.lower().replace("_", "-")
                raise MissingDependencyError(
                    f"tesseract has no language pack '{lang}'",
                    hint=f"install it with `apt-get install {package}` or change "
                    "parse.ocr.languages",
                )
        self._checked = (binary, "osd" in available)
        return self._checked


def open_image(data: bytes, max_pixels: int) -> Image.Image:
    """Decode the header of an image file, refusing it before decoding when it is too large.

    Raises UnsupportedFormatError (HEIC without its optional decoder, unknown formats) and
    CorruptFileError (damaged, or more than `max_pixels` pixels).
    """
    from PIL import Image as PILImage
    from PIL import UnidentifiedImageError

    if data[4:8] == b"ftyp" and data[8:12] in _HEIF_BRANDS:
        _register_heif()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PILImage.DecompressionBombWarning)
            image = PILImage.open(io.BytesIO(data))
    except PILImage.DecompressionBombError:
        raise CorruptFileError(
            "image too large to read safely (a possible decompression bomb)",
            hint="raise parse.limits.max_image_pixels if the image is genuine",
        ) from None
    except UnidentifiedImageError:
        raise UnsupportedFormatError("an image in a format that cannot be decoded") from None
    width, height = image.size
    if width <= 0 or height <= 0:
        raise CorruptFileError("cannot be read: the image has no pixels")
    if width * height > max_pixels:
        raise CorruptFileError(
            f"image too large: {width}×{height} pixels is more than the limit of "
            f"{max_pixels:,} (a possible decompression bomb)",
            hint="raise parse.limits.max_image_pixels if the image is genuine",
        )
    return image


def _register_heif() -> None:
    try:
        import pillow_heif  # type: ignore[import-not-found]
    except ImportError:
        raise UnsupportedFormatError(
            "a HEIC/HEIF photo: its decoder is an optional extra",
            hint="install it with `pip install 'polyrag[heic]'` (pillow-heif, LGPL libheif)",
        ) from None
    pillow_heif.register_heif_opener()


def _grayscale(image: Image.Image) -> Image.Image:
    """The image as 8-bit gray on white (transparent parts become white, not black)."""
    from PIL import Image as PILImage

    if image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        background = PILImage.new("RGBA", rgba.size, (255, 255, 255, 255))
        background.alpha_composite(rgba)
        return background.convert("L")
    if image.mode in ("I;16", "I;16B", "I;16L", "I;16N", "I", "F"):  # deep scans: stretch to 8 bits
        wide = image.convert("F") if image.mode != "F" else image
        extrema = wide.getextrema()  # (min, max) for a one-band image
        low, high = float(extrema[0]), float(extrema[1])  # type: ignore[arg-type]
        scale = 255 / (high - low) if high > low else 1.0
        return wide.point(lambda value: (value - low) * scale).convert("L")
    return image.convert("L")


def _scale(side: int, dpi: int | None, max_side: int) -> float:
    """How much to resize before OCR: giant images down, low-resolution ones up (2×).

    Tesseract wants letters some 20 pixels high. A page image of under 1,200 pixels (a 72-dpi
    render, a screenshot) read at twice its size went from 42% to 87% of words right
    (DocLayNet's TIFF) and from 78 to 90 mean confidence (a paper's JPEG); it costs about
    1.7× the time, which is why only small or low-dpi images get it.
    """
    if side > max_side:
        return max_side / side
    small = dpi < _LOW_DPI if dpi is not None else side < _SMALL_SIDE
    return min(2.0, max_side / side) if small and side > 0 else 1.0


def _image_dpi(image: Image.Image) -> int | None:
    dpi = image.info.get("dpi")
    try:
        value = round(float(dpi[0])) if dpi else 0
    except (TypeError, ValueError, IndexError):
        return None
    return value if 70 <= value <= 1200 else None


def _parse_tsv(tsv: str) -> list[_Word]:
    words: list[_Word] = []
    for line in tsv.splitlines()[1:]:
        fields = line.split("\t")
        if len(fields) != 12 or fields[0] != "5":
            continue
        text = fields[11].strip()
        if not text:
            continue
        try:
            block, paragraph, row = int(fields[2]), int(fields[3]), int(fields[4])
            left, top, width, height = (int(value) for value in fields[6:10])
            confidence = float(fields[10])
        except ValueError:
            continue
        box = (left, top, left + width, top + height)
        words.append(_Word(text, confidence, box, (block, paragraph, row)))
    return words


def _mean_confidence(words: list[_Word]) -> float:
    """Mean word confidence, weighted by length (one garbled long word counts for more)."""
    total = sum(len(word.text) for word in words)
    return sum(word.confidence * len(word.text) for word in words) / total if total else 0.0


def _letters(words: list[_Word]) -> int:
    return sum(sum(char.isalnum() for char in word.text) for word in words)


def _unflip(word: _Word, width: int, height: int) -> _Word:
    left, top, right, bottom = word.box
    return _Word(
        word.text, word.confidence, (width - right, height - bottom, width - left, height - top),
        word.key,
    )  # fmt: skip


def _scaled(word: _Word, factor: float) -> _Word:
    box = (
        round(word.box[0] * factor),
        round(word.box[1] * factor),
        round(word.box[2] * factor),
        round(word.box[3] * factor),
    )
    return _Word(word.text, word.confidence, box, word.key)


def _rotation(words: list[_Word], flipped: bool) -> int:
    """How the text runs across the image, voted by lines: 0, 90, 180 or 270 degrees."""
    if flipped:
        return 180
    lines: dict[tuple[int, int, int], list[_Word]] = defaultdict(list)
    for word in words:
        lines[word.key].append(word)
    votes: dict[int, int] = defaultdict(int)
    for line in lines.values():
        if len(line) < 2:
            continue
        first, last = line[0].box, line[-1].box
        dx = (last[0] + last[2]) - (first[0] + first[2])
        dy = (last[1] + last[3]) - (first[1] + first[3])
        if abs(dx) >= abs(dy):  # noqa: SIM108 - four directions read best as two choices
            angle = 0 if dx >= 0 else 180
        else:
            angle = 90 if dy > 0 else 270
        votes[angle] += sum(len(word.text) for word in line)
    return max(votes, key=lambda angle: votes[angle]) if votes else 0


def _regions(words: list[_Word]) -> list[TextRegion]:
    """Words grouped into paragraphs (lines kept), noise dropped, in tesseract's reading order."""
    paragraphs: dict[tuple[int, int], dict[int, list[_Word]]] = {}
    for word in words:
        block, paragraph, row = word.key
        paragraphs.setdefault((block, paragraph), {}).setdefault(row, []).append(word)
    regions: list[TextRegion] = []
    for rows in paragraphs.values():
        members = [word for row in rows.values() for word in row]
        confidence = _mean_confidence(members)
        text = "\n".join(" ".join(word.text for word in row) for row in rows.values())
        if confidence < _MIN_REGION_CONFIDENCE or not _has_content(text):
            continue
        box = (
            min(word.box[0] for word in members),
            min(word.box[1] for word in members),
            max(word.box[2] for word in members),
            max(word.box[3] for word in members),
        )
        regions.append(TextRegion(text, box, round(confidence, 1)))
    return regions


def _has_content(text: str) -> bool:
    """At least two letters or digits in a row somewhere: not a lone stroke read as 'I'."""
    run = 0
    for char in text:
        run = run + 1 if char.isalnum() else 0
        if run >= 2:
            return True
    return False


def _first_line(text: str) -> str:
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith(("Estimating resolution", "Warning", "OSD:")):
            return line[:160]
    return ""
