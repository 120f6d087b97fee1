"""Outlook messages (.msg) → Blocks, reading the MAPI property streams of the OLE2 file directly.

A .msg is an OLE2 compound file: each MAPI property of the message is a stream named
`__substg1.0_<id><type>` (type 001F = UTF-16LE string, 001E = 8-bit string in the message's
code page, 0102 = binary); fixed-size properties (times, numbers) sit in `__properties_version1.0`.
Recipients live in `__recip_version1.0_#N` storages, attachments in `__attach_version1.0_#N`;
an attached Outlook item is a nested message storage (`__substg1.0_3701000D`), which is handed
on as an .eml attachment so that it is read like any forwarded message.
"""

from __future__ import annotations

import codecs
import datetime as dt
import struct
from collections.abc import Iterator
from email import policy
from email.message import EmailMessage
from email.parser import HeaderParser
from email.utils import format_datetime

from polyrag.errors import CorruptFileError, MissingDependencyError
from polyrag.parse.base import Attachment, Document
from polyrag.parse.email import HEADER_FIELDS, MailContent, mail_document, safe_name
from polyrag.parse.encoding import decode_text

_SUBJECT = 0x0037
_TRANSPORT_HEADERS = 0x007D
_SENT_REPRESENTING_NAME = 0x0042
_SENDER_NAME = 0x0C1A
_SENDER_ADDRESS = 0x0C1F
_SENDER_SMTP = 0x5D01
_DISPLAY_CC = 0x0E03
_DISPLAY_TO = 0x0E04
_BODY = 0x1000
_RTF_COMPRESSED = 0x1009
_HTML = 0x1013
_CLIENT_SUBMIT_TIME = 0x0039
_DELIVERY_TIME = 0x0E06
_CODEPAGE = 0x3FFD
_INTERNET_CODEPAGE = 0x3FDE
_RECIPIENT_TYPE = 0x0C15
_DISPLAY_NAME = 0x3001
_EMAIL_ADDRESS = 0x3003
_SMTP_ADDRESS = 0x39FE
_ATTACH_DATA = 0x3701
_ATTACH_SHORT_NAME = 0x3704
_ATTACH_LONG_NAME = 0x3707
_ATTACH_MIME_TYPE = 0x370E
_EMBEDDED = "__substg1.0_3701000D"
_PROPERTIES = "__properties_version1.0"
_PT_LONG = 0x0003
_PT_SYSTIME = 0x0040
_MAX_DEPTH = 5  # attached messages inside attached messages
_FILETIME_EPOCH = dt.datetime(1601, 1, 1, tzinfo=dt.UTC)
# MS-OXRTFCP: the dictionary compressed RTF starts from.
_RTF_PREBUF = (
    b"{\\rtf1\\ansi\\mac\\deff0\\deftab720{\\fonttbl;}{\\f0\\fnil \\froman \\fswiss \\fmodern "
    b"\\fscript \\fdecor MS Sans SerifSymbolArialTimes New RomanCourier{\\colortbl\\red0\\green0"
    b"\\blue0\r\n\\par \\pard\\plain\\f0\\fs20\\b\\i\\u\\tab\\tx"
)


class OutlookParser:
    """Outlook items saved as .msg files."""

    media_types = frozenset({"msg"})
    version = "1"

    def parse(self, data: bytes, *, name: str, password: str | None = None) -> Document:
        return mail_document("msg", outlook_content(data))


def outlook_content(data: bytes) -> MailContent:
    """The headers, body parts and attachments of an Outlook .msg file's bytes."""
    try:
        import olefile  # type: ignore[import-untyped]
    except ImportError:
        raise MissingDependencyError("reading .msg files needs olefile") from None
    try:
        ole = olefile.OleFileIO(data)
    except (OSError, ValueError, struct.error) as exc:
        raise CorruptFileError(f"a damaged Outlook message ({exc})"[:200]) from None
    with ole:
        return _MessageReader(ole, []).content(depth=0)


