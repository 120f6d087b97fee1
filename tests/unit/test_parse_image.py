"""Images and OCR with the real tesseract on the tesseract project's own test images."""

from __future__ import annotations

import difflib
import importlib.util
import io
import shutil
import struct
import time
import zlib
from pathlib import Path

import pytest
from PIL import Image

from polyrag.errors import (
    CorruptFileError,
    MissingDependencyError,
    UnsupportedFormatError,
)
from polyrag.parse.image import ImageParser
from polyrag.parse.ocr import Ocr
from polyrag.parse.router import ParserRouter
from polyrag.settings import OcrSettings
from polyrag.types import BlockKind

CORPUS = Path(__file__).parents[3] / "shared" / "eval" / "corpus"
IMAGES = CORPUS / "image"
pytestmark = [
    pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared eval corpus is absent"),
    pytest.mark.skipif(shutil.which("tesseract") is None, reason="tesseract is not installed"),
]


def similarity(a: str, b: str) -> float:
    """Character similarity of whitespace-normalised texts (difflib ratio, 1.0 = identical)."""
    return difflib.SequenceMatcher(None, " ".join(a.split()), " ".join(b.split()), False).ratio()


def gold(name: str) -> str:
    return (IMAGES / name).read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("image", "truth", "languages", "at_least"),
    [
        ("test__phototest.tif", "test__phototest.gold.txt", "eng", 0.99),
        ("test__phototest-rotated-180.png", "test__phototest.gold.txt", "eng", 0.99),
        ("test__eurotext.tif", "test__eurotext.txt", "eng+deu+fra", 0.97),  # measured 0.985
        ("test__8071_093.3B.tif", "test__8071_093.3B.txt", "eng", 0.93),  # measured 0.951
    ],
)
def test_ocr_matches_ground_truth(image: str, truth: str, languages: str, at_least: float) -> None:
    ocr = Ocr(OcrSettings(languages=languages))
    text = ocr.image_text((IMAGES / image).read_bytes())
    assert similarity(text, gold(truth)) >= at_least


def test_upside_down_scan_is_read_upright_and_says_so() -> None:
    image = Image.open(IMAGES / "test__phototest-rotated-180.png")
    result = Ocr().read(image)
    assert result.rotation == 180
    assert result.text.startswith("This is a lot of 12 point text")
    assert (result.width, result.height) == image.size


def test_quarter_turned_image_is_read() -> None:
    image = Image.open(IMAGES / "test__phototest.tif").rotate(90, expand=True)
    result = Ocr().read(image)
    assert result.rotation in (90, 270)
    assert similarity(result.text, gold("test__phototest.gold.txt")) >= 0.99


def test_regions_carry_pixel_boxes_inside_the_image() -> None:
    document = ImageParser().parse((IMAGES / "test__phototest.tif").read_bytes(), name="p.tif")
    assert document.media_type == "image" and document.pages == 1
    text_blocks = [b for b in document.blocks if b.kind == BlockKind.TEXT]
    assert len(text_blocks) >= 2  # the two paragraphs
    for block in text_blocks:
        assert block.locator.page is None  # one picture, no pages
        x0, y0, x1, y1 = block.locator.bbox or (0, 0, 0, 0)
        assert 0 <= x0 < x1 <= 640 and 0 <= y0 < y1 <= 480
    first, second = text_blocks[0].locator.bbox, text_blocks[1].locator.bbox
    assert first is not None and second is not None and first[1] < second[1]  # reading order


@pytest.mark.slow  # about 10 s: two dense pages
def test_multi_page_tiff_gives_one_page_per_frame() -> None:
    document = ParserRouter().parse(
        (IMAGES / "docling__2206.01062.tif").read_bytes(), "2206.01062.tif"
    )
    assert document.pages == 2
    assert [b.kind for b in document.blocks].count(BlockKind.BREAK) == 1
    assert {b.locator.page for b in document.blocks} == {1, 2}
    first_page = " ".join(b.text for b in document.blocks if b.locator.page == 1)
    assert "DocLayNet" in first_page
    # A 72-dpi page image: read at twice its size, most words are right (measured 0.87; at
    # its own size 0.42).
    truth = (CORPUS / "_groundtruth/docling__2206.01062.tif.groundtruth.md").read_text()
    known = {word.strip(".,;:()[]*#|").lower() for word in truth.split()}
    words = [word.strip(".,;:()[]*#|").lower() for word in first_page.split()]
    assert sum(word in known for word in words) >= 0.8 * len(words)


