"""Decisions of the small model: a reply that copies the prompt's example back is not taken."""

from __future__ import annotations

import json

import pytest

from polyrag.agent.decisions import Assessment, SqlQuery, YesNo, decide
from polyrag.agent.trace import Trace
from polyrag.errors import MalformedReplyError
from polyrag.llm.fallback import FallbackChain
from tests.unit.replies import Replies


def chain(reply: dict[str, str]) -> FallbackChain:
    return FallbackChain([Replies([json.dumps(reply)])])  # type: ignore[list-item]


def test_fields_copied_from_the_example_count_as_empty() -> None:
    echoed = {
        "answer": "the answer copied from the sources, or empty",
        "found": "Kiss and Tell stars Shirley Temple",
        "next_search": "A short search phrase, or empty",
    }
    decided = decide(chain(echoed), Trace(lambda _e: None), "evaluate", Assessment,
                     question="q", found="f")  # fmt: skip
    assert decided == Assessment(answer="", found=echoed["found"], next_search="")


def test_a_required_field_copied_from_the_example_is_an_error() -> None:
    with pytest.raises(MalformedReplyError):
        decide(chain({"sql": "SELECT ..."}), Trace(lambda _e: None), "sql", SqlQuery,
               schema="", question="q", feedback="")  # fmt: skip


def test_a_choice_shown_in_the_example_is_a_real_answer() -> None:
    decided = decide(chain({"answer": "yes"}), Trace(lambda _e: None), "yesno", YesNo,
                     question="q", found="f", answer="a")  # fmt: skip
    assert decided.answer == "yes"
