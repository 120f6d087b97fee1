"""Format detection from content, and decoding of text in unknown encodings."""

from __future__ import annotations

import codecs
import io
import zipfile
from pathlib import Path

import pytest

from polyrag.errors import (
    CorruptFileError,
    EmptyFileError,
    EncryptedFileError,
    UnsupportedFormatError,
)
from polyrag.parse.encoding import decode_text
from polyrag.parse.sniff import sniff

CORPUS = Path(__file__).parents[3] / "shared" / "eval" / "corpus"
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared eval corpus is absent")


def read(relative: str) -> bytes:
    return (CORPUS / relative).read_bytes()


@pytest.mark.parametrize(
    ("text", "name", "expected"),
    [
        ("<!DOCTYPE html><html><body><p>Hi</p></body></html>", "page.txt", "html"),
        ("<h1>Title</h1>\n<p>Body</p>", "note", "html"),
        ("a,b,c\n1,2,3\n4,5,6\n", "data.txt", "csv"),
        ("a;b;c\n1;2;3\n4;5;6\n", "data", "csv"),
        ("a|b|c\n1|2|3\n4|5|6\n", "data", "csv"),
        ("a\tb\tc\n1\t2\t3\n", "data.csv", "tsv"),
        ("# Title\n\nSome text with a [link](http://x.org).\n", "notes.txt", "markdown"),
        ("Item | Price\n---|---\nApple | 1\n", "t.txt", "markdown"),
        ("- one\n- two\n", "list.md", "markdown"),
        ("- one\n- two\n", "list.txt", "text"),
        ("Just a sentence, with a comma.\nAnd another line.\n", "x.md", "text"),
        ("```\ncode\n```\n", "x.txt", "markdown"),
    ],
)
def test_text_formats_are_told_from_content(text: str, name: str, expected: str) -> None:
    assert sniff(text.encode(), name) == expected


def test_ooxml_is_recognised_inside_the_zip_whatever_the_name() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("ppt/presentation.xml", "<p/>")
    assert sniff(buffer.getvalue(), "slides.docx") == "pptx"


def test_a_plain_zip_is_an_archive() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("notes.txt", "hello")
    assert sniff(buffer.getvalue(), "notes.zip") == "zip"


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 20, "image"),
        (b"\xff\xd8\xff\xe0" + b"\x00" * 20, "image"),
        (b"RIFF\x00\x00\x00\x00WEBPVP8 " + b"\x00" * 20, "image"),
        (b"RIFF\x00\x00\x00\x00WAVEfmt " + b"\x00" * 20, "audio"),
        (b"fLaC" + b"\x00" * 20, "audio"),
        (b"\x00\x00\x00\x18ftypM4A " + b"\x00" * 20, "audio"),
        (b"\x00\x00\x00\x18ftypisom" + b"\x00" * 20, "video"),
        (b"\x00\x00\x00\x18ftypheic" + b"\x00" * 20, "image"),
        (b"\x1a\x45\xdf\xa3" + b"\x00" * 20, "video"),
        (b"{\\rtf1\\ansi Hello}", "rtf"),
    ],
)
def test_media_formats_are_told_from_their_magic(data: bytes, expected: str) -> None:
    assert sniff(data, "file.bin") == expected


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"\x1f\x8b\x08\x00" + b"\x00" * 20, "gzip"),
        (b"\x00\x01\x02\x03\x04\x05garbage\x00\x00\x07" * 10, "binary content"),
    ],
)
def test_binary_formats_are_refused_with_a_reason(data: bytes, reason: str) -> None:
    with pytest.raises(UnsupportedFormatError, match=reason):
        sniff(data, "file.txt")


def test_empty_and_blank_files_are_refused() -> None:
    with pytest.raises(EmptyFileError, match="empty file"):
        sniff(b"", "a.txt")
    with pytest.raises(EmptyFileError, match="only whitespace"):
        sniff(b" \n\t \r\n", "a.txt")


