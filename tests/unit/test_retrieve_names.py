"""Which file a question names: the share of a file name's parts the question spells out."""

from __future__ import annotations

import pytest

from polyrag.retrieve.names import name_overlap, question_terms

INVENTORIES = "What is the year end FY2019 total amount of inventories for Best Buy?"
CASH = "Was there a drop in cash between FY 2023 and Q2 of FY2024 in Best Buy's 10-Q?"


@pytest.mark.parametrize(
    ("question", "path", "share"),
    [
        # Words joined ("Best Buy" → bestbuy) and a year inside "FY2019".
        (INVENTORIES, "/filings/BESTBUY_2019_10K.pdf", 2 / 3),
        (INVENTORIES, "/filings/BESTBUY_2023_10K.pdf", 1 / 3),
        (INVENTORIES, "/filings/BLOCK_2019_10K.pdf", 1 / 3),
        # "2024Q2" from "Q2 of FY2024"; "10-Q" is 10Q, not 10K.
        (CASH, "BESTBUY_2024Q2_10Q.pdf", 1.0),
        (CASH, "BESTBUY_2023_10K.pdf", 2 / 3),
        ("What was 3M's capital expenditure?", "3M_2018_10K.pdf", 1 / 3),
        (INVENTORIES, "report.pdf", 0.0),
        (INVENTORIES, ".pdf", 0.0),
    ],
)
def test_name_overlap(question: str, path: str, share: float) -> None:
    assert name_overlap(question_terms(question), path) == pytest.approx(share)


def test_question_terms_hold_words_pieces_and_joined_neighbours() -> None:
    terms = question_terms("Johnson & Johnson's FY2022 10-K")
    assert {"johnson", "fy2022", "fy", "2022", "10", "k", "10k", "johnsonjohnson"} <= terms
