"""The calculator: arithmetic without eval, every operand from the evidence, a readable formula."""

from __future__ import annotations

import pytest

from polyrag.agent.tools.calculator import CalculationError, calculate


def test_a_percentage_change_with_its_formula() -> None:
    done = calculate("(1577 - 1373) / 1373 * 100", [1577, 1373])
    assert round(done.value, 2) == 14.86
    assert done.formula == "(1577 − 1373) ÷ 1373 × 100 = 14.86"


def test_thousands_separators_and_signs_are_understood() -> None:
    assert calculate("1,577 - 1,373", [1577, 1373]).value == 204
    assert calculate("-1373 + 1577", [1577, -1373]).value == 204


def test_a_json_brace_left_inside_the_expression_is_dropped() -> None:
    assert calculate("(1577 - 1373)}", [1577, 1373]).value == 204
    with pytest.raises(CalculationError):
        calculate("{1577 - 1373}", [1577, 1373])


def test_an_operand_not_in_the_evidence_is_refused() -> None:
    with pytest.raises(CalculationError, match="999 is not a number of the sources"):
        calculate("1577 - 999", [1577, 1373])


def test_a_piece_of_a_sources_number_is_refused_with_the_whole() -> None:
    """ "MAY 22 26,874.99": the model copied 874.99 three times over, told only that it was
    no number of the sources; the error names the number it was cut from."""
    known = [26874.99, 11188.87, 22]
    with pytest.raises(CalculationError, match=r"874\.99 .*\(they write 26,874\.99\)"):
        calculate("874.99 - 11,188.87", known)
    with pytest.raises(CalculationError, match=r"the sources: copy"):
        calculate("188.8 - 22", known)  # no piece cut at a thousands comma


@pytest.mark.parametrize(
    "expression",
    ["__import__('os').system('true')", "open('/etc/passwd')", "x + 1", "2 ** 1000", "1/0", ""],
)
def test_anything_but_arithmetic_is_refused(expression: str) -> None:
    with pytest.raises(CalculationError):
        calculate(expression, [1, 2, 1000])


def test_averages_may_divide_by_a_small_count() -> None:
    assert calculate("(120 + 135 + 150) / 3", [120, 135, 150]).value == 135


def test_percent_signs_and_currency_are_units_not_operators() -> None:
    assert round(calculate("(4.00% - 3.75%) / 3.75% * 100", [4.0, 3.75]).value, 2) == 6.67
    assert calculate("$1,305 - $1,000", [1305, 1000]).value == 305


def test_a_growth_rate_over_years_takes_a_root_of_a_positive_number() -> None:
    done = calculate("((65984 / 65398) ** (1 / 2) - 1) * 100", [65984, 65398])
    assert round(done.value, 2) == 0.45
    with pytest.raises(CalculationError, match="roots of positive numbers"):
        calculate("(0 - 65398) ** (1 / 2)", [65398])
    with pytest.raises(CalculationError):
        calculate("65398 ** 11", [65398])


def test_a_number_the_question_gives_may_be_an_operand() -> None:
    from polyrag.agent.tools.base import ToolContext
    from polyrag.agent.tools.builtin import ToolError, calculator
    from polyrag.types import Chunk, Locator

    text = "Accounts payable — 2017: 34,616, 2016: 25,309\nCost of sales — 2017: 111,934"
    rows = Chunk("c", "s", "/f.pdf", text, Locator())
    expression = "365 * ((34616 + 25309) / 2) / 111934"
    with pytest.raises(ToolError, match="365 is not a number of the sources"):
        calculator(expression, context=ToolContext([rows]))
    stated = ToolContext([rows], stated=(365.0,))  # "DPO is defined as: 365 * …"
    assert calculator(expression, context=stated).ok


def test_numbers_written_in_words_are_operands_and_cited() -> None:
    from polyrag.agent.tools.base import ToolContext
    from polyrag.agent.tools.builtin import calculator
    from polyrag.types import Chunk, Locator

    prose = Chunk(
        "c",
        "s",
        "/ibm.md",
        "IBM employees have won six Nobel Prizes and six Turing Awards.",
        Locator(),
    )
    done = calculator("6 + 6", context=ToolContext([prose]))
    assert done.ok and "= 12" in done.formula
    assert [c.chunk_id for c in done.backing] == ["c"]  # "six" states 6


def test_a_number_with_a_scale_word_is_an_operand_at_its_full_value() -> None:
    """ "1.2 million euros" copied as 1200000 is the source's number, and cited."""
    from polyrag.agent.tools.base import ToolContext
    from polyrag.agent.tools.builtin import ToolError, calculator
    from polyrag.types import Chunk, Locator

    prose = Chunk(
        "c", "s", "/q3.pdf",
        "Operating expenses rose to 1.2 million euros in Q3, from 1.05 million euros in Q2.",
        Locator(),
    )  # fmt: skip
    done = calculator("1200000 - 1050000", context=ToolContext([prose]))
    assert done.ok and "= 150,000" in done.formula
    assert [c.chunk_id for c in done.backing] == ["c"]
    with pytest.raises(ToolError, match="is not a number of the sources"):
        calculator("1200000 - 1500000", context=ToolContext([prose]))


def test_a_decimal_comma_beside_a_euro_sign_is_a_decimal_point() -> None:
    prices = [15.5, 3.5, 25.75, 45.9]
    done = calculate("15,50 € + 3,50 € + 25,75€ + €45,90", prices)
    assert done.formula == "15.5 + 3.5 + 25.75 + 45.9 = 90.65"
    assert calculate("max(15,50)", [15, 50]).value == 50  # between arguments, a comma stays
    assert calculate("1.234,56 € - 1,577", [1234.56, 1577]).value == pytest.approx(-342.44)
