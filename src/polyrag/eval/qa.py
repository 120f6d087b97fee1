"""`polyrag eval qa`: ask a dataset's questions through the whole pipeline and score them.

The dataset's documents are ingested into their own home under the polyrag home (unchanged
files are skipped on the next run). By default each question is asked of its own documents
(`scope="document"`, a source filter), as FinanceBench and MMLongBench intend; questions that
name no document, and every question with `scope="collection"`, are asked of everything.

Scored per question: evidence-page recall of the retrieved chunks, context precision (share
of retrieved chunks holding gold evidence), exact match / token F1 / token recall / MiniLM
similarity / numeric match of the answer, refusals (right on unanswerable questions, wrong on
answerable ones), citation precision, and the latency of each stage. The LLM judge runs only
when one is configured.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from polyrag.engine import Engine
from polyrag.eval.answer_metrics import (
    correct,
    exact_match,
    mean_std,
    normalize_answer,
    numeric_match,
    percentile,
    semantic_similarity,
    token_f1,
    token_recall,
)
from polyrag.eval.datasets import QACase, QADataset
from polyrag.eval.judge import FactJudge
from polyrag.eval.retrieval import Step
from polyrag.settings import Settings
from polyrag.types import NO_ANSWER_FOUND, Chunk, Filter

Scope = Literal["document", "collection"]
STAGES = ("retrieval", "first_token", "total")
ANSWER_METRICS = (
    "correct",
    "exact_match",
    "f1",
    "token_recall",
    "semantic_similarity",
    "numeric_match",
)
_MARKER = re.compile(r"\s*\[\d+(?:\s*[,\-–]\s*\d+)*\]")


@dataclass
class _Row:
    """One question's outcome."""

    case: QACase
    answer: str
    refused: bool
    provider: str | None
    scores: dict[str, float | None]
    timings: list[dict[str, float]]
    cited: list[str]
    judge_error: str | None = None
    refusal_reason: str | None = None
    mode: str = "fast"
    model_calls: int = 0
    partial: bool = False


def eval_home(settings: Settings, dataset: QADataset) -> Path:
    slug = re.sub(r"[^a-z0-9]+", "-", dataset.name.lower()).strip("-") or "dataset"
    return Path(settings.home) / "eval" / f"qa-{slug}"


def evaluate_qa(
    dataset: QADataset,
    settings: Settings,
    *,
    runs: int = 1,
    scope: Scope = "document",
    judge: FactJudge | None = None,
    on_step: Callable[[Step], None] | None = None,
    mode: str | None = None,
) -> dict[str, Any]:
    """Ingest the dataset's documents, ask every question `runs` times, and score it.

    `mode` (fast, agent, auto or fixed; default: the settings') is how every question is
    answered."""
    home = eval_home(settings, dataset)
    # No answer memory: every run of every question is answered anew, as it is measured.
    agent = settings.agent.model_copy(update={"memory": False})
    engine = Engine(
        settings.model_copy(
            update={"home": home, "models_dir": settings.model_cache, "agent": agent}
        )
    )
    try:
        started = time.perf_counter()
        source_ids, failed = ingest_dataset(engine, dataset, home, on_step)
        ingest_s = time.perf_counter() - started
        rows = []
        for done, case in enumerate(dataset.cases, start=1):
            rows.append(_ask(engine, case, source_ids, scope, runs, judge, mode))
            if on_step:
                on_step(Step("asking", done, len(dataset.cases)))
    finally:
        engine.close()
    chosen = mode or settings.agent.mode
    return _summary(dataset, rows, settings, scope, runs, judge, failed, ingest_s, chosen)


def ingest_dataset(
    engine: Engine, dataset: QADataset, home: Path, on_step: Callable[[Step], None] | None
) -> tuple[dict[str, str], list[dict[str, object]]]:
    """Every document the cases need, indexed; returns document name → source id, failures."""
    docs = home / "docs"
    paths: dict[str, Path] = {}
    for name, ref in dataset.documents.items():
        if ref.path is not None:
            paths[name] = ref.path.resolve()
            continue
        target = docs / name
        if not target.is_file() or target.read_text(encoding="utf-8") != ref.text:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(ref.text or "", encoding="utf-8")
        paths[name] = target.resolve()

    def progress(step: Any) -> None:
        if on_step:
            on_step(Step("ingesting", step.done, step.total))

    report = engine.ingest(sorted(set(paths.values())), on_progress=progress)
    by_path = {
        entry.path: entry.source_id for entry in engine.sources() if entry.status == "indexed"
    }
    source_ids = {name: by_path[str(p)] for name, p in paths.items() if str(p) in by_path}
    return source_ids, report.failed


