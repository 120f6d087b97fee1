"""Question-answering datasets in one shape: cases (question, gold answers, gold evidence) and
the documents those cases are about, ready to ingest.

Named sets live in the shared evaluation folder (`shared/eval`, beside the checkout, or the folder
in POLYRAG_EVAL_DATA): `financebench`, `mmlongbench`, `tatqa`, `squad2` (alias `squad2-sample`),
`office-qa`, `table-qa` and `hotpotqa` (all its paragraphs in one collection; an answer must cite
the question's two gold paragraphs). Any other argument is a path to a generic `.jsonl` file,
one case a line:

    {"question": str, "answer": str | [str, ...], "source"?: path | [path, ...],
     "evidence_pages"?: [int, ...], "evidence_texts"?: [str, ...], "unanswerable"?: bool,
     "kind"?: str, "id"?: str}

`answer_any` is accepted for `answer`. A relative `source` is relative to the JSONL's folder.
A case is unanswerable when `unanswerable` is true, when its answer is "Not answerable", or when
it has neither an answer nor a source. Every problem in the data raises a ConfigError that names
the file (and the line or record) and the reason.
"""

from __future__ import annotations

import ast
import json
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from polyrag.errors import ConfigError

DATA_ENV = "POLYRAG_EVAL_DATA"
DATASETS = (
    "financebench",
    "mmlongbench",
    "tatqa",
    "squad2",
    "office-qa",
    "table-qa",
    "hotpotqa",
)
_FOLDERS = {
    "financebench": "financebench",
    "mmlongbench": "mmlongbench",
    "tatqa": "tatqa",
    "squad2": "squad2-sample",
    "office-qa": "office-qa",
    "table-qa": "table-qa",
    "hotpotqa": "hotpotqa",
}
_WHOLE_COLLECTION = frozenset({"hotpotqa"})  # every document is ingested, whatever the limit
_ALIASES = {"squad2-sample": "squad2"}
_NOT_ANSWERABLE = "not answerable"
_HINT = f"set {DATA_ENV} to the shared/eval folder, or pass a .jsonl file"


@dataclass(frozen=True)
class DocumentRef:
    """A document a dataset needs: an existing file, or inline text to write to a file first.

    `name` is unique within the dataset and is the file name (with its extension) to ingest under.
    """

    name: str
    path: Path | None = None
    text: str | None = None


@dataclass(frozen=True)
class QACase:
    """One question with its gold answers (any of them counts; empty when unanswerable)."""

    id: str
    question: str
    answers: tuple[str, ...]
    answerable: bool
    documents: tuple[str, ...]  # keys of QADataset.documents; empty = the whole collection
    evidence_pages: tuple[int, ...] = ()  # 1-based
    evidence_texts: tuple[str, ...] = ()
    kind: str = ""
    # Documents an answer must cite to count as grounded (HotpotQA's two gold paragraphs),
    # for a question asked of the whole collection.
    gold_documents: tuple[str, ...] = ()


@dataclass(frozen=True)
class QADataset:
    name: str
    cases: tuple[QACase, ...]
    documents: Mapping[str, DocumentRef]


