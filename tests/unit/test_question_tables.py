"""The tables offered to the SQL tool for a question: those of the sources retrieval found."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from polyrag.agent.tables import question_tables
from polyrag.index.tables.sqlite import SqliteTableStore
from polyrag.types import Chunk, Hit, Locator, Modality, Table, TablePart

CUPS = Table(
    header=("Team", "Location", "Stanley Cups"),
    rows=(("Blues", "STL", "1"), ("Flyers", "PHI", "2")),
    locator=Locator(sheet="Stanley Cups", rows=(2, 4)),
    name="Stanley Cups",
    row_numbers=(3, 4),
    columns=("A", "B", "C"),
)
SLIDE = Table(
    header=("", "Class1", "Class2"),
    rows=(("R1", "True", "False"),),
    locator=Locator(slide=1),
    name="Table 1",
)


def hit(source: str, text: str) -> Hit:
    return Hit(Chunk(f"{source}-c", source, f"/d/{source}", text, Locator(), Modality.TABLE), 1.0)


def test_tables_no_word_of_the_question_names_are_left_out_when_some_are_named(
    tmp_path: Path,
) -> None:
    store = SqliteTableStore(tmp_path / "tables.sqlite")
    store.put("cups", "/d/cups.xlsx", [CUPS])
    store.put("deck", "/d/deck.pptx", [SLIDE])
    hits = [hit("deck", "Table 1: | R1 | True |"), hit("cups", "Stanley Cups\n| Blues |")]
    named = question_tables(store, "How many Stanley Cups have the Blues won?", hits, 4)
    assert [item.table.name for item in named] == ["Stanley Cups"]
    # A question naming no table keeps them all, those a hit came from first.
    every = question_tables(store, "Which value is the largest?", hits, 4)
    assert {item.table.name for item in every} == {"Stanley Cups", "Table 1"}


def test_a_hit_on_a_later_page_of_a_table_brings_the_whole_table_first(tmp_path: Path) -> None:
    first = Table(("Company", "Employees"), (("Boeing", "65"),), Locator(page=1), name="Table 1")
    whole = Table(
        first.header,
        (("Boeing", "65"), ("Acme", "12")),
        first.locator,
        name="Table 1",
        parts=(TablePart("Table 1", 0, Locator(page=1)), TablePart("Table 2", 1, Locator(page=2))),
    )
    other = Table(("Company", "Employees"), (("Zeta", "3"),), Locator(page=9), name="Table 3")
    store = SqliteTableStore(tmp_path / "tables.sqlite")
    store.put("warn", "/d/warn.pdf", [other, whole])
    found = question_tables(store, "Which company?", [hit("warn", "Table 2\n| Acme | 12 |")], 4)
    assert [item.table.name for item in found] == ["Table 1", "Table 3"]


def test_a_chart_is_named_by_the_heading_over_it(tmp_path: Path) -> None:
    """A chart's table on a slide is titled only "Chart": the slide's title says what it
    holds. Offered beside a duck survey's chart, the model joined the two."""
    ducks = Table(
        ("Category", "Freshwater Ducks"),
        (("2019", "120"),),
        Locator(slide=1, heading_path=("Quarterly Duck Survey",)),
        name="Table 1",
        title="Chart: Wild Duck Observations by Year",
    )
    revenue = Table(
        ("Category", "2026"),
        (("Q1", "10"), ("Q3", "30")),
        Locator(slide=2, heading_path=("Quarterly revenue",)),
        name="Table 2",
        title="Chart",
    )
    store = SqliteTableStore(tmp_path / "tables.sqlite")
    store.put("deck", "/d/deck.pptx", [ducks, revenue])
    hits = [hit("deck", "Table 2: Chart\nRow 2: Q1 — 2026: 10"), hit("deck", "Table 1: Chart")]
    found = question_tables(store, "In which quarter was revenue highest?", hits, 4)
    assert [item.table.name for item in found] == ["Table 2"]


