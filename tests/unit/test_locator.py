"""Where a locator says a piece of text sits, as people and spreadsheets write it."""

from __future__ import annotations

from polyrag.types import Chunk, Citation, Locator


def test_a_sheets_cells_are_written_as_a_spreadsheet_writes_them() -> None:
    assert Locator(sheet="Sheet1", cells="B12:D14").describe() == "Sheet1!B12:D14"
    # A name with a space or an apostrophe is quoted, the apostrophe doubled.
    spaced = Locator(sheet="Duck Observations", rows=(5, 9), columns=("B", "C"))
    assert spaced.describe() == "'Duck Observations'!B5:C9"
    assert Locator(sheet="Q1's sales", cells="A2").describe() == "'Q1''s sales'!A2"
    # Several ranges each name their sheet; a SQL result's cells win over the block's span.
    several = Locator(sheet="S", rows=(5, 12), columns=("A", "D"), cells="C5:C10, C12")
    assert several.describe() == "S!C5:C10, S!C12"
    # One cell is written alone; the heading path follows the cells.
    one = Locator(sheet="S", rows=(3, 3), columns=("B", "B"), heading_path=("Totals",))
    assert one.describe() == "S!B3, § Totals"
    # The sheet's name as its heading is not said twice.
    titled = Locator(sheet="Cups", rows=(2, 5), columns=("A", "C"), heading_path=("Cups",))
    assert titled.describe() == "Cups!A2:C5"
    assert Locator(sheet="Cups", rows=(2, 5), heading_path=("Cups",)).describe() == (
        "sheet Cups, rows 2-5, § Cups"
    )


def test_without_columns_a_sheet_cites_its_rows() -> None:
    assert Locator(sheet="Cups", rows=(2, 5)).describe() == "sheet Cups, rows 2-5"
    assert Locator(sheet="Cups").describe() == "sheet Cups"
    assert Locator(sheet="Cups").cell_reference() is None
    assert Locator(page=3, columns=("A", "B"), rows=(1, 2)).cell_reference() is None


def test_columns_survive_the_index() -> None:
    locator = Locator(sheet="Cups", rows=(2, 5), columns=("A", "C"))
    assert Locator.from_json(locator.to_json()) == locator
    assert Locator.from_json(Locator(sheet="Cups").to_json()).columns is None


def test_a_citation_carries_its_cell_reference() -> None:
    rows = Locator(sheet="Duck Observations", rows=(5, 9), columns=("B", "C"))
    cited = Citation(1, Chunk("c1", "s1", "/ducks.xlsx", "Row 5: …", rows)).to_dict()
    assert cited["cells"] == "'Duck Observations'!B5:C9"
    page = Citation(2, Chunk("c2", "s2", "/r.pdf", "…", Locator(page=3))).to_dict()
    assert page["cells"] is None
