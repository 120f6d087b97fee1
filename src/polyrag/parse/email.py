"""E-mail (.eml, RFC 822/MIME) → Blocks: a header block (who, to whom, when, what), then the body.

Attachments, inline images and forwarded messages (message/rfc822) become `Document.attachments`;
the pipeline ingests each as a child source, so its citations name the e-mail that carried it.
An encrypted message (PGP/MIME or S/MIME) yields its readable headers and a warning: the body
cannot be read without the recipient's key, but who sent what when can still be found.
"""

from __future__ import annotations

import codecs
import email
import mimetypes
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage, Message
from pathlib import PurePosixPath

from polyrag.errors import EmptyFileError
from polyrag.parse.base import Attachment, Document
from polyrag.parse.encoding import decode_text
from polyrag.parse.plain import normalize_newlines, text_blocks
from polyrag.parse.web import WebParser
from polyrag.types import Block, BlockKind

HEADER_FIELDS = ("From", "To", "Cc", "Date", "Subject")
_ENCRYPTED_TYPES = ("multipart/encrypted", "application/pkcs7-mime", "application/x-pkcs7-mime")
_SIGNATURE_TYPES = (
    "application/pgp-signature",
    "application/pkcs7-signature",
    "application/x-pkcs7-signature",
)
_UNSAFE_NAME = re.compile(r"[\x00-\x1f#/\\]+")
_UTF8_META = b'<meta charset="utf-8">'


@dataclass
class MailContent:
    """What a message holds, whatever its container (.eml or Outlook .msg)."""

    headers: dict[str, str]  # of HEADER_FIELDS, those present
    plain: list[str] = field(default_factory=list)  # plain-text body parts
    html: list[str] = field(default_factory=list)  # HTML body parts, used when no plain text
    attachments: list[Attachment] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


class EmailParser:
    """Internet e-mail messages (.eml, RFC 822 with MIME parts)."""

    media_types = frozenset({"email"})
    version = "1"

    def parse(self, data: bytes, *, name: str, password: str | None = None) -> Document:
        return mail_document("email", mail_content(data))


def mail_content(data: bytes) -> MailContent:
    """The headers, body parts and attachments of one message's bytes."""
    message = read_message(data)
    content = MailContent(headers=message_headers(message))
    _Walker(content).visit(message)
    return content


def read_message(data: bytes) -> EmailMessage:
    """Parse the bytes of one message; UTF-16/32 files (with or without BOM) are re-encoded."""
    if not data.strip():
        raise EmptyFileError("an empty e-mail")
    if data[:4].count(b"\x00") or data.startswith((codecs.BOM_UTF8, b"\xff\xfe", b"\xfe\xff")):
        data = decode_text(data).encode("utf-8")
    message = email.message_from_bytes(data, policy=policy.default)
    if not isinstance(message, EmailMessage):  # the default policy always builds these
        raise EmptyFileError("not an e-mail message")
    return message


def message_headers(message: Message) -> dict[str, str]:
    headers: dict[str, str] = {}
    for name in HEADER_FIELDS:
        value = _header(message, name)
        if value:
            headers[name] = value
    return headers


def _header(message: Message, name: str) -> str:
    """A header's decoded value; a malformed one falls back to its raw text."""
    try:
        values = message.get_all(name) or []
        text = ", ".join(str(value) for value in values)
    except Exception:  # the default policy's header parser can fail on odd encodings
        text = ", ".join(str(value) for key, value in message.raw_items() if key.lower() == name)
    return " ".join(text.split())


def mail_document(media_type: str, content: MailContent) -> Document:
    """Blocks of a message: its subject as the title, a header block, then the body."""
    subject = content.headers.get("Subject", "")
    blocks: list[Block] = []
    if subject:
        blocks.append(Block(BlockKind.HEADING, subject, level=1))
    headers = content.headers
    header_lines = [f"{key}: {headers[key]}" for key in HEADER_FIELDS if key in headers]
    if content.attachments:
        names = ", ".join(attachment.name for attachment in content.attachments)
        header_lines.append(f"Attachments: {names}")
    if header_lines:
        blocks.append(Block(BlockKind.TEXT, "\n".join(header_lines)))
    blocks.extend(body_blocks(content))
    for warning in content.warnings:
        if warning.startswith("encrypted"):
            blocks.append(Block(BlockKind.TEXT, "The body of this message is encrypted."))
    if not blocks and not content.attachments:
        raise EmptyFileError("an empty e-mail (no headers, body or attachments)")
    return Document(
        media_type=media_type,
        blocks=tuple(blocks),
        pages=1,
        title=subject or None,
        warnings=tuple(content.warnings),
        attachments=tuple(unique_names(content.attachments)),
    )


