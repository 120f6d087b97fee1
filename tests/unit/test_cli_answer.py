"""How `polyrag ask` finishes a streamed reply: what is printed after the model's tokens."""

from __future__ import annotations

import pytest

from polyrag.cli import app
from polyrag.types import NOT_SUPPORTED, Answer, AnswerEvent, Step, StepEvent, TokenEvent


def reply(text: str, refused: bool = False, reason: str | None = None) -> Answer:
    return Answer("q", text, refused, (), "local:test", {}, refusal_reason=reason)


def printed(answer: Answer, streamed: str, capsys: pytest.CaptureFixture[str]) -> str:
    app._print_answer(answer, streamed)
    return capsys.readouterr().out


def test_an_answer_code_wrote_after_the_reply_streamed_is_printed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The model streamed "HR …" and code wrote the rows the query picked: both are shown,
    the answer marked as such; a reply that stands is not printed twice."""
    streamed = "HR had fewer training hours in 2024 than in 2023. [1]"
    fixed = reply("IT (y2024 = 280), computed with SQL from the cited rows [1].")
    shown = printed(fixed, streamed, capsys)
    assert "(the answer, written by code:)" in shown and fixed.text in shown
    stands = reply("HR had fewer training hours in 2024 than in 2023.  [1]")
    assert "written by code" not in printed(stands, streamed + "\n", capsys)
    withdrawn = reply("I cannot find this.", True, NOT_SUPPORTED)  # a withdrawal says so
    assert "(withdrawn:" in printed(withdrawn, streamed, capsys)


@pytest.mark.parametrize("trace", [True, False])
def test_trace_shows_each_step_beside_the_streamed_reply(
    trace: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    """`ask --trace` prints every step as it happens, on standard error, so the reply on
    standard output stays the reply; without it, only the reply is printed."""
    events = [
        StepEvent(Step("retrieve", "5 passages for 'ducks', best ducks.xlsx")),
        TokenEvent("405 ducks"),
        StepEvent(Step("verify", "supported")),
        AnswerEvent(reply("405 ducks")),
    ]
    answer, streamed = app._stream(iter(events), trace)
    shown = capsys.readouterr()
    assert answer.text == "405 ducks" and streamed.strip() == shown.out.strip() == "405 ducks"
    steps = ["· retrieve: 5 passages for 'ducks', best ducks.xlsx", "· verify: supported"]
    assert all((step in shown.err) is trace for step in steps)
    assert "· " not in shown.out
