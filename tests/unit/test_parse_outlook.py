"""Outlook .msg: MAPI properties read from the OLE2 streams, attachments, compressed RTF."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from polyrag.errors import CorruptFileError, ParseError
from polyrag.parse.base import Document
from polyrag.parse.email import mail_document
from polyrag.parse.outlook import _RTF_PREBUF, _MessageReader, decompress_rtf
from polyrag.parse.router import ParserRouter
from polyrag.parse.sniff import sniff

CORPUS = Path(__file__).parents[3] / "shared" / "eval" / "corpus" / "email"
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared eval corpus is absent")


def parse_corpus(name: str) -> Document:
    data = (CORPUS / name).read_bytes()
    assert sniff(data, name) == "msg"
    return ParserRouter().parse(data, name)


def text_of(document: Document) -> str:
    return "\n".join(block.text for block in document.blocks)


@needs_corpus
def test_headers_and_body_of_a_saved_outlook_message() -> None:
    document = parse_corpus("unstructured__fake-email.msg")
    assert document.media_type == "msg"
    assert document.title == "Test Email"
    lines = document.blocks[1].text.splitlines()
    assert lines == [
        "From: Matthew Robinson <mrobinson@unstructured.io>",
        "To: Matthew Robinson <mrobinson@unstructured.io>",
        "Date: Fri, 16 Dec 2022 17:04:16 -0500",  # from the transport headers
        "Subject: Test Email",
    ]
    assert "Violets are blue" in text_of(document)


@needs_corpus
def test_attachments_of_a_message_with_submit_time_only() -> None:
    document = parse_corpus("docling__msg_with_attachment.msg")
    text = text_of(document)
    assert "From: Alice Example <alice@example.com>" in text
    assert "To: Bob Example <bob@example.com>" in text
    assert "Date: Wed, 20 May 2026 10:30:00 +0000" in text  # PR_CLIENT_SUBMIT_TIME
    assert "This email contains an attachment." in text
    assert [a.name for a in document.attachments] == ["test.txt", "report.pdf"]
    assert sniff(document.attachments[1].data, "report.pdf") == "pdf"


@needs_corpus
def test_attachment_data_is_the_file_itself() -> None:
    document = parse_corpus("unstructured__fake-email-attachment.msg")
    (attachment,) = document.attachments
    assert attachment.name == "fake-attachment.txt"
    assert b"Hey this is a fake attachment!" in attachment.data


@needs_corpus
def test_compressed_rtf_body_of_a_corpus_message() -> None:
    import olefile

    with olefile.OleFileIO(str(CORPUS / "unstructured__fake-email.msg")) as ole:
        compressed = ole.openstream("__substg1.0_10090102").read()
    assert compressed[8:12] == b"MELA"  # this one is stored uncompressed
    rtf = decompress_rtf(compressed)
    assert rtf.startswith(b"{\\rtf1") and b"Roses are red" in rtf
    assert rtf.rstrip().endswith(b"}")


def _literal_lzfu(payload: bytes) -> bytes:
    """Compressed RTF that uses literals only, closed by the end-of-stream reference."""
    body = bytearray()
    for start in range(0, len(payload), 8):
        chunk = payload[start : start + 8]
        body.append(0)
        body.extend(chunk)
    end = (len(_RTF_PREBUF) + len(payload)) % 4096
    if len(payload) % 8 == 0:
        body.append(0x01)
    else:
        body[-1 - len(payload) % 8] |= 1 << (len(payload) % 8)
    body.extend(struct.pack(">H", end << 4))
    header = struct.pack("<II4sI", len(body) + 12, len(payload), b"LZFu", 0)
    return header + bytes(body)


def test_decompress_rtf_literals_and_uncompressed() -> None:
    payload = b"{\\rtf1 Hello \\par World}"
    assert decompress_rtf(_literal_lzfu(payload)) == payload
    plain = struct.pack("<II4sI", len(payload) + 12, len(payload), b"MELA", 0) + payload
    assert decompress_rtf(plain) == payload
    # A reference into the initial dictionary ("{\\rtf1" at offset 0), two literals, the end.
    body = bytes([0b1001, 0x00, 0x04]) + b"Hi" + struct.pack(">H", (len(_RTF_PREBUF) + 8) << 4)
    packed = struct.pack("<II4sI", len(body) + 12, 8, b"LZFu", 0) + body
    assert decompress_rtf(packed) == b"{\\rtf1Hi"
    with pytest.raises(CorruptFileError):
        decompress_rtf(b"short")


class _FakeStorage:
    """An OLE2 file as a dict of stream paths, for the reader's logic."""

    def __init__(self, streams: dict[str, bytes]) -> None:
        self._streams = streams

    def exists(self, path: str) -> bool:
        return path in self._streams or any(key.startswith(path + "/") for key in self._streams)

    def openstream(self, path: list[str]) -> _FakeStream:
        return _FakeStream(self._streams["/".join(path)])

    def listdir(self, streams: bool = True, storages: bool = False) -> list[list[str]]:
        folders = {tuple(key.split("/")[:i]) for key in self._streams for i in range(1, 4)}
        return [list(f) for f in folders if "/".join(f) not in self._streams]


class _FakeStream:
    def __init__(self, data: bytes) -> None:
        self._data = data

    def read(self) -> bytes:
        return self._data


def _text(value: str) -> bytes:
    return value.encode("utf-16-le")


def test_attached_outlook_item_becomes_an_eml_with_its_own_attachment() -> None:
    inner = "__attach_version1.0_#00000000/__substg1.0_3701000D"
    streams = {
        "__substg1.0_0037001F": _text("Quarterly figures"),
        "__substg1.0_0C1A001F": _text("Grace Hopper"),
        "__substg1.0_5D01001F": _text("grace@example.org"),
        "__substg1.0_0E04001F": _text("Alan Turing"),
        "__substg1.0_1000001F": _text("Forwarding the figures."),
        "__attach_version1.0_#00000000/__substg1.0_3001001F": _text("Figures"),
        f"{inner}/__substg1.0_0037001F": _text("Figures for Q3"),
        f"{inner}/__substg1.0_1000001E": "Revenue rose to 4.2 million.".encode("cp1252"),
        f"{inner}/__attach_version1.0_#00000000/__substg1.0_3707001F": _text("q3.csv"),
        f"{inner}/__attach_version1.0_#00000000/__substg1.0_37010102": b"q,revenue\n3,4.2\n",
    }
    content = _MessageReader(_FakeStorage(streams), []).content(depth=0)
    document = mail_document("msg", content)
    text = text_of(document)
    assert "From: Grace Hopper <grace@example.org>" in text
    assert "To: Alan Turing" in text
    assert "Forwarding the figures." in text
    (attached,) = document.attachments
    assert attached.name == "Figures for Q3.eml"
    child = ParserRouter().parse(attached.data, attached.name)
    assert child.title == "Figures for Q3"
    assert "Revenue rose to 4.2 million." in text_of(child)
    assert [a.name for a in child.attachments] == ["q3.csv"]
    assert child.attachments[0].data == b"q,revenue\n3,4.2\n"


def test_truncated_msg_is_a_one_line_parse_error() -> None:
    data = (CORPUS / "unstructured__fake-email.msg").read_bytes() if CORPUS.is_dir() else b""
    if not data:
        pytest.skip("the shared eval corpus is absent")
    with pytest.raises(ParseError) as caught:
        ParserRouter().parse(data[:3000], "cut.msg")
    assert "\n" not in str(caught.value)
