"""BEIR-format retrieval datasets: corpus.jsonl, queries.jsonl and qrels/<split>.tsv."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from polyrag.errors import ConfigError


@dataclass(frozen=True)
class BeirDocument:
    doc_id: str
    title: str
    text: str


@dataclass(frozen=True)
class BeirSplit:
    """The judged queries of one split: query id → text, and query id → {doc id: grade}."""

    name: str
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]


class BeirDataset:
    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.corpus_path = self.folder / "corpus.jsonl"
        self.queries_path = self.folder / "queries.jsonl"
        for needed in (self.corpus_path, self.queries_path, self.folder / "qrels"):
            if not needed.exists():
                raise ConfigError(
                    f"{self.folder}: not a BEIR dataset ({needed.name} is missing)",
                    hint="a BEIR folder holds corpus.jsonl, queries.jsonl and qrels/<split>.tsv",
                )

    @property
    def name(self) -> str:
        return self.folder.name

    def splits(self) -> list[str]:
        return sorted(path.stem for path in (self.folder / "qrels").glob("*.tsv"))

    def documents(self) -> Iterator[BeirDocument]:
        for line_no, row in _jsonl(self.corpus_path):
            doc_id = row.get("_id")
            if doc_id is None:
                raise ConfigError(f"{self.corpus_path}:{line_no}: no _id")
            yield BeirDocument(str(doc_id), str(row.get("title") or ""), str(row.get("text") or ""))

    def split(self, name: str) -> BeirSplit:
        qrels_path = self.folder / "qrels" / f"{name}.tsv"
        if not qrels_path.is_file():
            known = ", ".join(self.splits()) or "none"
            raise ConfigError(f"{self.folder}: no split {name!r} (splits: {known})")
        qrels: dict[str, dict[str, int]] = {}
        with qrels_path.open(encoding="utf-8", newline="") as handle:
            for line_no, row in enumerate(csv.reader(handle, delimiter="\t"), start=1):
                if not row or (line_no == 1 and not row[-1].strip().lstrip("-").isdigit()):
                    continue  # blank line or the header
                if len(row) < 3:
                    raise ConfigError(f"{qrels_path}:{line_no}: expected query, document, score")
                query_id, doc_id, grade = row[0], row[1], row[-1]
                try:
                    qrels.setdefault(query_id, {})[doc_id] = int(grade)
                except ValueError:
                    raise ConfigError(
                        f"{qrels_path}:{line_no}: score {grade!r} is not an integer"
                    ) from None
        texts = {
            str(row.get("_id")): str(row.get("text") or "") for _, row in _jsonl(self.queries_path)
        }
        missing = [query_id for query_id in qrels if query_id not in texts]
        if missing:
            raise ConfigError(f"{qrels_path}: query {missing[0]} is not in queries.jsonl")
        judged = {query_id: grades for query_id, grades in qrels.items() if any(grades.values())}
        return BeirSplit(name, {query_id: texts[query_id] for query_id in judged}, judged)


def _jsonl(path: Path) -> Iterator[tuple[int, dict[str, object]]]:
    with path.open(encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as error:
                raise ConfigError(f"{path}:{line_no}: not JSON ({error.msg})") from None
            if not isinstance(row, dict):
                raise ConfigError(f"{path}:{line_no}: expected a JSON object")
            yield line_no, row
