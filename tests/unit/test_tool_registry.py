"""Tools are typed functions: their signature is the schema, their docstring the description."""

from __future__ import annotations

import sys
import types
from typing import Literal

import pytest

from polyrag.agent.tools.base import ToolContext
from polyrag.agent.tools.registry import Toolbox, builtin_tools, load_user_tools, tool
from polyrag.errors import ConfigError
from polyrag.types import Chunk, Locator


def convert(amount: float, currency: Literal["EUR", "USD"] = "EUR") -> str:
    """Convert an amount of money to the given currency at the company rate."""
    return f"{amount * (1.1 if currency == 'USD' else 1.0):.2f} {currency}"


def context() -> ToolContext:
    passage = Chunk(
        "c", "s", "/d/r.pdf", "Revenue was 1,577 in 2019 and 1,373 in 2018.", Locator(page=3)
    )
    return ToolContext(passages=[passage])


def test_a_function_becomes_a_described_tool() -> None:
    spec = tool(convert)
    assert (
        spec.description == "Convert an amount of money to the given currency at the company rate."
    )
    assert spec.signature().startswith("convert(amount: number, currency: EUR|USD)")
    assert spec.schema()["required"] == ["amount"]


def test_calls_are_validated_and_failures_become_outcomes() -> None:
    box = Toolbox([*builtin_tools(), tool(convert)])
    assert box.call("convert", {"amount": 10, "currency": "USD"}, context()).result == "11.00 USD"
    wrong = box.call("convert", {"amount": "ten"}, context())
    assert not wrong.ok and wrong.error.startswith("amount:")
    missing = box.call("teleport", {}, context())
    assert not missing.ok and "no tool called" in missing.error


def test_the_calculator_checks_its_operands_against_the_passages() -> None:
    box = Toolbox(builtin_tools())
    done = box.call("calculator", {"expression": "(1577 - 1373) / 1373 * 100"}, context())
    assert done.ok and done.formula.endswith("= 14.86") and done.backing[0].chunk_id == "c"
    invented = box.call("calculator", {"expression": "1577 - 1300"}, context())
    assert not invented.ok and "1300 is not a number of the sources" in invented.error


def test_date_difference_uses_dates_written_in_the_sources() -> None:
    passage = Chunk("c", "s", "/d/p.txt", "Born 26 June 1968; signed on 1 July 1993.", Locator())
    box = Toolbox(builtin_tools())
    done = box.call(
        "date_difference",
        {"start": "26 June 1968", "end": "1 July 1993", "unit": "years"},
        ToolContext([passage]),
    )
    assert done.ok and done.result.endswith(": 25 years")
    made_up = box.call(
        "date_difference", {"start": "1 May 1970", "end": "1 July 1993"}, ToolContext([passage])
    )
    assert not made_up.ok


def test_user_tools_load_from_the_settings_and_bad_ones_say_why() -> None:
    module = types.ModuleType("my_company_tools")
    module.convert = convert  # type: ignore[attr-defined]

    def untyped(x):  # type: ignore[no-untyped-def]
        """Does something."""
        return x

    module.untyped = untyped  # type: ignore[attr-defined]
    sys.modules["my_company_tools"] = module
    try:
        (loaded,) = load_user_tools(["my_company_tools:convert"])
        assert loaded.name == "convert"
        with pytest.raises(ConfigError, match="has no type"):
            load_user_tools(["my_company_tools:untyped"])
        with pytest.raises(ConfigError, match="cannot load"):
            load_user_tools(["my_company_tools:nothing"])
    finally:
        del sys.modules["my_company_tools"]


def test_a_raising_user_tool_is_a_loud_failure_not_a_crash() -> None:
    def broken(query: str) -> str:
        """Look something up in the company wiki."""
        raise TimeoutError("wiki did not answer")

    outcome = Toolbox([tool(broken)]).call("broken", {"query": "x"}, context())
    assert not outcome.ok and outcome.error == "TimeoutError: wiki did not answer"
