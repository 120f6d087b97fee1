"""Statements without ruling lines in real filings become tables: rows under a header of years."""

from __future__ import annotations

import pytest

from polyrag.chunk.figures import read_table
from polyrag.parse.pdf_statements import with_statements
from polyrag.parse.pdf_tables import PdfTable
from polyrag.types import BlockKind

from .test_pdf_headings import FILINGS, pages_of

pytestmark = pytest.mark.skipif(not FILINGS.is_dir(), reason="the shared eval data is absent")


def tables(filing: str, pages: range, page: int) -> list[dict[str, tuple[str, ...]]]:
    """Each table on one page of the excerpt, as {row label: figures} with its "header" and
    its "caption"."""
    document = pages_of(filing, pages)
    out = []
    for block in document.blocks:
        if block.kind is BlockKind.TABLE and block.locator.page == page:
            table = read_table(block.text)
            assert table is not None and block.locator.bbox is not None
            rows = {row[0]: row[1:] for row in table.rows}
            out.append({"header": table.header, "caption": (table.caption,), **rows})
    return out


def test_a_cash_flow_statement_in_bold_and_plain_times() -> None:
    (flows,) = tables("3M_2018_10K.pdf", range(59, 63), 2)
    assert flows["header"] == ("(Millions)", "2018", "2017", "2016")
    # The statement's title is the table's caption: every chunk of its rows says it.
    assert "Consolidated Statement of Cash Flows" in flows["caption"][0]
    assert flows["Purchases of property, plant and equipment (PP&E)"] == (
        "(1,577)",
        "(1,373)",
        "(1,420)",
    )
    assert flows["Net income including noncontrolling interest"] == ("5,363", "4,869", "5,058")
    # Two rows PDFium read as one line and a half: each label keeps its own figures.
    assert flows["Proceeds from sale of businesses, net of cash sold"] == ("846", "1,065", "142")
    assert flows["Cash Flows from Investing Activities"] == ("", "", "")  # a section line


def test_a_label_wrapped_over_lines_with_dates_inside() -> None:
    balance, *_ = tables("ACTIVISIONBLIZZARD_2019_10K.pdf", range(68, 72), 2)
    assert balance["header"][1:] == ("2019", "2018")
    label = (
        "Accounts receivable, net of allowances of $132 and $190, at December 31, 2019 and "
        "December 31, 2018, respectively"
    )
    assert balance[label] == ("848", "1,035")  # "31, 2019" is a date, not two figures


def test_dot_leaders_and_years_stacked_under_dates() -> None:
    balance, *_ = tables("ADOBE_2015_10K.pdf", range(58, 62), 2)
    assert balance["header"][1:] == ("2015", "2014")  # "November 27," over "2015", …
    assert balance["Cash and cash equivalents"] == ("876,560", "1,117,400")
    assert balance["Short-term investments"] == ("3,111,524", "2,622,091")


def test_a_header_of_dates_ending_two_quarters() -> None:
    # PepsiCo's Q1 2023 release: segment figures under "12 Weeks Ended" / "3/25/2023 3/19/2022".
    (segments,) = tables("PEPSICO_2023Q1_EARNINGS.pdf", range(2, 6), 4)
    assert segments["header"][1:] == ("3/25/2023", "3/19/2022")
    assert segments["Corporate unallocated expenses"] == ("(471)", "(204)")
    (block,) = [
        b
        for b in pages_of("PEPSICO_2023Q1_EARNINGS.pdf", range(2, 6)).blocks
        if b.kind is BlockKind.TABLE and b.locator.page == 4
    ]
    table = read_table(block.text)
    assert table is not None
    revenue = next(row for row in table.rows if row[0] == "Latin America")  # then its profit
    assert revenue[1:] == ("1,777", "1,474")


def test_years_repeated_under_their_periods_are_named_by_them() -> None:
    # MGM's Q2 2023 10-Q: "Three Months Ended / June 30," and "Six Months Ended / June 30,"
    # over "2023 2022 2023 2022", and percentages printed apart from their figures ("96 %").
    hotel, gaming = tables("MGMRESORTS_2023Q2_10Q.pdf", range(29, 32), 2)
    assert hotel["header"][1:] == (
        "Three Months Ended June 30, 2023",
        "Three Months Ended June 30, 2022",
        "Six Months Ended June 30, 2023",
        "Six Months Ended June 30, 2022",
    )
    assert hotel["Revenue per available room (RevPAR)"] == ("224", "208", "231", "182")
    assert hotel["Occupancy"] == ("96%", "92%", "94%", "85%")
    assert gaming["Slot handle"] == ("6,771", "7,102", "13,770", "13,764")


