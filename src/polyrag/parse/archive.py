"""ZIP archives → their members as attachments, within the limits against zip bombs.

Each file in the archive becomes an `Attachment` named by its path inside the archive; the
pipeline ingests it as a child source (`archive.zip#folder/report.pdf`) and limits how deep
archives inside archives go. Folders and operating-system clutter (__MACOSX, .DS_Store,
Thumbs.db, hidden files) are skipped. `SafeZip` checks the directory before anything is unpacked
and reads every member against one byte budget that holds whatever the headers claim.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from polyrag.errors import CorruptFileError, EmptyFileError, EncryptedFileError, ParseError
from polyrag.parse.base import Attachment, Document
from polyrag.parse.safety import SafeZip
from polyrag.settings import LimitsSettings
from polyrag.types import Block, BlockKind

_JUNK_FOLDERS = {"__MACOSX", ".git", ".svn"}
_JUNK_FILES = {"thumbs.db", "desktop.ini", ".ds_store"}
_LISTED_NAMES = 200  # members named in the archive's own text block


class ArchiveParser:
    """ZIP archives (.zip): every member is handed on to be parsed in its own right."""

    media_types = frozenset({"zip"})
    version = "1"

    def __init__(self, limits: LimitsSettings | None = None) -> None:
        self._limits = limits or LimitsSettings()

    def parse(self, data: bytes, *, name: str, password: str | None = None) -> Document:
        attachments: list[Attachment] = []
        warnings: list[str] = []
        with SafeZip(data, self._limits, password=password) as archive:
            members = [info for info in archive.members() if not is_junk(info.filename)]
            if not members:
                raise EmptyFileError("an empty ZIP archive (no files in it)")
            for info in members:
                if info.file_size == 0 and info.compress_size == 0:
                    continue
                try:
                    member = archive.read(info)
                except EncryptedFileError:
                    raise
                except ParseError as exc:
                    if "ZIP bomb" in str(exc):
                        raise  # the budget for the whole archive is spent: stop here
                    warnings.append(f"{info.filename}: {exc}")
                    continue
                if member:
                    attachments.append(Attachment(info.filename.strip("/"), member))
        if not attachments:
            reason = warnings[0] if warnings else "only empty files"
            raise CorruptFileError(f"nothing readable in the ZIP archive ({reason})")
        listed = [attachment.name for attachment in attachments[:_LISTED_NAMES]]
        more = len(attachments) - len(listed)
        summary = (
            f"ZIP archive with {len(attachments)} file{'s' if len(attachments) != 1 else ''}: "
            + ", ".join(listed)
        )
        if more:
            summary += f" and {more} more"
        return Document(
            media_type="zip",
            blocks=(Block(BlockKind.TEXT, summary),),
            pages=len(attachments),
            warnings=tuple(warnings),
            attachments=tuple(attachments),
        )


def is_junk(path: str) -> bool:
    """Folders, hidden files and the clutter operating systems leave in archives."""
    if path.endswith("/"):
        return True
    parts = PurePosixPath(path.replace("\\", "/")).parts
    if not parts or any(part in _JUNK_FOLDERS for part in parts):
        return True
    leaf = parts[-1]
    return leaf.startswith(".") or leaf.startswith("._") or leaf.lower() in _JUNK_FILES
