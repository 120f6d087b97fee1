"""The atomic-fact judge's scoring, with scripted judge replies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from polyrag.errors import ProviderUnavailableError
from polyrag.eval.judge import FactJudge, verdict_from
from polyrag.settings import load_settings

from .replies import Replies


def reply(reference: list[bool], answer: list[bool]) -> dict[str, object]:
    facts = [{"fact": f"r{i}", "in_answer": flag} for i, flag in enumerate(reference)]
    claims = [{"fact": f"a{i}", "in_reference": flag} for i, flag in enumerate(answer)]
    return {"reference_facts": facts, "answer_facts": claims}


def test_precision_recall_and_f1_count_facts() -> None:
    verdict = verdict_from(reply([True, False], [True, True, False, False]))
    assert verdict.recall == 0.5 and verdict.precision == 0.5 and verdict.f1 == 0.5
    assert verdict.reference_facts == (("r0", True), ("r1", False))
    assert verdict.error is None


def test_all_facts_right_is_one() -> None:
    verdict = verdict_from(reply([True], [True]))
    assert (verdict.precision, verdict.recall, verdict.f1) == (1.0, 1.0, 1.0)


def test_an_answer_with_no_facts_scores_zero() -> None:
    verdict = verdict_from(reply([True, True], []))
    assert verdict.precision == 0.0 and verdict.f1 == 0.0


def test_loose_string_flags_are_read() -> None:
    loose = {
        "reference_facts": [{"fact": "x", "in_answer": "yes"}],
        "answer_facts": [{"fact": "x", "in_reference": "False"}],
    }
    verdict = verdict_from(loose)
    assert verdict.recall == 1.0 and verdict.precision == 0.0


@pytest.mark.parametrize(
    "bad",
    [{}, {"reference_facts": [], "answer_facts": []}, {"reference_facts": "x", "answer_facts": []},
     {"reference_facts": [{"claim": "x"}], "answer_facts": []}],
)  # fmt: skip
def test_a_reply_without_fact_lists_is_ungraded(bad: dict[str, object]) -> None:
    verdict = verdict_from(bad)
    assert verdict.f1 is None and verdict.error


def test_grade_sends_question_reference_and_answer_in_one_call() -> None:
    model = Replies([json.dumps(reply([True], [True, False]))])
    verdict = FactJudge(model).grade("How tall?", "3 m", "It is 3 m tall, and blue.")
    assert verdict.f1 == pytest.approx(2 * 0.5 * 1.0 / 1.5, abs=1e-4)
    ((messages, options),) = model.asked
    assert options.json_output
    assert all(text in messages[-1].content for text in ("How tall?", "3 m", "and blue."))


def test_an_empty_answer_is_graded_zero_without_a_call() -> None:
    model = Replies([])
    assert FactJudge(model).grade("q", "gold", "  ").f1 == 0.0
    assert model.asked == []


def test_a_failing_judge_leaves_the_answer_ungraded() -> None:
    verdict = FactJudge(Replies([ProviderUnavailableError("down")])).grade("q", "gold", "x")
    assert verdict.f1 is None and verdict.error is not None and "down" in verdict.error


def test_the_judge_comes_from_settings_when_configured(tmp_path: Path) -> None:
    assert FactJudge.from_settings(load_settings(tmp_path)) is None
    (tmp_path / "config.toml").write_text(
        '[eval.judge]\nname = "grader"\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m"\n'
    )
    judge = FactJudge.from_settings(load_settings(tmp_path))
    assert judge is not None and judge.name == "remote:grader"