def test_a_ruled_statement_takes_its_title_and_its_grouped_years_from_above() -> None:
    # MGM's Q2 2023 10-Q: "CONSOLIDATED STATEMENTS OF OPERATIONS" over "(Unaudited)", "Three
    # Months Ended", "June 30,"…: the ruled grid began at "Revenues" and had no title.
    (operations,) = tables("MGMRESORTS_2023Q2_10Q.pdf", range(4, 6), 1)
    assert "CONSOLIDATED STATEMENTS OF OPERATIONS" in operations["caption"][0]
    assert operations["header"][1:3] == (
        "Three Months Ended June 30, 2023",
        "Three Months Ended June 30, 2022",
    )
    assert operations["Revenues"] == ("", "", "", "")
    assert operations["Operating income"] == ("371,378", "2,381,451", "1,102,217", "2,487,239")


def test_figures_inside_a_label_are_not_its_columns() -> None:
    *_, comprehensive = tables("AMAZON_2017_10K.pdf", range(37, 41), 3)
    label = "Foreign currency translation adjustments, net of tax of $10, $(49), and $5"
    assert comprehensive[label] == ("(210)", "(279)", "533")


def test_columns_under_columns_are_read_by_their_names() -> None:
    # 3M's segment table: sales, share and income under each quarter. Three figures per year
    # would be put under the wrong year, so no statement is read there; the table is read by
    # its column names instead (parse/pdf_grids.py), each named by the period printed over
    # its group of columns, as is the sales change table on the page.
    segments, found = tables("3M_2018_10K.pdf", range(20, 24), 2)
    assert segments["header"][1:4] == tuple(
        f"Three months ended December 31, 2018 {name}"
        for name in ("Net Sales", "% of Total", "Oper. Income")
    )
    assert segments["header"][4] == "Three months ended December 31, 2017 Net Sales"
    assert segments["header"][7:] == (
        "2018 vs 2017 % change Net Sales",
        "2018 vs 2017 Oper. Income",
    )
    industrial = ("2,952", "37.2%", "627", "2,961", "37.1%", "580", "(0.3)%", "8.1%")
    assert segments["Industrial"] == industrial
    assert found["header"][1:] == (
        "Organic local- currency sales",
        "Divestitures",
        "Translation",
        "Total sales change",
    )
    assert found["caption"] == ("Three months ended December 31, 2018",)
    assert found["Health Care"] == ("4.8", "—", "(2.4)", "2.4")


def test_prose_with_years_is_not_a_statement() -> None:
    lines = [
        "Fiscal 2019 2018",
        "Revenue grew in every region in 2019 as it had in 2018 and the company opened many "
        "new stores across the country.",
        "Net sales 10 20",
    ]
    parts = list(with_statements(lines, text=str, box=lambda _: None))
    assert parts == [lines]
    assert not any(isinstance(part, PdfTable) for part in parts)


def test_the_unit_heads_the_label_column() -> None:
    lines = ["(Dollars in millions, except per share amounts) 2018 2017", "Cash $ 1 $ 2"]
    lines += ["$ $", "Debt 3 4", "Equity (5) —"]  # a line of currency signs alone
    (table,) = with_statements(lines, text=str, box=lambda _: None)
    assert isinstance(table, PdfTable)
    parsed = read_table(table.markdown)
    assert parsed is not None
    assert parsed.header[0] == "(Dollars in millions, except per share amounts)"
    assert parsed.rows == (("Cash", "1", "2"), ("Debt", "3", "4"), ("Equity", "(5)", "—"))


def test_a_failing_statement_finder_costs_no_page(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_: object, **__: object) -> list[object]:
        raise ValueError("max() arg is an empty sequence")

    monkeypatch.setattr("polyrag.parse.pdf.with_statements", broken)
    document = pages_of("3M_2018_10K.pdf", range(59, 63))
    assert any("Purchases of property, plant and equipment" in b.text for b in document.blocks)
    assert not [b for b in document.blocks if b.kind is BlockKind.TABLE]
    assert "page 2: statement tables not read (max() arg is an empty sequence)" in (
        document.warnings
    )