def _ask(
    engine: Engine,
    case: QACase,
    source_ids: dict[str, str],
    scope: Scope,
    runs: int,
    judge: FactJudge | None,
    mode: str | None,
) -> _Row:
    where = None
    wanted = tuple(source_ids[name] for name in case.documents if name in source_ids)
    if scope == "document" and case.documents:
        # A question whose documents all failed to ingest is asked of nothing it could use.
        where = Filter(source_ids=wanted or ("-none-",))
    hits = engine.search(case.question, where=where).hits
    timings = []
    answer = None
    for _ in range(max(runs, 1)):
        answer = engine.ask(case.question, where=where, mode=mode)
        timings.append(answer.timings_ms)
    assert answer is not None
    refused = answer.refused  # decided once, by the pipeline
    text = "" if refused else answer.text
    prediction = _MARKER.sub("", text).strip()
    scores: dict[str, float | None] = {}
    judge_error = None
    retrieved = [hit.chunk for hit in hits]
    if case.answerable:
        if case.evidence_pages:
            scores["page_recall"] = _page_recall(retrieved, case, wanted)
        scores["context_precision"] = _share(retrieved, case, wanted)
        scores["exact_match"] = exact_match(prediction, case.answers)
        scores["f1"] = token_f1(prediction, case.answers)
        scores["token_recall"] = token_recall(prediction, case.answers)
        scores["semantic_similarity"] = (
            semantic_similarity(prediction, case.answers, engine.embedder.embed)
            if prediction
            else 0.0
        )
        scores["numeric_match"] = numeric_match(prediction, case.answers)
        right = correct(prediction, case.answers)
        scores["correct"] = right
        if case.gold_documents:
            gold = {source_ids[name] for name in case.gold_documents if name in source_ids}
            cited_ids = {c.chunk.source_id for c in answer.citations}
            grounded = 1.0 if gold and gold <= cited_ids else 0.0
            scores["gold_cited"] = grounded
            scores["right_and_grounded"] = right * grounded
        elif sheets := {source_ids[n] for n in case.documents if _is_sheet(n) and n in source_ids}:
            # An answer from a spreadsheet cites its cells ("'Duck Observations'!C5:C10").
            cells = any(
                c.chunk.source_id in sheets and c.chunk.locator.cell_reference()
                for c in answer.citations
            )
            scores["cells_cited"] = 1.0 if cells else 0.0
            scores["right_and_grounded"] = right if cells else 0.0
        scores["false_refusal"] = 1.0 if refused else 0.0
        cited = [c.chunk for c in answer.citations]
        scores["citation_precision"] = _share(cited, case, wanted) if cited else None
        if judge is not None:
            verdict = judge.grade(case.question, case.answers[0], prediction)
            scores.update(judge_precision=verdict.precision, judge_recall=verdict.recall)
            scores["judge_f1"] = verdict.f1
            judge_error = verdict.error
    else:
        scores["refusal_correct"] = 1.0 if refused else 0.0
    return _Row(
        case,
        answer.text,
        refused,
        answer.provider,
        scores,
        timings,
        [f"{c.chunk.path} {c.chunk.locator.describe()}".strip() for c in answer.citations],
        judge_error,
        answer.refusal_reason or (NO_ANSWER_FOUND if refused else None),
        answer.mode,
        answer.model_calls,
        answer.partial,
    )


_SHEETS = frozenset({".xlsx", ".xlsm", ".xls", ".ods", ".csv", ".tsv"})


def _is_sheet(name: str) -> bool:
    return Path(name).suffix.lower() in _SHEETS


def _page_recall(chunks: Sequence[Chunk], case: QACase, wanted: Sequence[str]) -> float:
    pages = {c.locator.page for c in chunks if c.source_id in wanted or not wanted}
    return len(pages.intersection(case.evidence_pages)) / len(set(case.evidence_pages))


def holds_evidence(chunk: Chunk, case: QACase, wanted: Sequence[str] = ()) -> bool:
    """Whether a chunk holds the case's gold evidence.

    By page when the case has gold pages (and the chunk is from one of its documents); else by
    the gold evidence passages (most of a short passage's words in the chunk, or the chunk
    inside a long one); else by a gold answer appearing in the chunk.
    """
    if wanted and chunk.source_id not in wanted:
        return False
    if case.evidence_pages:
        return chunk.locator.page in case.evidence_pages
    text = normalize_answer(chunk.text)
    if case.evidence_texts:
        words = set(text.split())
        for evidence in case.evidence_texts:
            gold = normalize_answer(evidence)
            if not gold:
                continue
            if text and text in gold:
                return True
            gold_words = set(gold.split())
            if len(gold_words & words) >= 0.6 * len(gold_words):
                return True
        return False
    return any(
        gold and re.search(rf"\b{re.escape(gold)}\b", text)
        for gold in map(normalize_answer, case.answers)
    )


def _share(chunks: Sequence[Chunk], case: QACase, wanted: Sequence[str]) -> float:
    return sum(holds_evidence(c, case, wanted) for c in chunks) / len(chunks) if chunks else 0.0


