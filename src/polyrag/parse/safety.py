"""Guards for ZIP-based files (OOXML, ODF, EPUB, plain ZIP) against zip bombs.

`check_zip` looks at an archive's directory before anything unpacks it: how many members, how
many bytes they claim to unpack to in total, how much each member is compressed, and whether
entries overlap (the trick behind non-recursive zip bombs) or the archive contains itself (a
quine). `SafeZip` then reads members with a byte budget that holds whatever the headers claim.

Every refusal is a one-line `CorruptFileError` ("a ZIP bomb: ... would unpack to more than N MB").
"""

from __future__ import annotations

import io
import itertools
import struct
import zipfile
import zlib
from dataclasses import dataclass

from polyrag.errors import CorruptFileError, EncryptedFileError, UnsupportedFormatError
from polyrag.settings import LimitsSettings

_MB = 1024 * 1024
_CHUNK = 64 * 1024
_LOCAL_HEADER = struct.Struct("<4s5H3L2H")  # signature ... name length, extra length
_LOCAL_SIGNATURE = b"PK\x03\x04"
# A small member may be compressed far beyond the ratio limit (a sheet of empty cells does
# that) without any harm; the ratio is judged only for members that unpack to more than this.
RATIO_FLOOR_BYTES = 1 * _MB
_SUPPORTED_METHODS = {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA}
_AES = 99  # WinZip AES encryption (compression method 99); zipfile cannot read it
_XML_SUFFIXES = (".xml", ".rels", ".vml")
_PROLOG_BYTES = 8192  # a DTD sits before the root element, at the start of a part
_UTF16_DOCTYPE = "<!DOCTYPE".encode("utf-16-le")


@dataclass(frozen=True)
class ZipLimits:
    """The bounds one archive is held to (from `LimitsSettings`)."""

    max_bytes: int
    max_ratio: float
    max_members: int

    @classmethod
    def from_settings(cls, limits: LimitsSettings | None = None) -> ZipLimits:
        limits = limits or LimitsSettings()
        return cls(
            max_bytes=int(limits.max_decompressed_mb * _MB),
            max_ratio=limits.max_compression_ratio,
            max_members=limits.max_zip_members,
        )

    @property
    def max_mb(self) -> str:
        return f"{self.max_bytes / _MB:g}"


