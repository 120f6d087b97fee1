"""SQL over read tables: one checked SELECT, a locked DuckDB, and the cells each result rests on."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlglot

from polyrag.agent.tools.sql import SqlError, TableDatabase, _ordering_shown
from polyrag.chunk.tables import collect_tables
from polyrag.index.tables.base import SourceTable
from polyrag.types import Block, BlockKind, Locator, Table

DUCKS = Table(
    header=("Year", "Freshwater Ducks", "Note"),
    rows=(
        ("2019", "120", "dry"),
        ("2020", "135", ""),
        ("2021", "150", "wet"),
        ("2022", "170", ""),
        ("2023", "160", ""),
        ("Total", "735", ""),
    ),
    locator=Locator(sheet="Duck Observations", rows=(4, 10)),
    name="Duck Observations",
    title="Number of freshwater ducks per year",
    row_numbers=(5, 6, 7, 8, 9, 10),
    columns=("B", "C", "D"),
)
STATEMENT = Table(
    header=("Column 1", "2019", "2018"),
    rows=(("Net sales", "$ 3,642", "$ 3,507"), ("Cost of sales", "(1,577)", "(1,373)")),
    locator=Locator(page=41),
    name="Table 3",
)


@pytest.fixture
def database() -> Iterator[TableDatabase]:
    db = TableDatabase(
        [
            SourceTable("s1", "/docs/ducks.xlsx", DUCKS),
            SourceTable("s2", "/docs/10k.pdf", STATEMENT),
        ]
    )
    yield db
    db.close()


def test_the_schema_names_tables_columns_and_example_rows(database: TableDatabase) -> None:
    schema = database.schema()
    assert (
        'TABLE duck_observations (year TEXT, freshwater_ducks NUMBER -- "Freshwater Ducks"'
        in schema
    )
    # A statement's unnamed label column is called "label", as in its period view.
    assert "TABLE table_3 (label TEXT" in schema and 'y2019 NUMBER -- "2019"' in schema
    assert "-- row: 2019, 120, dry" in schema


def test_an_aggregate_cites_the_rows_it_read(database: TableDatabase) -> None:
    result = database.run(
        "SELECT SUM(freshwater_ducks) AS total FROM duck_observations WHERE year <> 'Total'"
    )
    assert result.text() == "total = 735"
    (cited,) = result.cited
    assert cited.cells() == "B5:C9"  # the Total row (10) was left out by the WHERE clause
    chunk = cited.chunk()
    assert chunk.locator.sheet == "Duck Observations" and chunk.locator.cells == "B5:C9"
    assert chunk.locator.describe() == "'Duck Observations'!B5:C9"


def test_a_difference_of_two_lookups_cites_just_those_rows(database: TableDatabase) -> None:
    result = database.run(
        "SELECT (SELECT freshwater_ducks FROM duck_observations WHERE year = '2023') - "
        "(SELECT freshwater_ducks FROM duck_observations WHERE year = '2022') AS change"
    )
    assert result.text() == "change = -10"
    assert result.cited[0].cells() == "B8:C9"


def test_a_condition_on_a_table_alias_cites_just_its_rows(database: TableDatabase) -> None:
    result = database.run(
        "SELECT SUM(T1.freshwater_ducks) FROM duck_observations AS T1 WHERE T1.year = '2021'"
    )
    assert result.cited[0].cells() == "B7:C7"


def test_whether_a_column_repeats_a_value(database: TableDatabase) -> None:
    sales = Table(
        header=("Product", "Revenue"),
        rows=(("Widget A", "5000"), ("Widget B", "12000"), ("Widget A", "7000")),
        locator=Locator(sheet="Sales", rows=(1, 4)),
        name="Sales",
    )
    with_sales = TableDatabase([SourceTable("s3", "/docs/sales.xlsx", sales)])
    assert with_sales.repeats("sales", "product") and not with_sales.repeats("sales", "revenue")
    with_sales.close()
    assert not database.repeats("duck_observations", "year")
    assert not database.repeats("duck_observations", "nowhere")
    assert not database.repeats("nowhere", "year")


def test_the_values_a_question_names_that_stand_in_several_rows() -> None:
    sales = Table(
        header=("Product", "Region", "Revenue"),
        rows=(
            ("Widget A", "North", "5000"),
            ("Widget B", "North", "12000"),
            ("Widget A", "South", "7000"),
            ("Widget C", "East", "3000"),
        ),
        locator=Locator(sheet="Sales", rows=(1, 5)),
        name="Sales",
    )
    db = TableDatabase([SourceTable("s3", "/docs/sales.xlsx", sales)])
    question = "How much more revenue did Widget A make than Widget C in the north?"
    assert db.named_repeats(question) == ["Widget A", "North"]  # Widget C has one row
    assert db.named_repeats("How much more did widget a make than widget b?") == ["Widget A"]
    assert db.named_repeats("What did Widget Alpha make?") == []  # whole words only
    db.close()
    statement = Table(
        header=("Item", "2019", "2018"),
        rows=(
            ("Revenue", "10", "9"),
            ("Total", "10", "9"),
            ("Costs", "4", "3"),
            ("Total", "4", "3"),
        ),
        locator=Locator(page=3),
        name="Table 1",
    )
    db = TableDatabase([SourceTable("s4", "/docs/10k.pdf", statement)])
    assert db.named_repeats("What is the change in total revenue from 2018 to 2019?") == []
    db.close()


def test_a_column_too_slow_to_group_names_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    sales = Table(("Product", "Revenue"), (("Widget A", "1"), ("Widget A", "2")), name="Sales")
    db = TableDatabase([SourceTable("s3", "/docs/sales.xlsx", sales)])

    def slow(sql: str, limit: int | None = None) -> None:
        raise SqlError("the query ran longer than 5 s")

    monkeypatch.setattr(db, "_execute", slow)
    assert db.named_repeats("How much more did Widget A make?") == []  # no error either
    db.close()
    db.close()


def test_accounting_numbers_become_numbers(database: TableDatabase) -> None:
    result = database.run("SELECT y2019 - y2018 AS d FROM table_3 WHERE label ILIKE '%cost%'")
    assert result.text() == "d = -204"
    chunk = result.cited[0].chunk()
    assert chunk.locator.page == 41 and chunk.locator.rows == (3, 3)  # the header is row 1


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ("DROP TABLE duck_observations", "only a SELECT"),
        ("SELECT 1; SELECT 2", "only one statement"),
        ("SELECT * FROM read_csv('/etc/passwd')", "no table functions"),
        ("SELECT * FROM secrets", "unknown table 'secrets'"),
        ("SELECT * FROM duck_observations WHERE", "does not parse"),
        ("COPY duck_observations TO '/tmp/x.csv'", "only a SELECT"),
        ("", "empty"),
    ],
)
def test_anything_but_one_select_over_known_tables_is_refused(
    database: TableDatabase, query: str, reason: str
) -> None:
    with pytest.raises(SqlError, match=reason):
        database.run(query)


def test_the_connection_cannot_read_files_or_be_unlocked(database: TableDatabase) -> None:
    with pytest.raises(SqlError):
        database._execute("SELECT * FROM '/etc/passwd'")
    with pytest.raises(SqlError):
        database._execute("SET enable_external_access = true")


def test_a_slow_query_is_interrupted() -> None:
    wide = Table(("n",), tuple((str(i),) for i in range(3000)), name="numbers")
    db = TableDatabase([SourceTable("s", "/n.csv", wide)], timeout_s=0.2)
    try:
        with pytest.raises(SqlError, match="longer than"):
            db.run("SELECT COUNT(*) FROM numbers a, numbers b, numbers c")
    finally:
        db.close()


def test_a_statement_gets_a_view_by_period_cited_as_its_table(database: TableDatabase) -> None:
    assert "VIEW table_3_by_period (label TEXT, period TEXT, value NUMBER)" in database.schema()
    result = database.run(
        "SELECT period FROM table_3_by_period WHERE label ILIKE '%net sales%' "
        "ORDER BY value DESC LIMIT 1"
    )
    assert result.text() == "period = 2019, value = 3642"  # what it ranks by is shown too
    (cited,) = result.cited
    assert cited.table.name == "table_3" and cited.rows == (2,)
    assert [c.header for c in cited.columns] == ["Column 1", "2019", "2018"]


def test_the_view_columns_asked_of_a_statement_read_its_view(database: TableDatabase) -> None:
    # The model names the table but the view's columns: it means the view.
    result = database.run(
        "SELECT value FROM table_3 WHERE label ILIKE '%net sales%' AND period = '2019'"
    )
    assert "table_3_by_period" in result.query and result.text() == "value = 3642"
    (cited,) = result.cited
    assert cited.table.name == "table_3" and cited.rows == (2,)
    # A table with a column of that name is read as written.
    own = Table(("period", "visitors"), (("2019", "5"), ("2020", "7")), name="visits")
    db = TableDatabase([SourceTable("s", "/v.csv", own)])
    try:
        assert db.run("SELECT visitors FROM visits WHERE period = '2020'").text() == "visitors = 7"
    finally:
        db.close()


def test_a_period_condition_on_a_column_naming_that_period_is_dropped() -> None:
    """ "SUM(q3_2025_keur) … WHERE period = 'Q3 2025'" reads the table's own column and the
    view's at once; the column's header already names the period, so the condition goes."""
    regions = Table(
        ("Region", "Q2 2025 (kEUR)", "Q3 2025 (kEUR)"),
        (("North", "820", "905"), ("South", "640", "712"), ("East", "455", "430")),
        name="Table 1",
    )
    db = TableDatabase([SourceTable("s", "/q3.pdf", regions)])
    try:
        summed = "SELECT SUM(q3_2025_keur) FROM table_1 WHERE period = 'Q3 2025'"
        assert db.run(summed).text() == "sum(q3_2025_keur) = 2047"
        other = summed.replace("'Q3 2025'", "'Q2 2025'")  # a period the column is not: kept
        with pytest.raises(SqlError):
            db.run(other)
    finally:
        db.close()


def test_a_ranking_asked_of_a_kind_ranks_only_the_rows_of_that_kind() -> None:
    """ "Which zone had the lowest sales?" over zones and other segments: the lowest of all is
    "Other businesses" ("Unallocated items", lower still, is no segment); of the zones,
    Zone GC."""
    segments = Table(
        ("Segment", "Sales"),
        (
            ("Zone NA", "12553"),
            ("Zone GC", "2548"),
            ("Nestlé Health Science", "3318"),
            ("Other businesses", "137"),
            ("Unallocated items", "0"),
        ),
        name="Segments",
    )
    db = TableDatabase([SourceTable("s", "/h1.xlsx", segments)])
    try:
        lowest = "SELECT segment FROM segments WHERE sales = (SELECT MIN(sales) FROM segments)"
        assert db.run(lowest).text() == "segment = Other businesses"
        zones = db.of_kind(lowest, "zone")
        assert zones is not None and db.run(zones).text() == "segment = Zone GC"
        assert db.of_kind(lowest, "region") is None  # no label opens with it
        assert db.of_kind(lowest, "nestlé") is None  # one row only
    finally:
        db.close()


def test_a_condition_on_a_missing_column_that_the_title_answers_is_dropped() -> None:
    """ "… AND year = 2015" over a report titled "November - 2015" has no year column to read:
    the whole table is of 2015, so the condition goes. A year the title does not write still
    fails, and its error goes back to the model."""
    checks = Table(
        ("State / Territory", "Permit", "Totals"),
        (("Kansas", "894", "18,433"), ("Kentucky", "264,140", "295,891")),
        name="Table 1",
        title="NICS Firearm Background Checks November - 2015",
    )
    db = TableDatabase([SourceTable("s", "/nics.pdf", checks)])
    try:
        asked = "SELECT permit FROM table_1 WHERE state_territory LIKE 'Kentucky' AND year = 2015"
        assert db.run(asked).text() == "permit = 264,140"
        assert db.run("SELECT SUM(permit) FROM table_1 WHERE year = '2015'").rows == ((265034,),)
        with pytest.raises(SqlError):
            db.run(asked.replace("2015", "2016"))
    finally:
        db.close()


@pytest.mark.parametrize(
    "header", ["", "Column 1", "(Millions)", "(In millions, except per share)"]
)
def test_a_statements_unnamed_label_column_is_called_label(header: str) -> None:
    table = Table(
        header=(header, "2019", "2018"),
        rows=(("Net sales", "3,642", "3,507"), ("Merchandise inventories", "5,409", "5,209")),
        locator=Locator(page=52),
        name="Table 8",
    )
    db = TableDatabase([SourceTable("s", "/docs/10k.pdf", table)])
    try:
        result = db.run("SELECT y2019 FROM table_8 WHERE label ILIKE '%inventories%'")
        assert result.text() == "y2019 = 5409"
    finally:
        db.close()


def test_a_named_first_column_keeps_its_name() -> None:
    table = Table(
        header=("Region", "2019", "2018"),
        rows=(("Nordics", "4.1", "3.9"), ("Iberia", "2.7", "2.5")),
        locator=Locator(page=3),
        name="Table 2",
    )
    db = TableDatabase([SourceTable("s", "/docs/deck.pdf", table)])
    try:
        assert "TABLE table_2 (region TEXT" in db.schema()
    finally:
        db.close()


def test_a_table_over_pages_is_summed_whole_and_cited_by_page() -> None:
    """The pieces of a layoff list printed over two pages are one SQL table; rows of one page
    are cited as that page's piece, in its own row numbers."""
    header = ("Company", "Employees")
    blocks = []
    for page, rows in ((7, [("Boeing", "65"), ("Toyota", "3000")]), (8, [("Acme", "12")])):
        lines = ["| Company | Employees |", "| --- | --- |"] + [f"| {a} | {b} |" for a, b in rows]
        blocks += [
            Block(BlockKind.BREAK, "", Locator(page=page)),
            Block(BlockKind.TABLE, "\n".join(lines), Locator(page=page)),
        ]
    (table,) = collect_tables(blocks)
    assert table.header == header
    db = TableDatabase([SourceTable("s1", "/docs/warn.pdf", table)])
    try:
        assert "pages 7-8" in db.schema()
        total = db.run("SELECT SUM(employees) AS total FROM table_1")
        assert total.text() == "total = 3077"
        assert "(pages 7-8)" in total.cited[0].chunk().text
        one = db.run("SELECT employees FROM table_1 WHERE company = 'Acme'")
        chunk = one.cited[0].chunk()
        assert chunk.locator.page == 8 and chunk.locator.rows == (2, 2)
        assert chunk.text.startswith("Table 2\n") and "| Acme | 12 |" in chunk.text
    finally:
        db.close()


