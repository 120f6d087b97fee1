"""The whole shared corpus, ingested as a new user would: `polyrag ingest corpus/`.

Every file is indexed or fails with one line naming the reason; the files a user would expect
to work are indexed (at least 95% of them); and questions whose answers live only in a scan, an
image, a table, an e-mail or a recording are answered with a citation of that exact place.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import polyrag
from polyrag.engine import Engine

from ..conftest import CORPUS

pytestmark = pytest.mark.slow

# Files that cannot work as given, with the word their one-line reason must contain. Every other
# file is one a user would expect to be indexed.
REFUSED = {
    "audio/docling__silent_1s.wav": "no speech",
    "audio/unstructured__CantinaBand3.wav": "no speech",  # music only
    "docx/python-docx__sty-having-no-styles-part.docx": "no text",  # an empty document
    "docx/python-docx__tbl-having-tables.docx": "no text",  # tables with empty cells only
    "docx/tika__testWORD_protected_passtika.docx": "encrypted",
    "pptx/tika__testPPT_protected_passtika.pptx": "encrypted",
    "pdf_scanned/sample-files__imagemagick-CCITTFaxDecode.pdf": "blank",  # a 16x16 px fax
    "image/unstructured__DA-1p.heic": "HEIC",  # its decoder (libheif) is LGPL: an opt-in extra
    "malformed/derived__tracemonkey-truncated-300KB.pdf": "damaged",
    "malformed/derived__xlsx-truncated-20KB.xlsx": "truncated",
    "malformed/tika__droste.zip": "quine",
    "malformed/tika__quine.gz": "gzip",
    "malformed/tika__testMP3truncated.mp3": "truncated",
    "malformed/tika__testWORD_truncated.docx": "truncated",
    "malformed/tika__testZIP_corrupted_oom.zip": "damaged",
    "malformed/tika__testZipEncrypted.zip": "encrypted",
    "malformed/unstructured__empty.eml": "whitespace",
    "malformed/unstructured__empty.txt": "empty",
    "malformed/unstructured__fake-text-all-whitespace.txt": "whitespace",
    "pdf_encrypted/docling__2206.01062_pg3.pdf": "encrypted",
    "pdf_encrypted/pdfjs__empty_protected.pdf": "blank",
    "pdf_encrypted/pdfplumber__password-example.pdf": "encrypted",
    "pdf_encrypted/sample-files__libreoffice-writer-password.pdf": "encrypted",
    "pdf_encrypted/tika__testUnicodePassword.pdf": "encrypted",
    "pdf_encrypted/unstructured__password.pdf": "encrypted",
    "pdf_malformed/pdfplumber__empty.pdf": "empty",
    "pdf_malformed/tika__testPDF_malformedXFA.pdf": "blank",
    "xlsx/unstructured__empty.xlsx": "no text",
    "xlsx/unstructured__password_protected.xlsx": "encrypted",
}


# Answer keys beside their documents (expected Markdown, exact OCR text): removed before asking,
# so that an answer has to come from the scan, image or recording itself.
def is_answer_key(path: str) -> bool:
    return path.startswith("_groundtruth/") or (
        path.endswith((".txt", "files.csv")) and (path.startswith("image/") or "/" not in path)
    )


QUESTIONS: list[dict[str, Any]] = [
    {
        "id": "scan",
        "question": "Docling bundles PDF document conversion to which formats?",
        "answer_any": ["JSON", "Markdown"],
        "sources": ["docling__ocr_test", "docling__webp-test.webp", "docling__2206.01062.tif"],
        "place": "page_or_image",
    },
    {
        "id": "image",
        "question": "How many points is the text that tests the OCR code?",
        "answer_any": ["12"],
        "sources": ["test__phototest"],
        "place": "image",
    },
    {
        "id": "table",
        "question": "In the table on the slide, which colour is in Column 2 of the row that starts "
        "with Purple?",
        "answer_any": ["Orange"],
        "sources": ["unstructured__fake-power-point-table.pptx"],
        "place": "slide",
    },
    {
        "id": "email",
        "question": "Who sent the test email whose important points are that roses are red and "
        "violets are blue?",
        "answer_any": ["Matthew Robinson"],
        "sources": ["unstructured__fake-email"],  # the corpus holds it as .eml, UTF-16 and .msg
        "place": "email",
    },
    {
        "id": "recording",
        "question": "What did the speaker tell his fellow Americans to ask?",
        "answer_any": ["do for your country", "do for their country", "do for the country"],
        "sources": ["whisper__jfk.flac"],
        "place": "time",
    },
]


def relative(path: str) -> str:
    return Path(path.split("#", 1)[0]).resolve().relative_to(CORPUS.resolve()).as_posix()


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("corpus-home")


@pytest.fixture(scope="module")
def report(home: Path) -> dict[str, Any]:
    command = [sys.executable, "-m", "polyrag.cli.app", "ingest", str(CORPUS), "--json"]
    done = subprocess.run(
        [*command, "--home", str(home)],
        capture_output=True,
        text=True,
        timeout=3600,
    )
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    assert done.returncode == 1, done.stderr[-3000:]  # some files are refused on purpose
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.fixture(scope="module")
def library(home: Path, report: dict[str, Any]) -> Iterator[Engine]:
    engine = polyrag.open(home)
    for entry in engine.sources():
        if "#" not in entry.path and is_answer_key(relative(entry.path)):
            engine.remove(entry.path)
    yield engine
    engine.close()


def top_level(items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The report's items for the files themselves (not attachments), by corpus-relative path."""
    return {relative(item["path"]): item for item in items if "#" not in item["path"]}


