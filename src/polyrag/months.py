"""Month names, read one way everywhere: in questions, in answers, in table headers.

A month is written out ("April", "APRIL"), shortened to three letters ("Apr", "Apr.") or, for
September, to "Sept". Other words that start like a month ("Marketing", "Mayor", "Decade") are
not months.
"""

from __future__ import annotations

import re

MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip

# Any written form of a month, without its trailing full stop; for patterns compiled with
# re.IGNORECASE, between word boundaries.
MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_ONE = re.compile(rf"{MONTH}\.?", re.IGNORECASE)


def month_number(word: str) -> int:
    """The month a word writes, 1 to 12 ("Apr." → 4, "SEPT" → 9); 0 for any other word."""
    if not _ONE.fullmatch(word.strip()):
        return 0
    return [month[:3] for month in MONTHS].index(word.strip()[:3].title()) + 1


def month_name(word: str) -> str:
    """The month a word writes, spelt out ("apr" → "April"); "" for any other word."""
    number = month_number(word)
    return MONTHS[number - 1] if number else ""


def written_month(month: str) -> re.Pattern[str]:
    """The ways sources write a month: April, APRIL, Apr or Apr.; Sept too."""
    number = month_number(month)
    if not number:
        raise ValueError(f"{month!r} is not a month")
    full = MONTHS[number - 1]
    rest = f"{full[3:]}|t" if number == 9 else full[3:]
    return re.compile(rf"\b{full[:3]}(?:{rest})?\b", re.IGNORECASE)
