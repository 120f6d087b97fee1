"""Hostile and damaged files: each parses or fails with one clear ParseError, fast and lean.

The damaged files are the corpus's real ones (corpus/malformed, corpus/pdf_malformed); the bombs
are crafted here: deflate bombs, overlapping entries, a header that understates its size, too
many members, billion laughs and external entities in DOCX and XLSX, and a PNG that claims
gigapixels. Time and peak memory are measured in a child process, so that a regression shows as
a failed assertion instead of a machine out of memory.
"""

from __future__ import annotations

import io
import json
import struct
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path

import pytest

from polyrag.errors import CorruptFileError, EncryptedFileError, ParseError
from polyrag.parse.router import ParserRouter, default_parsers
from polyrag.parse.safety import SafeZip, ZipLimits, check_zip
from polyrag.settings import LimitsSettings, ParseSettings

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "eval" / "corpus"
DAMAGED = sorted(
    path
    for folder in ("malformed", "pdf_malformed")
    for path in (CORPUS / folder).glob("*")
    if path.is_file()
)
MB = 1024 * 1024
# Per file: a bound that catches a hang or a runaway, not a speed target (parse speed is
# measured by `make bench`). The slowest file, five pages of dense drawings through
# pdfplumber's table finder, takes 5-8 s on a 2-core machine when nothing else runs.
SECONDS = 15.0
PEAK_MB = 1536  # for the whole child process, interpreter and libraries included

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="shared/eval/corpus is not present")

# The child's own high-water mark (VmHWM): getrusage's ru_maxrss survives exec, so a child of a
# test process that already holds the language model would report that process's size.
_CHILD = """
import json, sys, time
from pathlib import Path
from polyrag.errors import ParseError
from polyrag.parse.router import ParserRouter
router = ParserRouter()
results = []
for path in sys.argv[1:]:
    data = Path(path).read_bytes()
    start = time.perf_counter()
    try:
        document = router.parse(data, Path(path).name)
        outcome = "parsed " + document.media_type
    except ParseError as error:
        outcome = type(error).__name__ + ": " + error.one_line()
    seconds = time.perf_counter() - start
    status = Path("/proc/self/status").read_text().splitlines()
    peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) / 1024
    results.append({"name": Path(path).name, "outcome": outcome, "seconds": seconds,
                    "peak_mb": peak})
print(json.dumps(results))
"""


def _parse_in_child(paths: list[Path]) -> list[dict[str, object]]:
    """Parse each file in one child process; any exception but a ParseError fails the run."""
    run = subprocess.run(
        [sys.executable, "-c", _CHILD, *map(str, paths)],
        capture_output=True,
        text=True,
        timeout=30 + SECONDS * len(paths),
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    results: list[dict[str, object]] = json.loads(run.stdout.strip().splitlines()[-1])
    return results


_OUTCOMES = (
    "parsed ",
    "CorruptFileError",
    "EmptyFileError",
    "EncryptedFileError",
    "UnsupportedFormatError",
)


def test_every_damaged_file_ends_quickly_in_a_document_or_one_clear_error() -> None:
    assert len(DAMAGED) >= 25
    results = _parse_in_child(DAMAGED)
    assert [r["name"] for r in results] == [path.name for path in DAMAGED]
    for result in results:
        outcome = str(result["outcome"])
        assert float(result["seconds"]) < SECONDS, result  # type: ignore[arg-type]
        assert "\n" not in outcome and "Traceback" not in outcome, result
        assert outcome.startswith(_OUTCOMES), result
    assert max(float(r["peak_mb"]) for r in results) < PEAK_MB  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("tika__testWORD_truncated.docx", "truncated or damaged Office file"),
        ("derived__xlsx-truncated-20KB.xlsx", "truncated or damaged XLSX"),
        ("derived__tracemonkey-truncated-300KB.pdf", "damaged PDF"),
        ("unstructured__empty.txt", "empty file"),
        ("unstructured__fake-text-all-whitespace.txt", "whitespace"),
        ("tika__quine.gz", "gzip"),
        ("tika__testZipEncrypted.zip", "encrypted ZIP"),
    ],
)
def test_damaged_files_say_why(name: str, expected: str) -> None:
    data = (CORPUS / "malformed" / name).read_bytes()
    with pytest.raises(ParseError, match=expected):
        ParserRouter().parse(data, name)


