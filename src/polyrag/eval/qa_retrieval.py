"""`polyrag eval qa --retrieval-only`: does the evidence reach the model? No model is asked.

Each answerable question of a set is searched the way the answer path searches (hybrid, the
same filters); the retrieved chunks are then scored against the gold evidence:

- **evidence-page recall@1/3/5/10**: the retrieved chunks' pages, in the order they first
  appear (each page of each document once), are the ranking; recall@k is the share of the
  question's gold pages among the first k. A page counts only in the question's own documents,
  so with `scope="collection"` the pages of other filings push the gold ones down.
- **MRR** of the first gold page (0 when none is retrieved).
- **evidence in the top k chunks** (k = 5 and 10): the share of questions whose every gold
  evidence passage is inside the first k chunks — at least 60% of the passage's key tokens
  appear in those chunks' text. The key tokens are the gold answer's numbers when the passage
  states them (an extracted figure: "$1577.00" is the "(1,577)" of a cash flow statement), else
  the passage's numbers other than years when it has three or more, else its words of four
  letters or more. A computed figure's statement page split over several chunks is found when
  most of it is.

- **gold documents in the top k chunks** (HotpotQA's two paragraphs): the share of questions
  whose every gold document has a chunk among the first k.

Page metrics need gold pages (FinanceBench, MMLongBench); the evidence share needs gold passages
(FinanceBench, TAT-QA); the document share gold documents (HotpotQA). Scores are reported overall
and per question kind.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polyrag.chunk.figures import read_row_sentence
from polyrag.engine import Engine
from polyrag.eval.answer_metrics import mean_std, normalize_answer, percentile
from polyrag.eval.datasets import QACase, QADataset
from polyrag.eval.qa import Scope, eval_home, ingest_dataset
from polyrag.eval.retrieval import Step
from polyrag.settings import Settings
from polyrag.types import Chunk, Filter

PAGE_KS = (1, 3, 5, 10)
CHUNK_KS = (5, 10)
# Chunks fetched per question: enough distinct pages for recall@10 in a long filing.
FETCHED = 50
# Share of a gold passage's key tokens that must be inside the top chunks.
FOUND_AT = 0.6
_NUMBER = re.compile(r"\(?-?\$?\d[\d,]*(?:\.\d+)?%?\)?")
_YEAR = re.compile(r"(?:19|20)\d\d")
_WORD = re.compile(r"[a-z][a-z'-]{3,}")


@dataclass
class _Found:
    """One question's retrieval outcome."""

    case: QACase
    scores: dict[str, float] = field(default_factory=dict)
    gold_ranks: list[int] = field(default_factory=list)  # 1-based ranks of gold pages found
    top_pages: list[str] = field(default_factory=list)
    search_ms: float = 0.0


def evaluate_qa_retrieval(
    dataset: QADataset,
    settings: Settings,
    *,
    scope: Scope = "document",
    on_step: Callable[[Step], None] | None = None,
) -> dict[str, Any]:
    """Ingest the set's documents, search every answerable question, score what was found."""
    home = eval_home(settings, dataset)
    engine = Engine(settings.model_copy(update={"home": home, "models_dir": settings.model_cache}))
    try:
        started = time.perf_counter()
        source_ids, failed = ingest_dataset(engine, dataset, home, on_step)
        ingest_s = time.perf_counter() - started
        cases = [c for c in dataset.cases if c.answerable]
        found = []
        for done, case in enumerate(cases, start=1):
            found.append(_search(engine, case, source_ids, scope))
            if on_step:
                on_step(Step("searching", done, len(cases)))
    finally:
        engine.close()
    return _summary(dataset, found, scope, failed, ingest_s)


def _search(engine: Engine, case: QACase, source_ids: dict[str, str], scope: Scope) -> _Found:
    wanted = tuple(source_ids[name] for name in case.documents if name in source_ids)
    where = None
    if scope == "document" and case.documents:
        where = Filter(source_ids=wanted or ("-none-",))
    started = time.perf_counter()
    hits = engine.search(case.question, k=FETCHED, where=where).hits
    result = _Found(case, search_ms=(time.perf_counter() - started) * 1000)
    chunks = [hit.chunk for hit in hits]
    if case.evidence_pages:
        _score_pages(result, chunks, wanted)
    if case.gold_documents:
        gold = {source_ids[name] for name in case.gold_documents if name in source_ids}
        for k in CHUNK_KS:
            found = {c.source_id for c in chunks[:k]}
            result.scores[f"documents@{k}"] = float(bool(gold) and gold <= found)
    if case.evidence_texts and case.evidence_pages and wanted:
        pages = set(case.evidence_pages)
        on_pages = [
            chunk
            for source in wanted
            for chunk in engine.store.chunks_of(source)
            if chunk.locator.page in pages
        ]
        share = labelled_share(case.evidence_texts, on_pages)
        if share is not None:
            result.scores["labelled"] = share
    if case.evidence_texts:
        for k in CHUNK_KS:
            # The top k chunks of the ranking, of which those from the question's documents.
            top = [c for c in chunks[:k] if not wanted or c.source_id in wanted]
            result.scores[f"evidence@{k}"] = float(
                all(evidence_found(text, top, case.answers) for text in case.evidence_texts)
            )
    return result


