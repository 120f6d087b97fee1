"""Arithmetic on numbers taken from the evidence: never `eval`, every operand checked.

An expression is parsed by Python's own parser into a tree and only numbers, + − × ÷, small
powers (and roots of positive numbers), parentheses and a few functions (abs, round, min, max)
are walked; anything else is refused. Each number in it must be a number of the evidence (or of
an earlier tool result, or the question's own), except the small constants a formula needs (100
for a percentage, a count to average by): a model that makes up an operand is caught here, not
in the answer.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from polyrag.answer.numbers import same_number, show
from polyrag.errors import PolyragError

FREE_CONSTANTS = frozenset(
    {0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 12.0, 100.0, 1000.0}
)
_BINARY: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}
_SYMBOLS = {ast.Add: "+", ast.Sub: "−", ast.Mult: "×", ast.Div: "÷", ast.Pow: "^"}
_FUNCTIONS: dict[str, Callable[..., float]] = {
    "abs": abs,
    "round": lambda x, n=0: round(x, int(n)),
    "min": min,
    "max": max,
}
_GROUPED = re.compile(r"(?<![\d.])(\d{1,3}(?:,\d{3})+)(?![\d,])")
# A decimal comma beside a euro sign, as the sources write it: "15,50 € + 3,50 €".
_EURO_DECIMAL = re.compile(
    r"(?<![\d.,])(€\s*)?(\d{1,3}(?:\.\d{3})*),(\d{1,2})(?![\d,])(\s*(?:€|EUR\b))?"
)
_CURRENCY = re.compile(r"(?:US\$|[$€£¥])(?=\s*[\d.(])")
_UNIT_SIGNS = re.compile(r"(\d)\s*%")  # a percent sign is the number's unit, not modulo
MAX_LENGTH = 300


class CalculationError(PolyragError):
    """An expression was refused or could not be computed; fed back to whoever wrote it."""

    hint = "write one arithmetic expression with numbers copied from the sources"


@dataclass(frozen=True)
class Calculation:
    expression: str  # as it was run
    formula: str  # as a person reads it: "(1,577 − 1,373) ÷ 1,373 × 100 = 14.86"
    value: float
    operands: tuple[float, ...]


def calculate(expression: str, known: Sequence[float]) -> Calculation:
    """Compute `expression`; every operand must be one of the `known` numbers (or a small
    constant). Raises CalculationError naming what is wrong."""
    text = _EURO_DECIMAL.sub(_decimal_point, expression.strip())
    text = _GROUPED.sub(lambda m: m.group(1).replace(",", ""), text)
    text = text.replace("×", "*").replace("÷", "/").replace("−", "-").replace("^", "**")
    text = text.rstrip("=").strip()
    text = _UNIT_SIGNS.sub(r"\1", _CURRENCY.sub("", text))  # "(4.00% - 3.75%)", "$1,305"
    if "{" not in text:  # a small model closes its JSON inside the string: "(3/4)*100}"
        text = text.rstrip("}").strip()
    if not text or len(text) > MAX_LENGTH:
        raise CalculationError("the expression is empty or too long")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        raise CalculationError(f"not an arithmetic expression: {expression!r}") from None
    operands: list[float] = []
    value = _evaluate(tree.body, operands)
    if isinstance(value, complex) or math.isnan(value) or math.isinf(value):
        raise CalculationError("the result is not a finite number")
    unknown = [
        n for n in operands if n not in FREE_CONSTANTS and not any(same_number(n, k) for k in known)
    ]
    if unknown:
        shown = ", ".join(show(n) for n in unknown)
        meant = [whole for n in unknown for whole in _written_whole(n, known)]
        written = f" (they write {', '.join(dict.fromkeys(meant))})" if meant else ""
        raise CalculationError(
            f"{shown} is not a number of the sources{written}: copy operands from them"
        )
    formula = f"{_render(tree.body)} = {show(value)}"
    return Calculation(text, formula, float(value), tuple(operands))


def _written_whole(part: float, known: Sequence[float]) -> list[str]:
    """The sources' numbers of which `part` is a piece cut at a thousands comma, as written:
    "874.99" copied from "MAY 22 26,874.99" (the model took "22 26" for a date) is 26,874.99."""
    piece = show(part)
    return [
        whole
        for k in dict.fromkeys(known)
        if (whole := show(k)) != piece
        and (whole.endswith("," + piece) or whole.startswith(piece + ","))
    ][:3]


def _decimal_point(match: re.Match[str]) -> str:
    if not (match.group(1) or match.group(4)):  # "max(15,50)": a comma between arguments
        return match.group(0)
    return match.group(2).replace(".", "") + "." + match.group(3)


def _evaluate(node: ast.AST, operands: list[float]) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        if isinstance(node.value, bool):
            raise CalculationError("true and false are not numbers")
        operands.append(abs(float(node.value)))
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        inner = _evaluate(node.operand, operands)
        return -inner if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left = _evaluate(node.left, operands)
        right = _evaluate(node.right, operands)
        # A root of a positive number is a power too (a growth rate over n years: ** (1 / 2)).
        if isinstance(node.op, ast.Pow) and (
            abs(right) > 10 or (right != int(right) and left <= 0)
        ):
            raise CalculationError("only small powers (and roots of positive numbers) are allowed")
        if isinstance(node.op, ast.Div) and right == 0:
            raise CalculationError("division by zero")
        return _BINARY[type(node.op)](left, right)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _FUNCTIONS
        and not node.keywords
        and node.args
    ):
        values = [_evaluate(arg, operands) for arg in node.args]
        if node.func.id == "round" and len(values) == 2:
            operands.pop()  # the digits to round to are not an operand
        return float(_FUNCTIONS[node.func.id](*values))
    if isinstance(node, ast.Tuple):
        raise CalculationError("write numbers without thousands separators (1577, not 1,577)")
    raise CalculationError(f"{ast.unparse(node)!r} is not allowed: use numbers and + - * / ( )")


def _render(node: ast.AST) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return show(float(node.value))
    if isinstance(node, ast.UnaryOp):
        return ("-" if isinstance(node.op, ast.USub) else "") + _render(node.operand)
    if isinstance(node, ast.BinOp):
        left, right = _render(node.left), _render(node.right)
        if isinstance(node.left, ast.BinOp) and _weaker(node.left.op, node.op):
            left = f"({left})"
        if isinstance(node.right, ast.BinOp) and not _weaker(node.op, node.right.op):
            right = f"({right})"
        return f"{left} {_SYMBOLS[type(node.op)]} {right}"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return f"{node.func.id}({', '.join(_render(a) for a in node.args)})"
    return ast.unparse(node)


def _weaker(inner: ast.operator, outer: ast.operator) -> bool:
    """Whether `inner` binds less tightly than `outer` (so it needs parentheses under it)."""
    rank = {ast.Add: 1, ast.Sub: 1, ast.Mult: 2, ast.Div: 2, ast.Pow: 3}
    return rank[type(inner)] < rank[type(outer)]