def test_every_file_is_indexed_or_refused_with_one_line(report: dict[str, Any]) -> None:
    given = {p.relative_to(CORPUS).as_posix() for p in CORPUS.rglob("*") if p.is_file()}
    indexed, failed = top_level(report["ingested"]), top_level(report["failed"])
    assert set(indexed) | set(failed) == given, sorted(given - set(indexed) - set(failed))
    assert not set(indexed) & set(failed)
    for item in report["failed"]:  # attachments too
        error = item["error"]
        assert error.strip() and "\n" not in error and "Traceback" not in error, item
    for path, reason in REFUSED.items():
        assert path in failed, f"{path} was expected to be refused ({reason})"
        assert reason.lower() in failed[path]["error"].lower(), (path, failed[path])


def test_files_a_user_expects_to_work_are_indexed(report: dict[str, Any]) -> None:
    expected = [
        p.relative_to(CORPUS).as_posix()
        for p in CORPUS.rglob("*")
        if p.is_file() and p.relative_to(CORPUS).as_posix() not in REFUSED
    ]
    failed = top_level(report["failed"])
    unexpected = {path: failed[path]["error"] for path in expected if path in failed}
    share = 1 - len(unexpected) / len(expected)
    print(f"indexed {share:.1%} of {len(expected)} files expected to work; failed: {unexpected}")
    assert share >= 0.95, unexpected


def test_attachments_are_child_sources_named_by_their_email(report: dict[str, Any]) -> None:
    children = [item["path"] for item in report["ingested"] if "#" in item["path"]]
    assert any(
        path.endswith("unstructured__fake-email-attachment.eml#fake-attachment.txt")
        for path in children
    ), children


@pytest.mark.parametrize("case", QUESTIONS, ids=[case["id"] for case in QUESTIONS])
def test_answers_from_scans_images_tables_emails_and_recordings(
    library: Engine, case: dict[str, Any]
) -> None:
    answer = library.ask(case["question"])
    assert not answer.refused, (case["id"], answer.text)
    assert any(a.lower() in answer.text.lower() for a in case["answer_any"]), answer.text
    right = [c for c in answer.citations if any(name in c.chunk.path for name in case["sources"])]
    cited = [(c.chunk.path, c.chunk.locator.to_dict()) for c in answer.citations]
    assert right, (answer.text, cited)
    locator = right[0].chunk.locator
    if case["place"] == "slide":
        assert locator.slide == 1, cited
    elif case["place"] == "time":
        assert locator.time_span is not None and locator.time_span[1] > 0, cited
        assert "0:" in locator.describe()
    elif case["place"] == "page_or_image":
        assert locator.page is not None or not right[0].chunk.path.endswith(".pdf"), cited
    elif case["place"] == "email":
        assert right[0].chunk.path.endswith((".eml", ".msg")), cited
