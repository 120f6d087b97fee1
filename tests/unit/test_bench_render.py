"""The bench's question-answering table says when its sets were measured at different commits."""

from __future__ import annotations

from typing import Any

from bench.run import render_qa


def measured(commit: str | None) -> dict[str, Any]:
    stat = {"mean": 1.0, "std": 0.0, "n": 2}
    run: dict[str, Any] = {
        "questions": 2,
        "unanswerable": 0,
        "answers": {"correct": stat, "numeric_match": None},
        "grounding": {"right_and_grounded": None},
        "refusals": {"refusal_accuracy": None, "false_refusal_rate": stat},
        "retrieval": {"page_recall@k": None},
        "model_calls": {"mean": 1.0, "max": 1},
        "latency_ms": {"total": {"p50": 3000.0}, "first_token": {"p50": 2000.0}},
        "refusal_reasons": {},
        "by_kind": {},
    }
    if commit:
        run["commit"] = commit
    return run


def test_sets_measured_at_other_commits_are_named() -> None:
    mixed = render_qa(
        {"table-qa": {"fast": measured("abc1234")}, "squad2": {"fast": measured(None)}}
    )
    (line,) = [line for line in mixed if line.startswith("Measured at more than one commit")]
    assert "abc1234: table-qa fast" in line and "unrecorded: squad2 fast" in line
    same = render_qa(
        {"table-qa": {"fast": measured("abc1234")}, "squad2": {"fast": measured("abc1234")}}
    )
    assert not any(line.startswith("Measured at more than one commit") for line in same)