def test_a_ruled_grid_takes_the_names_printed_over_it() -> None:
    """Amcor's sales by region: ruled rows under names no rule encloses ("($ in millions)
    Flexibles" over "Rigid" over "Packaging Total"), three times on the page, one per year."""
    found = tables("AMCOR_2023_10K.pdf", range(101, 104), 3)
    assert [table["caption"] for table in found] == [
        (f"Year Ended June 30, {year}",) for year in (2023, 2022, 2021)
    ]
    for table in found:
        assert table["header"] == ("($ in millions)", "Flexibles", "Rigid Packaging", "Total")
    assert found[0]["Asia Pacific"] == ("1,677", "—", "1,677")
    assert found[2]["Latin America"] == ("914", "504", "1,418")


def test_a_failing_names_reader_leaves_the_ruled_grid_as_it_was(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(*_: object, **__: object) -> None:
        raise ValueError("min() arg is an empty sequence")

    monkeypatch.setattr("polyrag.parse.pdf.grid_at", broken)
    document = pages_of("AMCOR_2023_10K.pdf", range(101, 104))
    grids = [b for b in document.blocks if b.kind is BlockKind.TABLE and "Asia Pacific" in b.text]
    assert len(grids) == 3 and all("| Flexibles |" not in b.text for b in grids)
    warning = "page 3: a table's column names not read (min() arg is an empty sequence)"
    assert warning in document.warnings


def test_a_statement_is_titled_by_the_heading_over_it_not_the_pages_first() -> None:
    """Corning's inventories note starts under "6. Inventories, Net", lower on a page whose
    first heading ("Customer Deposits") belongs to the note before."""
    (inventories,) = tables("CORNING_2020_10K.pdf", range(89, 92), 3)
    assert inventories["caption"] == ("6. Inventories, Net",)
    assert inventories["Finished goods"] == ("1,236", "973")


def test_a_statement_title_over_its_unit_and_period_leaves_the_running_header_out() -> None:
    """Adobe's cash flow statement: its title, "(In thousands)", "Years Ended", then the rows,
    under the company's name atop every page; Microsoft's balance sheet under "PART II Item 8"."""
    (flows,) = tables("ADOBE_2015_10K.pdf", range(59, 64), 5)
    assert flows["caption"] == ("CONSOLIDATED STATEMENTS OF CASH FLOWS",)
    (balance,) = tables("MICROSOFT_2023_10K.pdf", range(58, 62), 3)
    assert balance["caption"] == ("BALANCE SHEETS",)
    # General Mills sets "Fiscal Year" in bold over its columns: no heading of the title.
    (earnings,) = tables("GENERALMILLS_2019_10K.pdf", range(52, 56), 2)
    assert earnings["caption"][0].startswith("Consolidated Statements of Earnings")
    assert "Fiscal Year" not in earnings["caption"][0]
    # A title set over its unit in one paragraph is a heading, the unit a line of text.
    document = pages_of("ACTIVISIONBLIZZARD_2019_10K.pdf", range(68, 72))
    heading = [
        b.text for b in document.blocks if b.kind is BlockKind.HEADING and b.locator.page == 3
    ]
    assert [" ".join(text.split()) for text in heading] == [
        "ACTIVISION BLIZZARD, INC. AND SUBSIDIARIES CONSOLIDATED STATEMENTS OF OPERATIONS"
    ]


def test_a_table_found_by_its_columns_takes_the_title_over_it() -> None:
    """Amcor's balance sheet is found as columns of figures under its title; the equity
    statement two pages on has its column names in bold, which title nothing."""
    document = pages_of("AMCOR_2023_10K.pdf", range(51, 56))
    captions = {
        b.locator.page: b.text.split("\n", 1)[0]
        for b in document.blocks
        if b.kind is BlockKind.TABLE and b.locator.page in (2, 4)
    }
    assert captions[2] == "Amcor plc and Subsidiaries Consolidated Balance Sheets"
    assert captions[4].startswith("|")  # no caption: "Noncontrolling Interest Total" are names
