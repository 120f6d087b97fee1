"""The keyword form of a question: what a second vector search embeds."""

from __future__ import annotations

import pytest

from polyrag.retrieve.variants import keyword_form, without_form_names


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


@pytest.mark.parametrize(
    ("question", "searched"),
    [
        (
            "How many full- and part-time employees did Corning report in its 2021 Form 10-K?",
            "How many full- and part-time employees did Corning report in its 2021?",
        ),
        (
            "Per Best Buy's 10-Q filing, how many stores closed?",
            "Per Best Buy's, how many stores closed?",
        ),
        (
            "What are three companies acquired by Pfizer mentioned in this 10K report?",
            "What are three companies acquired by Pfizer mentioned in this?",
        ),
        ("What is a 10-K?", "What is a 10-K?"),  # nothing else would be left
        ("Revenue in 2019", "Revenue in 2019"),
    ],
)
def test_form_names_are_not_searched_for(question: str, searched: str) -> None:
    assert without_form_names(question) == searched
