"""ZIP archives: members handed on as attachments, clutter skipped, hostile archives bounded."""

from __future__ import annotations

import io
import time
import zipfile
from pathlib import Path

import pytest

from polyrag.errors import CorruptFileError, EmptyFileError, EncryptedFileError, ParseError
from polyrag.parse.archive import ArchiveParser, is_junk
from polyrag.parse.router import ParserRouter
from polyrag.parse.sniff import sniff
from polyrag.settings import LimitsSettings

MALFORMED = Path(__file__).parents[3] / "shared" / "eval" / "corpus" / "malformed"
needs_corpus = pytest.mark.skipif(not MALFORMED.is_dir(), reason="the shared eval corpus is absent")


def make_zip(members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=method) as archive:
        for name, data in members.items():
            if name.endswith("/"):
                archive.writestr(zipfile.ZipInfo(name), b"")
            else:
                archive.writestr(name, data)
    return buffer.getvalue()


def test_members_become_attachments_named_by_their_path() -> None:
    inner = make_zip({"deep.txt": b"inside the inner archive"})
    data = make_zip(
        {
            "reports/": b"",
            "reports/q3.csv": b"quarter,revenue\nQ3,4.2\n",
            "notes.md": b"# Notes\n\nThe budget is 12 EUR.\n",
            "__MACOSX/reports/._q3.csv": b"\x00\x05\x16\x07junk",
            "reports/.DS_Store": b"junk",
            "Thumbs.db": b"junk",
            "inner.zip": inner,
            "empty.txt": b"",
        }
    )
    assert sniff(data, "bundle.zip") == "zip"
    document = ParserRouter().parse(data, "bundle.zip")
    assert document.media_type == "zip"
    names = [attachment.name for attachment in document.attachments]
    assert names == ["reports/q3.csv", "notes.md", "inner.zip"]
    by_name = {attachment.name: attachment.data for attachment in document.attachments}
    assert by_name["notes.md"].startswith(b"# Notes")
    assert sniff(by_name["inner.zip"], "inner.zip") == "zip"  # nested: the pipeline limits depth
    assert "reports/q3.csv" in document.blocks[0].text


def test_junk_paths() -> None:
    assert is_junk("__MACOSX/a/._b.pdf")
    assert is_junk("folder/")
    assert is_junk("a/.hidden")
    assert is_junk("A/THUMBS.DB")
    assert not is_junk("a/report.pdf")


def test_archive_of_only_clutter_is_empty() -> None:
    data = make_zip({"__MACOSX/._x": b"junk", "docs/": b""})
    with pytest.raises(EmptyFileError, match="empty ZIP archive"):
        ArchiveParser().parse(data, name="junk.zip")


def test_highly_compressed_member_is_refused_as_a_bomb() -> None:
    data = make_zip({"zeros.bin": b"\x00" * (50 * 1024 * 1024)})
    assert len(data) < 100_000
    started = time.perf_counter()
    with pytest.raises(CorruptFileError, match="ZIP bomb") as caught:
        ArchiveParser(LimitsSettings(max_compression_ratio=100)).parse(data, name="bomb.zip")
    assert time.perf_counter() - started < 5
    assert "\n" not in str(caught.value)


def test_total_unpacked_size_is_capped() -> None:
    members = {f"part{i}.txt": bytes([65 + i]) * 700_000 for i in range(4)}
    data = make_zip(members, method=zipfile.ZIP_STORED)
    with pytest.raises(CorruptFileError, match="more than 2 MB"):
        ArchiveParser(LimitsSettings(max_decompressed_mb=2)).parse(data, name="big.zip")


@needs_corpus
@pytest.mark.parametrize(
    ("name", "outcome"),
    [
        ("tika__droste.zip", CorruptFileError),  # a quine: contains itself
        ("tika__test-zip-of-zip.zip", None),
        ("tika__testZIP_corrupted_oom.zip", CorruptFileError),
        ("tika__testZipEncrypted.zip", EncryptedFileError),
    ],
)
def test_malformed_corpus_archives_end_quickly(name: str, outcome: type[ParseError] | None) -> None:
    data = (MALFORMED / name).read_bytes()
    started = time.perf_counter()
    if outcome is None:
        document = ParserRouter().parse(data, name)
        assert [a.name for a in document.attachments] == ["html-within-zip.zip"]
    else:
        with pytest.raises(outcome) as caught:
            ParserRouter().parse(data, name)
        assert "\n" not in caught.value.one_line()
    assert time.perf_counter() - started < 3