def _score_pages(result: _Found, chunks: Sequence[Chunk], wanted: Sequence[str]) -> None:
    ranked: list[tuple[str, int | None]] = []
    for chunk in chunks:
        page = (chunk.source_id, chunk.locator.page)
        if page not in ranked:
            ranked.append(page)
    gold = set(result.case.evidence_pages)

    def is_gold(source: str, page: int | None) -> bool:
        return page in gold and (not wanted or source in wanted)

    result.gold_ranks = [
        rank for rank, (source, page) in enumerate(ranked, start=1) if is_gold(source, page)
    ]
    for k in PAGE_KS:
        found = {page for source, page in ranked[:k] if is_gold(source, page)}
        result.scores[f"page_recall@{k}"] = len(found) / len(gold)
    result.scores["mrr"] = 1 / result.gold_ranks[0] if result.gold_ranks else 0.0
    names = {c.source_id: Path(c.path).name for c in chunks}
    result.top_pages = [f"{names[source]} p{page}" for source, page in ranked[:5]]


def key_tokens(text: str, answers: Sequence[str] = ()) -> set[str]:
    """What identifies a gold evidence passage: the answers' numbers it states, else its
    numbers (years aside; commas, signs and trailing zeros dropped) when it has three or more,
    else its words of four letters or more."""
    numbers = {_plain_number(n) for n in _NUMBER.findall(text)}
    numbers = {n for n in numbers if n and not _YEAR.fullmatch(n)}
    stated = {_plain_number(n) for a in answers for n in _NUMBER.findall(a)} & numbers
    if stated:
        return stated
    if len(numbers) >= 3:
        return numbers
    return set(_WORD.findall(normalize_answer(text)))


def evidence_found(evidence: str, chunks: Sequence[Chunk], answers: Sequence[str] = ()) -> bool:
    """Whether at least FOUND_AT of the passage's key tokens are in the chunks' text."""
    wanted = key_tokens(evidence, answers)
    if not wanted or not chunks:
        return False
    text = " ".join(c.text for c in chunks)
    have = {_plain_number(n) for n in _NUMBER.findall(text)} | set(
        _WORD.findall(normalize_answer(text))
    )
    return len(wanted & have) >= FOUND_AT * len(wanted)


def labelled_share(evidence_texts: Sequence[str], chunks: Sequence[Chunk]) -> float | None:
    """Of the figures of the gold evidence (numbers other than years), the share that the
    chunks of its pages write in a table row with the row's label and the column's header
    ("Row 7: Merchandise inventories — 2019: 5,409" holds 5,409); None for evidence with
    fewer than three figures (a passage of prose)."""
    figures = {_plain_number(n) for text in evidence_texts for n in _NUMBER.findall(text)} - {""}
    figures = {n for n in figures if not _YEAR.fullmatch(n)}
    if len(figures) < 3:
        return None
    labelled: set[str] = set()
    for chunk in chunks:
        for line in chunk.text.splitlines():
            row = read_row_sentence(line)
            if row is None:
                continue
            # "Label — 2019: 5,409" or "Header is value, …": each value under its header
            labelled |= {
                _plain_number(value)
                for header, value in _HEADED_VALUE.findall(row.figures)
                if _HEADER.search(header)  # "$ 709 is (389)": a figure read as a header
            }
    return len(figures & labelled) / len(figures)


# A value after its column's header: "2019: 5,409" or "Q3 revenue is 4.1"; a header names
# something (a word, a year), it is no figure.
_HEADED_VALUE = re.compile(
    r"(?:^|, )([^,]*?)(?:: | is )(\(?-?\$?\s?\d[\d,]*(?:\.\d+)?%?\)?)(?=, |$)"
)
_HEADER = re.compile(r"[^\W\d_]|(?:19|20)\d\d")


def _plain_number(token: str) -> str:
    """ "$(1,577.00)" → "1577": signs, commas and a zero fraction dropped."""
    digits = re.sub(r"[^\d.]", "", token).strip(".")
    return digits.rstrip("0").rstrip(".") if "." in digits else digits


def _summary(
    dataset: QADataset,
    found: list[_Found],
    scope: Scope,
    failed: list[dict[str, object]],
    ingest_s: float,
) -> dict[str, Any]:
    names = [f"page_recall@{k}" for k in PAGE_KS] + ["mrr"]
    names += [f"{metric}@{k}" for metric in ("evidence", "documents") for k in CHUNK_KS]
    names += ["labelled"]
    kinds = sorted({f.case.kind for f in found if f.case.kind})
    searches = [f.search_ms for f in found]
    return {
        "dataset": dataset.name,
        "questions": len(found),
        "scope": scope,
        "mode": "retrieval-only",
        "fetched": FETCHED,
        "overall": _stats(found, names),
        "by_kind": {
            kind: _stats([f for f in found if f.case.kind == kind], names) for kind in kinds
        },
        "search_ms": {
            "p50": round(percentile(searches, 50), 1) if searches else None,
            "p95": round(percentile(searches, 95), 1) if searches else None,
        },
        "documents": {
            "count": len(dataset.documents),
            "failed": failed,
            "ingest_s": round(ingest_s, 1),
        },
        "cases": [
            {
                "id": f.case.id,
                "kind": f.case.kind,
                "question": f.case.question,
                "gold_pages": list(f.case.evidence_pages),
                "gold_ranks": f.gold_ranks,
                "top_pages": f.top_pages,
                "scores": f.scores,
            }
            for f in found
        ],
    }


def _stats(found: Sequence[_Found], names: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {"n": len(found)}
    for name in names:
        values = [f.scores[name] for f in found if name in f.scores]
        if values:
            mean, std = mean_std(values)
            out[name] = {"mean": round(mean, 4), "std": round(std, 4), "n": len(values)}
    return out
