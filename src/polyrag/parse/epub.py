"""EPUB e-books → Blocks: chapters in reading order (the OPF spine), each read as HTML.

Each chapter starts after a BREAK with a level-1 heading named as the table of contents names
it, so every passage's heading path begins with its chapter.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from dataclasses import replace
from typing import Any
from urllib.parse import unquote

from lxml import etree

from polyrag.errors import CorruptFileError, EncryptedFileError, ParseError
from polyrag.parse.base import Document
from polyrag.parse.opendocument import xml_parser
from polyrag.parse.safety import SafeZip
from polyrag.parse.web import WebParser
from polyrag.settings import LimitsSettings
from polyrag.types import Block, BlockKind

_NS = {
    "container": "urn:oasis:names:tc:opendocument:xmlns:container",
    "opf": "http://www.idpf.org/2007/opf",
    "dc": "http://purl.org/dc/elements/1.1/",
    "ncx": "http://www.daisy.org/z3986/2005/ncx/",
    "xhtml": "http://www.w3.org/1999/xhtml",
    "epub": "http://www.idpf.org/2007/ops",
    "enc": "http://www.w3.org/2001/04/xmlenc#",
}
_CHAPTER_TYPES = {"application/xhtml+xml", "text/html", "application/x-dtbook+xml"}
_SMALL_XML = 16 * 1024 * 1024


class EpubParser:
    """EPUB 2 and 3 e-books without DRM."""

    media_types = frozenset({"epub"})
    version = "1"

    def __init__(self, limits: LimitsSettings | None = None) -> None:
        self._limits = limits or LimitsSettings()

    def parse(self, data: bytes, *, name: str, password: str | None = None) -> Document:
        blocks: list[Block] = []
        warnings: list[str] = []
        with SafeZip(data, self._limits) as archive:
            names = set(archive.archive.namelist())
            if "META-INF/container.xml" not in names:
                raise CorruptFileError("a damaged EPUB (META-INF/container.xml is missing)")
            opf_path = _rootfile(_xml(archive.read("META-INF/container.xml", _SMALL_XML)))
            if opf_path not in names:
                raise CorruptFileError(f"a damaged EPUB (its package file {opf_path} is missing)")
            package = _xml(archive.read(opf_path, _SMALL_XML))
            base = posixpath.dirname(opf_path)
            manifest = _manifest(package, base)
            encrypted = _encrypted(archive, names)
            titles = _toc_titles(archive, package, manifest, names)
            chapters = 0
            for href, media_type in _spine(package, manifest):
                if media_type not in _CHAPTER_TYPES or href not in names:
                    continue
                if href in encrypted:
                    raise EncryptedFileError(
                        "a DRM-protected EPUB", hint="only EPUB files without DRM can be read"
                    )
                try:
                    page = WebParser().parse(archive.read(href), name=href)
                except ParseError as exc:
                    warnings.append(f"{href}: {exc}")
                    continue
                chapter = list(_chapter_blocks(page, titles.get(href)))
                if chapter:
                    chapters += 1
                    blocks.append(Block(BlockKind.BREAK, ""))
                    blocks.extend(chapter)
        title = package.findtext(".//dc:title", namespaces=_NS)
        return Document(
            media_type="epub",
            blocks=tuple(blocks),
            pages=chapters,
            title=" ".join(title.split()) if title and title.strip() else None,
            warnings=tuple(warnings),
        )


def _xml(data: bytes) -> Any:
    try:
        return etree.fromstring(data, xml_parser())
    except etree.XMLSyntaxError as exc:
        raise CorruptFileError(f"a damaged EPUB ({exc})") from None


def _rootfile(container: Any) -> str:
    rootfile = container.find(".//container:rootfile", _NS)
    path = rootfile.get("full-path") if rootfile is not None else None
    if not path:
        raise CorruptFileError("a damaged EPUB (META-INF/container.xml names no package file)")
    return str(path)


def _manifest(package: Any, base: str) -> dict[str, tuple[str, str, str]]:
    """Manifest id → (path in the archive, media type, properties)."""
    items: dict[str, tuple[str, str, str]] = {}
    for item in package.iterfind(".//opf:manifest/opf:item", _NS):
        href = item.get("href")
        if item.get("id") and href:
            path = posixpath.normpath(posixpath.join(base, unquote(href.split("#")[0])))
            items[item.get("id")] = (path, item.get("media-type", ""), item.get("properties", ""))
    return items


def _spine(package: Any, manifest: dict[str, tuple[str, str, str]]) -> Iterator[tuple[str, str]]:
    for itemref in package.iterfind(".//opf:spine/opf:itemref", _NS):
        entry = manifest.get(itemref.get("idref", ""))
        if entry is not None:
            yield entry[0], entry[1]


def _encrypted(archive: SafeZip, names: set[str]) -> set[str]:
    """Files listed in META-INF/encryption.xml (DRM; fonts are often obfuscated harmlessly)."""
    if "META-INF/encryption.xml" not in names:
        return set()
    tree = _xml(archive.read("META-INF/encryption.xml", _SMALL_XML))
    return {
        unquote(str(reference.get("URI")))
        for reference in tree.iterfind(".//enc:CipherReference", _NS)
        if reference.get("URI")
    }


def _toc_titles(
    archive: SafeZip,
    package: Any,
    manifest: dict[str, tuple[str, str, str]],
    names: set[str],
) -> dict[str, str]:
    """Chapter path → its title in the table of contents (EPUB 3 nav, else EPUB 2 NCX)."""
    titles: dict[str, str] = {}
    nav = next((entry for entry in manifest.values() if "nav" in entry[2].split()), None)
    if nav is not None and nav[0] in names:
        try:
            tree = _xml(archive.read(nav[0], _SMALL_XML))
        except CorruptFileError:
            tree = None
        if tree is not None:
            for link in tree.iterfind(".//xhtml:nav//xhtml:a", _NS):
                _add_title(titles, nav[0], link.get("href"), "".join(link.itertext()))
    toc_id = package.find(".//opf:spine", _NS)
    ncx = manifest.get(toc_id.get("toc", "")) if toc_id is not None else None
    if ncx is not None and ncx[0] in names:
        tree = _xml(archive.read(ncx[0], _SMALL_XML))
        for point in tree.iterfind(".//ncx:navPoint", _NS):
            label = point.findtext("ncx:navLabel/ncx:text", namespaces=_NS) or ""
            content = point.find("ncx:content", _NS)
            source = content.get("src") if content is not None else None
            _add_title(titles, ncx[0], source, label)
    return titles


def _add_title(titles: dict[str, str], toc_path: str, href: str | None, label: str) -> None:
    label = " ".join(label.split())
    if not href or not label:
        return
    path = posixpath.normpath(
        posixpath.join(posixpath.dirname(toc_path), unquote(href.split("#")[0]))
    )
    titles.setdefault(path, label)  # a chapter's first entry names it, not its sub-sections


def _chapter_blocks(page: Document, title: str | None) -> Iterator[Block]:
    """The chapter's blocks under one level-1 heading named by the table of contents."""
    blocks = [block for block in page.blocks if block.text.strip()]
    if not blocks:
        return
    headings = [block for block in blocks if block.kind == BlockKind.HEADING]
    if title is None:
        yield from blocks
        return
    first = headings[0] if headings else None
    if first is not None and first.text.casefold() == title.casefold():
        yield from blocks  # the chapter's own first heading already says it
        return
    if blocks[0].kind == BlockKind.HEADING and page.title and blocks[0].text == page.title:
        blocks = blocks[1:]  # the HTML <title> put in as a heading: the book's name, mostly
    yield Block(BlockKind.HEADING, title, level=1)
    for block in blocks:
        if block.kind == BlockKind.HEADING:
            block = replace(block, level=min(block.level + 1, 6))
        yield block