def test_a_papers_units_are_no_periods_and_its_scientific_figures_are_numbers() -> None:
    """'bc (V/dec)' is volts per decade, not December: no view by period. '5.39E-05' is a
    number a query can compare."""
    paper = Table(
        header=("Dose (g)", "bc (V/dec)", "icorr (A/cm2)", "Resistance"),
        rows=(("0", "0.0335", "0.0003", "24.09"), ("6", "0.3233", "5.39E-05", "373.18")),
        locator=Locator(page=1),
        name="Table 1",
    )
    db = TableDatabase([SourceTable("s1", "/docs/paper.pdf", paper)])
    try:
        assert "VIEW" not in db.schema() and "icorr_a_cm2 NUMBER" in db.schema()
        found = db.run("SELECT dose_g FROM table_1 WHERE icorr_a_cm2 < 0.0001")
        assert found.text() == "dose_g = 6"
    finally:
        db.close()


def test_the_row_of_the_largest_value_is_cited_alone(database: TableDatabase) -> None:
    """The result rests on the row picked; all six rows shown with it led the model to read
    the first one."""
    result = database.run(
        "SELECT year FROM duck_observations WHERE freshwater_ducks = "
        "(SELECT MAX(freshwater_ducks) FROM duck_observations WHERE year <> 'Total')"
    )
    assert result.text() == "year = 2022"
    (cited,) = result.cited
    assert cited.rows == (8,) and "| 2022 | 170 |" in cited.chunk().text


