"""The QA dataset loaders, on the real shared sets and on generic JSONL files."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from polyrag.errors import ConfigError
from polyrag.eval.datasets import QACase, QADataset, load_dataset

EVAL = Path(__file__).resolve().parents[3] / "shared" / "eval"
NAMED = ("financebench", "mmlongbench", "tatqa", "squad2", "office-qa")
needs_shared = pytest.mark.skipif(
    not (EVAL / "financebench").is_dir(), reason="the shared eval data is absent"
)


def unanswerable(dataset: QADataset) -> int:
    return sum(not case.answerable for case in dataset.cases)


def check_shape(dataset: QADataset) -> None:
    ids = [case.id for case in dataset.cases]
    assert len(ids) == len(set(ids))
    needed = {name for case in dataset.cases for name in case.documents}
    assert needed == set(dataset.documents), "documents must be exactly what the cases need"
    for name, ref in dataset.documents.items():
        assert ref.name == name
        assert (ref.path is None) != (ref.text is None)
        if ref.path is not None:
            assert ref.path.is_file() and ref.path.name == name
    for case in dataset.cases:
        assert case.question.strip()
        assert case.answerable == bool(case.answers)
        assert all(answer.strip() for answer in case.answers)
        assert all(page >= 1 for page in case.evidence_pages)


# --- the real shared sets ----------------------------------------------------------------------


@needs_shared
@pytest.mark.parametrize(
    ("name", "cases", "documents", "refusals"),
    [
        ("financebench", 85, 51, 0),
        ("mmlongbench", 339, 39, 55),
        ("tatqa", 1668, 278, 0),
        ("squad2", 500, 411, 258),
        ("office-qa", 8, 5, 2),
    ],
)
def test_whole_sets_have_the_documented_sizes(
    name: str, cases: int, documents: int, refusals: int
) -> None:
    dataset = load_dataset(name, shared=EVAL)
    assert dataset.name == name
    assert (len(dataset.cases), len(dataset.documents), unanswerable(dataset)) == (
        cases,
        documents,
        refusals,
    )
    check_shape(dataset)


@needs_shared
@pytest.mark.parametrize("name", NAMED)
def test_a_limit_is_a_prefix_of_the_whole_order(name: str) -> None:
    whole = load_dataset(name, shared=EVAL)
    limited = load_dataset(name, shared=EVAL, limit=5)
    assert limited.cases == whole.cases[:5]
    check_shape(limited)


@needs_shared
@pytest.mark.parametrize("name", ["squad2", "mmlongbench", "office-qa"])
def test_every_prefix_keeps_the_share_of_unanswerable_questions(name: str) -> None:
    cases = load_dataset(name, shared=EVAL).cases
    share = sum(not case.answerable for case in cases) / len(cases)
    refused = 0
    for k, case in enumerate(cases, start=1):
        refused += not case.answerable
        assert abs(refused - k * share) <= 0.5 + 1e-9, f"after {k} cases"


@needs_shared
def test_squad_limit_of_20_holds_both_kinds_in_file_order() -> None:
    dataset = load_dataset("squad2", shared=EVAL, limit=20)
    assert unanswerable(dataset) == 10  # 258 of 500 → 10.3
    file_order = [
        row["id"] for row in read_json(EVAL / "squad2-sample" / "queries.json")["queries"]
    ]
    for kind in (True, False):
        ids = [case.id for case in dataset.cases if case.answerable is kind]
        assert ids == sorted(ids, key=file_order.index)


def read_json(path: Path) -> dict[str, list[dict[str, str]]]:
    data: dict[str, list[dict[str, str]]] = json.loads(path.read_text(encoding="utf-8"))
    return data


@needs_shared
def test_financebench_cases_point_at_their_pdfs_with_one_based_pages() -> None:
    dataset = load_dataset("financebench", shared=EVAL, limit=10)
    assert list(dataset.documents) == [
        "3M_2018_10K.pdf",
        "ACTIVISIONBLIZZARD_2019_10K.pdf",
        "ADOBE_2015_10K.pdf",
        "ADOBE_2022_10K.pdf",
        "AMAZON_2017_10K.pdf",
        "AMAZON_2019_10K.pdf",
    ]
    first = dataset.cases[0]
    assert first.id == "financebench_id_03029"
    assert first.answers == ("$1577.00",)
    assert first.documents == ("3M_2018_10K.pdf",)
    assert first.evidence_pages == (60,)  # evidence_page_num 59 counts from zero
    assert "Purchases of property, plant and equipment" in first.evidence_texts[0]
    assert first.kind == "metrics-generated"
    only_one = load_dataset("financebench", shared=EVAL, limit=1)
    assert list(only_one.documents) == ["3M_2018_10K.pdf"]


@needs_shared
def test_mmlongbench_parses_pages_refusals_sources_and_lists() -> None:
    dataset = load_dataset("mmlongbench", shared=EVAL)
    by_id = {case.id: case for case in dataset.cases}
    first = by_id["mmlongbench-001"]
    assert first.answers == ("18.29%",)
    assert first.evidence_pages == (3, 5)
    assert first.kind == "Pure-text (Plain-text)"
    assert first.documents == ("Independents-Report.pdf",)
    refused = by_id["mmlongbench-002"]
    assert (refused.answerable, refused.answers, refused.evidence_pages) == (False, (), ())
    assert by_id["mmlongbench-004"].kind == "Pure-text (Plain-text); Table"
    assert by_id["mmlongbench-013"].answers == ("Circle, Rectangle",)
    assert by_id["mmlongbench-055"].evidence_pages == ()  # the file says "[0]"
    kinds = {case.kind for case in dataset.cases}
    assert {"Table", "Chart", "Figure", "Generalized-text (Layout)"} <= kinds


@needs_shared
def test_tatqa_contexts_become_markdown_with_scaled_answers() -> None:
    dataset = load_dataset("tatqa", shared=EVAL, limit=6)
    assert list(dataset.documents) == ["tatqa-3ffd9053.md"]
    text = dataset.documents["tatqa-3ffd9053.md"].text
    assert text is not None
    lines = text.splitlines()
    assert lines[0] == "|  |  | Years Ended September 30, |  |"
    assert lines[1] == "| --- | --- | --- | --- |"
    assert "| Total sales | $1,496.5 | $1,202.9 | $1,107.7 |" in lines
    assert text.index("| Other |") < text.index("Sales by Contract Type:")
    answers = [case.answers for case in dataset.cases]
    assert answers[1] == ("$1,496.5", "$1,496.5 million")
    assert answers[2] == ("fixed-price type, cost-plus type, time-and-material type",)
    assert answers[4] == ("-12.6", "-12.6 million")
    assert answers[5] == ("-22.22", "-22.22%")
    assert dataset.cases[4].kind == "arithmetic/table-text/million"
    assert "| Other | 44.1 | 56.7 | 70.8 |" in dataset.cases[4].evidence_texts
    assert all(case.answerable for case in dataset.cases)
    large = [
        case for case in load_dataset("tatqa", shared=EVAL).cases if case.answers[0] == "4227.5"
    ]
    assert large and large[0].answers == ("4227.5", "4,227.5", "4227.5 million")


@needs_shared
def test_squad_paragraphs_become_markdown_documents() -> None:
    dataset = load_dataset("squad2-sample", shared=EVAL, limit=40)
    assert dataset.name == "squad2"
    texts = [ref.text for ref in dataset.documents.values()]
    assert len(texts) == len(set(texts))
    assert all(name.startswith("squad-") and name.endswith(".md") for name in dataset.documents)
    answered = next(case for case in dataset.cases if case.id == "572a06af3f37b3190047866a")
    assert answered.answers == ("RNA interference pathway", "RNA interference")
    assert answered.documents == ("squad-0001.md",)
    text = dataset.documents["squad-0001.md"].text
    assert text is not None and "RNA interference pathway" in text
    refused = [case for case in dataset.cases if not case.answerable]
    assert refused and all(case.answers == () and len(case.documents) == 1 for case in refused)


@needs_shared
def test_office_qa_points_at_corpus_files() -> None:
    dataset = load_dataset("office-qa", shared=EVAL)
    by_id = {case.id: case for case in dataset.cases}
    assert by_id["d01"].answers == ("26 June 1968", "June 26, 1968")
    assert by_id["d01"].documents == ("unstructured__norwich-city.txt",)
    ref = dataset.documents["unstructured__norwich-city.txt"]
    assert ref.path == EVAL / "corpus" / "text_md" / "unstructured__norwich-city.txt"
    assert by_id["d07"] == QACase("d07", by_id["d07"].question, (), False, ())


@needs_shared
def test_the_shared_folder_is_found_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POLYRAG_EVAL_DATA", str(EVAL))
    assert len(load_dataset("office-qa").cases) == 8
    monkeypatch.delenv("POLYRAG_EVAL_DATA")
    monkeypatch.chdir(EVAL.parent.parent)  # found walking up from here or from the module
    assert len(load_dataset("office-qa", shared=EVAL.parent).cases) == 8  # shared/, not eval/
    assert len(load_dataset("office-qa").cases) == 8


# --- the generic JSONL format and errors -------------------------------------------------------


def write_jsonl(path: Path, rows: list[object]) -> Path:
    lines = [row if isinstance(row, str) else json.dumps(row) for row in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_generic_jsonl_cases_and_documents(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "report.pdf").write_bytes(b"%PDF")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "report.pdf").write_bytes(b"%PDF")
    absolute = tmp_path / "other" / "report.pdf"
    path = write_jsonl(
        tmp_path / "mine.jsonl",
        [
            {"id": "q1", "question": "Revenue?", "answer": "$5", "source": "docs/report.pdf",
             "evidence_pages": [2, 3]},
            {"question": "Colours?", "answer": ["red", "blue"], "source": str(absolute)},
            {"question": "Moon city?", "answer": "Not answerable", "source": "docs/report.pdf"},
            "",
            {"question": "Mars city?", "answer": ""},
            {"question": "Flagged?", "answer": "x", "unanswerable": True},
        ],
    )  # fmt: skip
    dataset = load_dataset(str(path))
    assert dataset.name == "mine"
    by_question = {case.question: case for case in dataset.cases}
    first, second, third, fourth, fifth = (
        by_question[question]
        for question in ("Revenue?", "Colours?", "Moon city?", "Mars city?", "Flagged?")
    )
    assert first == QACase("q1", "Revenue?", ("$5",), True, ("report.pdf",), (2, 3))
    assert second.id == "mine-2"
    assert second.answers == ("red", "blue")
    assert second.documents == ("report-2.pdf",)  # same base name, another file
    assert dataset.documents["report-2.pdf"].path == absolute
    assert dataset.documents["report.pdf"].path == tmp_path / "docs" / "report.pdf"
    assert (third.answerable, third.answers, third.documents) == (False, (), ("report.pdf",))
    assert (fourth.answerable, fourth.documents) == (False, ())
    assert (fifth.answerable, fifth.answers) == (False, ())
    assert unanswerable(dataset) == 3
    # 3 of 5 unanswerable: after k cases round(0.6 k) of them are → 1, 1, 2, 2, 3
    assert [case.answerable for case in dataset.cases] == [False, True, False, True, False]
    two = load_dataset(str(path), limit=2)
    assert [case.id for case in two.cases] == ["mine-3", "q1"]
    assert list(two.documents) == ["report.pdf"]


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([{"question": "a?", "answer": "b"}, "{not json"], ":2: not valid JSON"),
        ([{"question": "a?", "answer": "b"}, {"answer": "b"}], ":2: no 'question' field"),
        ([{"question": "a?", "source": "x.pdf", "answer": "b"}], ":1: source 'x.pdf' not found"),
        ([{"question": "a?", "source": "x.jsonl"}], ":1: no 'answer' field"),
        ([[1, 2]], ":1: expected a JSON object"),
        ([{"id": 1, "question": "a?", "answer": "b"}] * 2, ":2: id '1' appears twice"),
        ([{"question": "a?", "answer": "b", "evidence_pages": ["7"]}], ":1: page '7'"),
    ],
)
def test_generic_jsonl_errors_name_the_file_and_line(
    tmp_path: Path, rows: list[object], message: str
) -> None:
    (tmp_path / "x.jsonl").write_text("", encoding="utf-8")
    path = write_jsonl(tmp_path / "bad.jsonl", rows)
    with pytest.raises(ConfigError) as caught:
        load_dataset(str(path))
    assert f"{path}{message}" in str(caught.value)
    assert "\n" not in caught.value.one_line()


def test_missing_folders_files_and_names_are_config_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"tatqa: no such folder \(the tatqa dataset\)"):
        load_dataset("tatqa", shared=tmp_path)
    (tmp_path / "tatqa").mkdir()
    with pytest.raises(ConfigError, match=r"tatqa_dataset_dev\.json: no such file"):
        load_dataset("tatqa", shared=tmp_path)
    with pytest.raises(ConfigError, match=r"nope\.jsonl: no such file"):
        load_dataset(str(tmp_path / "nope.jsonl"))
    with pytest.raises(ConfigError, match="not a dataset name"):
        load_dataset("beir")
    with pytest.raises(ConfigError, match="limit"):
        load_dataset("tatqa", shared=tmp_path, limit=0)


def test_environment_folder_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POLYRAG_EVAL_DATA", str(tmp_path))
    with pytest.raises(
        ConfigError, match=re.escape(f"{tmp_path / 'squad2-sample'}: no such folder")
    ):
        load_dataset("squad2")


def test_a_bad_record_in_a_named_set_names_it(tmp_path: Path) -> None:
    folder = tmp_path / "mmlongbench"
    folder.mkdir()
    record = {"doc_id": "a.pdf", "question": "q?", "answer": "1", "evidence_pages": "[1]"}
    (folder / "questions.json").write_text(
        json.dumps([record, {**record, "evidence_pages": "page one"}]), encoding="utf-8"
    )
    with pytest.raises(ConfigError, match=r"questions.json: record 2: 'page one' is not a list"):
        load_dataset("mmlongbench", shared=tmp_path)
    (folder / "questions.json").write_text(json.dumps([record]), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"a.pdf: no such file \(a document of the mmlongbench"):
        load_dataset("mmlongbench", shared=tmp_path)
    (folder / "questions.json").write_text('[\n{"doc_id": \n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"questions.json:3: not valid JSON"):
        load_dataset("mmlongbench", shared=tmp_path)
