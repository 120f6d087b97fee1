"""Tell a file's format from its content; the name only settles Markdown versus plain text."""

from __future__ import annotations

import io
import json
import re
import struct
import zipfile
from pathlib import PurePath

from polyrag.errors import (
    CorruptFileError,
    EmptyFileError,
    EncryptedFileError,
    UnsupportedFormatError,
)
from polyrag.parse.encoding import decode_text
from polyrag.parse.tables import detect_delimiter

MEDIA_TYPES = (
    "pdf", "docx", "pptx", "xlsx", "csv", "tsv", "html", "markdown", "text",
    "image", "audio", "video", "email", "msg", "zip", "epub", "odt", "ods", "odp", "rtf",
    "doc", "ppt", "xls", "json", "xml",
)  # fmt: skip

_OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\xff\xd8\xff", "image"),  # JPEG
    (b"\x89PNG\r\n\x1a\n", "image"),
    (b"GIF87a", "image"),
    (b"GIF89a", "image"),
    (b"II*\x00", "image"),  # TIFF
    (b"MM\x00*", "image"),
    (b"ID3", "audio"),  # MP3 with a tag
    (b"OggS", "audio"),  # Ogg Vorbis/Opus (Ogg video is rare)
    (b"fLaC", "audio"),
    (b"\x1a\x45\xdf\xa3", "video"),  # Matroska/WebM
    (b"{\\rtf", "rtf"),
)
_REFUSED: tuple[tuple[bytes, str], ...] = (
    (b"\x00\x00\x01\x00", "an icon image"),
    (b"\x1f\x8b", "a gzip archive; only ZIP archives are unpacked"),
    (b"BZh", "a bzip2 archive; only ZIP archives are unpacked"),
    (b"\xfd7zXZ\x00", "an xz archive; only ZIP archives are unpacked"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive; only ZIP archives are unpacked"),
    (b"Rar!\x1a\x07", "a RAR archive; only ZIP archives are unpacked"),
    (b"\x28\xb5\x2f\xfd", "a zstd archive; only ZIP archives are unpacked"),
    (b"\x7fELF", "a program (ELF executable)"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"%!PS", "a PostScript file"),
)
_RIFF_KINDS = {b"WAVE": "audio", b"AVI ": "video", b"WEBP": "image"}
_ISO_IMAGE_BRANDS = (
    b"heic",
    b"heix",
    b"hevc",
    b"hevx",
    b"heim",
    b"heis",
    b"avif",
    b"mif1",
    b"msf1",
)
_ISO_AUDIO_BRANDS = (b"M4A ", b"M4B ", b"M4P ", b"F4A ")
_MP3_SYNC = (b"\xff\xfb", b"\xff\xf3", b"\xff\xf2", b"\xff\xfa")
_OLE2_KINDS = (
    ("WordDocument", "doc"),
    ("PowerPoint Document", "ppt"),
    ("Workbook", "xls"),
    ("Book", "xls"),
    ("__substg1.0_", "msg"),
)
_OOXML_PARTS = (
    ("word/document.xml", "docx"),
    ("ppt/presentation.xml", "pptx"),
    ("xl/workbook.xml", "xlsx"),
)
_OOXML_CONTENT_TYPES = (
    ("wordprocessingml.document.main", "docx"),
    ("wordprocessingml.template.main", "docx"),
    ("ms-word.document.macroEnabled.main", "docx"),
    ("presentationml.presentation.main", "pptx"),
    ("presentationml.slideshow.main", "pptx"),
    ("ms-powerpoint.presentation.macroEnabled.main", "pptx"),
    ("spreadsheetml.sheet.main", "xlsx"),
    ("spreadsheetml.template.main", "xlsx"),
    ("ms-excel.sheet.macroEnabled.main", "xlsx"),
)
_OPENDOCUMENT_TYPES = (
    ("application/vnd.oasis.opendocument.text", "odt"),
    ("application/vnd.oasis.opendocument.spreadsheet", "ods"),
    ("application/vnd.oasis.opendocument.presentation", "odp"),
)
_MARKDOWN_EXTENSIONS = {".md", ".markdown", ".mdown", ".mkd", ".mdx", ".rmd", ".qmd"}

_HTML_START = re.compile(
    r"<(!doctype\s+html|html|head|body|meta|title|h[1-6]|p|div|table|ul|ol|span|section|"
    r"article|main|header|nav|a|br|hr|img|form|script|style|link|blockquote|pre|b|i|em|strong)"
    r"[\s>/]",
    re.IGNORECASE,
)
_HTML_ANYWHERE = re.compile(r"<(!doctype\s+html|html[\s>]|body[\s>])", re.IGNORECASE)
_LEADING_NOISE = re.compile(r"^(\s+|<\?xml[^>]*\?>|<!--.*?-->)+", re.DOTALL)
_FENCE_BLOCK = re.compile(r"^ {0,3}(```|~~~).*?^ {0,3}\1", re.DOTALL | re.MULTILINE)
_XML_ROOT = re.compile(r"<([A-Za-z_][\w.:-]*)[\s>/]")
_HEADER_LINE = re.compile(r"([A-Za-z][A-Za-z0-9-]{0,40}):[ \t]")
_EMAIL_HEADERS = {
    "from",
    "to",
    "subject",
    "received",
    "return-path",
    "message-id",
    "mime-version",
    "delivered-to",
    "reply-to",
    "cc",
    "in-reply-to",
}
_MD_STRONG = (
    re.compile(r"^ {0,3}#{1,6}[ \t]+\S", re.MULTILINE),  # ATX heading
    re.compile(r"^ {0,3}(```|~~~)", re.MULTILINE),  # code fence
    re.compile(r"\[[^\]\n]+\]\([^)\s]+\)"),  # inline link
    re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)+\|?\s*$", re.MULTILINE),  # table rule
    re.compile(r"^\S.*\n {0,3}(={3,}|-{3,})[ \t]*$", re.MULTILINE),  # setext heading
)
_MD_WEAK = (
    re.compile(r"^\s*([-*+]|\d+[.)])[ \t]+\S", re.MULTILINE),  # list item
    re.compile(r"(\*\*|__)\S[^\n]*?\S\1"),  # bold
    re.compile(r"`[^`\n]+`"),  # inline code
    re.compile(r"^ {0,3}>[ \t]?\S", re.MULTILINE),  # block quote
)


