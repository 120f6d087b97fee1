"""Password-protected files: real encrypted PDFs and Office files from the corpus, and ZipCrypto.

The passwords come from the files' origins: Tika's tests use "tika" (and a long Unicode one for
testUnicodePassword.pdf, TIKA-2858), pdfplumber's password-example uses "test", py-pdf's
sample-files "openpassword", docling's "1234"; unstructured's password.pdf opens with "password"
and its password_protected.xlsx with "123".
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest

from polyrag.errors import EncryptedFileError, ParseError
from polyrag.parse.protected import decrypt_office, is_encrypted_office
from polyrag.parse.router import ParserRouter
from polyrag.parse.safety import SafeZip

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "eval" / "corpus"
pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="shared/eval/corpus is not present")

TIKA_UNICODE = (
    '  ! < > " \\ \u20ac \u0153 \u00a4 1\u20444 1\u20442 \U0002070e \U00029d98 \U0001f600  '
)
PROTECTED = [
    ("docx/tika__testWORD_protected_passtika.docx", "tika", "docx", "encrypted Word 2007 File"),
    ("pptx/tika__testPPT_protected_passtika.pptx", "tika", "pptx", "encrypted PowerPoint 2007"),
    ("xlsx/unstructured__password_protected.xlsx", "123", "xlsx", "Row 1 Column 1"),
    ("pdf_encrypted/pdfplumber__password-example.pdf", "test", "pdf", "Backup4all"),
    ("pdf_encrypted/unstructured__password.pdf", "password", "pdf", "File with password"),
    ("pdf_encrypted/sample-files__libreoffice-writer-password.pdf", "openpassword", "pdf", "Lorem"),
    ("pdf_encrypted/docling__2206.01062_pg3.pdf", "1234", "pdf", "DocLayNet"),
    ("pdf_encrypted/tika__testUnicodePassword.pdf", TIKA_UNICODE, "pdf", "Just some text."),
]
OWNER_ONLY = [  # encrypted, but the user password is empty: they open with none
    ("pdf_encrypted/unstructured__copy-protected.pdf", "LayoutParser"),
    ("pdf_encrypted/tika__testPDF_protected.pdf", "RETHINKING THE FINANCIAL NETWORK"),
]


def _parse(relative: str, password: str | None = None) -> str:
    document = ParserRouter().parse((CORPUS / relative).read_bytes(), Path(relative).name, password)
    return "\n".join(block.text for block in document.blocks)


@pytest.mark.parametrize(("relative", "password", "media_type", "text"), PROTECTED)
def test_the_right_password_opens_the_file(
    relative: str, password: str, media_type: str, text: str
) -> None:
    document = ParserRouter().parse((CORPUS / relative).read_bytes(), Path(relative).name, password)
    assert document.media_type == media_type
    assert text in "\n".join(block.text for block in document.blocks)


@pytest.mark.parametrize(("relative", "password", "media_type", "text"), PROTECTED)
def test_without_a_password_it_says_encrypted_and_how_to_open_it(
    relative: str, password: str, media_type: str, text: str
) -> None:
    with pytest.raises(EncryptedFileError, match="encrypted") as error:
        _parse(relative)
    assert "wrong" not in str(error.value)
    assert error.value.one_line().endswith("(pass --password)")


@pytest.mark.parametrize(("relative", "password", "media_type", "text"), PROTECTED)
def test_a_wrong_password_says_so(relative: str, password: str, media_type: str, text: str) -> None:
    with pytest.raises(EncryptedFileError, match="wrong password") as error:
        _parse(relative, "not-" + password)
    assert "check the password" in error.value.one_line()


@pytest.mark.parametrize(("relative", "text"), OWNER_ONLY)
def test_copy_protected_pdfs_open_without_a_password_or_with_another_files(
    relative: str, text: str
) -> None:
    assert text in _parse(relative)
    assert text in _parse(relative, "a password meant for another file")


def test_files_without_protection_ignore_a_password() -> None:
    for relative in ("docx/unstructured__handbook-1p.docx", "xlsx/unstructured__stanley-cups.xlsx"):
        assert _parse(relative, "tika") == _parse(relative)


def test_an_encrypted_pdf_with_an_empty_user_password_opens() -> None:
    with pytest.raises(ParseError, match="no text found"):  # it opens; its one page is blank
        _parse("pdf_encrypted/pdfjs__empty_protected.pdf")


def test_decryption_itself() -> None:
    data = (CORPUS / "docx/tika__testWORD_protected_passtika.docx").read_bytes()
    assert is_encrypted_office(data)
    plain = decrypt_office(data, "tika")
    assert plain.startswith(b"PK\x03\x04") and not is_encrypted_office(plain)
    assert not is_encrypted_office((CORPUS / "docx/unstructured__handbook-1p.docx").read_bytes())


# --- ZipCrypto (the classic ZIP password) -------------------------------------------------------


def _crc_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xEDB88320 if crc & 1 else crc >> 1
        table.append(crc)
    return table


def _zipcrypto(plain: bytes, password: bytes, check: int) -> bytes:
    """PKWARE's traditional encryption of a 12-byte header (ending in `check`) and `plain`."""
    table = _crc_table()
    keys = [0x12345678, 0x23456789, 0x34567890]

    def update(byte: int) -> None:
        keys[0] = (keys[0] >> 8) ^ table[(keys[0] ^ byte) & 0xFF]
        keys[1] = ((keys[1] + (keys[0] & 0xFF)) * 134775813 + 1) & 0xFFFFFFFF
        keys[2] = (keys[2] >> 8) ^ table[(keys[2] ^ (keys[1] >> 24)) & 0xFF]

    for byte in password:
        update(byte)
    out = bytearray()
    for byte in bytes(11) + bytes([check]) + plain:
        temp = keys[2] | 2
        out.append(byte ^ (((temp * (temp ^ 1)) >> 8) & 0xFF))
        update(byte)
    return bytes(out)