def test_the_droste_quine_is_refused_by_the_zip_checks() -> None:
    data = (CORPUS / "malformed" / "tika__droste.zip").read_bytes()
    with pytest.raises(CorruptFileError, match=r"ZIP quine: the member droste\.zip is the archive"):
        check_zip(data)


# --- crafted ZIP bombs ------------------------------------------------------------------------


def _zip(members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", method) as archive:
        for name, data in members.items():
            archive.writestr(name, data, compress_type=method, compresslevel=9)
    return out.getvalue()


def _docx_with(document_xml: bytes) -> bytes:
    """A minimal valid DOCX whose body is `document_xml`."""
    return _zip(
        {
            "[Content_Types].xml": b'<?xml version="1.0"?><Types xmlns="http://schemas.'
            b'openxmlformats.org/package/2006/content-types"><Default Extension="rels" '
            b'ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default '
            b'Extension="xml" ContentType="application/xml"/><Override PartName="/word/document'
            b'.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.'
            b'document.main+xml"/></Types>',
            "_rels/.rels": b'<?xml version="1.0"?><Relationships xmlns="http://schemas.'
            b'openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="'
            b"http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
            b'officeDocument" Target="word/document.xml"/></Relationships>',
            "word/document.xml": document_xml,
        }
    )


_W = b'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def _body(text: bytes, prolog: bytes = b"") -> bytes:
    return (
        b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' + prolog + b"<w:document "
        + _W + b"><w:body><w:p><w:r><w:t>" + text + b"</w:t></w:r></w:p></w:body></w:document>"
    )  # fmt: skip


def test_a_crafted_docx_parses_so_that_the_bombs_below_are_meaningful() -> None:
    document = ParserRouter().parse(_docx_with(_body(b"Hello bombs")), "ok.docx")
    assert [block.text for block in document.blocks] == ["Hello bombs"]


def _deflate_bomb(unpacked_mb: int) -> bytes:
    """A DOCX whose document.xml unpacks to `unpacked_mb` MB of spaces (about 1,000:1)."""
    body = _body(b"x" + b" " * (unpacked_mb * MB))
    return _docx_with(body)


def _router(**limits: float) -> ParserRouter:
    return ParserRouter(default_parsers(ParseSettings(limits=LimitsSettings(**limits))))


def test_a_deflate_bomb_is_refused_before_it_is_unpacked() -> None:
    bomb = _deflate_bomb(40)
    assert len(bomb) < 100_000
    with pytest.raises(CorruptFileError, match=r"a ZIP bomb: .* more than 16 MB"):
        _router(max_decompressed_mb=16, max_compression_ratio=5000).parse(bomb, "bomb.docx")
    with pytest.raises(CorruptFileError, match=r"a ZIP bomb: word/document\.xml unpacks 1,0\d\d×"):
        _router().parse(bomb, "bomb.docx")  # default ratio limit 200×


def test_the_same_checks_guard_pptx_and_xlsx() -> None:
    big = b" " * (8 * MB)
    for name, part in (("deck.pptx", "ppt/presentation.xml"), ("book.xlsx", "xl/workbook.xml")):
        with pytest.raises(CorruptFileError, match=r"a ZIP bomb: .* unpacks"):
            _router().parse(_zip({part: big, "[Content_Types].xml": b"<Types/>"}), name)


def _central_entry(name: bytes, kernel: bytes) -> bytes:
    """A central directory entry for a stored member whose local header is at offset 0."""
    crc, size = zlib.crc32(kernel), len(kernel)
    fields = (b"PK\x01\x02", 20, 20, 0, 0, 0, 0, crc, size, size, len(name), 0, 0, 0, 0, 0, 0)
    return struct.pack("<4s6H3L5H2L", *fields) + name


def _overlapping_zip(copies: int, kernel: bytes) -> bytes:
    """Fifield's non-recursive bomb, simplified: many directory entries, one stored member."""
    local = struct.pack(
        "<4s5H3L2H", b"PK\x03\x04", 20, 0, 0, 0, 0, zlib.crc32(kernel), len(kernel),
        len(kernel), 1, 0,
    ) + b"k" + kernel  # fmt: skip
    central = b"".join(_central_entry(f"m{i}".encode(), kernel) for i in range(copies))
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, copies, copies, len(central), len(local), 0)
    return local + central + end


