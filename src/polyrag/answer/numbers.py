"""Numbers as documents write them: "1,577", "$ 3.2", "(1,577)" for a negative, "12.5%", "—"."""

from __future__ import annotations

import re

_NUMBER = re.compile(
    r"^(?P<open>\()?\s*(?P<sign>[-+−–])?\s*(?:US\$|[$€£¥])?\s*(?P<sign2>[-+−])?\s*"
    r"(?P<digits>(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?:[eE][-+−]?\d+)?)\s*"
    r"(?P<unit>%|[kKmMbB]n?|million|billion|thousand)?\s*(?P<close>\))?$"
)
_DASHES = frozenset({"-", "—", "–", "−", ""})
# Numbers inside running text: "1,577", "-3.5", "12%", "(1,373)"; not parts of words or dates.
IN_TEXT = re.compile(r"(?<![\w.])\(?[-−]?\$?\d+(?:,\d{3})*(?:\.\d+)?\)?%?")


def parse_number(text: str) -> float | None:
    """The value of a cell or a number in the evidence, or None when it is not one number.

    Parentheses around an amount make it negative (accounting style); a unit word or letter is
    dropped ("4.1 M" → 4.1), and so is a percent sign ("12.5%" → 12.5); a paper's "5.39E-05" is
    read in scientific notation.
    """
    cleaned = " ".join(text.replace("\u00a0", " ").split())
    match = _NUMBER.match(cleaned)
    if match is None:
        return None
    if bool(match["open"]) != bool(match["close"]):
        return None
    value = float(match["digits"].replace(",", "").replace("−", "-"))  # "5.39E−05" too
    negative = (match["sign"] or match["sign2"] or "") in ("-", "−", "–") or bool(match["open"])
    return -value if negative else value


def is_blank_number(text: str) -> bool:
    """A dash or an empty cell: no value (statements write "—" for nil)."""
    return text.strip() in _DASHES


def numbers_in_text(text: str) -> list[float]:
    """Every number written in a text, in order (thousands separators and signs understood)."""
    out = []
    for match in IN_TEXT.finditer(text):
        value = parse_number(match.group(0))
        if value is not None:
            out.append(value)
    return out


def same_number(first: float, second: float, rel_tol: float = 1e-6) -> bool:
    """Equal up to rounding, ignoring the sign (a decrease is written without one)."""
    a, b = abs(first), abs(second)
    return abs(a - b) <= max(rel_tol * max(a, b), 1e-9)


def show(value: float) -> str:
    """A number as a person writes it: at most 2 decimals (more when it is very small), and
    thousands separated from 10,000 on (a year stays 2019)."""
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}" if abs(value) >= 10_000 else str(int(value))
    if abs(value) >= 0.01:
        return f"{value:,.2f}".rstrip("0").rstrip(".")
    return f"{value:.4g}"
