"""Month names are read one way: written out, shortened, or Sept; other words are not months."""

from __future__ import annotations

import pytest

from polyrag.months import month_name, month_number, written_month


@pytest.mark.parametrize(
    ("word", "number"),
    [("April", 4), ("APRIL", 4), ("apr", 4), ("Apr.", 4), ("Sept", 9), ("sep", 9),
     ("June", 6), ("Jun", 6), ("may", 5), ("December", 12)],
)  # fmt: skip
def test_the_ways_a_month_is_written_are_read(word: str, number: int) -> None:
    assert month_number(word) == number


@pytest.mark.parametrize("word", ["Marketing", "Mayor", "Decade", "Apri", "Junior", "2019", ""])
def test_words_that_start_like_a_month_are_not_months(word: str) -> None:
    assert month_number(word) == 0
    assert month_name(word) == ""


def test_a_month_is_found_however_sources_write_it() -> None:
    september = written_month("sep")
    assert all(september.search(t) for t in ["SEPTEMBER 30", "Sept. 30", "30 Sep 2024"])
    assert not september.search("separately")
    assert month_name("oct") == "October"
    with pytest.raises(ValueError, match="not a month"):
        written_month("Monday")