@pytest.mark.parametrize(
    ("query", "shown"),
    [
        (
            "SELECT department FROM staff GROUP BY department ORDER BY SUM(salary) DESC LIMIT 1",
            "SELECT department, SUM(salary) FROM staff GROUP BY department ORDER BY SUM(salary) "
            "DESC LIMIT 1",
        ),
        (
            "SELECT name FROM staff ORDER BY start_year DESC LIMIT 1",
            "SELECT name, start_year FROM staff ORDER BY start_year DESC LIMIT 1",
        ),
        # Already shown (or by its alias), by position, not limited, or DISTINCT: unchanged.
        ("SELECT name, start_year AS y FROM staff ORDER BY y DESC LIMIT 1", None),
        ("SELECT name FROM staff ORDER BY 1 LIMIT 2", None),
        ("SELECT name FROM staff ORDER BY start_year", None),
        ("SELECT DISTINCT name FROM staff ORDER BY name LIMIT 3", None),
    ],
)
def test_a_ranking_query_shows_what_it_ranks_by(query: str, shown: str | None) -> None:
    """ "Which department has the highest total salary?" answered "Engineering" alone, and the
    reply invented the total."""
    tree = _ordering_shown(sqlglot.parse_one(query, read="duckdb"))
    assert tree.sql(dialect="duckdb") == (shown or query)