def check_zip(
    data: bytes, limits: LimitsSettings | ZipLimits | None = None, *, office: bool = False
) -> None:
    """Raise a CorruptFileError if unpacking `data` (a ZIP container) could exhaust memory.

    `office`: the file is OOXML (docx, pptx, xlsx), whose XML parts never declare a DTD, so one
    that does is refused (entity expansion and external entities hide there). Bytes that do not
    open as a ZIP are left to the caller's library to report.
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, OSError, EOFError):
        return
    with archive:
        check_archive(archive, len(data), _limits(limits))
        if office:
            check_office_xml(archive)


def check_office_xml(archive: zipfile.ZipFile) -> None:
    """Refuse an OOXML part that declares a DTD: Office never writes one, and a DTD is where
    billion-laughs entity expansion and external entities (local files) come from."""
    for info in archive.infolist():
        if info.is_dir() or not info.filename.lower().endswith(_XML_SUFFIXES):
            continue
        try:
            with archive.open(info) as stream:
                head = stream.read(_PROLOG_BYTES)
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, RuntimeError):
            return  # damaged or encrypted: the Office library reports it
        if b"<!DOCTYPE" in head or b"<!ENTITY" in head or _UTF16_DOCTYPE in head:
            raise CorruptFileError(
                f"an XML entity attack: {_short(info.filename)} declares a DTD, which Office "
                "files never do"
            )


def check_archive(archive: zipfile.ZipFile, size: int, limits: ZipLimits) -> None:
    """The directory checks of `check_zip` on an open archive of `size` bytes."""
    infos = archive.infolist()
    if len(infos) > limits.max_members:
        raise CorruptFileError(
            f"a ZIP bomb: {len(infos):,} members, more than the {limits.max_members:,} allowed "
            "(limits.max_zip_members)"
        )
    total = 0
    for info in infos:
        total += info.file_size
        if total > limits.max_bytes:
            raise CorruptFileError(
                f"a ZIP bomb: its {len(infos):,} members would unpack to more than "
                f"{limits.max_mb} MB (limits.max_decompressed_mb)"
            )
        if info.file_size > RATIO_FLOOR_BYTES:
            ratio = info.file_size / max(info.compress_size, 1)
            if ratio > limits.max_ratio:
                raise CorruptFileError(
                    f"a ZIP bomb: {_short(info.filename)} unpacks {ratio:,.0f}× its packed size, "
                    f"more than {limits.max_ratio:g}× (limits.max_compression_ratio)"
                )
    _check_overlaps(archive, infos, size)
    _check_quine(archive, infos, size)


def _check_overlaps(archive: zipfile.ZipFile, infos: list[zipfile.ZipInfo], size: int) -> None:
    """Members must not share bytes: overlapping entries unpack the same data many times."""
    stream = archive.fp
    if stream is None:
        return
    spans: list[tuple[int, int, str]] = []
    for info in infos:
        start = info.header_offset
        stream.seek(start)
        header = stream.read(_LOCAL_HEADER.size)
        if len(header) < _LOCAL_HEADER.size or header[:4] != _LOCAL_SIGNATURE:
            raise CorruptFileError(
                f"a damaged ZIP archive: the entry {_short(info.filename)} points outside its data"
            )
        name_length, extra_length = _LOCAL_HEADER.unpack(header)[-2:]
        end = start + _LOCAL_HEADER.size + name_length + extra_length + info.compress_size
        if end > size:
            raise CorruptFileError(
                f"a truncated ZIP archive: the entry {_short(info.filename)} runs past its end"
            )
        spans.append((start, end, info.filename))
    spans.sort()
    for (_, end, first), (start, _, second) in itertools.pairwise(spans):
        if start < end:
            raise CorruptFileError(
                f"a ZIP bomb: the entries {_short(first)} and {_short(second)} overlap"
            )


def _check_quine(archive: zipfile.ZipFile, infos: list[zipfile.ZipInfo], size: int) -> None:
    """An archive that holds a copy of itself would unpack forever when opened recursively."""
    same_size = [info for info in infos if info.file_size == size]
    if not same_size or archive.fp is None:
        return
    archive.fp.seek(0)
    crc = zlib.crc32(archive.fp.read(size))
    for info in same_size:
        if crc == info.CRC:
            raise CorruptFileError(
                f"a ZIP quine: the member {_short(info.filename)} is the archive itself"
            )


class SafeZip:
    """A checked ZIP archive whose members are read within one shared byte budget.

    The budget (`limits.max_decompressed_mb` for the whole archive) is counted on the bytes
    actually unpacked, so a member whose header understates its size is stopped all the same.
    """

    def __init__(
        self,
        data: bytes,
        limits: LimitsSettings | ZipLimits | None = None,
        *,
        password: str | None = None,
    ) -> None:
        self._limits = _limits(limits)
        try:
            self._archive = zipfile.ZipFile(io.BytesIO(data))
        except (zipfile.BadZipFile, ValueError, OSError, EOFError) as exc:
            raise CorruptFileError(f"a damaged ZIP archive ({exc})") from None
        check_archive(self._archive, len(data), self._limits)
        self._password = password.encode("utf-8") if password is not None else None
        self._left = self._limits.max_bytes

    def __enter__(self) -> SafeZip:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._archive.close()

    @property
    def archive(self) -> zipfile.ZipFile:
        return self._archive

    def members(self) -> list[zipfile.ZipInfo]:
        """The files in the archive (folders left out), in directory order."""
        return [info for info in self._archive.infolist() if not info.is_dir()]

    def read(self, member: str | zipfile.ZipInfo, max_bytes: int | None = None) -> bytes:
        """The unpacked bytes of one member, at most `max_bytes` and within the budget left."""
        cap = self._left if max_bytes is None else min(max_bytes, self._left)
        data = read_member(self._archive, member, cap, password=self._password)
        self._left -= len(data)
        return data


def read_member(
    archive: zipfile.ZipFile,
    member: str | zipfile.ZipInfo,
    max_bytes: int,
    *,
    password: bytes | None = None,
) -> bytes:
    """Unpack one member in chunks, stopping with a CorruptFileError past `max_bytes`."""
    info = member if isinstance(member, zipfile.ZipInfo) else archive.getinfo(member)
    name = _short(info.filename)
    encrypted = bool(info.flag_bits & 0x1)
    if encrypted and password is None:
        raise EncryptedFileError(f"an encrypted ZIP member ({name})")
    if info.compress_type == _AES:
        raise UnsupportedFormatError(f"an AES-encrypted ZIP member ({name}); only ZipCrypto opens")
    if info.compress_type not in _SUPPORTED_METHODS:
        raise UnsupportedFormatError(
            f"a ZIP member ({name}) packed with compression method {info.compress_type}"
        )
    mb = f"{max_bytes / _MB:g}"
    parts: list[bytes] = []
    total = 0
    try:
        with archive.open(info, pwd=password if encrypted else None) as stream:
            while chunk := stream.read(_CHUNK):
                total += len(chunk)
                if total > max_bytes:
                    raise CorruptFileError(f"a ZIP bomb: {name} would unpack to more than {mb} MB")
                parts.append(chunk)
    except RuntimeError as exc:  # zipfile's "Bad password for file"
        if "password" in str(exc).lower():
            raise EncryptedFileError("wrong password") from None
        raise CorruptFileError(f"a damaged ZIP member {name} ({exc})") from None
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError) as exc:
        raise CorruptFileError(f"a damaged ZIP member {name} ({exc})") from None
    return b"".join(parts)


def _limits(limits: LimitsSettings | ZipLimits | None) -> ZipLimits:
    return limits if isinstance(limits, ZipLimits) else ZipLimits.from_settings(limits)


def _short(name: str) -> str:
    return name if len(name) <= 80 else name[:77] + "..."
