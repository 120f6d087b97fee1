"""One entry point for parsing: sniff the format from the bytes, hand them to its parser."""

from __future__ import annotations

import re
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from polyrag.errors import (
    CorruptFileError,
    EmptyFileError,
    EncryptedFileError,
    MissingDependencyError,
    ParseError,
    UnsupportedFormatError,
)
from polyrag.parse.archive import ArchiveParser
from polyrag.parse.base import Document, Parser
from polyrag.parse.email import EmailParser
from polyrag.parse.epub import EpubParser
from polyrag.parse.image import ImageParser
from polyrag.parse.legacy import LegacyOfficeParser
from polyrag.parse.media import MediaParser
from polyrag.parse.ocr import Ocr
from polyrag.parse.opendocument import OpenDocumentParser
from polyrag.parse.outlook import OutlookParser
from polyrag.parse.pdf import PdfParser
from polyrag.parse.pictures import picture_ocr
from polyrag.parse.plain import PlainTextParser
from polyrag.parse.protected import decrypt_office, is_encrypted_office
from polyrag.parse.rtf import RtfParser
from polyrag.parse.slides import SlidesParser
from polyrag.parse.sniff import sniff
from polyrag.parse.spreadsheet import SpreadsheetParser
from polyrag.parse.structured import StructuredParser
from polyrag.parse.web import WebParser
from polyrag.parse.word import WordParser
from polyrag.settings import ParseSettings

_T = TypeVar("_T")
# libxml2 ("Maximum entity amplification factor exceeded", "Detected an entity reference loop")
# and expat ("limit on input amplification factor (from DTD and entities) breached")
_ENTITY_BOMB = re.compile(r"amplification|entity reference loop", re.IGNORECASE)


def default_parsers(
    settings: ParseSettings | None = None, model_cache: Path | None = None
) -> tuple[Parser, ...]:
    """Every parser polyrag ships, configured from `settings` (OCR, vision, media, limits);
    `model_cache` is where packaged models are assembled (default: the settings' model cache)."""
    settings = settings or ParseSettings()
    pictures = picture_ocr(settings)  # reads the text of pictures inside Word and PowerPoint
    ocr = Ocr(settings.ocr, max_image_pixels=settings.limits.max_image_pixels)
    describer = None
    if settings.vision.provider is not None:
        from polyrag.parse.vision import PictureDescriber

        describer = PictureDescriber(settings.vision)
    return (
        PdfParser(ocr),
        ImageParser(ocr, describer, max_image_pixels=settings.limits.max_image_pixels),
        WordParser(settings.limits, ocr=pictures),
        SlidesParser(settings.limits, ocr=pictures),
        SpreadsheetParser(settings.limits),
        WebParser(),
        PlainTextParser(),
        EmailParser(),
        OutlookParser(),
        ArchiveParser(settings.limits),
        EpubParser(settings.limits),
        OpenDocumentParser(settings.limits),
        RtfParser(),
        StructuredParser(),
        LegacyOfficeParser(settings.limits),
        MediaParser(settings.media, model_cache),
    )


class ParserRouter:
    """Parses any supported file; every failure is a ParseError subclass with a reason."""

    def __init__(self, parsers: Sequence[Parser] | None = None) -> None:
        self._by_type: dict[str, Parser] = {}
        for parser in parsers if parsers is not None else default_parsers():
            for media_type in parser.media_types:
                self._by_type.setdefault(media_type, parser)

    @property
    def media_types(self) -> frozenset[str]:
        return frozenset(self._by_type)

    def parser_version(self, media_type: str) -> str:
        return self._parser(media_type).version

    def sniff(self, data: bytes, name: str) -> str:
        """The format of `data`, as the parser choice sees it."""
        return _guarded(lambda: sniff(data, name))

    def parse(self, data: bytes, name: str, password: str | None = None) -> Document:
        """Parse `data`; `password` opens encrypted PDFs, Office files and ZIP members, and is
        ignored by files that need none (one password may be given for a whole folder)."""
        if is_encrypted_office(data):
            if password is None:
                raise EncryptedFileError("encrypted")
            secret = password
            data = _guarded(lambda: decrypt_office(data, secret))
            if is_encrypted_office(data):
                raise CorruptFileError("cannot be read: encrypted twice over")
        media_type = self._sniff_protected(data, name, password)
        parser = self._parser(media_type)
        document = _guarded(lambda: parser.parse(data, name=name, password=password))
        if not document.attachments and not any(block.text.strip() for block in document.blocks):
            raise EmptyFileError("no text found")
        return document

    def _sniff_protected(self, data: bytes, name: str, password: str | None) -> str:
        """Like `sniff`, but an encrypted ZIP archive goes to the archive parser when a
        password is given (it opens the members)."""
        try:
            return self.sniff(data, name)
        except EncryptedFileError:
            if password is not None and data.startswith(b"PK"):
                return "zip"
            raise

    def _parser(self, media_type: str) -> Parser:
        try:
            return self._by_type[media_type]
        except KeyError:
            raise UnsupportedFormatError(f"no parser for {media_type}") from None


def _guarded(call: Callable[[], _T]) -> _T:
    """Run a parsing step; a third-party library's exception becomes a CorruptFileError."""
    try:
        return call()
    except (ParseError, MissingDependencyError):  # a reason, or tesseract to install
        raise
    except MemoryError:
        raise CorruptFileError("cannot be read: it needs more memory than is available") from None
    except RecursionError:
        raise CorruptFileError("cannot be read: its structure is nested too deeply") from None
    except zipfile.BadZipFile as exc:
        raise CorruptFileError(f"cannot be read: damaged ZIP container ({_short(exc)})") from None
    except Exception as exc:
        if _ENTITY_BOMB.search(str(exc)):
            raise CorruptFileError(
                "an XML entity bomb: its entities expand without bound"
            ) from None
        raise CorruptFileError(f"cannot be read: {_short(exc)}") from None


def _short(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    text = lines[0] if lines else ""
    text = text if len(text) <= 160 else text[:157] + "..."
    return text or type(exc).__name__
