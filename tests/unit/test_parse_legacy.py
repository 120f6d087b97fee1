"""Legacy .doc/.ppt/.xls through LibreOffice headless; a clear refusal without it."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from polyrag.errors import CorruptFileError, UnsupportedFormatError
from polyrag.parse.legacy import LegacyOfficeParser
from polyrag.parse.router import ParserRouter
from polyrag.types import BlockKind

CORPUS = Path(__file__).parents[3] / "shared" / "eval" / "corpus"
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared eval corpus is absent")
needs_soffice = pytest.mark.skipif(
    shutil.which("soffice") is None, reason="LibreOffice is not installed (make system)"
)


@needs_corpus
@needs_soffice
@pytest.mark.parametrize(
    ("relative", "media_type", "expected"),
    [
        ("docx/unstructured__fake.doc", "doc", "Lorem ipsum dolor sit amet."),
        ("docx/docling__legacy_sample.doc", "doc", "Swimming in the lake"),
        ("pptx/unstructured__fake-power-point.ppt", "ppt", "Adding a Bullet Slide"),
        ("xlsx/unstructured__tests-example.xls", "xls", "Row 3: Column 1 is TF"),
    ],
)
def test_corpus_legacy_files_are_converted_and_parsed(
    relative: str, media_type: str, expected: str
) -> None:
    path = CORPUS / relative
    started = time.perf_counter()
    document = ParserRouter().parse(path.read_bytes(), path.name)
    assert time.perf_counter() - started < 60
    assert document.media_type == media_type
    assert any(expected in block.text for block in document.blocks)
    if media_type == "ppt":
        assert any(b.kind == BlockKind.HEADING and b.locator.slide == 1 for b in document.blocks)
    if media_type == "xls":
        assert any(b.kind == BlockKind.ROW and b.locator.sheet for b in document.blocks)


@needs_corpus
def test_without_libreoffice_the_refusal_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    data = (CORPUS / "docx" / "unstructured__fake.doc").read_bytes()
    with pytest.raises(UnsupportedFormatError, match="needs LibreOffice") as caught:
        LegacyOfficeParser().parse(data, name="fake.doc")
    assert "apt-get install libreoffice-writer-nogui" in caught.value.hint


@needs_corpus
def test_a_hung_converter_is_stopped_at_the_time_limit(tmp_path: Path) -> None:
    script = tmp_path / "soffice"
    script.write_text("#!/bin/sh\nsleep 30 &\nsleep 30\n")
    script.chmod(0o755)
    data = (CORPUS / "docx" / "unstructured__fake.doc").read_bytes()
    parser = LegacyOfficeParser(timeout_seconds=1, soffice=str(script))
    started = time.perf_counter()
    with pytest.raises(CorruptFileError, match="did not convert it within 1 s"):
        parser.parse(data, name="fake.doc")
    assert time.perf_counter() - started < 10


@needs_corpus
def test_a_converter_that_writes_nothing_is_a_clear_error(tmp_path: Path) -> None:
    script = tmp_path / "soffice"
    script.write_text("#!/bin/sh\necho 'Error: source file could not be loaded' >&2\n")
    script.chmod(0o755)
    data = (CORPUS / "docx" / "unstructured__fake.doc").read_bytes()
    with pytest.raises(CorruptFileError, match=r"could not convert it.*could not be loaded"):
        LegacyOfficeParser(soffice=str(script)).parse(data, name="fake.doc")
