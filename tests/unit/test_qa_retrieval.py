"""What counts as a gold evidence passage being found by retrieval (`eval qa --retrieval-only`)."""

from __future__ import annotations

from polyrag.eval.qa_retrieval import evidence_found, key_tokens, labelled_share
from polyrag.types import Chunk, Locator

STATEMENT = (
    "Consolidated Statement of Cash Flows\nYears ended December 31 (Millions) 2018 2017 2016\n"
    "Net income including noncontrolling interest $ 5,363 $ 4,869 $ 5,058\n"
    "Depreciation and amortization 1,488 1,544 1,474\n"
    "Purchases of property, plant and equipment (PP&E) (1,577) (1,373) (1,420)\n"
)


def _chunk(text: str, n: int = 0) -> Chunk:
    return Chunk(f"c{n}", "s", "/docs/3M_2018_10K.pdf", text, Locator(page=60), ordinal=n)


def test_a_statement_is_known_by_its_numbers_not_its_years() -> None:
    keys = key_tokens(STATEMENT)
    assert {"5363", "1488", "1577", "1420"} <= keys
    assert not {"2018", "2017", "2016"} & keys
    assert "consolidated" not in keys


def test_a_passage_without_numbers_is_known_by_its_words() -> None:
    assert key_tokens("WordPerfect was popular among legal professionals.") == {
        "wordperfect",
        "popular",
        "among",
        "legal",
        "professionals",
    }


def test_most_of_a_passage_must_be_in_the_chunks() -> None:
    rows = STATEMENT.splitlines()
    most = _chunk("\n".join(rows[:4]), 1), _chunk(rows[4].replace("(1,577)", "1,577"), 2)
    assert evidence_found(STATEMENT, most)  # signs and commas do not matter
    # Only the net income row: 3 of the 9 numbers.
    assert not evidence_found(STATEMENT, [_chunk("\n".join(rows[:3]))])
    # The same years and heading from another statement are not the passage.
    other = "Consolidated Statement of Cash Flows 2018 2017 2016 Net income 1 2 3 4 5"
    assert not evidence_found(STATEMENT, [_chunk(other)])
    assert not evidence_found(STATEMENT, [])


def test_an_extracted_figure_is_known_by_the_answer_it_states() -> None:
    assert key_tokens(STATEMENT, ["$1577.00"]) == {"1577"}
    capex = _chunk("Purchases of property, plant and equipment (PP&E) (1,577) (1,373) (1,420)")
    assert evidence_found(STATEMENT, [capex], ["$1577.00"])
    assert not evidence_found(STATEMENT, [capex])  # without the answer: most of the page
    # A computed answer the passage does not state leaves the passage's own numbers.
    assert key_tokens(STATEMENT, ["0.66"]) == key_tokens(STATEMENT)


def test_the_share_of_evidence_figures_in_labelled_table_rows() -> None:
    rows = _chunk(
        "Table 10: Consolidated Statement of Cash Flows\n"
        "Row 3: Net income including noncontrolling interest — 2018: 5,363, 2017: 4,869, "
        "2016: 5,058\n"
        "Row 4: Depreciation and amortization — 2018: 1,488, 2017: 1,544, 2016: 1,474"
    )
    # Six of the passage's ten figures ("31" of "December 31" is one) are in rows with their
    # label and year.
    assert labelled_share([STATEMENT], [rows]) == 6 / 10
    loose = _chunk(STATEMENT)  # the same figures as loose lines: no row, no header
    assert labelled_share([STATEMENT], [loose]) == 0.0
    cells = _chunk("Table 1: Region, Revenue\nRow 2: Region is Nordics, Revenue is 1,577")
    assert labelled_share([STATEMENT], [cells]) == 1 / 10
    assert labelled_share(["Revenue grew in 2018 by 4%."], [rows]) is None  # prose
    # A table whose first data row was read as its header has figures for headers.
    misread = _chunk(
        "Table 32: Net income, $ 5,363\nRow 3: Net income is Depreciation and "
        "amortization, $ 5,363 is 1,488, $ 4,869 is 1,544"
    )
    assert labelled_share([STATEMENT], [misread]) == 0.0
