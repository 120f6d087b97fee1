"""Legacy Office files (.doc, .ppt, .xls) → converted by LibreOffice headless, then parsed as OOXML.

Each conversion runs `soffice --convert-to` in its own temporary directory with its own user
profile (so conversions can run side by side), within a time limit; the .docx, .pptx or .xlsx it
writes goes to the Word, slides or spreadsheet parser. Without LibreOffice the file is refused
with the command that installs it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
from dataclasses import replace
from pathlib import Path

from polyrag.errors import CorruptFileError, UnsupportedFormatError
from polyrag.parse.base import Document
from polyrag.parse.slides import SlidesParser
from polyrag.parse.sniff import sniff
from polyrag.parse.spreadsheet import SpreadsheetParser
from polyrag.parse.word import WordParser
from polyrag.settings import LimitsSettings

INSTALL_HINT = (
    "install LibreOffice: apt-get install libreoffice-writer-nogui libreoffice-calc-nogui "
    "libreoffice-impress-nogui (or run `make system`)"
)
_TARGETS: dict[str, tuple[str, str, type[WordParser | SlidesParser | SpreadsheetParser]]] = {
    "doc": ("docx", "Word 97-2003 document", WordParser),
    "ppt": ("pptx", "PowerPoint 97-2003 presentation", SlidesParser),
    "xls": ("xlsx", "Excel 97-2003 workbook", SpreadsheetParser),
}


class LegacyOfficeParser:
    """Word, PowerPoint and Excel files in the binary formats of Office 97-2003."""

    media_types = frozenset(_TARGETS)
    version = "1"

    def __init__(
        self,
        limits: LimitsSettings | None = None,
        *,
        timeout_seconds: float = 120.0,
        soffice: str | None = None,
    ) -> None:
        self._limits = limits or LimitsSettings()
        self._timeout = timeout_seconds
        self._soffice = soffice

    def parse(self, data: bytes, *, name: str, password: str | None = None) -> Document:
        media_type = sniff(data, name)
        if media_type not in _TARGETS:
            raise UnsupportedFormatError(f"not a legacy Office file ({media_type})")
        target, label, parser_class = _TARGETS[media_type]
        binary = self._soffice or shutil.which("soffice") or shutil.which("libreoffice")
        if binary is None:
            raise UnsupportedFormatError(
                f"a legacy {label} (.{media_type}); reading it needs LibreOffice",
                hint=INSTALL_HINT,
            )
        converted = convert(data, media_type, target, binary, self._timeout)
        document = parser_class(self._limits).parse(converted, name=f"{name}.{target}")
        return replace(document, media_type=media_type)


def convert(data: bytes, source: str, target: str, binary: str, timeout: float) -> bytes:
    """`data` (a .doc/.ppt/.xls) converted by LibreOffice to `target` (docx/pptx/xlsx)."""
    with tempfile.TemporaryDirectory(prefix="polyrag-soffice-") as folder:
        work = Path(folder)
        source_path = work / f"input.{source}"
        source_path.write_bytes(data)
        out = work / "out"
        command = [
            binary,
            "--headless",
            "--norestore",
            "--nolockcheck",
            "--nodefault",
            "--nologo",
            f"-env:UserInstallation={(work / 'profile').as_uri()}",
            "--convert-to",
            target,
            "--outdir",
            str(out),
            str(source_path),
        ]
        env = {**os.environ, "HOME": str(work), "SAL_USE_VCLPLUGIN": "svp"}
        process = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            env=env,
            start_new_session=True,  # its own process group, so a hung soffice.bin dies with it
        )
        try:
            _, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(process.pid)
            process.communicate()
            raise CorruptFileError(
                f"LibreOffice did not convert it within {timeout:g} s (damaged or protected file?)"
            ) from None
        _kill_group(process.pid)  # anything it left running
        result = out / f"input.{target}"
        if not result.exists() or result.stat().st_size == 0:
            detail = " ".join(stderr.decode("utf-8", "replace").split())[:160]
            raise CorruptFileError(
                "LibreOffice could not convert it (damaged or password-protected?)"
                + (f": {detail}" if detail else "")
            )
        return result.read_bytes()


def _kill_group(group: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signal.SIGKILL)
