"""The keyword form of a question: what a second vector search embeds."""

from __future__ import annotations

import pytest

from polyrag.retrieve.variants import keyword_form


@pytest.mark.parametrize(
    ("question", "form"),
    [
        (
            "What is the FY2018 capital expenditure amount (in USD millions) for 3M? Give a "
            "response to the question by relying on the details shown in the cash flow statement.",
            "FY2018 capital expenditure amount USD millions 3M cash flow statement",
        ),
        ("Is Boeing's business subject to cyclicality?", "Boeing's business subject cyclicality"),
        # Negations and figures stay; a figure's decimal point is no sentence end.
        ("Were the contracts not renewed in 2020?", "contracts not renewed 2020"),
        ("What is 12.5% of the total?", "12.5% total"),
        # Words that frame a request go, words that name things stay.
        ("Please give the use of the state tax base.", "use state tax base"),
    ],
)
def test_keyword_form_keeps_the_words_that_carry_meaning(question: str, form: str) -> None:
    assert keyword_form(question) == form


@pytest.mark.parametrize(
    "question", ["capex 2018", "Boeing", "What is it?", "", "   ", "Qu'est-ce que le BFR ?"]
)
def test_no_keyword_form_when_it_would_change_nothing_or_leave_too_little(question: str) -> None:
    assert keyword_form(question) is None
