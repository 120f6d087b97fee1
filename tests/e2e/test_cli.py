"""The CLI as a user runs it: real files from ../shared/eval/corpus, real models, real index."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from polyrag.types import REFUSAL, REFUSAL_REASONS

from ..conftest import CORPUS, SHARED

pytestmark = pytest.mark.slow

FOLDERS = ["docx", "pptx", "csv", "xlsx", "html", "text_md", "pdf_multicolumn", "malformed"]
OFFICE_QA = [json.loads(line) for line in (SHARED / "eval/office-qa/questions.jsonl").open()]
# The corpus holds the same Stanley Cups table as XLSX, CSV (UTF-8 and UTF-16) and TSV: a
# citation of any of them points at the table the question asks about.
SAME_TABLE = {
    "unstructured__stanley-cups.xlsx": {
        "unstructured__stanley-cups.xlsx",
        "unstructured__stanley-cups.csv",
        "unstructured__stanley-cups-utf-16.csv",
        "unstructured__stanley-cups-with-emoji.tsv",
    }
}


def polyrag(home: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "polyrag.cli.app", *args, "--home", str(home)],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert "Traceback" not in done.stderr, done.stderr
    if check:
        assert done.returncode == 0, done.stderr
    return done


def polyrag_json(home: Path, *args: str, code: int = 0) -> Any:
    done = polyrag(home, *args, "--json", check=False)
    assert done.returncode == code, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("home")


@pytest.fixture(scope="module")
def ingested(home: Path) -> dict[str, Any]:
    report: dict[str, Any] = polyrag_json(
        home, "ingest", *[str(CORPUS / f) for f in FOLDERS], code=1
    )
    return report


def test_mixed_folder_ingests_and_bad_files_get_one_line(ingested: dict[str, Any]) -> None:
    everything = {Path(item["path"]).name for item in ingested["ingested"]}
    # Files inside files (archive members) are sources of their own at `<file>#<name>`.
    assert "tika__test-zip-of-zip.zip#html-within-zip.zip#text.html" in everything
    names = {name for name in everything if "#" not in name}
    for wanted in [
        "unstructured__norwich-city.txt",
        "unstructured__handbook-1p.docx",
        "unstructured__fake-power-point-table.pptx",
        "pdfjs__tracemonkey.pdf",
        "unstructured__stanley-cups.xlsx",
        "unstructured__stanley-cups.csv",
        "docling__wiki_duck.html",
    ]:
        assert wanted in names
    assert all(item["chunks"] > 0 and len(item["source_id"]) >= 12 for item in ingested["ingested"])
    failed = {
        Path(item["path"]).name: item["error"]
        for item in ingested["failed"]
        if "#" not in Path(item["path"]).name
    }
    for bad in [
        "derived__xlsx-truncated-20KB.xlsx",
        "unstructured__empty.txt",
        "unstructured__fake-text-all-whitespace.txt",
        "tika__testWORD_protected_passtika.docx",
    ]:
        assert bad in failed
    for error in failed.values():
        assert error and "\n" not in error and "Traceback" not in error
    assert "encrypted" in failed["tika__testWORD_protected_passtika.docx"]
    # every file is accounted for exactly once
    given = {p.name for f in FOLDERS for p in (CORPUS / f).iterdir() if p.is_file()}
    assert names | set(failed) == given
    assert not names & set(failed)


def test_reingest_skips_unchanged(home: Path, ingested: dict[str, Any]) -> None:
    again = polyrag_json(home, "ingest", str(CORPUS / "text_md"), str(CORPUS / "csv"))
    assert again["ingested"] == [] and again["failed"] == []
    assert len(again["skipped"]) == len(list((CORPUS / "text_md").iterdir())) + len(
        list((CORPUS / "csv").iterdir())
    )


def test_a_refusal_says_why(home: Path, ingested: dict[str, Any]) -> None:
    question = "zqxv blorft wumpus frabble?"
    reply = polyrag_json(home, "ask", question)
    assert reply["refused"] is True and reply["refusal_reason"] in REFUSAL_REASONS
    assert reply["citations"] == []
    shown = polyrag(home, "ask", question).stdout
    assert REFUSAL in shown
    assert "(why: " in shown or "(withdrawn: " in shown, shown


def test_search_returns_located_hits(home: Path, ingested: dict[str, Any]) -> None:
    result = polyrag_json(home, "search", "Stanley Cups Maple Leafs", "--k", "5")
    assert len(result["hits"]) == 5
    assert result["hits"][0]["locator"].get("sheet")
    assert {"path", "locator", "score", "text"} <= set(result["hits"][0])
    assert result["timings_ms"]["total"] > 0


@pytest.mark.parametrize("case", OFFICE_QA, ids=[case["id"] for case in OFFICE_QA])
def test_office_qa(home: Path, ingested: dict[str, Any], case: dict[str, Any]) -> None:
    reply = polyrag_json(home, "ask", case["question"])
    assert set(reply) >= {"answer", "refused", "citations", "provider", "timings_ms"}
    if case.get("unanswerable"):
        assert reply["refused"] is True and reply["answer"] == REFUSAL
        assert reply["citations"] == []
        assert reply["refusal_reason"] in REFUSAL_REASONS
        return
    assert reply["refused"] is False and reply["refusal_reason"] is None, reply
    assert any(a.lower() in reply["answer"].lower() for a in case["answer_any"]), reply["answer"]
    cited = {Path(c["path"]).name for c in reply["citations"]}
    expected = Path(case["source"]).name
    right = SAME_TABLE.get(expected, {expected})
    assert cited & right, (cited, reply["answer"])
    # The citation names the exact place: the page of a PDF, the sheet and rows of a table.
    for citation in reply["citations"]:
        if Path(citation["path"]).name not in right:
            continue
        locator = citation["locator"]
        if expected.endswith(".pdf"):
            assert isinstance(locator.get("page"), int) and locator["page"] >= 1, locator
        if expected.endswith(".xlsx"):
            assert locator.get("sheet") and len(locator.get("rows", [])) == 2, locator
        if expected.endswith(".pptx"):
            assert locator.get("slide") == 1, locator
    assert reply["provider"].startswith("local:")
    assert reply["timings_ms"]["first_token"] <= reply["timings_ms"]["total"]


def test_removed_source_no_longer_answers(tmp_path: Path) -> None:
    home = tmp_path / "home"
    doc = tmp_path / "norwich.txt"
    shutil.copy(CORPUS / "text_md/unstructured__norwich-city.txt", doc)
    polyrag_json(home, "ingest", str(doc), str(CORPUS / "text_md/docling__wiki.md"))
    listed = polyrag_json(home, "sources", "list")["sources"]
    assert {Path(s["path"]).name for s in listed} == {"norwich.txt", "docling__wiki.md"}
    before = polyrag_json(home, "ask", "On what date was Iwan Roberts born?")
    assert not before["refused"]
    removed = polyrag_json(home, "sources", "remove", str(doc))["removed"]
    assert [Path(r["path"]).name for r in removed] == ["norwich.txt"]
    after = polyrag_json(home, "ask", "On what date was Iwan Roberts born?")
    assert after["refused"] is True and after["refusal_reason"] in REFUSAL_REASONS
    hits = polyrag_json(home, "search", "Iwan Roberts Norwich")["hits"]
    assert all(Path(h["path"]).name != "norwich.txt" for h in hits)
    gone = polyrag(home, "sources", "remove", str(doc), check=False)
    assert gone.returncode == 2 and gone.stderr.count("\n") == 1


def test_text_output_and_exit_codes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    done = polyrag(home, "ingest", str(CORPUS / "malformed/unstructured__empty.txt"), check=False)
    assert done.returncode == 1
    assert "unstructured__empty.txt" in done.stderr and "empty" in done.stderr
    done = polyrag(home, "ingest", str(tmp_path / "missing.pdf"), check=False)
    assert done.returncode == 1 and "no such file" in done.stderr


def test_chat_rewrites_follow_ups(home: Path, ingested: dict[str, Any]) -> None:
    turns = "On what date was Iwan Roberts born?\nFor which club did he make 278 appearances?\n"
    done = subprocess.run(
        [sys.executable, "-m", "polyrag.cli.app", "chat", "--home", str(home)],
        input=turns,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    understood = [line for line in done.stdout.splitlines() if "understood as:" in line]
    assert understood and "Roberts" in understood[0], done.stdout
    assert "1968" in done.stdout and "Norwich" in done.stdout


def test_password_sync_and_attachments_listed_under_their_message(tmp_path: Path) -> None:
    home = tmp_path / "home"
    locked = CORPUS / "pdf_encrypted/pdfplumber__password-example.pdf"  # password: test
    refused = polyrag(home, "ingest", str(locked), check=False)
    assert refused.returncode == 1 and "pass --password" in refused.stderr
    opened = polyrag_json(home, "ingest", str(locked), "--password", "test")
    assert [Path(item["path"]).name for item in opened["ingested"]] == [locked.name]

    folder = tmp_path / "mail"
    folder.mkdir()
    shutil.copy(CORPUS / "email/unstructured__fake-email-attachment.eml", folder / "m.eml")
    synced = polyrag_json(home, "sync", str(folder))
    message = str((folder / "m.eml").resolve())
    assert {item["path"] for item in synced["ingested"]} == {
        message,
        f"{message}#fake-attachment.txt",
    }
    listing = polyrag(home, "sources", "list").stdout
    assert f"{message}  (1 file inside)" in listing and "  └ fake-attachment.txt" in listing
    (folder / "m.eml").unlink()
    gone = polyrag_json(home, "sync", str(folder))
    assert {item["path"] for item in gone["removed"]} == {message, f"{message}#fake-attachment.txt"}
    assert gone["ingested"] == [] and gone["failed"] == []
    listed = polyrag_json(home, "sources", "list")["sources"]
    assert [Path(source["path"]).name for source in listed] == [locked.name]
