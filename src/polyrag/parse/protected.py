"""Password-protected Office files: OOXML (docx, pptx, xlsx) encrypted inside an OLE2 container.

Office stores an encrypted document as an OLE2 compound file holding an `EncryptionInfo` stream
(how the key is derived) and an `EncryptedPackage` stream (the ZIP, encrypted). With the right
password msoffcrypto-tool (MIT) turns it back into the plain ZIP, which is then parsed like any
other file. Encrypted PDFs are opened by the PDF parser itself; encrypted ZIP members by SafeZip.
"""

from __future__ import annotations

import io

from polyrag.errors import CorruptFileError, EncryptedFileError, MissingDependencyError

_OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ENCRYPTION_INFO = "EncryptionInfo".encode("utf-16-le")
_ENCRYPTED_PACKAGE = "EncryptedPackage".encode("utf-16-le")

WRONG_PASSWORD_HINT = "check the password given with --password"


def is_encrypted_office(data: bytes) -> bool:
    """Whether `data` is an OLE2 container around an encrypted OOXML package."""
    return data.startswith(_OLE2) and _ENCRYPTION_INFO in data and _ENCRYPTED_PACKAGE in data


def decrypt_office(data: bytes, password: str) -> bytes:
    """The plain OOXML bytes of an encrypted Office file; raises EncryptedFileError if the
    password is wrong and CorruptFileError if the container is damaged."""
    try:
        import msoffcrypto
        from msoffcrypto import exceptions
    except ImportError:
        raise MissingDependencyError(
            "opening password-protected Office files needs msoffcrypto-tool"
        ) from None
    try:
        office = msoffcrypto.OfficeFile(io.BytesIO(data))
        office.load_key(password=password, verify_password=True)
        plain = io.BytesIO()
        office.decrypt(plain)
    except exceptions.InvalidKeyError:
        raise EncryptedFileError("wrong password", hint=WRONG_PASSWORD_HINT) from None
    except exceptions.DecryptionError as exc:
        if "password" in str(exc).lower() or "key" in str(exc).lower():
            raise EncryptedFileError("wrong password", hint=WRONG_PASSWORD_HINT) from None
        raise CorruptFileError(f"cannot be decrypted: {_first_line(exc)}") from None
    except (exceptions.FileFormatError, exceptions.ParseError) as exc:
        raise CorruptFileError(f"a damaged encrypted Office file ({_first_line(exc)})") from None
    except (OSError, ValueError, KeyError, IndexError, AssertionError) as exc:
        raise CorruptFileError(f"a damaged encrypted Office file ({_first_line(exc)})") from None
    return plain.getvalue()


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    text = lines[0] if lines else type(exc).__name__
    return text if len(text) <= 120 else text[:117] + "..."
