"""Numbers as documents write them: "1,577", "$ 3.2", "(1,577)" for a negative, "12.5%", "—"."""

from __future__ import annotations

import re
from collections.abc import Sequence

# What a question asks for, as far as numbers go. A rate or a share ("percent", "ratio",
# "growth"); percentage points between two rates; an amount in money or in a currency's
# units ("in thousands of dollars", "in CHF"); a count of things ("how many stores").
# A question that asks for a percentage: "the percentage change", "in per cent", "%".
ASKS_PERCENT = re.compile(r"\bper ?cent(?:age)?\b|%", re.IGNORECASE)
ASKS_RELATIVE = re.compile(
    r"\bpercent|%|per cent|\bratio\b|\bproportion\b|\brate\b|\bgrowth\b|\bshare\b|"
    # "three times as large", "how many times", not "the lead times"
    r"\bhow many times\b|"
    r"\btimes (?:more|less|as|larger|bigger|smaller|higher|lower|greater|that)\b",
    re.IGNORECASE,
)
ASKS_POINTS = re.compile(r"\b(?:percentage|basis) points?\b|\bpp\b", re.IGNORECASE)
ASKS_AMOUNT = re.compile(
    r"\bin (?:thousands|millions|billions)\b|\b(?:dollars|usd|euros?|eur|chf|pounds)\b|\$",
    re.IGNORECASE,
)
_ASKS_COUNT = re.compile(r"\bhow many\b", re.IGNORECASE)


def asks_quantity(question: str) -> bool:
    """Whether the question asks for an amount of money or a count of things, and for no rate,
    share or percentage points: a percentage does not answer it."""
    return bool(
        (ASKS_AMOUNT.search(question) or _ASKS_COUNT.search(question))
        and not ASKS_RELATIVE.search(question)
        and not ASKS_POINTS.search(question)
    )


# A decimal comma, as most of Europe writes: "15,50", "1.234,56" (a comma before three digits
# separates thousands: "1,577").
_DECIMAL_COMMA = r"\d{1,3}(?:\.\d{3})*,\d{1,2}(?!\d)"
_NUMBER = re.compile(
    r"^(?P<open>\()?\s*(?P<sign>[-+−–])?\s*(?:US\$|[$€£¥])?\s*(?P<sign2>[-+−])?\s*"
    r"(?P<digits>(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|"
    rf"(?P<comma>{_DECIMAL_COMMA})|"
    r"\d+(?:\.\d+)?|\.\d+)(?:[eE][-+−]?\d+)?)\s*"
    r"(?P<unit>%|[kKmMbB]n?|million|billion|thousand)?\s*(?:[€£¥]|EUR)?\s*(?P<close>\))?$"
)
_DASHES = frozenset({"-", "—", "–", "−", ""})
# Numbers inside running text: "1,577", "-3.5", "12%", "(1,373)"; not parts of words or dates.
# In text a decimal comma is taken only beside a euro sign or a percent ("15,50 €", "€ 3,50",
# "12,5 %"): "2,3" alone may be a list.
IN_TEXT = re.compile(
    r"(?<![\w.])\(?[-−]?(?:"
    rf"€\s?{_DECIMAL_COMMA}|{_DECIMAL_COMMA}(?=\s?(?:€|EUR\b|%))|"
    r"\$?\d+(?:,\d{3})*(?:\.\d+)?)\)?%?"
)


def parse_number(text: str) -> float | None:
    """The value of a cell or a number in the evidence, or None when it is not one number.

    Parentheses around an amount make it negative (accounting style); a unit word or letter is
    dropped ("4.1 M" → 4.1), and so is a percent sign ("12.5%" → 12.5); a paper's "5.39E-05" is
    read in scientific notation; a comma before one or two last digits is a decimal comma
    ("15,50 €" → 15.5).
    """
    cleaned = " ".join(text.replace("\u00a0", " ").split())
    match = _NUMBER.match(cleaned)
    if match is None:
        return None
    if bool(match["open"]) != bool(match["close"]):
        return None
    digits = match["digits"]
    if match["comma"]:  # "1.234,56" → 1234.56
        digits = digits.replace(".", "").replace(",", ".")
    value = float(digits.replace(",", "").replace("−", "-"))  # "5.39E−05" too
    negative = (match["sign"] or match["sign2"] or "") in ("-", "−", "–") or bool(match["open"])
    return -value if negative else value