TICKETS = Table(
    header=("Ticket", "Team", "Hours"),
    rows=(("T-1", "Network", "4"), ("T-2", "Desktop", "9"), ("T-3", "Network", "2"),
          ("T-4", "Desktop", "1"), ("T-5", "Security", "9")),
    locator=Locator(sheet="tickets", rows=(1, 6)),
    name="tickets",
    row_numbers=(2, 3, 4, 5, 6),
    columns=("A", "B", "C"),
)  # fmt: skip


@pytest.mark.parametrize(
    ("query", "rows"),
    [
        # Two teams have two tickets each: both are the answer.
        (
            "SELECT team, COUNT(*) AS n FROM tickets GROUP BY team ORDER BY n DESC LIMIT 1",
            [("Network", 2), ("Desktop", 2)],
        ),
        ("SELECT team, COUNT(*) FROM tickets GROUP BY team ORDER BY 2 DESC LIMIT 1", 2),
        ("SELECT ticket FROM tickets ORDER BY hours DESC LIMIT 1", [("T-2", 9.0), ("T-5", 9.0)]),
        # No tie, or not a ranking: as written.
        ("SELECT ticket FROM tickets ORDER BY hours LIMIT 1", [("T-4", 1.0)]),
        ("SELECT ticket FROM tickets ORDER BY hours DESC LIMIT 2 OFFSET 1", 2),
    ],
)
def test_a_ranking_keeps_the_rows_tied_with_its_last(query: str, rows: object) -> None:
    db = TableDatabase([SourceTable("s9", "/docs/tickets.csv", TICKETS)])
    try:
        result = db.run(query)
    finally:
        db.close()
    if isinstance(rows, int):
        assert len(result.rows) == rows
    else:
        assert sorted(result.rows) == sorted(rows)