def test_overlapping_entries_are_refused() -> None:
    archive = _overlapping_zip(50, bytes(range(256)) * 1024)
    with pytest.raises(CorruptFileError, match="the entries m0 and m1 overlap"):
        check_zip(archive)
    with pytest.raises(CorruptFileError, match="overlap"):
        SafeZip(archive)


def test_a_member_that_understates_its_size_stops_at_the_declared_size() -> None:
    honest = _zip({"a.txt": b"a" * (4 * MB)})
    # rewrite both headers to claim 1,000 bytes: zipfile then stops there and the CRC fails
    lying = honest.replace(struct.pack("<L", 4 * MB), struct.pack("<L", 1000))
    with SafeZip(lying) as archive, pytest.raises(CorruptFileError, match="damaged ZIP member"):
        archive.read("a.txt")


def test_the_reader_stops_at_its_byte_cap_and_budget() -> None:
    with SafeZip(_zip({"a.txt": b"a" * MB, "b.txt": b"b" * MB})) as archive:
        with pytest.raises(CorruptFileError, match=r"a ZIP bomb: a\.txt would unpack to more"):
            archive.read("a.txt", max_bytes=MB // 2)
        assert len(archive.read("a.txt")) == MB
    small = ZipLimits(max_bytes=int(1.5 * MB), max_ratio=10_000, max_members=10)
    with SafeZip(_zip({"a.txt": b"a" * MB}), small) as archive:
        archive.read("a.txt")  # the budget counts bytes read, so reading again runs it out
        with pytest.raises(CorruptFileError, match=r"a\.txt would unpack to more than 0\.5 MB"):
            archive.read("a.txt")


def test_too_many_members_are_refused() -> None:
    many = _zip({f"{i}.txt": b"" for i in range(300)}, zipfile.ZIP_STORED)
    with pytest.raises(CorruptFileError, match="300 members, more than the 200 allowed"):
        check_zip(many, ZipLimits(max_bytes=MB, max_ratio=200, max_members=200))


# --- XML entities -----------------------------------------------------------------------------

_LAUGHS = (
    b'<!DOCTYPE lolz [<!ENTITY lol0 "lol">'
    + b"".join(b"<!ENTITY lol%d '%s'>" % (i, b"&lol%d;" % (i - 1) * 10) for i in range(1, 10))
    + b"]>\n"
)
_EXTERNAL = b'<!DOCTYPE x [<!ENTITY secret SYSTEM "file:///etc/passwd">]>\n'


@pytest.mark.parametrize(
    ("prolog", "text"), [(_LAUGHS, b"laugh &lol9;"), (_EXTERNAL, b"leak &secret;")]
)
def test_entities_in_a_docx_are_refused(prolog: bytes, text: bytes) -> None:
    with pytest.raises(CorruptFileError, match=r"XML entity attack: word/document\.xml declares"):
        ParserRouter().parse(_docx_with(_body(text, prolog)), "entities.docx")


def _xlsx_with(sheet_xml: bytes) -> bytes:
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    book.active["A1"] = "MARKER"
    plain = io.BytesIO()
    book.save(plain)
    source = zipfile.ZipFile(plain)
    parts = {info.filename: source.read(info) for info in source.infolist()}
    parts["xl/worksheets/sheet1.xml"] = sheet_xml
    return _zip(parts)


def _sheet(prolog: bytes, text: bytes) -> bytes:
    return (
        b'<?xml version="1.0"?>' + prolog + b'<worksheet xmlns="http://schemas.openxmlformats.'
        b'org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>'
        + text + b"</t></is></c></row></sheetData></worksheet>"
    )  # fmt: skip


def test_a_crafted_xlsx_parses() -> None:
    document = ParserRouter().parse(_xlsx_with(_sheet(b"", b"Hello cells")), "ok.xlsx")
    assert any("Hello cells" in block.text for block in document.blocks)


@pytest.mark.parametrize(
    ("prolog", "text"), [(_LAUGHS, b"laugh &lol9;"), (_EXTERNAL, b"leak &secret;")]
)
def test_entities_in_an_xlsx_are_refused(prolog: bytes, text: bytes) -> None:
    with pytest.raises(CorruptFileError, match=r"XML entity attack: xl/worksheets/sheet1\.xml"):
        ParserRouter().parse(_xlsx_with(_sheet(prolog, text)), "entities.xlsx")


def test_entities_behind_a_long_prolog_still_fail_cleanly_without_leaking() -> None:
    """Past the prolog scan, the XML libraries' own guards must hold: no expansion, no leak."""
    padding = b"<!--" + b"p" * 10_000 + b"-->"
    for prolog, text in ((_LAUGHS, b"laugh &lol9;"), (_EXTERNAL, b"leak &secret;")):
        for data, name in (
            (_docx_with(_body(text, padding + prolog)), "late.docx"),
            (_xlsx_with(_sheet(padding + prolog, text)), "late.xlsx"),
        ):
            try:
                document = ParserRouter().parse(data, name)
            except ParseError as error:
                assert "\n" not in str(error)
                continue
            text_out = " ".join(block.text for block in document.blocks)
            assert "root:" not in text_out and "lollol" not in text_out


# --- image decompression bombs ----------------------------------------------------------------


def _png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, payload: bytes) -> bytes:
        body = kind + payload
        return struct.pack(">L", len(payload)) + body + struct.pack(">L", zlib.crc32(body))

    header = struct.pack(">LLBBBBB", width, height, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00" * 1024)
    chunks = chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    return b"\x89PNG\r\n\x1a\n" + chunks


def test_an_image_claiming_gigapixels_fails_fast() -> None:
    router = ParserRouter()
    if "image" not in router.media_types:
        pytest.skip("no image parser registered yet")
    bomb = _png(100_000, 100_000)  # 10 gigapixels declared, 1 KB of data
    assert len(bomb) < 200
    with pytest.raises(ParseError) as error:
        router.parse(bomb, "bomb.png")
    assert "\n" not in str(error.value)


def test_the_bombs_stay_within_time_and_memory_in_a_child_process(tmp_path: Path) -> None:
    bombs = {
        "deflate-bomb.docx": _deflate_bomb(60),
        "laughs.docx": _docx_with(_body(b"laugh &lol9;", _LAUGHS)),
        "overlap.zip": _overlapping_zip(2000, bytes(range(256)) * 4096),
        "gigapixels.png": _png(100_000, 100_000),
    }
    paths = []
    for name, data in bombs.items():
        (tmp_path / name).write_bytes(data)
        paths.append(tmp_path / name)
    results = _parse_in_child(paths)
    for result in results:
        assert float(result["seconds"]) < SECONDS, result  # type: ignore[arg-type]
        assert not str(result["outcome"]).startswith("parsed "), result
    assert max(float(r["peak_mb"]) for r in results) < PEAK_MB  # type: ignore[arg-type]


def test_an_encrypted_zip_member_needs_its_password() -> None:
    data = (CORPUS / "malformed" / "tika__testZipEncrypted.zip").read_bytes()
    with SafeZip(data) as archive:
        names = {info.filename: info for info in archive.members()}
        assert archive.read(names["unencrypted.txt"]).strip() == b"hello world"
        with pytest.raises(EncryptedFileError, match="encrypted ZIP member"):
            archive.read(names["encrypted.txt"])