def refusal_reasons_line(counts: dict[str, int]) -> str:
    """A summary's `refusal_reasons` as one line, the most frequent reason first."""
    return ", ".join(f"{reason} {n}" for reason, n in sorted(counts.items(), key=lambda c: -c[1]))


def _summary(
    dataset: QADataset,
    rows: list[_Row],
    settings: Settings,
    scope: Scope,
    runs: int,
    judge: FactJudge | None,
    failed: list[dict[str, object]],
    ingest_s: float,
    mode: str,
) -> dict[str, Any]:
    def stat(name: str) -> dict[str, float] | None:
        values = [r.scores[name] for r in rows if r.scores.get(name) is not None]
        if not values:
            return None
        mean, std = mean_std(float(v) for v in values if v is not None)
        return {"mean": round(mean, 4), "std": round(std, 4), "n": len(values)}

    samples = {stage: [t[stage] for r in rows for t in r.timings if stage in t] for stage in STAGES}
    latency = {}
    for stage, values in samples.items():
        if values:
            mean, std = mean_std(values)
            latency[stage] = {
                "mean": round(mean, 1),
                "std": round(std, 1),
                "p50": round(percentile(values, 50), 1),
                "p95": round(percentile(values, 95), 1),
                "n": len(values),
            }
    answerable = [r for r in rows if r.case.answerable]
    summary: dict[str, Any] = {
        "dataset": dataset.name,
        "questions": len(rows),
        "answerable": len(answerable),
        "unanswerable": len(rows) - len(answerable),
        "scope": scope,
        "mode": mode,
        "runs": runs,
        "retrieval": {
            "k": settings.retrieve.k,
            "page_recall@k": stat("page_recall"),
            "context_precision": stat("context_precision"),
        },
        "answers": {name: stat(name) for name in ANSWER_METRICS},
        "grounding": {
            name: stat(name) for name in ("gold_cited", "cells_cited", "right_and_grounded")
        },
        "by_kind": _by_kind(rows),
        "refusals": {
            "refusal_accuracy": stat("refusal_correct"),
            "false_refusal_rate": stat("false_refusal"),
        },
        "refusal_reasons": dict(Counter(r.refusal_reason for r in rows if r.refusal_reason)),
        "model_calls": _calls(rows),
        "modes": dict(Counter(r.mode for r in rows)),
        "partial_answers": sum(r.partial for r in rows),
        "citations": {"citation_precision": stat("citation_precision")},
        "judge": _judge_summary(rows, judge, stat),
        "latency_ms": latency,
        "providers": sorted({r.provider for r in rows if r.provider}),
        "documents": {
            "count": len(dataset.documents),
            "failed": failed,
            "ingest_s": round(ingest_s, 1),
        },
        "cases": [
            {
                "id": r.case.id,
                "question": r.case.question,
                "gold": list(r.case.answers),
                "answer": r.answer,
                "refused": r.refused,
                **({"refusal_reason": r.refusal_reason} if r.refusal_reason else {}),
                "citations": r.cited,
                "scores": {k: v for k, v in r.scores.items() if v is not None},
                "total_ms": round(r.timings[0].get("total", 0.0), 1),
                "mode": r.mode,
                "model_calls": r.model_calls,
                **({"partial": True} if r.partial else {}),
                **({"judge_error": r.judge_error} if r.judge_error else {}),
            }
            for r in rows
        ],
        "latencies_ms": samples,
    }
    return summary


def _by_kind(rows: Sequence[_Row]) -> dict[str, dict[str, float]]:
    """Share of answerable questions answered correctly, per question kind (when the set has
    kinds: FinanceBench's question types, HotpotQA's bridge and comparison, TAT-QA's…)."""
    out: dict[str, dict[str, float]] = {}
    for kind in sorted({r.case.kind for r in rows if r.case.kind and r.case.answerable}):
        values = [
            float(score)
            for r in rows
            if r.case.kind == kind and (score := r.scores.get("correct")) is not None
        ]
        if values:
            out[kind] = {"correct": round(sum(values) / len(values), 4), "n": len(values)}
    return out


def _calls(rows: Sequence[_Row]) -> dict[str, float] | None:
    """Chat model calls per question: mean and max."""
    if not rows:
        return None
    calls = [r.model_calls for r in rows]
    return {"mean": round(sum(calls) / len(calls), 2), "max": max(calls)}


def _judge_summary(
    rows: list[_Row], judge: FactJudge | None, stat: Callable[[str], dict[str, float] | None]
) -> dict[str, Any]:
    """The judge's mean scores and how many answers it failed to grade, or why it was skipped."""
    if judge is None:
        return {"skipped": "no judge model configured (eval.judge in config.toml)"}
    errors = [r.judge_error for r in rows if r.judge_error]
    summary: dict[str, Any] = {
        name: stat(f"judge_{name}") for name in ("precision", "recall", "f1")
    }
    summary.update(model=judge.name, ungraded=len(errors))
    if errors:
        summary["first_error"] = errors[0]
    return summary