EXPENSES = Table(
    header=("Date", "Vendor", "Amount (USD)"),
    rows=(("2025-01-14", "SkyJet", "$1,240.00"), ("2025-02-18", "Harbor Hotel", "$860.00"),
          ("2025-03-11", "SkyJet", "$1,510.00"), ("", "Total", "$3,610.00")),
    locator=Locator(sheet="Expenses", rows=(3, 7)),
    name="Expenses",
    row_numbers=(4, 5, 6, 7),
    columns=("A", "B", "C"),
)  # fmt: skip


def test_queries_leave_out_a_total_row_wherever_its_label_stands(
    database: TableDatabase,
) -> None:
    """A sheet's "Total" row summed with the rows it totals counts them twice; grouped, it is
    the largest vendor; ranked, the largest expense. Named, it is read as written."""
    assert database.run("SELECT SUM(freshwater_ducks) FROM duck_observations").text() == (
        "sum(freshwater_ducks) = 735"
    )
    db = TableDatabase([SourceTable("s8", "/docs/expenses.xlsx", EXPENSES)])
    try:
        assert "total rows are left out unless a condition names them" in db.schema()
        largest = db.run("SELECT vendor, amount_usd FROM expenses ORDER BY 2 DESC LIMIT 1")
        assert largest.rows == (("SkyJet", 1510.0),)
        most = db.run(
            "SELECT vendor, SUM(amount_usd) AS paid FROM expenses GROUP BY vendor "
            "ORDER BY paid DESC LIMIT 1"
        )
        assert most.rows == (("SkyJet", 2750.0),)
        (cited,) = most.cited
        assert cited.rows == (4, 5, 6)
        assert db.run("SELECT COUNT(*) FROM expenses WHERE amount_usd > 1000").rows == ((2,),)
        named = db.run("SELECT MAX(amount_usd) FROM expenses WHERE vendor ILIKE '%total%'")
        assert named.rows == ((3610.0,),)
        assert db.run("SELECT amount_usd FROM expenses WHERE vendor = 'Total'").rows == ((3610.0,),)
        assert db.run("SELECT amount_usd FROM expenses WHERE date IS NULL").rows == ()
    finally:
        db.close()


