"""The atomic-fact judge against a real OpenAI-compatible server (llama.cpp on 127.0.0.1)."""

from __future__ import annotations

import pytest

from polyrag.eval.judge import FactJudge
from polyrag.llm.remote import OpenAICompatibleModel
from polyrag.settings import ProviderSettings

pytestmark = pytest.mark.slow

QUESTION = "When did the Marigold Bakery open, and on which street?"
REFERENCE = "It opened on 3 May 2021 on Quay Street."


@pytest.fixture(scope="module")
def judge(llama_server: str) -> FactJudge:
    settings = ProviderSettings(name="judge", base_url=llama_server, model="qwen")
    return FactJudge(OpenAICompatibleModel(settings))


def test_a_right_answer_outscores_a_wrong_one(judge: FactJudge) -> None:
    right = judge.grade(
        QUESTION, REFERENCE, "The Marigold Bakery opened on 3 May 2021 on Quay Street."
    )
    wrong = judge.grade(QUESTION, REFERENCE, "It opened in 1987 on Harbour Road.")
    for verdict in (right, wrong):
        assert verdict.error is None, verdict.error
        assert verdict.reference_facts and verdict.answer_facts
    assert right.f1 is not None and wrong.f1 is not None
    assert right.recall is not None and right.recall >= 0.5
    assert right.f1 > wrong.f1
