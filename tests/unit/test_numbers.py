"""Numbers as documents write them: separators, signs, units, decimal commas."""

from __future__ import annotations

import pytest

from polyrag.answer.numbers import decimals, numbers_in_text, parse_number


@pytest.mark.parametrize(
    ("cell", "value"),
    [
        ("1,577", 1577.0),
        ("(1,373)", -1373.0),
        ("$ 3.2", 3.2),
        ("12.5%", 12.5),
        ("5.39E-05", 5.39e-05),
        ("15,50", 15.5),  # a decimal comma: one or two digits after it
        ("1.234,56 €", 1234.56),
        ("€ 3,50", 3.5),
        ("1,5 %", 1.5),
        ("2 and 3", None),
    ],
)
def test_a_cell_is_read_as_its_number(cell: str, value: float | None) -> None:
    assert parse_number(cell) == value


def test_numbers_in_text_take_a_decimal_comma_only_beside_euros_or_percent() -> None:
    text = "Sie zahlte 15,50 €, er € 3,50 (12,5 % mehr); 1,577 units, items 2,3 and (1,373)."
    assert numbers_in_text(text) == [15.5, 3.5, 12.5, 1577.0, 2.0, 3.0, -1373.0]


def test_decimals_as_written() -> None:
    written = ["3.50", "15,50 €", "1,577", "1,577.25", "12%", "5.39E-05", "0.4318"]
    assert [decimals(text) for text in written] == [2, 2, 0, 2, 0, 7, 4]


def test_written_numbers_read_figures_and_words_once() -> None:
    from polyrag.answer.numbers import written_numbers

    texts = ["six Nobel Prizes and six Turing Awards", "Twenty-five BTR-80s and 30 trucks"]
    assert written_numbers(texts) == [6.0, 80.0, 30.0, 25.0]  # each text's figures, then words
    assert written_numbers(["one of the reports, forty two pages"]) == [42.0]  # "one": no count
