"""`polyrag eval` as a user runs it, on tiny datasets written here, with the real models."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from polyrag.types import REFUSAL_REASONS

from ..conftest import CORPUS
from .test_cli import polyrag, polyrag_json
from .tiny_sets import write_tiny_beir

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def beir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny_beir(tmp_path_factory.mktemp("tiny-beir") / "tiny")


def test_eval_retrieval_scores_three_modes_and_reuses_its_index(beir: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    first = polyrag_json(home, "eval", "retrieval", "--dataset", str(beir))
    assert first["dataset"] == beir.name and first["split"] == "test"
    assert set(first["results"]) == {"bm25", "dense", "hybrid"}
    for metrics in first["results"].values():
        assert set(metrics) == {"ndcg@10", "recall@10", "recall@100", "mrr@10"}
        assert metrics["recall@10"] == 1.0  # five documents: every relevant one is in the top 10
    # Each query names its document's subject: every mode puts it first.
    assert first["results"]["hybrid"]["mrr@10"] == 1.0
    assert first["results"]["hybrid"]["ndcg@10"] == pytest.approx(1.0)
    assert first["index"]["reused"] is False and first["index"]["documents"] == 5
    assert set(first["timings"]["search_ms"]) == {"bm25", "dense", "hybrid"}
    report = Path(first["report"])
    assert (report / "summary.json").is_file() and (report / "summary.md").is_file()
    assert list(report.glob("*.png"))
    again = polyrag_json(home, "eval", "retrieval", "--dataset", str(beir))
    assert again["index"]["reused"] is True
    assert again["results"] == first["results"]


def test_eval_retrieval_bad_dataset_is_one_line(tmp_path: Path) -> None:
    done = polyrag(tmp_path / "home", "eval", "retrieval", "--dataset", str(tmp_path), check=False)
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "not a BEIR dataset" in done.stderr


@pytest.fixture(scope="module")
def own_documents(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("own-docs")
    (folder / "kiln.md").write_text(
        "# Kiln schedule\n\nThe pottery kiln at the Harbour Studio fires on Thursdays. "
        "A bisque firing reaches 1000 degrees Celsius and takes nine hours.\n"
    )
    (folder / "bakery.md").write_text(
        "# Bakery opening\n\nThe Marigold Bakery opened on 3 May 2021 on Quay Street. "
        "Its sourdough loaf costs 4 pounds.\n"
    )
    return folder


def test_eval_qa_scores_a_jsonl_question_set(own_documents: Path, tmp_path: Path) -> None:
    questions = tmp_path / "questions.jsonl"
    rows = [
        {
            "question": "On which day does the Harbour Studio kiln fire?",
            "answer": "Thursdays",
            "source": str(own_documents / "kiln.md"),
        },
        {
            "question": "How much does the Marigold Bakery sourdough loaf cost?",
            "answer": "4 pounds",
            "source": str(own_documents / "bakery.md"),
        },
        {
            "question": "Which team has won 13 Stanley Cups according to the spreadsheet?",
            "answer": "Maple Leafs",
            "source": str(CORPUS / "xlsx" / "unstructured__stanley-cups.xlsx"),
        },
        {"question": "Who won the 1966 football World Cup?", "answer": "", "unanswerable": True},
    ]
    questions.write_text("".join(json.dumps(row) + "\n" for row in rows))
    summary: dict[str, Any] = polyrag_json(
        tmp_path / "home", "eval", "qa", "--dataset", str(questions), "--runs", "2"
    )
    assert summary["questions"] == 4 and summary["unanswerable"] == 1
    answers = summary["answers"]
    assert answers["token_recall"]["n"] == 3 and answers["token_recall"]["mean"] >= 0.5
    # Only the spreadsheet's answer is asked for cells, and it cites them.
    assert summary["grounding"]["cells_cited"] == {"mean": 1.0, "std": 0.0, "n": 1}
    assert answers["semantic_similarity"]["mean"] > 0.3
    assert summary["refusals"]["refusal_accuracy"]["mean"] == 1.0
    assert summary["retrieval"]["context_precision"]["mean"] > 0
    assert summary["latency_ms"]["total"]["n"] == 8  # four questions, two runs each
    assert "skipped" in summary["judge"]  # offline: no judge configured, never faked
    assert "cases" not in summary
    report = Path(summary["report"])
    saved = json.loads((report / "summary.json").read_text())
    assert len(saved["cases"]) == 4
    (unanswerable,) = [c for c in saved["cases"] if c["question"].startswith("Who won")]
    assert unanswerable["refused"] and unanswerable["refusal_reason"] in REFUSAL_REASONS
    assert sum(summary["refusal_reasons"].values()) == sum(c["refused"] for c in saved["cases"])
    assert len(list(report.glob("*.png"))) >= 2


def test_eval_generate_writes_questions_from_own_documents(
    own_documents: Path, tmp_path: Path
) -> None:
    target = tmp_path / "generated.jsonl"
    done = polyrag_json(
        tmp_path / "home",
        "eval",
        "generate",
        "--from",
        str(own_documents),
        "--n",
        "2",
        "--out",
        str(target),
    )
    assert done["path"] == str(target) and done["questions"] <= 2 <= done["chunks_tried"]
    rows = [json.loads(line) for line in target.read_text().splitlines()]
    assert len(rows) == done["questions"] >= 1
    for row in rows:
        assert row["question"].endswith("?") and row["answer"].strip()
        assert Path(row["source"]).parent == own_documents
        # The gold evidence is the chunk the question came from, and it holds the answer.
        assert row["answer"].lower().split()[0] in row["evidence_texts"][0].lower()
    # The generated set is a dataset `eval qa` reads and answers.
    summary = polyrag_json(tmp_path / "home", "eval", "qa", "--dataset", str(target))
    assert summary["questions"] == len(rows) and summary["unanswerable"] == 0
    assert summary["retrieval"]["context_precision"]["mean"] > 0


MULTI_PAGE = CORPUS / "pdf_multicolumn" / "docling__multi_page.pdf"


def test_eval_qa_retrieval_only_ranks_the_evidence_pages(tmp_path: Path) -> None:
    questions = tmp_path / "questions.jsonl"
    rows = [
        {
            "question": "Which Apple software leveraged the Macintosh graphical capabilities?",
            "answer": "MacWrite",
            "source": str(MULTI_PAGE),
            "evidence_pages": [2],
            "evidence_texts": ["Apple's MacWrite, which leveraged the Macintosh's graphical"],
        },
        {
            "question": "Which tool gained popularity for academic and technical writing?",
            "answer": "LaTeX",
            "source": str(MULTI_PAGE),
            "evidence_pages": [3],
        },
        {
            # A wrong gold page: the metric must be able to say the evidence was not found.
            "question": "Which Apple software leveraged the Macintosh graphical capabilities?",
            "answer": "MacWrite",
            "source": str(MULTI_PAGE),
            "evidence_pages": [5],
        },
        {"question": "Who won the 1966 football World Cup?", "answer": "", "unanswerable": True},
    ]
    questions.write_text("".join(json.dumps(row) + "\n" for row in rows))
    home = tmp_path / "home"
    summary: dict[str, Any] = polyrag_json(
        home, "eval", "qa", "--dataset", str(questions), "--retrieval-only"
    )
    assert summary["mode"] == "retrieval-only" and summary["questions"] == 3  # answerable only
    overall = summary["overall"]
    assert overall["page_recall@1"]["mean"] == pytest.approx(2 / 3, abs=1e-4)
    assert overall["page_recall@5"]["mean"] == 1.0  # five pages: every one is in the top 5
    assert 2 / 3 < overall["mrr"]["mean"] < 1.0
    assert overall["evidence@5"] == {"mean": 1.0, "std": 0.0, "n": 1}
    saved = json.loads((Path(summary["report"]) / "summary.json").read_text())
    wrong = saved["cases"][2]
    assert wrong["scores"]["page_recall@1"] == 0.0 and wrong["gold_ranks"][0] > 1
    assert saved["cases"][0]["top_pages"][0] == "docling__multi_page.pdf p2"
    readable = polyrag(home, "eval", "qa", "--dataset", str(questions), "--retrieval-only")
    assert "retrieval only" in readable.stdout
    all_row = next(line for line in readable.stdout.splitlines() if line.strip().startswith("all"))
    cells = all_row.split()
    assert (cells[1], cells[2], cells[4]) == ("3", "0.667", "1.000")  # n, p@1, p@5
    refused = polyrag(
        home,
        "eval",
        "qa",
        "--dataset",
        str(questions),
        "--retrieval-only",
        "--mode",
        "agent",
        check=False,
    )
    assert refused.returncode == 2 and "asks no model" in refused.stderr