def test_photo_without_text_becomes_a_picture_block_with_exif_facts() -> None:
    document = ParserRouter().parse((IMAGES / "unstructured__example.jpg").read_bytes(), "e.jpg")
    (block,) = document.blocks
    assert block.kind == BlockKind.PICTURE
    assert block.text.startswith("e.jpg: 480×360 pixels, JPEG image, no readable text")
    assert "taken 2003-12-14 12:01:44" in block.text
    assert "camera Canon PowerShot S40" in block.text  # the model already names the make


def test_exif_camera_and_gps_are_described() -> None:
    image = Image.new("RGB", (64, 48), "white")
    exif = Image.Exif()
    exif[271], exif[272], exif[306] = "Canon", "EOS 5D", "2021:06:01 08:30:00"
    exif[0x8825] = {1: "N", 2: (47.0, 22.0, 12.0), 3: "W", 4: (8.0, 30.0, 0.0)}
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", exif=exif)
    (block,) = ImageParser().parse(buffer.getvalue(), name="holiday.jpg").blocks
    assert "camera Canon EOS 5D" in block.text
    assert "taken 2021-06-01 08:30:00" in block.text
    assert "GPS 47.37000, -8.50000" in block.text


@pytest.mark.parametrize("fmt", ["PNG", "BMP", "WEBP", "GIF", "JPEG"])
def test_common_formats_are_read(fmt: str) -> None:
    source = Image.open(IMAGES / "test__phototest.tif").convert("RGB")
    buffer = io.BytesIO()
    source.save(buffer, format=fmt, **({"quality": 95} if fmt in ("JPEG", "WEBP") else {}))
    document = ParserRouter().parse(buffer.getvalue(), f"phototest.{fmt.lower()}")
    text = " ".join(b.text for b in document.blocks if b.kind == BlockKind.TEXT)
    assert similarity(text, gold("test__phototest.gold.txt")) >= 0.97


@pytest.mark.skipif(
    importlib.util.find_spec("pillow_heif") is not None, reason="the heic extra is installed"
)
def test_heic_names_the_optional_extra() -> None:
    with pytest.raises(UnsupportedFormatError, match="HEIC") as caught:
        ParserRouter().parse((IMAGES / "unstructured__DA-1p.heic").read_bytes(), "DA-1p.heic")
    assert "polyrag[heic]" in caught.value.hint