def load_dataset(
    name_or_file: str, shared: Path | None = None, limit: int | None = None
) -> QADataset:
    """Load a named shared set or a generic `.jsonl` file (see the module docstring).

    Case order is fixed: the file's order, except that unanswerable cases are spread evenly among
    the answerable ones — after the first k cases, round(k · U / N) of them are unanswerable (U of
    N in the whole set; halves round up), each kind keeping its file order. So
    `load_dataset(x, limit=k).cases == load_dataset(x).cases[:k]` and a small limit keeps roughly
    the set's share of unanswerable questions. `documents` holds only what the kept cases need.
    `shared` is the `shared/eval` folder; by default POLYRAG_EVAL_DATA, else the first
    `shared/eval` found walking up from the current directory or from this file.
    """
    if limit is not None and limit < 1:
        raise ConfigError(f"limit must be a positive number of cases, not {limit}")
    key = _ALIASES.get(name_or_file, name_or_file)
    if key in _FOLDERS:
        root = Path(shared) if shared is not None else _default_root()
        folder = root / _FOLDERS[key]
        if not folder.is_dir() and (root / "eval" / _FOLDERS[key]).is_dir():
            root = root / "eval"  # given the `shared` folder itself
            folder = root / _FOLDERS[key]
        if not folder.is_dir():
            raise ConfigError(f"{folder}: no such folder (the {key} dataset)", hint=_HINT)
        cases, documents = _LOADERS[key](folder)
        return _select(key, cases, documents, limit, whole=key in _WHOLE_COLLECTION)
    path = Path(name_or_file)
    if path.suffix.lower() != ".jsonl":
        known = ", ".join((*DATASETS, *_ALIASES))
        raise ConfigError(f"{name_or_file}: not a dataset name ({known}) nor a .jsonl file")
    if not path.is_file():
        raise ConfigError(f"{path}: no such file")
    cases, documents = _generic(path, path.parent)
    return _select(path.stem, cases, documents, limit)


def _default_root() -> Path:
    configured = os.environ.get(DATA_ENV)
    if configured:
        return Path(configured)
    for start in (Path.cwd(), Path(__file__).resolve().parent):
        for folder in (start, *start.parents):
            if (folder / "shared" / "eval").is_dir():
                return folder / "shared" / "eval"
    raise ConfigError("no shared/eval folder above the current directory", hint=_HINT)


def _select(
    name: str,
    cases: Sequence[QACase],
    documents: Mapping[str, DocumentRef],
    limit: int | None,
    *,
    whole: bool = False,
) -> QADataset:
    chosen = _spread_unanswerable(cases)[:limit]
    needed = {document for case in chosen for document in (*case.documents, *case.gold_documents)}
    kept = {key: ref for key, ref in documents.items() if whole or key in needed}
    for ref in kept.values():
        if ref.path is not None and not ref.path.is_file():
            raise ConfigError(f"{ref.path}: no such file (a document of the {name} dataset)")
    return QADataset(name=name, cases=tuple(chosen), documents=kept)


def _spread_unanswerable(cases: Sequence[QACase]) -> list[QACase]:
    answerable = [case for case in cases if case.answerable]
    unanswerable = [case for case in cases if not case.answerable]
    total, wanted = len(cases), len(unanswerable)
    ordered: list[QACase] = []
    taken = 0
    for k in range(1, total + 1):
        due = (2 * k * wanted + total) // (2 * total)  # round(k * wanted / total), halves up
        if taken < wanted and (taken < due or len(ordered) - taken == len(answerable)):
            ordered.append(unanswerable[taken])
            taken += 1
        else:
            ordered.append(answerable[len(ordered) - taken])
    return ordered


# --- reading files ---------------------------------------------------------------------------


def _read_json(path: Path) -> Any:
    if not path.is_file():
        raise ConfigError(f"{path}: no such file", hint=_HINT)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise ConfigError(f"{path}:{error.lineno}: not valid JSON ({error.msg})") from None