def test_joined_tables_leave_out_their_total_rows_each() -> None:
    """This half-year's segments joined to last year's on their labels: the two "Total" rows
    meet and would rank first (the query a small model wrote for "Which zone had the highest
    underlying trading operating profit in January–June 2023?")."""

    def half_year(name: str, profits: tuple[str, str, str]) -> Table:
        rows = (("Zone NA", profits[0]), ("Zone EUR", profits[1]), ("Total", profits[2]))
        return Table(("Segment", "Profit"), rows, Locator(sheet=name, rows=(1, 4)), name=name,
                     row_numbers=(2, 3, 4), columns=("A", "B"))  # fmt: skip

    now, before = (
        half_year("H1 2023", ("2713", "1570", "7904")),
        half_year("H1 2022", ("2284", "1606", "7683")),
    )
    db = TableDatabase(
        [SourceTable("n", "/nestle.xlsx", now), SourceTable("n", "/nestle.xlsx", before)]
    )
    try:
        best = db.run(
            "SELECT T1.segment FROM h1_2023 AS T1 INNER JOIN h1_2022 AS T2 "
            "ON T1.segment = T2.segment WHERE T1.profit > 0 ORDER BY T1.profit DESC LIMIT 1"
        )
        assert best.rows[0][0] == "Zone NA"  # (its figure shown beside it)
        both = db.run(
            "SELECT a.profit + b.profit FROM h1_2023 a, h1_2022 b WHERE a.segment = b.segment"
        )
        assert sorted(both.rows) == [(3176.0,), (4997.0,)]
        named = db.run(
            "SELECT T1.profit FROM h1_2023 T1 JOIN h1_2022 T2 ON T1.segment = T2.segment "
            "WHERE T1.segment ILIKE '%total%'"
        )
        assert named.rows == ((7904.0,),)
    finally:
        db.close()


@pytest.fixture
def layoffs() -> Iterator[TableDatabase]:
    """A list of layoffs whose header cut "No. Of Employees" short, and its monthly summary."""
    listing = Table(
        ("Company", "City", "No. Of"),
        (("ProCourier, Inc.", "Irvine", "22"), ("ProCourier, Inc.", "Los Angeles", "71")),
        Locator(page=1),
        name="Table 1",
    )
    summary = Table(
        ("Summary by Month", "Employees Affected"),
        (("July 2015", "8,574"), ("August 2015", "5,890")),
        Locator(page=16),
        name="Table 16",
    )
    db = TableDatabase(
        [SourceTable("w", "/warn.pdf", listing), SourceTable("w", "/warn.pdf", summary)]
    )
    yield db
    db.close()