def _png_header(width: int, height: int) -> bytes:
    """A PNG whose header claims `width`×`height` pixels, with almost no pixel data."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    pixels = zlib.compress(b"\x00" * 1024)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def test_decompression_bomb_is_refused_before_decoding() -> None:
    started = time.perf_counter()
    with pytest.raises(CorruptFileError, match="too large"):
        ParserRouter().parse(_png_header(60_000, 60_000), "bomb.png")  # 3.6 G pixels
    assert time.perf_counter() - started < 2


def test_pixel_limit_comes_from_settings() -> None:
    parser = ImageParser(max_image_pixels=100_000)
    with pytest.raises(CorruptFileError, match=r"640×480 pixels is more than the limit of 100,000"):
        parser.parse((IMAGES / "test__phototest.tif").read_bytes(), name="p.tif")


def test_truncated_image_is_corrupt() -> None:
    data = (IMAGES / "unstructured__DA-1p.png").read_bytes()[:5000]
    with pytest.raises(CorruptFileError, match="cannot be read"):
        ParserRouter().parse(data, "cut.png")


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"not an image at all",
        _png_header(60_000, 60_000),
        b"\x89PNG\r\n\x1a\n" + b"\x00" * 64,
        b"\xff\xd8\xff\xe0" + b"\x00" * 100,
    ],
)
def test_image_text_never_raises_on_bad_bytes(data: bytes) -> None:
    assert Ocr().image_text(data) == ""


def test_image_text_of_a_good_image() -> None:
    text = Ocr().image_text((IMAGES / "test__phototest.tif").read_bytes())
    assert "quick brown dog" in text


def test_missing_tesseract_is_an_install_hint() -> None:
    ocr = Ocr(binary="tesseract-that-is-not-installed")
    with pytest.raises(MissingDependencyError, match="tesseract") as caught:
        ocr.image_text((IMAGES / "test__phototest.tif").read_bytes())
    assert "apt-get install tesseract-ocr" in caught.value.hint


def test_missing_language_pack_is_an_install_hint() -> None:
    ocr = Ocr(OcrSettings(languages="eng+chi_sim_vert"))
    with pytest.raises(MissingDependencyError, match="chi_sim_vert") as caught:
        ocr.check()
    assert "tesseract-ocr-chi-sim-vert" in caught.value.hint


def test_ocr_off_keeps_the_image_as_a_picture() -> None:
    parser = ImageParser(Ocr(OcrSettings(enabled=False)))
    (block,) = parser.parse((IMAGES / "test__phototest.tif").read_bytes(), name="p.tif").blocks
    assert block.kind == BlockKind.PICTURE and "640×480 pixels, TIFF image" in block.text


def test_ocr_off_does_not_need_tesseract() -> None:
    ocr = Ocr(OcrSettings(enabled=False), binary="tesseract-that-is-not-installed")
    assert ocr.image_text((IMAGES / "test__phototest.tif").read_bytes()) == ""
    document = ImageParser(ocr).parse((IMAGES / "test__phototest.tif").read_bytes(), name="p")
    assert document.blocks[0].kind == BlockKind.PICTURE


def _variants() -> dict[str, Image.Image]:
    gray = Image.open(IMAGES / "test__phototest.tif").convert("L")
    ink = Image.eval(gray, lambda value: 255 - value)
    return {
        "16-bit": gray.convert("I").point(lambda value: value * 257),
        "float": gray.convert("F"),
        "CMYK": gray.convert("CMYK"),
        "black ink on transparency": Image.merge("LA", (Image.new("L", gray.size, 0), ink)),
        "1-bit": gray.convert("1"),
    }


@pytest.mark.parametrize("variant", list(_variants()))
def test_unusual_pixel_formats_are_read(variant: str) -> None:
    image = _variants()[variant]
    buffer = io.BytesIO()
    image.save(buffer, format="TIFF" if variant in ("16-bit", "float", "CMYK") else "PNG")
    assert "quick brown dog" in Ocr().image_text(buffer.getvalue())


def test_ocr_time_limit_is_a_warning_and_the_picture_is_kept() -> None:
    parser = ImageParser(Ocr(OcrSettings(timeout_s=0.05)))
    document = parser.parse((IMAGES / "test__8071_093.3B.tif").read_bytes(), name="page.tif")
    (block,) = document.blocks
    assert block.kind == BlockKind.PICTURE and "3312×2550 pixels, TIFF image" in block.text
    (warning,) = document.warnings
    assert "OCR took longer than 0.05 s" in warning


def test_an_oversized_page_of_a_tiff_is_skipped_with_a_warning() -> None:
    small = Image.open(IMAGES / "test__phototest.tif").convert("L")
    big = Image.new("L", (3000, 3000), 255)
    buffer = io.BytesIO()
    small.save(buffer, format="TIFF", save_all=True, append_images=[big, small])
    document = ImageParser(max_image_pixels=5_000_000).parse(buffer.getvalue(), name="s.tif")
    assert document.pages == 3
    assert {b.locator.page for b in document.blocks if b.text} == {1, 3}
    assert document.warnings == ("page 2 could not be read: 3000×3000 pixels is over the limit",)
