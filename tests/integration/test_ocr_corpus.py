"""Every image and scanned PDF in the corpus parses or fails with a one-line reason, in time.

Also measures the OCR throughput of the scanned PDFs (printed with -s).
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from polyrag.errors import ParseError
from polyrag.parse.router import ParserRouter
from polyrag.types import BlockKind

CORPUS = Path(__file__).parents[3] / "shared" / "eval" / "corpus"
pytestmark = [
    pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared eval corpus is absent"),
    pytest.mark.skipif(shutil.which("tesseract") is None, reason="tesseract is not installed"),
    pytest.mark.slow,  # about a minute of OCR on two cores
]
SECONDS_PER_FILE = 60  # the slowest file (a dense 300 dpi page, twice) takes under 10 s alone

# Files that cannot give text, and the reason they must give.
EXPECTED_FAILURES = {
    "image/unstructured__DA-1p.heic": "HEIC",  # its decoder is the opt-in heic extra
    "pdf_scanned/sample-files__imagemagick-CCITTFaxDecode.pdf": "no text found",  # 16×16 pixels
}


def files(folder: str) -> list[str]:
    return sorted(
        f"{folder}/{path.name}"
        for path in (CORPUS / folder).iterdir()
        if path.suffix.lower() not in (".txt",)
    )


@pytest.fixture(scope="module")
def router() -> ParserRouter:
    return ParserRouter()


@pytest.mark.parametrize("relative", files("image") + files("pdf_scanned"))
def test_file_parses_or_fails_with_a_reason(router: ParserRouter, relative: str) -> None:
    data = (CORPUS / relative).read_bytes()
    started = time.perf_counter()
    try:
        document = router.parse(data, Path(relative).name)
    except ParseError as error:
        reason = error.one_line()
        assert "\n" not in reason and len(reason) < 300
        assert relative in EXPECTED_FAILURES, f"{relative}: {reason}"
        assert EXPECTED_FAILURES[relative] in reason
    else:
        assert relative not in EXPECTED_FAILURES
        assert any(block.text.strip() for block in document.blocks)
        kinds = {block.kind for block in document.blocks}
        assert kinds & {BlockKind.TEXT, BlockKind.PICTURE}
    assert time.perf_counter() - started < SECONDS_PER_FILE


def test_scanned_pdf_throughput(router: ParserRouter) -> None:
    pages = 0
    started = time.perf_counter()
    for relative in files("pdf_scanned"):
        try:
            pages += router.parse((CORPUS / relative).read_bytes(), Path(relative).name).pages
        except ParseError:
            pages += 1
    elapsed = time.perf_counter() - started
    print(f"\nscanned PDFs: {pages} pages in {elapsed:.1f} s = {pages / elapsed:.2f} pages/s")
    assert pages / elapsed > 0.1  # about 0.5 pages/s on two shared cores