def body_blocks(content: MailContent) -> list[Block]:
    """The plain-text body if there is one with text, else the HTML body's text."""
    plain = [text for text in content.plain if text.strip()]
    if plain:
        blocks: list[Block] = []
        for text in plain:
            blocks.extend(text_blocks(normalize_newlines(text).strip("\n")))
        return blocks
    blocks = []
    for html in content.html:
        document = WebParser().parse(_UTF8_META + html.encode("utf-8"), name="body.html")
        blocks.extend(block for block in document.blocks if block.text.strip())
    return blocks


def unique_names(attachments: Sequence[Attachment]) -> Iterator[Attachment]:
    """Attachment names made safe as a path suffix and unique within the message."""
    seen: set[str] = set()
    for attachment in attachments:
        name = safe_name(attachment.name)
        stem, suffix = _split(name)
        number = 1
        while name.casefold() in seen:
            number += 1
            name = f"{stem} ({number}){suffix}"
        seen.add(name.casefold())
        yield Attachment(name, attachment.data)


def safe_name(name: str) -> str:
    name = PurePosixPath(name.replace("\\", "/")).name
    name = _UNSAFE_NAME.sub("_", name).strip(" .")
    return name[:200] or "attachment"


def _split(name: str) -> tuple[str, str]:
    path = PurePosixPath(name)
    return (path.stem, path.suffix) if path.suffix and path.stem else (name, "")


class _Walker:
    """Sorts a MIME tree into body text, HTML and attachments."""

    def __init__(self, content: MailContent) -> None:
        self._content = content
        self._unnamed = 0

    def visit(self, part: Message) -> None:
        content_type = part.get_content_type()
        if content_type in _ENCRYPTED_TYPES and "signed-data" not in str(
            part.get_param("smime-type", "")
        ):
            kind = "S/MIME" if "pkcs7" in content_type else "PGP/MIME"
            self._content.warnings.append(
                f"encrypted ({kind}): only the headers were read; decrypt the message in your "
                "mail program to index its body"
            )
            return
        if content_type == "message/rfc822":
            self._embedded(part)
            return
        if part.is_multipart():
            children = list(_children(part))
            if content_type == "multipart/alternative":
                children = _best_alternative(children)
            for child in children:
                self.visit(child)
            return
        if content_type in _SIGNATURE_TYPES:
            return
        if self._is_attachment(part):
            self._attach(part)
        elif content_type == "text/html":
            self._content.html.append(part_text(part))
        else:
            self._content.plain.append(part_text(part))

    def _is_attachment(self, part: Message) -> bool:
        disposition = (part.get_content_disposition() or "").lower()
        if disposition == "attachment":
            return True
        if part.get_content_type() in ("text/plain", "text/html"):
            return False  # an inline text part is body, even when it carries a file name
        return bool(part.get_filename()) or part.get_content_maintype() != "text"

    def _attach(self, part: Message) -> None:
        payload = part.get_payload(decode=True)
        data = payload if isinstance(payload, bytes) else b""
        if not data:
            return
        name = _filename(part) or self._generated_name(part.get_content_type())
        self._content.attachments.append(Attachment(name, data))

    def _embedded(self, part: Message) -> None:
        payload = part.get_payload()
        inner = payload[0] if isinstance(payload, list) and payload else None
        if not isinstance(inner, Message):
            return
        subject = _header(inner, "Subject")
        name = _filename(part) or f"{subject or self._generated_name('message/rfc822')}"
        if not name.lower().endswith(".eml"):
            name += ".eml"
        data = inner.as_bytes(policy=policy.default.clone(linesep="\r\n"))
        self._content.attachments.append(Attachment(name, data))

    def _generated_name(self, content_type: str) -> str:
        self._unnamed += 1
        extension = mimetypes.guess_extension(content_type) or ".bin"
        if content_type == "message/rfc822":
            extension = ".eml"
        return f"attachment-{self._unnamed}{extension}"


def _children(part: Message) -> Iterator[Message]:
    payload = part.get_payload()
    if isinstance(payload, list):
        yield from (child for child in payload if isinstance(child, Message))


def _best_alternative(children: list[Message]) -> list[Message]:
    """Of the alternative forms of one body, the plain text (if it has text), else the richest."""
    for child in children:
        if child.get_content_type() == "text/plain" and part_text(child).strip():
            return [child]
    return children[-1:] if children else []


def _filename(part: Message) -> str:
    try:
        name = part.get_filename() or ""
    except Exception:  # a malformed RFC 2231 parameter
        name = ""
    return " ".join(str(name).split())


def part_text(part: Message) -> str:
    """A text part's decoded content; an unknown or malformed charset falls back to detection."""
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    charset = part.get_content_charset()
    if charset:
        try:
            codecs.lookup(charset)
        except (LookupError, ValueError):  # unknown, or garbage such as a NUL in the name
            charset = None
    if charset:
        try:
            return payload.decode(charset)
        except UnicodeDecodeError:
            pass
    try:
        return decode_text(payload)
    except Exception:  # bytes that are not text at all
        return payload.decode("utf-8", errors="replace")