class _MessageReader:
    """The properties of one message storage (the file's root or an attached item)."""

    def __init__(self, ole: object, prefix: list[str]) -> None:
        self._ole = ole
        self._prefix = prefix
        header = 32 if not prefix else 24  # the file's message, or an attached one
        self._fixed = _fixed_properties(self._stream([*prefix, _PROPERTIES]), header)
        self._codepage = _codec(self._fixed.get(_CODEPAGE) or self._fixed.get(_INTERNET_CODEPAGE))

    def content(self, depth: int) -> MailContent:
        headers: dict[str, str] = {}
        subject = self.string(_SUBJECT)
        sender = _address(
            self.string(_SENDER_NAME) or self.string(_SENT_REPRESENTING_NAME),
            self.string(_SENDER_SMTP) or self.string(_SENDER_ADDRESS),
        )
        to, cc = self._recipients()
        values = {
            "From": sender,
            "To": to or self.string(_DISPLAY_TO),
            "Cc": cc or self.string(_DISPLAY_CC),
            "Date": self._date(),
            "Subject": subject,
        }
        for key in HEADER_FIELDS:
            value = " ".join(values[key].split())
            if value:
                headers[key] = value
        content = MailContent(headers=headers)
        body = self.string(_BODY)
        if body.strip():
            content.plain.append(body)
        else:
            html = self.string(_HTML) or self._decoded(self.binary(_HTML))
            if html.strip():
                content.html.append(html)
            else:
                rtf = self.binary(_RTF_COMPRESSED)
                if rtf:
                    content.plain.append(_rtf_text(decompress_rtf(rtf)))
        for storage in self._children("__attach_version1.0_#"):
            attachment = self._attachment(storage, depth, content.warnings)
            if attachment is not None:
                content.attachments.append(attachment)
        return content

    def string(self, prop: int, prefix: list[str] | None = None) -> str:
        base = self._prefix if prefix is None else prefix
        wide = self._stream([*base, f"__substg1.0_{prop:04X}001F"])
        if wide is not None:
            return wide.decode("utf-16-le", errors="replace").rstrip("\x00")
        narrow = self._stream([*base, f"__substg1.0_{prop:04X}001E"])
        return self._decoded(narrow).rstrip("\x00") if narrow is not None else ""

    def binary(self, prop: int, prefix: list[str] | None = None) -> bytes:
        base = self._prefix if prefix is None else prefix
        return self._stream([*base, f"__substg1.0_{prop:04X}0102"]) or b""

    def _decoded(self, data: bytes | None) -> str:
        if not data:
            return ""
        if self._codepage:
            return data.decode(self._codepage, errors="replace")
        return decode_text(data)

    def _stream(self, path: list[str]) -> bytes | None:
        ole = self._ole
        if not ole.exists("/".join(path)):  # type: ignore[attr-defined]
            return None
        try:
            data: bytes = ole.openstream(path).read()  # type: ignore[attr-defined]
        except (OSError, ValueError):  # a storage where a stream should be, a broken chain
            return None
        return data

    def _children(self, marker: str) -> Iterator[list[str]]:
        depth = len(self._prefix) + 1
        entries = self._ole.listdir(streams=False, storages=True)  # type: ignore[attr-defined]
        for path in sorted(entries):
            if len(path) == depth and path[:-1] == self._prefix and path[-1].startswith(marker):
                yield path

    def _recipients(self) -> tuple[str, str]:
        lists: dict[int, list[str]] = {1: [], 2: []}
        for storage in self._children("__recip_version1.0_#"):
            fixed = _fixed_properties(self._stream([*storage, _PROPERTIES]), 8)
            kind = fixed.get(_RECIPIENT_TYPE, 1)
            name = self.string(_DISPLAY_NAME, storage)
            address = self.string(_SMTP_ADDRESS, storage) or self.string(_EMAIL_ADDRESS, storage)
            text = _address(name, address)
            if text and kind in lists:
                lists[kind].append(text)
        return ", ".join(lists[1]), ", ".join(lists[2])

    def _date(self) -> str:
        headers = self.string(_TRANSPORT_HEADERS)
        if headers:
            date = HeaderParser(policy=policy.compat32).parsestr(headers).get("Date")
            if date:
                return str(date)
        for prop in (_CLIENT_SUBMIT_TIME, _DELIVERY_TIME):
            filetime = self._fixed.get(prop)
            if filetime:
                moment = _FILETIME_EPOCH + dt.timedelta(microseconds=filetime // 10)
                return format_datetime(moment)
        return ""

    def _attachment(self, storage: list[str], depth: int, warnings: list[str]) -> Attachment | None:
        name = (
            self.string(_ATTACH_LONG_NAME, storage)
            or self.string(_ATTACH_SHORT_NAME, storage)
            or self.string(_DISPLAY_NAME, storage)
        )
        embedded = [*storage, _EMBEDDED]
        if self._ole.exists("/".join(embedded)):  # type: ignore[attr-defined]
            if depth >= _MAX_DEPTH:
                warnings.append(f"attached message {name or ''} nested too deeply; skipped")
                return None
            inner = _MessageReader(self._ole, embedded).content(depth + 1)
            subject = inner.headers.get("Subject") or name or "attached message"
            return Attachment(safe_name(subject) + ".eml", to_eml(inner))
        data = self.binary(_ATTACH_DATA, storage)
        if not data:
            return None
        return Attachment(name or f"attachment{len(storage)}.bin", data)


def to_eml(content: MailContent) -> bytes:
    """A message read from a .msg, written as an RFC 822 message with its attachments."""
    message = EmailMessage(policy=policy.default)
    for key, value in content.headers.items():
        try:
            message[key] = value
        except Exception:  # a value the header parser refuses: keep it as plain text
            message[key] = value.encode("ascii", errors="replace").decode("ascii")
    plain = "\n\n".join(text for text in content.plain if text.strip())
    if plain:
        message.set_content(plain)
    elif content.html:
        message.set_content("\n".join(content.html), subtype="html")
    for attachment in content.attachments:
        message.add_attachment(
            attachment.data,
            maintype="application",
            subtype="octet-stream",
            filename=attachment.name,
        )
    return message.as_bytes(policy=policy.default.clone(linesep="\r\n"))


def _fixed_properties(data: bytes | None, header: int) -> dict[int, int]:
    """PT_LONG and PT_SYSTIME values of a __properties_version1.0 stream, by property id.

    The stream's header is 32 bytes for the file's message, 24 for an attached message and 8
    for recipients and attachments; then come 16-byte entries (tag, flags, value).
    """
    if not data:
        return {}
    values: dict[int, int] = {}
    for offset in range(header, len(data) - 15, 16):
        tag, _flags, value = struct.unpack_from("<IIQ", data, offset)
        kind, prop = tag & 0xFFFF, tag >> 16
        if kind == _PT_LONG:
            values[prop] = value & 0xFFFFFFFF
        elif kind == _PT_SYSTIME:
            values[prop] = value
    return values


def _codec(codepage: int | None) -> str | None:
    if not codepage:
        return None
    name = "utf-8" if codepage == 65001 else f"cp{codepage}"
    try:
        codecs.lookup(name)
    except LookupError:
        return None
    return name


def _address(name: str, address: str) -> str:
    name, address = name.strip(), address.strip()
    if "@" not in address:  # an Exchange X.500 address means nothing to a reader
        return name
    if not name or name == address:
        return address
    return f"{name} <{address}>"


def decompress_rtf(data: bytes) -> bytes:
    """Compressed RTF (MS-OXRTFCP, "LZFu") → RTF bytes; uncompressed ("MELA") passes through."""
    if len(data) < 16:
        raise CorruptFileError("a damaged Outlook message (RTF body too short)")
    size, raw_size, kind = struct.unpack_from("<II4s", data, 0)
    if kind == b"MELA":
        return data[16 : 16 + raw_size]
    if kind != b"LZFu":
        raise CorruptFileError("a damaged Outlook message (unknown RTF compression)")
    dictionary = bytearray(4096)
    dictionary[: len(_RTF_PREBUF)] = _RTF_PREBUF
    write = len(_RTF_PREBUF)
    out = bytearray()
    position, end = 16, min(len(data), size + 4)
    while position < end:
        control = data[position]
        position += 1
        for bit in range(8):
            if position >= end:
                break
            if not control & (1 << bit):
                byte = data[position]
                position += 1
                out.append(byte)
                dictionary[write] = byte
                write = (write + 1) % 4096
                continue
            if position + 2 > end:
                return bytes(out)
            word = (data[position] << 8) | data[position + 1]
            position += 2
            offset, length = word >> 4, (word & 0xF) + 2
            if offset == write:
                return bytes(out)
            for step in range(length):
                byte = dictionary[(offset + step) % 4096]
                out.append(byte)
                dictionary[write] = byte
                write = (write + 1) % 4096
            if len(out) > max(raw_size, 1) * 2 + 65536:
                raise CorruptFileError("a damaged Outlook message (RTF body overruns its size)")
    return bytes(out)


def _rtf_text(rtf: bytes) -> str:
    from polyrag.parse.rtf import rtf_to_plain

    return rtf_to_plain(rtf)