def test_a_missing_column_error_says_which_table_holds_the_rows_asked_about(
    layoffs: TableDatabase,
) -> None:
    """The rows are those the WHERE picks: over the summary, the list is the table to read;
    over the list, its own figures are to be used (no join brings the two together)."""
    with pytest.raises(SqlError) as over_summary:
        layoffs.run("SELECT SUM(employees_affected) FROM table_16 WHERE company = 'ProCourier'")
    assert str(over_summary.value).endswith(
        "; the rows asked about are in table_1 (its column company): read it; its figures are "
        "in no_of"
    )
    with pytest.raises(SqlError) as over_list:
        layoffs.run("SELECT SUM(employees_affected) FROM table_1 WHERE company = 'ProCourier'")
    assert str(over_list.value).endswith(
        "; table_1 has no column employees_affected; its figures are in no_of"
    )
    with pytest.raises(SqlError) as joined:
        layoffs.run(
            "SELECT SUM(s.employees_affected) FROM table_1 AS l JOIN table_16 AS s "
            "ON l.company = s.company WHERE l.company = 'ProCourier'"
        )
    assert "does not have a column named" in str(joined.value)
    assert str(joined.value).endswith("; company is a column of table_1 only")
    with pytest.raises(SqlError) as unconditioned:
        layoffs.run("SELECT SUM(employees) FROM table_1")
    assert str(unconditioned.value).endswith("not found in FROM clause!")


def test_a_query_that_found_nothing_notes_where_its_words_are(layoffs: TableDatabase) -> None:
    found = layoffs.run(
        "SELECT SUM(employees_affected) FROM table_16 WHERE summary_by_month LIKE '%ProCourier%'"
    )
    assert found.text() == (
        "sum(employees_affected) = NULL\nnote: 'ProCourier' is in the column company of "
        "table_1, which the query did not read"
    )
    nowhere = layoffs.run("SELECT city FROM table_1 WHERE company = 'Acme'")
    assert nowhere.text() == "no rows"
    assert layoffs.run("SELECT SUM(no_of) FROM table_1").note == ""


def test_rankings_leave_out_the_rows_that_reconcile_members_to_the_total() -> None:
    """ "Which product category had the lowest trading operating profit?" over a segment table
    whose "Unallocated items (c)" row (corporate costs) is the lowest: it is no category. Sums
    still read it, and a condition that names it reads it."""
    products = Table(
        header=("Column 1", "Trading operating profit"),
        rows=(("Water", "176"), ("Confectionery", "464"), ("Unallocated items (c)", "-1227"),
              ("Total", "6684")),
        locator=Locator(sheet="Products", rows=(21, 25)),
        name="Products",
        row_numbers=(22, 23, 24, 25),
        columns=("A", "B"),
    )  # fmt: skip
    db = TableDatabase([SourceTable("n", "/nestle.xlsx", products)])
    try:
        assert "unallocated and elimination rows" in db.schema()
        lowest = db.run(
            "SELECT column_1 FROM products ORDER BY trading_operating_profit ASC LIMIT 1"
        )
        assert lowest.rows[0][0] == "Water"
        least = db.run(
            "SELECT column_1 FROM products WHERE trading_operating_profit = "
            "(SELECT MIN(trading_operating_profit) FROM products)"
        )
        assert least.rows == (("Water",),)
        total = db.run("SELECT SUM(trading_operating_profit) FROM products")
        assert total.rows == ((176 + 464 - 1227,),)
        named = db.run(
            "SELECT MIN(trading_operating_profit) FROM products "
            "WHERE column_1 ILIKE '%unallocated%'"
        )
        assert named.rows == ((-1227.0,),)
    finally:
        db.close()
