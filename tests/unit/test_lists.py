"""Counting a list's items by code: which questions ask it, which list they name."""

from __future__ import annotations

import pytest

from polyrag.agent.tools.lists import count_list, counted_thing, run
from polyrag.types import Chunk, Locator


def chunk(text: str, chunk_id: str = "c") -> Chunk:
    return Chunk(chunk_id, "s", f"/docs/{chunk_id}.md", text, Locator())


@pytest.mark.parametrize(
    ("question", "thing"),
    [
        ("How many suggested reportable symptoms are listed?", "suggested reportable symptoms"),
        ("How many risk factors does the report mention?", "risk factors"),
        ("How many ingredients are there in the list?", "ingredients"),
        ("How many stores were opened in 2023?", None),  # a count, but of no list
        ("What is listed first?", None),
    ],
)
def test_questions_that_count_a_list(question: str, thing: str | None) -> None:
    assert counted_thing(question) == thing


def test_bullets_of_one_kind_under_a_label_are_counted() -> None:
    text = "Risk factors:\n1. Competition\n2. Regulation\n3. Currency\n- a note after the list"
    found = run("How many risk factors are listed?", [chunk(text)])
    assert found.ok and found.result.startswith("3 — the list 'Risk factors' has 3 items")
    assert found.backing[0].chunk_id == "c"


def test_items_on_the_label_line_are_counted() -> None:
    text = "Ingredients: flour, sugar, eggs and butter.\nBake for an hour."
    assert len(count_list("How many ingredients are listed?", [chunk(text)]).items) == 4


def test_a_label_naming_something_else_gives_no_count() -> None:
    text = "Symptoms:\n- Fever\n- Cough"
    assert count_list("How many treatments are listed?", [chunk(text)]) is None


def test_lists_that_fit_alike_but_count_differently_give_no_count() -> None:
    first = chunk("Symptoms:\n- Fever\n- Cough", "a")
    second = chunk("Symptoms:\n- Fever\n- Cough\n- Rash", "b")
    assert count_list("How many symptoms are listed?", [first, second]) is None
    # The list whose label names more of the question wins.
    third = chunk("Reportable symptoms:\n- Fever\n- Cough\n- Rash\n- Headache", "c")
    found = count_list("How many reportable symptoms are listed?", [first, second, third])
    assert found is not None and len(found.items) == 4