def layoffs(tmp_path: Path, company: str) -> Callable[[str], list[str]]:
    """The tables offered for a question over a list of layoffs (its header says only
    "Company"; its first company is `company`, then "Acme Inc.") and a monthly summary whose
    header says "Employees"."""
    listing = Table(
        ("Company", "City", "No. Of"),
        ((company, "San Diego", "129"), ("Acme Inc.", "Irvine", "22")),
        Locator(page=1),
        name="Table 1",
    )
    summary = Table(
        ("Month", "Employees Affected"), (("July 2015", "8,574"),), Locator(page=9), name="Table 9"
    )
    store = SqliteTableStore(tmp_path / "tables.sqlite")
    store.put("warn", "/d/warn.pdf", [listing, summary])
    hits = [hit("warn", "Table 9\n| July 2015 |"), hit("warn", "Table 1\n| Acme Inc. |")]

    def offered(question: str) -> list[str]:
        return [item.table.name for item in question_tables(store, question, hits, 4)]

    return offered


def test_a_name_the_question_writes_whole_in_a_tables_rows_names_that_table(
    tmp_path: Path,
) -> None:
    """The question names the company ("Microsoft Corporation"): the list and the summary
    are offered, the list first. A word inside a name ("corporation") is not the name."""
    offered = layoffs(tmp_path, "Microsoft Corporation")
    question = "How many employees did Microsoft Corporation lay off in total?"
    assert offered(question) == ["Table 1", "Table 9"]
    assert offered("How many employees did the corporation lay off?") == ["Table 9"]


def test_a_capitalised_name_the_question_writes_names_the_cells_it_opens(
    tmp_path: Path,
) -> None:
    """ "ProCourier" names the list whose rows say "ProCourier, Inc." (the monthly summary
    alone was offered, and the SQL summed all months). Written in lower case, or as the
    question's first word, or in capitals, a word is no such name."""
    offered = layoffs(tmp_path, "ProCourier, Inc.")
    assert offered("How many employees did ProCourier lay off?") == ["Table 1", "Table 9"]
    assert offered("How many employees did procourier lay off?") == ["Table 9"]
    assert offered("How many employees did PROCOURIER lay off?") == ["Table 9"]
    assert offered("Acme: how many employees were laid off?") == ["Table 9"]
    assert offered("How many employees did Acme lay off?") == ["Table 1", "Table 9"]


def test_a_sheets_qualified_copy_is_left_out_unless_the_question_names_the_qualifier(
    tmp_path: Path,
) -> None:
    since = Table(
        CUPS.header,
        (("Blues", "STL", "1"), ("Flyers", "PHI", "0")),
        Locator(sheet="Stanley Cups Since 67", rows=(2, 4)),
        name="Stanley Cups Since 67",
        row_numbers=(3, 4),
        columns=("A", "B", "C"),
    )
    other = Table(("Team", "Coach"), (("Blues", "Berube"),), Locator(sheet="Coaches Since 67"),
                  name="Coaches Since 67")  # fmt: skip
    store = SqliteTableStore(tmp_path / "tables.sqlite")
    store.put("cups", "/d/cups.xlsx", [CUPS, since, other])
    hits = [hit("cups", "Stanley Cups\n| Blues |")]
    total = question_tables(store, "How many Stanley Cups have the teams won in total?", hits, 4)
    assert [item.table.name for item in total] == ["Stanley Cups"]
    since_67 = question_tables(store, "How many Stanley Cups have they won since 67?", hits, 4)
    assert [item.table.name for item in since_67][:2] == ["Stanley Cups Since 67", "Stanley Cups"]
    # A sheet with other columns is no copy: it stays whatever its name adds.
    coaches = question_tables(store, "Who coached the Blues?", hits, 4)
    assert "Coaches Since 67" in [item.table.name for item in coaches]


def test_a_sheets_blocks_are_no_copies_of_each_other(tmp_path: Path) -> None:
    def block(period: str, first: int) -> Table:
        return Table(
            ("Column 1", "Trading operating profit"),
            (("Water", "57"), ("PetCare", "1939")),
            Locator(sheet="Prod 30 06 2023", rows=(first, first + 2)),
            name="Prod 30 06 2023",
            title=f"{period}, In millions of CHF",
            row_numbers=(first + 1, first + 2),
            columns=("A", "B"),
        )

    store = SqliteTableStore(tmp_path / "tables.sqlite")
    # The parser gives the upper block the sheet's caption ("Revenue and results") as well:
    # that is no qualifier making it a copy of the lower one.
    upper = block("Revenue and results, January–June 2023", 7)
    store.put("n", "/d/nestle.xlsx", [upper, block("January–June 2022", 21)])
    hits = [hit("n", "Water | 57")]
    for asked in (
        "Which product had the lowest trading operating profit in January–June 2022?",
        "Which product had the lowest profit?",
    ):
        assert len(question_tables(store, asked, hits, 4)) == 2
