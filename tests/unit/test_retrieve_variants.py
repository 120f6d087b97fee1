"""The keyword form of a question: what a second vector search embeds."""

from __future__ import annotations

import pytest

from polyrag.retrieve.variants import keyword_form, without_attribution, without_form_names


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


@pytest.mark.parametrize(
    ("question", "searched"),
    [
        (
            "According to Nike's fiscal 2021 Form 10-K, approximately how many employees did "
            "Nike have worldwide as of May 31, 2021?",
            "Approximately how many employees did Nike have worldwide as of May 31, 2021?",
        ),
        (
            "In MGM Resorts' 10-Q for the quarter ended June 30, 2023, what RevPAR was reported "
            "for the Las Vegas Strip Resorts?",
            "What RevPAR was reported for the Las Vegas Strip Resorts?",
        ),
        (
            "According to Best Buy's fiscal 2023 Form 10-K (Item 2, Properties), how many "
            "stores did Best Buy have in Texas?",
            "How many stores did Best Buy have in Texas?",
        ),
        (
            "What hotel occupancy rate did MGM China achieve, according to MGM Resorts' Form "
            "10-Q for the quarter ended June 30, 2023?",
            "What hotel occupancy rate did MGM China achieve?",
        ),
        # What the clause names inside the document is content: kept.
        (
            "What was the finished goods inventory, according to the inventories note of its "
            "2020 Form 10-K?",
            "What was the finished goods inventory, according to the inventories note of its "
            "2020 Form 10-K?",
        ),
        # Little else would be left; and no document named: unchanged.
        ("According to the 10-K, why?", "According to the 10-K, why?"),
        ("In 2019, how many stores opened?", "In 2019, how many stores opened?"),
    ],
)
def test_the_clause_naming_the_document_is_left_out(question: str, searched: str) -> None:
    assert without_attribution(question) == searched


def test_a_clause_that_names_no_document_is_kept() -> None:
    question = "In the form of cash dividends, how much did Apple pay in 2019?"
    assert without_attribution(question) == question