def decimals(text: str) -> int:
    """How many decimals a number is written with ("3.50" 2, "15,50 €" 2, "1,577" 0,
    "5.39E-05" 7)."""
    mantissa, _, exponent = text.strip().replace("−", "-").upper().partition("E")
    shift = -int(match.group(0)) if (match := re.match(r"[-+]?\d+", exponent)) else 0
    match = re.search(r"[.,](\d+)\D*$", mantissa)
    if match is None or (match.group(0)[0] == "," and len(match.group(1)) == 3):
        return max(shift, 0)
    return max(len(match.group(1)) + shift, 0)


def is_blank_number(text: str) -> bool:
    """A dash or an empty cell: no value (statements write "—" for nil)."""
    return text.strip() in _DASHES


def numbers_in_text(text: str) -> list[float]:
    """Every number written in a text, in order (thousands separators and signs understood)."""
    out = []
    for match in IN_TEXT.finditer(text):
        value = text_number(match.group(0))
        if value is not None:
            out.append(value)
    return out


NUMBER_WORDS = (  # one to twenty, in order
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
    "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
    "twenty",
)  # fmt: skip
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70}
_TENS |= {"eighty": 80, "ninety": 90}
# "one" is left out of the words read as numbers: it is mostly no count ("one of the …").
_WORD_VALUES = {word: value for value, word in enumerate(NUMBER_WORDS, start=1) if value != 1}
_UNITS = "|".join(NUMBER_WORDS[:9])
_NUMBER_WORD = re.compile(
    rf"\b(?:(?P<tens>{'|'.join(_TENS)})(?:[- ](?P<unit>{_UNITS}))?|"
    rf"(?P<word>{'|'.join(_WORD_VALUES)}))\b",
    re.IGNORECASE,
)


def written_numbers(texts: Sequence[str]) -> list[float]:
    """The numbers the texts write, in figures or in words ("six Nobel Prizes" states 6,
    "twenty-five" 25), each once."""
    seen: dict[float, None] = {}
    for text in texts:
        for value in numbers_in_text(text):
            seen.setdefault(value)
        for match in _NUMBER_WORD.finditer(text):
            if match["word"]:
                seen.setdefault(float(_WORD_VALUES[match["word"].lower()]))
                continue
            unit = match["unit"]
            units = NUMBER_WORDS.index(unit.lower()) + 1 if unit else 0
            seen.setdefault(float(_TENS[match["tens"].lower()] + units))
    return list(seen)


_SCALED = re.compile(
    r"(?<![\w.,])(\d{1,3}(?:,\d{3})*(?:\.\d+)?|\d+(?:\.\d+)?)\s*"
    r"(thousand|million|billion|trillion)s?\b",
    re.IGNORECASE,
)
SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}


def scaled_numbers(texts: Sequence[str]) -> list[float]:
    """The numbers the texts write with a scale word, at their full value ("1.2 million
    euros" is 1,200,000), each once."""
    seen: dict[float, None] = {}
    for text in texts:
        for match in _SCALED.finditer(text):
            value = float(match.group(1).replace(",", "")) * SCALES[match.group(2).lower()]
            seen.setdefault(round(value, 6))
    return list(seen)


def text_number(found: str) -> float | None:
    """The value of an IN_TEXT match; a parenthesis it does not close is punctuation ("(12.5%
    more)"), not an accounting negative."""
    if found.startswith("(") != found.endswith(")"):
        found = found.strip("()")
    return parse_number(found)


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