def _encrypted_zip(name: bytes, plain: bytes, password: bytes) -> bytes:
    crc = zlib.crc32(plain)
    body = _zipcrypto(plain, password, crc >> 24)
    size = (crc, len(body), len(plain), len(name))
    local = struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 1, 0, 0, 0, *size, 0) + name + body
    central = struct.pack(
        "<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 1, 0, 0, 0, *size, 0, 0, 0, 0, 0, 0
    ) + name  # fmt: skip
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 1, 1, len(central), len(local), 0)
    return local + central + end


def test_zipcrypto_members_open_with_the_password() -> None:
    data = _encrypted_zip(b"secret.txt", b"The vault code is 4711.", b"tika")
    with pytest.raises(EncryptedFileError, match="encrypted ZIP archive"):
        ParserRouter().parse(data, "vault.zip")
    with SafeZip(data, password="tika") as archive:
        assert archive.read("secret.txt") == b"The vault code is 4711."
    with (
        SafeZip(data, password="wrong") as archive,
        pytest.raises(EncryptedFileError, match="wrong password"),
    ):
        archive.read("secret.txt")
    with SafeZip(data) as archive, pytest.raises(EncryptedFileError, match="encrypted ZIP member"):
        archive.read("secret.txt")


def test_an_encrypted_zip_with_a_password_goes_to_the_archive_parser() -> None:
    data = _encrypted_zip(b"secret.txt", b"The vault code is 4711.", b"tika")
    router = ParserRouter()
    if "zip" not in router.media_types:
        pytest.skip("no archive parser registered yet")
    document = router.parse(data, "vault.zip", password="tika")
    texts = [block.text for block in document.blocks]
    assert document.attachments or texts
    if document.attachments:
        assert document.attachments[0].data == b"The vault code is 4711."
