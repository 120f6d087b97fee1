"""EPUB e-books built here: chapters in spine order, named by the table of contents."""

from __future__ import annotations

import io
import zipfile

import pytest

from polyrag.errors import EncryptedFileError
from polyrag.parse.epub import EpubParser
from polyrag.parse.router import ParserRouter
from polyrag.parse.sniff import sniff
from polyrag.types import BlockKind

CONTAINER = """<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf"
    media-type="application/oebps-package+xml"/></rootfiles>
</container>"""
PACKAGE = """<?xml version="1.0"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Sea Stories</dc:title>
  </metadata>
  <manifest>
    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
    <item id="c1" href="text/chapter%201.xhtml" media-type="application/xhtml+xml"/>
    <item id="c2" href="text/ch2.xhtml" media-type="application/xhtml+xml"/>
    <item id="css" href="style.css" media-type="text/css"/>
  </manifest>
  <spine><itemref idref="c2"/><itemref idref="c1"/><itemref idref="css"/></spine>
</package>"""
NAV = """<?xml version="1.0"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">
<body><nav epub:type="toc"><ol>
  <li><a href="text/ch2.xhtml">The Harbour</a></li>
  <li><a href="text/chapter%201.xhtml#start">Chapter One: The Storm</a></li>
</ol></nav></body></html>"""
CHAPTER_ONE = """<?xml version="1.0"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Sea Stories</title></head>
<body><h1>Chapter One: The Storm</h1><p>The wind rose at noon.</p>
<h2>Aftermath</h2><p>Three boats were lost.</p></body></html>"""
CHAPTER_TWO = """<?xml version="1.0"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Sea Stories</title></head>
<body><p>The harbour held forty boats.</p><h1>Moorings</h1><p>Each cost 12 shillings.</p>
</body></html>"""


def make_epub(extra: dict[str, str] | None = None) -> bytes:
    files = {
        "META-INF/container.xml": CONTAINER,
        "OEBPS/content.opf": PACKAGE,
        "OEBPS/nav.xhtml": NAV,
        "OEBPS/text/chapter 1.xhtml": CHAPTER_ONE,
        "OEBPS/text/ch2.xhtml": CHAPTER_TWO,
        "OEBPS/style.css": "p { margin: 0 }",
        **(extra or {}),
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        for name, text in files.items():
            archive.writestr(name, text, compress_type=zipfile.ZIP_DEFLATED)
    return buffer.getvalue()


def test_chapters_follow_the_spine_under_their_table_of_contents_titles() -> None:
    data = make_epub()
    assert sniff(data, "book.epub") == "epub"
    document = ParserRouter().parse(data, "book.epub")
    assert (document.media_type, document.title, document.pages) == ("epub", "Sea Stories", 2)
    pairs = [(b.kind, b.text, b.level) for b in document.blocks]
    assert pairs == [
        (BlockKind.BREAK, "", 0),
        (BlockKind.HEADING, "The Harbour", 1),  # from the nav; the <title> is the book's
        (BlockKind.TEXT, "The harbour held forty boats.", 0),
        (BlockKind.HEADING, "Moorings", 2),  # its own h1, one level under the chapter
        (BlockKind.TEXT, "Each cost 12 shillings.", 0),
        (BlockKind.BREAK, "", 0),
        (BlockKind.HEADING, "Chapter One: The Storm", 1),
        (BlockKind.TEXT, "The wind rose at noon.", 0),
        (BlockKind.HEADING, "Aftermath", 2),
        (BlockKind.TEXT, "Three boats were lost.", 0),
    ]


def test_drm_protected_chapters_are_refused() -> None:
    encryption = """<?xml version="1.0"?>
<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container"
  xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:CipherData>
  <enc:CipherReference URI="OEBPS/text/ch2.xhtml"/></enc:CipherData></enc:EncryptedData>
</encryption>"""
    data = make_epub({"META-INF/encryption.xml": encryption})
    with pytest.raises(EncryptedFileError, match="DRM"):
        EpubParser().parse(data, name="drm.epub")