@pytest.mark.parametrize(
    ("encoding", "bom"),
    [
        ("utf-8", codecs.BOM_UTF8),
        ("utf-16-le", codecs.BOM_UTF16_LE),
        ("utf-16-be", codecs.BOM_UTF16_BE),
        ("utf-32-le", codecs.BOM_UTF32_LE),
        ("utf-32-be", codecs.BOM_UTF32_BE),
    ],
)
def test_byte_order_marks_are_honoured(encoding: str, bom: bytes) -> None:
    text = "Grüße, 世界 😀"
    assert decode_text(bom + text.encode(encoding)) == text


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_wide_encodings_without_a_bom_are_recognised(encoding: str) -> None:
    text = "This is plain English text, long enough to show its zero bytes."
    assert decode_text(text.encode(encoding)) == text


def test_legacy_western_text_decodes_as_cp1252() -> None:
    text = "L'été était très chaud. Der Preis betrug 15,50 €. Die schöne Frau lächelte."
    assert decode_text(text.encode("cp1252")) == text


def test_utf8_mojibake_is_repaired() -> None:
    assert decode_text("1986–1990".encode().decode("latin-1").encode()) == "1986–1990"


@needs_corpus
@pytest.mark.parametrize(
    ("relative", "expected"),
    [
        ("malformed/derived__docx-tables-really-a-docx.pdf", "docx"),
        ("xlsx/docling__xlsx_02_sample_sales_data.xlsm", "xlsx"),
        ("csv/unstructured__stanley-cups-utf-16.csv", "csv"),
        ("csv/unstructured__stanley-cups-with-emoji.tsv", "tsv"),
        ("csv/unstructured__semicolon-delimited.csv", "csv"),
        ("csv/docling__csv-pipe.csv", "csv"),
        ("csv/unstructured__csv-with-long-lines.csv", "csv"),
        ("html/tika__testBrokenHTMLContainingRFC822.html", "html"),
        ("html/unstructured__example-10k-1p.html", "html"),
        ("html/unstructured__example-steelJIS-datasheet-utf-16.html", "html"),
        ("text_md/unstructured__simple-table.md", "markdown"),
        ("text_md/unstructured__codeblock.md", "markdown"),
        ("text_md/unstructured__norwich-city.txt", "text"),
        ("text_md/unstructured__fake-text-utf-32.txt", "text"),
        ("malformed/unstructured__fake-incomplete-json.txt", "text"),
        ("malformed/derived__example-jpg-named.txt", "image"),
        ("malformed/tika__droste.zip", "zip"),
        ("docx/docling__legacy_sample.doc", "doc"),
        ("pptx/unstructured__fake-power-point.ppt", "ppt"),
        ("xlsx/unstructured__tests-example.xls", "xls"),
        ("image/unstructured__DA-1p.heic", "image"),
        ("image/docling__webp-test.webp", "image"),
        ("image/unstructured__bmp_24.bmp", "image"),
        ("audio/whisper__jfk.flac", "audio"),
        ("audio/docling__sample_10s.mp3", "audio"),
        ("email/unstructured__fake-email.eml", "email"),
        ("email/unstructured__fake-email.msg", "msg"),
    ],
)
def test_corpus_files_are_sniffed(relative: str, expected: str) -> None:
    assert sniff(read(relative), Path(relative).name) == expected


@needs_corpus
@pytest.mark.parametrize(
    ("relative", "error", "reason"),
    [
        ("malformed/unstructured__empty.txt", EmptyFileError, "empty file"),
        ("malformed/unstructured__fake-text-all-whitespace.txt", EmptyFileError, "whitespace"),
        ("malformed/tika__quine.gz", UnsupportedFormatError, "gzip"),
        ("malformed/derived__xlsx-truncated-20KB.xlsx", CorruptFileError, "XLSX"),
        ("malformed/tika__testWORD_truncated.docx", CorruptFileError, "damaged"),
        ("docx/tika__testWORD_protected_passtika.docx", EncryptedFileError, "encrypted"),
        ("pptx/tika__testPPT_protected_passtika.pptx", EncryptedFileError, "encrypted"),
        ("xlsx/unstructured__password_protected.xlsx", EncryptedFileError, "encrypted"),
    ],
)
def test_corpus_files_are_refused_with_a_reason(
    relative: str, error: type[Exception], reason: str
) -> None:
    with pytest.raises(error, match=reason):
        sniff(read(relative), Path(relative).name)