def _read_jsonl(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield ("file:line", object) for every non-blank line."""
    if not path.is_file():
        raise ConfigError(f"{path}: no such file", hint=_HINT)
    with path.open(encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            where = f"{path}:{line_no}"
            try:
                row = json.loads(line)
            except json.JSONDecodeError as error:
                raise ConfigError(f"{where}: not valid JSON ({error.msg})") from None
            if not isinstance(row, dict):
                raise ConfigError(f"{where}: expected a JSON object, got {type(row).__name__}")
            yield where, row


def _field(row: Mapping[str, Any], key: str, where: str) -> Any:
    if not isinstance(row, Mapping):
        raise ConfigError(f"{where}: expected a JSON object, got {type(row).__name__}")
    if row.get(key) is None:
        raise ConfigError(f"{where}: no {key!r} field")
    return row[key]


def _text(row: Mapping[str, Any], key: str, where: str) -> str:
    value = _field(row, key, where)
    if not isinstance(value, str):
        raise ConfigError(f"{where}: {key!r} should be text, not {type(value).__name__}")
    return value


def _records(value: Any, key: str, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise ConfigError(f"{where}: {key!r} should be a list, not {type(value).__name__}")
    return value


def _unique(items: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(item for item in items if item))


def _pages(values: Sequence[Any], where: str, *, first: int = 1) -> tuple[int, ...]:
    """Page numbers as 1-based ints; `first` is the number the source gives its first page."""
    pages: list[int] = []
    for value in values:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{where}: page {value!r} is not a whole number")
        if value >= first:
            pages.append(value - first + 1)
    return tuple(dict.fromkeys(pages))


class _FileNames:
    """Unique document names for files: the base name, or `stem-2.ext`, … on a clash."""

    def __init__(self) -> None:
        self._names: dict[Path, str] = {}

    def name(self, path: Path) -> str:
        if path not in self._names:
            taken = set(self._names.values())
            name, n = path.name, 1
            while name in taken:
                n += 1
                name = f"{path.stem}-{n}{path.suffix}"
            self._names[path] = name
        return self._names[path]


Loaded = tuple[list[QACase], dict[str, DocumentRef]]


# --- the generic JSONL format and office-qa ----------------------------------------------------


def _generic(path: Path, base: Path) -> Loaded:
    cases: list[QACase] = []
    documents: dict[str, DocumentRef] = {}
    names = _FileNames()
    seen: set[str] = set()
    for where, row in _read_jsonl(path):
        question = _text(row, "question", where)
        case_id = str(row["id"]) if row.get("id") is not None else f"{path.stem}-{len(cases) + 1}"
        if case_id in seen:
            raise ConfigError(f"{where}: id {case_id!r} appears twice")
        seen.add(case_id)
        raw = row.get("answer", row.get("answer_any"))
        answers = _unique([_answer_text(item, where) for item in _as_list(raw)])
        sources = [_source(item, base, where) for item in _as_list(row.get("source"))]
        flag = row.get("unanswerable", False)
        if not isinstance(flag, bool):
            raise ConfigError(f"{where}: 'unanswerable' should be true or false")
        refused = any(answer.strip().lower() == _NOT_ANSWERABLE for answer in answers)
        answerable = not (flag or refused or (not answers and not sources))
        if answerable and not answers:
            raise ConfigError(f"{where}: no 'answer' field (needed for a question with a source)")
        for source in sources:
            documents.setdefault(names.name(source), DocumentRef(names.name(source), path=source))
        pages = _pages(_records(row.get("evidence_pages") or [], "evidence_pages", where), where)
        texts = _records(row.get("evidence_texts") or [], "evidence_texts", where)
        kind = row.get("kind") or ""
        if not isinstance(kind, str) or not all(isinstance(text, str) for text in texts):
            raise ConfigError(f"{where}: 'kind' and 'evidence_texts' should be text")
        cases.append(
            QACase(
                id=case_id,
                question=question,
                answers=answers if answerable else (),
                answerable=answerable,
                documents=_unique([names.name(source) for source in sources]),
                evidence_pages=pages,
                evidence_texts=_unique(texts),
                kind=kind,
            )
        )
    return cases, documents


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def _answer_text(value: Any, where: str) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ConfigError(f"{where}: answer {value!r} should be text or a number")
    return str(value).strip()


def _source(value: Any, base: Path, where: str) -> Path:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{where}: 'source' should be a file path")
    path = Path(value) if Path(value).is_absolute() else base / value
    if not path.is_file():
        raise ConfigError(f"{where}: source {value!r} not found ({path})")
    return path


def _office_qa(folder: Path) -> Loaded:
    # `source` in office-qa is relative to shared/eval, the folder above it.
    return _generic(folder / "questions.jsonl", folder.parent)


# --- FinanceBench ------------------------------------------------------------------------------


def _financebench(folder: Path) -> Loaded:
    cases: list[QACase] = []
    documents: dict[str, DocumentRef] = {}
    for where, row in _read_jsonl(folder / "questions.jsonl"):
        evidence = _records(_field(row, "evidence", where), "evidence", where)
        doc_names = [_text(row, "doc_name", where)]
        doc_names += [_text(item, "doc_name", f"{where}: evidence") for item in evidence]
        files = _unique([f"{doc}.pdf" for doc in doc_names])
        for file in files:
            documents.setdefault(file, DocumentRef(file, path=folder / "pdfs" / file))
        # evidence_page_num is zero-based (FinanceBench's README; checked against the PDFs).
        pages = [_field(item, "evidence_page_num", f"{where}: evidence") for item in evidence]
        texts = [_text(item, "evidence_text", f"{where}: evidence") for item in evidence]
        cases.append(
            QACase(
                id=str(_field(row, "financebench_id", where)),
                question=_text(row, "question", where),
                answers=_unique([_text(row, "answer", where).strip()]),
                answerable=True,
                documents=files,
                evidence_pages=_pages(pages, where, first=0),
                evidence_texts=_unique([text.strip() for text in texts]),
                kind=str(row.get("question_type") or ""),
            )
        )
    return cases, documents


# --- MMLongBench-Doc ---------------------------------------------------------------------------


def _mmlongbench(folder: Path) -> Loaded:
    path = folder / "questions.json"
    cases: list[QACase] = []
    documents: dict[str, DocumentRef] = {}
    for index, row in enumerate(_records(_read_json(path), "questions", str(path)), start=1):
        where = f"{path}: record {index}"
        doc = _text(row, "doc_id", where)
        documents.setdefault(doc, DocumentRef(doc, path=folder / "documents" / doc))
        answer = _text(row, "answer", where).strip()
        answerable = answer.lower() != _NOT_ANSWERABLE
        if answerable and row.get("answer_format") == "List":
            answer = ", ".join(str(item) for item in _literal_list(answer, where, strict=False))
        # evidence_pages is text like "[3, 5]", 1-based; two records say "[0]": dropped.
        pages = _literal_list(_field(row, "evidence_pages", where), where)
        sources = _literal_list(row.get("evidence_sources") or [], where)
        cases.append(
            QACase(
                id=f"mmlongbench-{index:03d}",
                question=_text(row, "question", where),
                answers=(answer,) if answerable else (),
                answerable=answerable,
                documents=(doc,),
                evidence_pages=_pages(pages, where),
                kind="; ".join(str(source) for source in sources),
            )
        )
    return cases, documents


def _literal_list(text: Any, where: str, *, strict: bool = True) -> list[Any]:
    """A list, or a Python list written as text ("[3, 5]", "['Table']"); with strict=False,
    text that is not a list is one item."""
    value = text
    if isinstance(text, str):
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            value = None
    if isinstance(value, list | tuple):
        return list(value)
    if strict:
        raise ConfigError(f"{where}: {text!r} is not a list")
    return [text]


# --- TAT-QA ------------------------------------------------------------------------------------

_SCALE_SUFFIX = {
    "thousand": " thousand",
    "million": " million",
    "billion": " billion",
    "percent": "%",
}
_NUMERIC_SPAN = re.compile(r"[-−$€£(]*\s*\d[\d,]*(?:\.\d+)?\s*\)?")
_DERIVATION_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def _tatqa(folder: Path) -> Loaded:
    path = folder / "tatqa_dataset_dev.json"
    cases: list[QACase] = []
    documents: dict[str, DocumentRef] = {}
    for index, context in enumerate(_records(_read_json(path), "contexts", str(path)), start=1):
        where = f"{path}: context {index}"
        table = _field(context, "table", where)
        rows = [
            [_cell(cell) for cell in row]
            for row in _records(_field(table, "table", where), "table", where)
        ]
        paragraphs = [
            (str(_field(p, "order", where)), _text(p, "text", where).strip())
            for p in _records(_field(context, "paragraphs", where), "paragraphs", where)
        ]
        paragraphs.sort(key=lambda paragraph: int(paragraph[0]) if paragraph[0].isdigit() else 0)
        by_order = dict(paragraphs)
        table_lines = _markdown_table(rows)
        name = f"tatqa-{str(_field(table, 'uid', where))[:8]}.md"
        if name in documents:
            name = f"tatqa-{index:03d}-{str(table['uid'])[:8]}.md"
        body = "\n".join(table_lines) + "\n\n" + "\n\n".join(by_order.values()) + "\n"
        documents[name] = DocumentRef(name, text=body)
        for number, question in enumerate(
            _records(_field(context, "questions", where), "questions", where), start=1
        ):
            spot = f"{where}, question {number}"
            answers, kind = _tatqa_answers(question, spot)
            evidence = [
                by_order[str(order)]
                for order in question.get("rel_paragraphs") or []
                if str(order) in by_order
            ]
            if "table" in str(question.get("answer_from") or "table"):
                evidence += _evidence_rows(rows, table_lines, question)
            cases.append(
                QACase(
                    id=str(_field(question, "uid", spot)),
                    question=_text(question, "question", spot),
                    answers=answers,
                    answerable=True,
                    documents=(name,),
                    evidence_texts=_unique(evidence),
                    kind=kind,
                )
            )
    return cases, documents


def _cell(value: Any) -> str:
    return " ".join(str(value).split()).replace("|", "\\|")


def _markdown_table(rows: Sequence[Sequence[str]]) -> list[str]:
    """Lines of a Markdown table, the first row as its header (TAT-QA tables have no other)."""
    if not rows:
        return []
    width = max(len(row) for row in rows)
    lines = [f"| {' | '.join([*row, *[''] * (width - len(row))])} |" for row in rows]
    return [lines[0], "|" + " --- |" * width, *lines[1:]]


def _tatqa_answers(question: Mapping[str, Any], where: str) -> tuple[tuple[str, ...], str]:
    """Gold answers as text, plus the kind "answer_type/answer_from[/scale]".

    A number (arithmetic) gives its plain form, the form with thousands separators and the form
    with its scale ("%" or " million", …); a numeric span gives itself and itself with its scale;
    several spans (multi-span) become one answer joined by ", ".
    """
    raw = _field(question, "answer", where)
    scale = str(question.get("scale") or "")
    suffix = _SCALE_SUFFIX.get(scale, f" {scale}" if scale else "")
    kind = "/".join(
        part
        for part in (
            str(question.get("answer_type") or ""),
            str(question.get("answer_from") or ""),
            scale,
        )
        if part
    )
    if isinstance(raw, bool):
        raise ConfigError(f"{where}: answer {raw!r} should be text or a number")
    if isinstance(raw, int | float):
        number = int(raw) if isinstance(raw, float) and raw.is_integer() else raw
        plain, grouped = str(number), f"{number:,}"
        return _unique([plain, grouped, plain + suffix if suffix else ""]), kind
    spans = [_answer_text(item, where) for item in _as_list(raw)]
    if not any(spans):
        raise ConfigError(f"{where}: empty 'answer'")
    if len(spans) > 1:
        return _unique([", ".join(spans)]), kind
    span = spans[0]
    scaled = span + suffix if suffix and _NUMERIC_SPAN.fullmatch(span) else ""
    return _unique([span, scaled]), kind


def _evidence_rows(
    rows: Sequence[Sequence[str]], lines: Sequence[str], question: Mapping[str, Any]
) -> list[str]:
    """The Markdown lines of the table rows holding an answer span or a number of the derivation."""
    wanted = {_bare(item) for item in _as_list(question.get("answer")) if isinstance(item, str)}
    wanted |= {
        _bare(number)
        for number in _DERIVATION_NUMBER.findall(str(question.get("derivation") or ""))
    }
    wanted.discard("")
    found = []
    for index, row in enumerate(rows):
        if any(_bare(cell) in wanted for cell in row):
            found.append(lines[index + 1 if index else 0])
    return found


def _bare(text: str) -> str:
    return re.sub(r"[\s$€£,()%]", "", text).lower()


# --- SQuAD 2.0 sample --------------------------------------------------------------------------


def _squad2(folder: Path) -> Loaded:
    queries_path, truth_path = folder / "queries.json", folder / "ground_truth.json"
    queries = _records(
        _field(_read_json(queries_path), "queries", str(queries_path)), "queries", str(queries_path)
    )
    truth = _read_json(truth_path)
    if not isinstance(truth, dict):
        raise ConfigError(f"{truth_path}: expected an object of question id → answers")
    cases: list[QACase] = []
    documents: dict[str, DocumentRef] = {}
    names: dict[str, str] = {}
    for index, row in enumerate(queries, start=1):
        where = f"{queries_path}: record {index}"
        case_id = str(_field(row, "id", where))
        context = _text(row, "context", where).strip()
        gold = truth.get(case_id)
        if not isinstance(gold, dict):
            raise ConfigError(f"{truth_path}: no answers for question {case_id}")
        answerable = not gold.get("is_impossible", False)
        answers = _unique([_answer_text(item, where) for item in _as_list(gold.get("answers"))])
        if answerable and not answers:
            raise ConfigError(f"{truth_path}: question {case_id} is answerable but has no answers")
        if context not in names:
            names[context] = f"squad-{len(names) + 1:04d}.md"
            documents[names[context]] = DocumentRef(names[context], text=context + "\n")
        cases.append(
            QACase(
                id=case_id,
                question=_text(row, "question", where),
                answers=answers if answerable else (),
                answerable=answerable,
                documents=(names[context],),
                evidence_texts=(context,) if answerable else (),
            )
        )
    return cases, documents


def _table_qa(folder: Path) -> Loaded:
    # Like office-qa: `source` is relative to shared/eval.
    return _generic(folder / "questions.jsonl", folder.parent)


def _hotpotqa(folder: Path) -> Loaded:
    """HotpotQA (distractor setting): every paragraph of every question in one collection;
    each question is asked of all of them, and its two gold paragraphs must be cited."""
    documents: dict[str, DocumentRef] = {}
    for path in sorted((folder / "docs").glob("*.md")):
        documents[path.name] = DocumentRef(path.name, path=path)
    if not documents:
        raise ConfigError(f"{folder / 'docs'}: no paragraphs (*.md)", hint=_HINT)
    cases: list[QACase] = []
    for where, row in _read_jsonl(folder / "questions.jsonl"):
        gold = [Path(str(source)).name for source in _as_list(row.get("sources"))]
        missing = [name for name in gold if name not in documents]
        if missing:
            raise ConfigError(f"{where}: gold paragraph {missing[0]!r} is not in docs/")
        answers = _unique([_answer_text(item, where) for item in _as_list(row.get("answer"))])
        if not answers:
            raise ConfigError(f"{where}: no 'answer'")
        cases.append(
            QACase(
                id=str(row.get("id") or f"hotpotqa-{len(cases) + 1}"),
                question=_text(row, "question", where),
                answers=answers,
                answerable=True,
                documents=(),
                kind=str(row.get("type") or ""),
                gold_documents=tuple(gold),
            )
        )
    return cases, documents


_LOADERS = {
    "financebench": _financebench,
    "mmlongbench": _mmlongbench,
    "tatqa": _tatqa,
    "squad2": _squad2,
    "office-qa": _office_qa,
    "table-qa": _table_qa,
    "hotpotqa": _hotpotqa,
}