def sniff(data: bytes, name: str) -> str:
    """Return one of MEDIA_TYPES, or raise a ParseError subclass that says what the file is."""
    if not data:
        raise EmptyFileError("empty file")
    binary = _sniff_binary(data)
    if binary is not None:
        return binary
    text = decode_text(data)
    if not text.strip():
        raise EmptyFileError("contains only whitespace")
    return sniff_text(text, name)


def _sniff_binary(data: bytes) -> str | None:
    head = data[:1024]
    if data.startswith(b"%PDF-") or (b"%PDF-" in head and b"%%EOF" in data[-2048:]):
        return "pdf"  # the header may follow up to 1 KB of junk
    if data.startswith((b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")):
        return _sniff_zip(data)
    if data.startswith(_OLE2):
        return _sniff_ole2(data)
    for magic, media_type in _MAGIC:
        if data.startswith(magic):
            return media_type
    for magic, reason in _REFUSED:
        if data.startswith(magic):
            raise UnsupportedFormatError(reason)
    if data.startswith(b"RIFF") and data[8:12] in _RIFF_KINDS:
        return _RIFF_KINDS[data[8:12]]
    if data[4:8] == b"ftyp":
        brand = data[8:12]
        if brand in _ISO_IMAGE_BRANDS:
            return "image"
        return "audio" if brand in _ISO_AUDIO_BRANDS else "video"
    if data.startswith(_MP3_SYNC):
        return "audio"
    if data.startswith(b"BM") and len(data) > 14:
        (size,) = struct.unpack("<I", data[2:6])
        if size == len(data):
            return "image"
    if data.startswith(b"MZ") and b"\x00" in head:
        raise UnsupportedFormatError("a program (Windows executable)")
    return None


def _sniff_ole2(data: bytes) -> str:
    """OLE2 holds encrypted OOXML (an EncryptionInfo stream), legacy Office files and .msg."""
    if "EncryptionInfo".encode("utf-16-le") in data:
        raise EncryptedFileError("encrypted")
    for stream, media_type in _OLE2_KINDS:
        if stream.encode("utf-16-le") in data:
            return media_type
    raise UnsupportedFormatError("an OLE2 compound file (legacy Office format)")


def _sniff_zip(data: bytes) -> str:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        names = set(archive.namelist())
    except (zipfile.BadZipFile, ValueError, OSError, EOFError):
        return _sniff_damaged_zip(data)
    for part, media_type in _OOXML_PARTS:
        if part in names:
            return media_type
    if "[Content_Types].xml" in names:
        info = archive.getinfo("[Content_Types].xml")
        if info.file_size < 1_000_000:
            try:
                types = archive.read(info).decode("utf-8", errors="replace")
            except (zipfile.BadZipFile, ValueError, OSError, EOFError, RuntimeError) as exc:
                raise CorruptFileError(f"a damaged Office file ({exc})") from None
            for marker, media_type in _OOXML_CONTENT_TYPES:
                if marker in types:
                    return media_type
    if "mimetype" in names:
        mimetype = archive.read("mimetype")[:100].decode("ascii", errors="replace").strip()
        for marker, media_type in _OPENDOCUMENT_TYPES:
            if mimetype.startswith(marker):
                return media_type
        if "epub" in mimetype:
            return "epub"
    if any(info.flag_bits & 0x1 for info in archive.infolist()):
        raise EncryptedFileError("an encrypted ZIP archive")
    return "zip"


def _sniff_damaged_zip(data: bytes) -> str:
    """A ZIP without its central directory (truncated): name the Office format if we can."""
    names: set[str] = set()
    for match in re.finditer(rb"PK\x03\x04", data):
        start = match.start()
        if start + 30 > len(data):
            break
        (length,) = struct.unpack("<H", data[start + 26 : start + 28])
        names.add(data[start + 30 : start + 30 + length].decode("utf-8", errors="replace"))
    for part, media_type in _OOXML_PARTS:
        if part in names:
            label = media_type.upper()
            raise CorruptFileError(
                f"a truncated or damaged {label} file (its ZIP index is missing)"
            )
    if "[Content_Types].xml" in names:
        raise CorruptFileError("a truncated or damaged Office file (its ZIP index is missing)")
    raise CorruptFileError("a truncated or damaged ZIP archive")


def sniff_text(text: str, name: str) -> str:
    """Classify decoded text: email, json, html, xml, csv, tsv, markdown or text."""
    head = text[:8192]
    if _looks_like_email(head):
        return "email"
    if _looks_like_json(text):
        return "json"
    if _looks_like_html(head):
        return "html"
    if _looks_like_xml(text):
        return "xml"
    markdown_score = _markdown_score(head)
    if markdown_score < 3:
        delimiter = detect_delimiter(text[:65536])
        if delimiter is not None:
            return "tsv" if delimiter == "\t" else "csv"
    if markdown_score >= 2:
        return "markdown"
    if markdown_score == 1 and PurePath(name).suffix.lower() in _MARKDOWN_EXTENSIONS:
        return "markdown"
    return "text"


def _looks_like_html(head: str) -> bool:
    start = _LEADING_NOISE.sub("", head, count=1)
    if start[:4].lower() == "<svg" or (start.startswith("<?xml") and "<svg" in start[:2000]):
        raise UnsupportedFormatError("an SVG image (vector drawing); only raster images are read")
    if _HTML_START.match(start):
        return True
    if start.startswith("<") and re.search(r"<html[\s>]", start[:4000], re.IGNORECASE):
        return True  # XHTML behind an XML prolog or DOCTYPE
    outside_code = _FENCE_BLOCK.sub("", head)
    return bool(_HTML_ANYWHERE.search(outside_code)) and outside_code.count("</") >= 3


def _looks_like_json(text: str) -> bool:
    """A whole JSON object or array, or JSON Lines (one object or array per line)."""
    start = text.lstrip("\ufeff \t\r\n")
    if not start.startswith(("{", "[")):
        return False
    try:
        return isinstance(json.loads(start), dict | list)
    except (ValueError, RecursionError):
        pass
    lines = [line for line in start[:65536].splitlines()[:20] if line.strip()]
    if len(lines) < 2:
        return False
    try:
        return all(isinstance(json.loads(line), dict | list) for line in lines[:-1])
    except (ValueError, RecursionError):
        return False


def _looks_like_xml(text: str) -> bool:
    """An XML declaration, or one root element that closes at the end of the text."""
    if text.lstrip("\ufeff \t\r\n").startswith("<?xml"):
        return True
    start = _LEADING_NOISE.sub("", text[:8192], count=1)
    start = re.sub(r"^<!DOCTYPE[^>\[]*(\[.*?\])?\s*>\s*", "", start, count=1, flags=re.DOTALL)
    root = _XML_ROOT.match(start)
    if root is None:
        return False
    end = text.rstrip()
    return end.endswith(f"</{root.group(1)}>") or (end == start.rstrip() and end.endswith("/>"))


def _looks_like_email(head: str) -> bool:
    """RFC 822 headers up to the first blank line (an mbox "From " line may come first)."""
    lines = head.lstrip("\r\n").splitlines()[:40]
    if lines and lines[0].startswith("From "):
        lines = lines[1:]
    names: set[str] = set()
    for line in lines:
        if not line.strip():
            break
        match = _HEADER_LINE.match(line)
        if match:
            names.add(match.group(1).lower())
        elif not line[:1].isspace():
            return False
    return len(names & _EMAIL_HEADERS) >= 2


def _markdown_score(head: str) -> int:
    """2 or more: surely Markdown; 1: could be; 0: no sign of it."""
    strong = sum(1 for pattern in _MD_STRONG if pattern.search(head))
    weak = sum(1 for pattern in _MD_WEAK if pattern.search(head))
    if strong:
        return 2 + strong
    return min(weak, 2)
