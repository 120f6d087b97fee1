"""Coined terms of a question that the documents never write: what counts as one, and when the
index proves it missing."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from polyrag.agent.terms import ask_about, candidates, undefined_term, written_in
from polyrag.types import Chunk, Hit, Locator


@pytest.mark.parametrize(
    ("question", "terms"),
    [
        ("What was our ARR in 2023?", ["ARR"]),
        ("How many PSUs were granted?", ["PSUs"]),
        ("How many KPIs does the \u201cProject Falcon\u201d plan list?", ["Project Falcon"]),
        ("Which team is 'the Bruins'?", ["the Bruins"]),
        ("How much goodwill moved from \u201call other\u201d to IOTG?", ["IOTG", "all other"]),
        # Spelled out in the question, known to any reader, periods, Roman numerals, names.
        ("What is the FY2019 days payable outstanding (DPO) for Amcor?", []),
        ("What is the COGS % margin in the P&L of 2022?", []),
        ("Who led the navy in World War II?", []),
        ("What did McDonald's report for Widget B?", []),
        ("What's the team's record?", []),
    ],
)
def test_coined_terms(question: str, terms: list[str]) -> None:
    assert candidates(question) == terms


def hit(text: str, path: str = "/docs/report.pdf") -> Hit:
    return Hit(Chunk("c", "s", path, text, Locator(page=1)), 1.0, 1, 1, 0.5)


def test_a_term_is_undefined_only_when_no_passage_or_file_name_writes_it() -> None:
    searched: list[str] = []

    def search(term: str) -> Sequence[Hit]:
        searched.append(term)
        return [hit("Annual recurring revenue rose to 4.1 M.")]

    question = "What was our ARR in 2023?"
    assert undefined_term(question, [hit("Revenue in 2023 was 9 M.")], search) == "ARR"
    assert searched == ["ARR"]
    assert undefined_term(question, [hit("ARR rose to 4.1 M.")], search) is None  # in a hit
    assert undefined_term(question, [hit("x", "/docs/ARR_2023.xlsx")], search) is None  # a name
    assert undefined_term(question, [], lambda term: [hit("The arr figure.")]) is None  # any case


def test_a_search_that_fails_proves_nothing_missing() -> None:
    def broken(term: str) -> Sequence[Hit]:
        raise RuntimeError("full-text index missing")

    assert undefined_term("What was our ARR?", [], broken) is None


def test_the_question_back_names_the_term() -> None:
    assert "'ARR'" in ask_about("ARR")


def test_answer_formats_and_nicknames_are_no_terms() -> None:
    question = "List the pages with the CQC logo, formatted like ['Page 1', 'Page 2']."
    assert candidates(question) == ["CQC"]
    assert candidates("Is growth in JnJ's adjusted EPS expected to accelerate?") == []
    assert candidates('Which quarter had "the highest churn of 2023"?') == []  # a sentence


@pytest.mark.parametrize(
    "question",
    [
        "WHAT IS THE 2nd OBJECTIVE OF REGULATORY EFFICIENCY?",
        "What date is on page 1? Format the date as YYYY-MM-DD.",
        "Is there a signature on the last page? Directly answer 'yes' or 'no'.",
    ],
)
def test_shouting_and_answer_formats_are_no_terms(question: str) -> None:
    assert not {"WHAT", "YYYY", "yes", "no"} & set(candidates(question))


def test_a_phrase_is_written_when_a_passage_has_its_words() -> None:
    assert written_in("no lean", ["Chart: Democrat / No\nlean / Republican"])
    assert written_in("PSU", ["2,000 PSUs were granted"])
    assert written_in("Project Falcon", ["the project\nFalcon budget"])
    assert not written_in("Project Falcon", ["the project budget"])
