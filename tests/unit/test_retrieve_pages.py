"""The pages a question names."""

from __future__ import annotations

import pytest

from polyrag.retrieve.pages import named_pages, pages_from_end


@pytest.mark.parametrize(
    ("question", "pages"),
    [
        ("According to the chart on page 14, how much time was spent?", (14,)),
        ("What is the fax number on page fourteen?", (14,)),
        ("What date is mentioned at the beginning of page(1)?", (1,)),
        ("What is the sum of the numbers on the page 15 and page 16?", (15, 16)),
        ("See pp. 4-5 and p. 9, then Page 4 again.", (4, 5, 9)),
        ("What date is mentioned on the second page?", (2,)),
        ("Who is the governor named on the first page of the document?", (1,)),
        ("How many websites are present on the cover page?", (1,)),
        # Pages it does not name, or names only relative to an end we do not know here.
        ("Who signed on the last page?", ()),
        ("In the figure on the second last page, how many people stand?", ()),
        ("Which pages have information blacked out?", ()),
        ("What page has a snowflake on it?", ()),
        ("Summarise pages 1-400.", ()),
        ("What was the revenue in 2019?", ()),
    ],
)
def test_named_pages(question: str, pages: tuple[int, ...]) -> None:
    assert named_pages(question) == pages


@pytest.mark.parametrize(
    ("question", "ends"),
    [
        ("Is there a signature present on the last page?", (1,)),
        ("What does the final page of the contract say?", (1,)),
        ("In the figure on the second last page, how many people stand?", (2,)),
        ("What is on the second-to-last page?", (2,)),
        ("What is on the penultimate page?", (2,)),
        ("In the figure at Page at the second last, how many people are standing?", (2,)),
        ("Compare the third last page with the last page.", (3, 1)),
        ("What was last year's revenue on page 4?", ()),
        ("Which page was edited last?", ()),
    ],
)
def test_pages_from_end(question: str, ends: tuple[int, ...]) -> None:
    assert pages_from_end(question) == ends
