"""SQL over the tables polyrag has read: DuckDB in this process, checked before it runs.

The tables a question may need are loaded into an in-memory DuckDB (from our own parsed cells,
through Arrow: no file is read and no extension loaded), then the connection is locked: external
access off, configuration frozen. A query must be one SELECT over those tables, which sqlglot
checks before DuckDB sees it, and it is interrupted after a time limit.

Every result says which cells it rests on. For a query over one table, the rows its WHERE
clause keeps (every row an aggregate or an ORDER BY compared) and the columns it names are the
cited cells: `Sheet1!C5:C10` in a spreadsheet, rows of "Table 3" on a page elsewhere.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import sqlglot
from sqlglot import exp

from polyrag.answer.guard import screen_passage
from polyrag.answer.numbers import is_blank_number, parse_number, show
from polyrag.errors import PolyragError
from polyrag.index.tables.base import SourceTable
from polyrag.months import MONTH
from polyrag.parse.tables import markdown_table
from polyrag.types import Chunk, Locator, Modality, column_order

ROW_COLUMN = "_row"  # the hidden column holding each row's number in its source
MAX_RESULT_ROWS = 20
MAX_CITED_ROWS = 12  # rows of a cited range shown as its text
_ALLOWED = (
    exp.Select,
    exp.Union,
    exp.Intersect,
    exp.Except,
    exp.Subquery,
    exp.With,
    exp.CTE,
)
_FORBIDDEN = (
    exp.Insert,
    exp.Update,
    exp.Delete,
    exp.Create,
    exp.Drop,
    exp.Alter,
    exp.Command,
    exp.Pragma,
    exp.Copy,
    exp.Set,
    exp.Use,
    exp.Attach,
    exp.Detach,
    exp.Transaction,
    exp.Merge,
)


class SqlError(PolyragError):
    """A query was refused or failed; the message is fed back to whoever wrote it."""

    hint = "write one SELECT over the listed tables"


@dataclass(frozen=True)
class SqlColumn:
    name: str  # the identifier in SQL
    header: str  # the header as the source writes it
    letter: str  # the spreadsheet column letter, or ""
    numeric: bool


@dataclass(frozen=True)
class SqlTable:
    name: str  # the identifier in SQL
    source: SourceTable
    columns: tuple[SqlColumn, ...]

    def describe(self) -> str:
        table = self.source.table
        where = table.locator.describe()
        if table.parts:  # printed over several pages
            pages = [part.locator.page for part in table.parts]
            where = f"pages {pages[0]}-{pages[-1]}" + where.removeprefix(f"page {pages[0]}")
        label = f"{Path(self.source.path).name}, {table.name}" + (f" ({where})" if where else "")
        return f"{label}: {table.title}" if table.title else label


@dataclass(frozen=True)
class CitedCells:
    """The cells a result rests on: a table's rows (source row numbers) and columns."""

    table: SqlTable
    rows: tuple[int, ...]
    columns: tuple[SqlColumn, ...]

    def cells(self) -> str | None:
        """A1 ranges ("C5:C10, C12") when the table is a spreadsheet's, else None."""
        letters = [c.letter for c in self.columns if c.letter]
        if not letters or not self.rows:
            return None
        first, last = min(letters, key=column_order), max(letters, key=column_order)
        ranges = []
        for start, end in _runs(self.rows):
            a, b = f"{first}{start}", f"{last}{end}"
            ranges.append(a if a == b else f"{a}:{b}")
        return ", ".join(ranges)

    def chunk(self) -> Chunk:
        """The cited cells as a piece of evidence: their header and rows, where they sit.

        Rows of one page of a table printed over several are cited as that page's piece (its
        name, page and row numbers, as its chunks cite them)."""
        source, table = self.table.source, self.table.source.table
        wanted = set(self.rows)
        if table.parts:
            indices = [i for i in range(len(table.rows)) if table.row_number(i) in wanted]
            for part, piece in zip(table.parts, table.pieces(), strict=True):
                end = part.first + len(piece.rows)
                if indices and part.first <= indices[0] and indices[-1] < end:
                    local = tuple(i - part.first + 2 for i in indices)
                    on_page = SqlTable(
                        self.table.name, SourceTable(source.source_id, source.path, piece), ()
                    )
                    return CitedCells(on_page, local, self.columns).chunk()
        picked = [
            (number, row)
            for index, row in enumerate(table.rows)
            if (number := table.row_number(index)) in wanted
        ]
        shown = [list(row) for _, row in picked[:MAX_CITED_ROWS]]
        text = markdown_table([list(table.header), *shown])
        if len(picked) > MAX_CITED_ROWS:
            text += f"\n(and {len(picked) - MAX_CITED_ROWS} more rows)"
        heading = f"{table.name}: {table.title}" if table.title else table.name
        span = (min(wanted), max(wanted)) if wanted else table.locator.rows
        locator = replace(table.locator, rows=span, cells=self.cells())
        if table.parts:  # rows of several pages: the table from its first page on
            pages = [part.locator.page for part in table.parts]
            heading = f"{heading} (pages {pages[0]}-{pages[-1]})"
            locator = replace(locator, bbox=None)
        key = locator.cells or (f"{span[0]}-{span[1]}" if span else "all")
        return Chunk(
            chunk_id=f"{source.source_id}#{table.name}!{key}",
            source_id=source.source_id,
            path=source.path,
            text=f"{heading}\n{text}",
            locator=locator,
            modality=Modality.TABLE,
        )


def cited_rows(source: SourceTable, indices: Sequence[int], columns: Sequence[int] = ()) -> Chunk:
    """Data rows of a table (0-based) as evidence: the header and those rows, where they sit;
    of a sheet, the cells of the `columns` (0-based) read in them."""
    table = source.table
    rows = tuple(table.row_number(index) for index in indices)
    cells = tuple(
        SqlColumn("", table.header[i], table.columns[i] if i < len(table.columns) else "", False)
        for i in columns
    )
    return CitedCells(SqlTable(table.name, source, ()), rows, cells).chunk()


@dataclass(frozen=True)
class SqlResult:
    query: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    cited: tuple[CitedCells, ...]
    truncated: bool = False
    note: str = ""  # where the values a query that found nothing looked for are

    def text(self) -> str:
        """The result as the model reads it: one line per row, values with their column."""
        note = f"\n{NOTE}{self.note}" if self.note else ""
        if not self.rows:
            return "no rows" + note
        lines = []
        for row in self.rows:
            pairs = zip(self.columns, row, strict=True)
            lines.append(", ".join(f"{c} = {_value(v)}" for c, v in pairs))
        more = f"\n(only the first {MAX_RESULT_ROWS} rows)" if self.truncated else ""
        return "\n".join(lines) + more + note

    def values(self) -> list[str]:
        return [_value(v) for row in self.rows for v in row]


class TableDatabase:
    """The tables of one question, loaded into an in-memory DuckDB that then only reads."""

    def __init__(self, tables: Sequence[SourceTable], *, timeout_s: float = 5.0) -> None:
        self._timeout_s = timeout_s
        self.tables: list[SqlTable] = []
        self._views: dict[str, tuple[str, tuple[SqlColumn, ...]]] = {}  # view → table, columns
        self._totals: dict[str, tuple[int, ...]] = {}  # table → row numbers of its total rows
        # table → row numbers of the rows that reconcile its members to the total
        self._reconciling: dict[str, tuple[int, ...]] = {}
        taken: set[str] = set()
        self._db = duckdb.connect(":memory:", config={"threads": 1, "memory_limit": "512MB"})
        for source_table in tables:
            name = _unique(_identifier(source_table.table.name, "table"), taken)
            columns = _columns(source_table)
            self._db.register("incoming", _arrow(source_table, columns))
            self._db.execute(f'CREATE TABLE "{name}" AS SELECT * FROM incoming')
            self._db.unregister("incoming")
            table = SqlTable(name, source_table, columns)
            self.tables.append(table)
            totals = _total_rows(source_table, columns)
            if totals:
                self._totals[name] = totals
            reconciling = _reconciling_rows(source_table, columns)
            if reconciling:
                self._reconciling[name] = reconciling
            self._period_view(table, taken)
        self._db.execute("SET enable_external_access = false")
        self._db.execute("SET autoload_known_extensions = false")
        self._db.execute("SET lock_configuration = true")
        self._by_name = {table.name: table for table in self.tables}

    def _period_view(self, table: SqlTable, taken: set[str]) -> None:
        """For a statement (a label column, figures under period headers) a view with one row
        per label and period, so "which year was largest" is a plain ORDER BY."""
        label = next((c for c in table.columns if not c.numeric), None)
        periods = [c for c in table.columns if c.numeric and _PERIOD.search(c.header)]
        if label is None or len(periods) < 2:
            return
        view = _unique(f"{table.name}_by_period", taken)
        parts = [
            f'SELECT "{label.name}" AS label, {_literal(c.header)} AS period, '
            f'"{c.name}" AS value, "{ROW_COLUMN}" FROM "{table.name}"'
            for c in periods
        ]
        self._db.execute(f'CREATE VIEW "{view}" AS ' + " UNION ALL ".join(parts))
        self._views[view] = (table.name, (label, *periods))

    def schema(self, sample_rows: int = 3, whole_up_to: int = 8) -> str:
        """What a model needs to write SQL: tables, typed columns, their size, and their rows
        (all of a small table, a few of a larger one, said to be examples; a cell that reads
        like instructions to an assistant is left out, as in any passage)."""
        parts = []
        for table in self.tables:
            columns = ", ".join(
                f"{c.name} {'NUMBER' if c.numeric else 'TEXT'}"
                + (
                    f' -- "{_screened(c.header)}"'
                    if _identifier(c.header, "") != c.header.lower()
                    else ""
                )
                for c in table.columns
            )
            rows = table.source.table.rows
            shown = rows if len(rows) <= whole_up_to else rows[:sample_rows]
            count = f"{len(rows)} rows" + ("" if shown is rows else f", the first {len(shown)}:")
            lines = [f"TABLE {table.name} ({columns})", f"  -- {table.describe()}; {count}"]
            for row in shown:  # cells are document text: screened like any passage
                lines.append("  -- row: " + ", ".join(_screened(v) for v in row))
            if table.name in self._totals:
                lines.append(
                    "  -- its total rows are left out unless a condition names them "
                    "(SUM computes the total)"
                )
            if table.name in self._reconciling:
                lines.append(
                    "  -- rankings (ORDER BY … LIMIT, MIN, MAX) leave out its unallocated and "
                    "elimination rows unless a condition names them"
                )
            for view, (base, _columns) in self._views.items():
                if base == table.name:
                    lines.append(
                        f"VIEW {view} (label TEXT, period TEXT, value NUMBER) -- the same "
                        "figures, one row per label and period"
                    )
            parts.append("\n".join(lines))
        return "\n".join(parts)

    def check(self, query: str) -> exp.Expression:
        """The parsed query, or SqlError saying why it may not run."""
        text = query.strip().rstrip(";").strip()
        if not text:
            raise SqlError("the query is empty")
        try:
            statements = [s for s in sqlglot.parse(text, read="duckdb") if s is not None]
        except sqlglot.errors.SqlglotError as error:
            raise SqlError(f"the query does not parse: {_first_line(error)}") from None
        if len(statements) != 1:
            raise SqlError("only one statement may run")
        tree = statements[0]
        if not isinstance(tree, _ALLOWED) or any(isinstance(n, _FORBIDDEN) for n in tree.walk()):
            raise SqlError("only a SELECT may run")
        ctes = {cte.alias_or_name for cte in tree.find_all(exp.CTE)}
        for table in tree.find_all(exp.Table):
            if not isinstance(table.this, exp.Identifier):
                raise SqlError("only the listed tables may be read (no table functions)")
            if table.name not in self._by_name and table.name not in ctes | set(self._views):
                known = ", ".join([*self._by_name, *self._views]) or "none"
                raise SqlError(f"unknown table {table.name!r} (tables: {known})")
        tree = self._without_titled_conditions(self._read_by_period(tree))
        return _with_ties(_ordering_shown(self._without_totals(tree)))

    def _without_titled_conditions(self, tree: exp.Expression) -> exp.Expression:
        """The query without its conditions on a column no table read has, whose values the
        table's title or file already writes: "… WHERE state LIKE 'Kentucky' AND year = 2015"
        over the NICS report titled "November - 2015" failed three times on the missing
        column, and the tool was set aside. A condition on a missing column naming anything
        else still fails, and its error goes back to the model."""
        read = [self._by_name[t.name] for t in tree.find_all(exp.Table) if t.name in self._by_name]
        if not read or any(t.name in self._views for t in tree.find_all(exp.Table)):
            return tree
        own = {column.name.lower() for table in read for column in table.columns}
        own |= {alias.alias.lower() for alias in tree.find_all(exp.Alias)}
        titles = " ".join(table.describe() for table in read).casefold()
        # Every condition dropped: the whole table is of that period.
        return _without_conditions(tree, lambda part: _titled(part, own, titles))

    def _read_by_period(self, tree: exp.Expression) -> exp.Expression:
        """The query reading a statement's period view where it asks for the view's columns
        ("WHERE period = '2021'") of the table itself, which has none by that name: the model
        writes so often, and retrying with the error rarely mends it (set 8: three Binder
        errors in a row on Costco's headcount table)."""
        asked = {column.name.lower() for column in tree.find_all(exp.Column)}
        if not asked & {"period", "value"}:
            return tree
        views = {base: view for view, (base, _columns) in self._views.items()}
        for table in tree.find_all(exp.Table):
            known = self._by_name.get(table.name)
            view = views.get(table.name)
            if known is None or view is None:
                continue
            own = {column.name.lower() for column in known.columns}
            if not (asked & {"period", "value"}) - own:
                continue
            if asked & own - {"label", "period", "value"}:
                # It reads the table's own columns too ("SUM(q3_2025_keur) … WHERE period =
                # 'Q3 2025'"): a period condition those columns' headers already name goes.
                headers = " ".join(c.header.lower() for c in known.columns if c.name in asked)
                tree = _without_periods_named(tree, headers)
                continue
            table.set("this", exp.to_identifier(view))
        return tree

    def _without_totals(self, tree: exp.Expression) -> exp.Expression:
        """Each SELECT over one table (or its period view) leaving out the table's total rows,
        which are no records of their own: a sheet's "Total" row summed with the rows it totals
        counts them twice, grouped it is the largest "vendor", ranked it is the largest single
        expense. A query whose conditions name a total ("WHERE label ILIKE '%total%'") reads
        it as written. Tables joined (this half-year's segments beside last year's) leave out
        theirs each, by the name the query gives it: joined on their labels, two "Total" rows
        meet and outrank every segment. A ranking (ORDER BY … LIMIT, MIN or MAX) also leaves
        out the rows that reconcile the members to the total ("Unallocated items",
        "Eliminations"): "which product category had the lowest profit" is not corporate
        expenses."""
        for select in list(tree.find_all(exp.Select)):
            read = [t for t in select.find_all(exp.Table) if t.parent_select is select]
            where = select.args.get("where")
            if where is not None and _NAMES_TOTAL.search(where.sql()):
                continue
            joined = len(read) > 1 or bool(select.args.get("joins"))
            ranks = bool(select.args.get("order") and select.args.get("limit")) or bool(
                select.find(exp.Min, exp.Max)
            )
            for table in read:
                base = self._views[table.name][0] if table.name in self._views else table.name
                left_out = self._totals.get(base, ())
                if ranks and not (where is not None and _NAMES_RECONCILING.search(where.sql())):
                    left_out = (*left_out, *self._reconciling.get(base, ()))
                if not left_out:
                    continue
                kept = ", ".join(str(n) for n in left_out)
                column = f'"{table.alias_or_name}"."{ROW_COLUMN}"' if joined else f'"{ROW_COLUMN}"'
                select.where(f"{column} NOT IN ({kept})", dialect="duckdb", copy=False)
        return tree

    def run(self, query: str) -> SqlResult:
        tree = self.check(query)
        sql = tree.sql(dialect="duckdb")
        try:
            rows, columns = self._execute(sql)
        except SqlError as error:
            raise SqlError(f"{error}{self._column_elsewhere(str(error), tree)}") from None
        empty = all(v is None for row in rows for v in row)
        return SqlResult(
            query=sql,
            columns=columns,
            rows=tuple(rows[:MAX_RESULT_ROWS]),
            cited=tuple(self._cited(tree)),
            truncated=len(rows) > MAX_RESULT_ROWS,
            note=self._values_elsewhere(tree) if empty else "",
        )

    def _values_elsewhere(self, tree: exp.Expression) -> str:
        """For a query that found nothing, where the text its conditions look for is: "WHERE
        summary_by_month LIKE '%ProCourier%'" over a monthly summary, when the layoff list
        beside it names ProCourier in its column company (told only that it found nothing,
        the model wrote the same query again). Empty when no other listed table holds it."""
        read = {t.name for t in tree.find_all(exp.Table)}
        read |= {self._views[name][0] for name in read if name in self._views}  # its table's
        where = list(tree.find_all(exp.Where))
        sought = {
            text
            for condition in where
            for literal in condition.find_all(exp.Literal)
            if literal.is_string and len(text := literal.this.strip("%").strip()) >= 3
        }
        found = []
        for text in sorted(sought):
            for table in self.tables:
                if table.name in read:
                    continue
                for column in (c for c in table.columns if not c.numeric):
                    try:
                        count, _filled = self._matching(table, column, f"%{text}%")
                    except SqlError:  # a hint only: a slow column is passed over
                        continue
                    if count:
                        found.append(f"'{text}' is in the column {column.name} of {table.name}")
        if not found:
            return ""
        return "; ".join(found[:3]) + ", which the query did not read"

    def _column_elsewhere(self, error: str, tree: exp.Expression) -> str:
        """Where the query should read, as a sentence to add to DuckDB's "Referenced column
        "company" not found": the table holding the columns its WHERE conditions name (the
        rows the question is about), and that table's number columns. Told only the error, the
        model wrote the same query three times over the monthly summary of a layoff list, or
        joined the list to it on a column the summary does not have."""
        missing = _MISSING_COLUMN.search(error)
        if missing is None:
            return ""
        name = (missing["a"] or missing["b"]).lower()
        read = [t.name for t in tree.find_all(exp.Table) if t.name in self._by_name]
        holders = [t.name for t in self.tables if name in {c.name for c in t.columns}]
        if set(holders) & set(read):  # read, but from the wrong table of a join
            return f"; {name} is a column of {' and '.join(holders)} only"
        conditioned = {
            c.name.lower() for where in tree.find_all(exp.Where) for c in where.find_all(exp.Column)
        } - {ROW_COLUMN}
        if not conditioned:
            return ""
        rows_in = [
            table
            for table in sorted(self.tables, key=lambda t: t.name not in read)
            if conditioned <= {c.name for c in table.columns}
        ]
        if not rows_in:
            return ""
        table = rows_in[0]
        figures = ", ".join(c.name for c in table.columns if c.numeric)
        figures = f"; its figures are in {figures}" if figures else ""
        if table.name in read:
            return f"; {table.name} has no column {name}{figures}"
        where = ", ".join(sorted(conditioned))
        return f"; the rows asked about are in {table.name} (its column {where}): read it{figures}"

    def titles(self) -> str:
        """What the tables are, in words: each one's file, name, place and title."""
        return " ".join(table.describe() for table in self.tables)

    def numeric(self, table: str) -> list[str]:
        """The numeric columns of a listed table (none for an unknown name)."""
        known = self._by_name.get(table)
        return [c.name for c in known.columns if c.numeric] if known else []

    def repeats(self, table: str, column: str) -> bool:
        """Whether a column of a listed table (not a view) holds some value in several rows."""
        known = self._by_name.get(table)
        if known is None or column not in {c.name for c in known.columns}:
            return False
        (row,), _ = self._execute(
            f'SELECT COUNT(DISTINCT "{column}") < COUNT("{column}") FROM "{table}"', limit=None
        )
        return bool(row[0])

    def named_repeats(self, question: str) -> list[str]:
        """Values of a table's text columns that the question names and that stand in several
        rows ("Widget C" over rows of single sales): a figure for one of them is a total of its
        rows, not the value of one row."""
        asked = " ".join(_WORD.findall(question.casefold()))
        named: list[str] = []
        for table in self.tables:
            for column in table.columns:
                if column.numeric:
                    continue
                try:
                    found, _ = self._execute(
                        f'SELECT "{column.name}" FROM "{table.name}" '
                        f'WHERE "{column.name}" IS NOT NULL GROUP BY "{column.name}" '
                        f"HAVING COUNT(*) > 1 LIMIT {MAX_NAMED_VALUES}",
                        limit=None,
                    )
                except SqlError:  # a hint for choosing a tool: a slow column is passed over
                    continue
                for (value,) in found:
                    words = _WORD.findall(str(value).casefold())
                    if not set(words) - _ROW_WORDS or all(w.isdigit() for w in words):
                        continue  # "Total" closes many sections; a number names nothing
                    if f" {' '.join(words)} " in f" {asked} ":
                        named.append(str(value))
        return list(dict.fromkeys(named))

    def of_kind(self, query: str, kind: str) -> str | None:
        """The query ranking only the rows whose label opens with `kind` ("Zone NA", "Zone
        EUR" … for "Which zone had the lowest sales?"), when a text column of the table it reads
        has two such rows or more and others ("Nestlé Health Science", "Unallocated items": no
        zones); None otherwise (or when the query does not parse). Every SELECT over that table
        is narrowed, a MIN or MAX in a subquery too."""
        try:
            self.check(query)
            tree = sqlglot.parse_one(query, read="duckdb")
        except (SqlError, sqlglot.errors.SqlglotError):
            return None
        pattern = f"{kind.replace('%', '').replace(chr(39), '')}%"  # the label opens with it
        narrowed = False
        for select in list(tree.find_all(exp.Select)):
            read = [t for t in select.find_all(exp.Table) if t.parent_select is select]
            if len(read) != 1 or select.args.get("joins") or read[0].name not in self._by_name:
                continue
            table = self._by_name[read[0].name]
            column = next(
                (c for c in table.columns if not c.numeric and self._names_some(table, c, pattern)),
                None,
            )
            if column is None:
                continue
            select.where(
                exp.column(column.name, quoted=True).ilike(exp.Literal.string(pattern)),
                copy=False,
            )
            narrowed = True
        return tree.sql(dialect="duckdb") if narrowed else None

    def _names_some(self, table: SqlTable, column: SqlColumn, pattern: str) -> bool:
        """Whether `pattern` matches two or more of the column's values, and not all of them."""
        try:
            named, filled = self._matching(table, column, pattern)
        except SqlError:
            return False
        return 2 <= named < filled

    def _matching(self, table: SqlTable, column: SqlColumn, pattern: str) -> tuple[int, int]:
        """How many of the column's values match `pattern` (ILIKE), and how many it holds."""
        ((named, filled),), _ = self._execute(
            f'SELECT COUNT(*) FILTER (WHERE "{column.name}" ILIKE {_quoted(pattern)}), '
            f'COUNT("{column.name}") FROM "{table.name}"',
            limit=None,
        )
        return named, filled

    def close(self) -> None:
        self._db.close()

    def _execute(
        self, sql: str, limit: int | None = MAX_RESULT_ROWS + 1
    ) -> tuple[list[tuple[Any, ...]], tuple[str, ...]]:
        cursor = self._db.cursor()
        timer = threading.Timer(self._timeout_s, cursor.interrupt)
        timer.start()
        try:
            cursor.execute(sql)
            rows = cursor.fetchall() if limit is None else cursor.fetchmany(limit)
            columns = tuple(d[0] for d in cursor.description or ())
        except duckdb.InterruptException:
            raise SqlError(f"the query ran longer than {self._timeout_s:g} s") from None
        except duckdb.Error as error:
            raise SqlError(_first_line(error)) from None
        finally:
            timer.cancel()
            cursor.close()
        return rows, columns

    def _cited(self, tree: exp.Expression) -> list[CitedCells]:
        """The cells the result rests on (see the module's docstring).

        Each SELECT that reads one listed table, without a join, contributes the rows its WHERE
        keeps; a table read any other way contributes all its rows. A largest or smallest value
        a condition compares with (`WHERE m = (SELECT MAX(m) FROM t)`) contributes none: the
        answer is the row picked, and every other row shown with it only invites reading the
        first one.
        """
        rows: dict[str, set[int]] = {}
        whole: set[str] = set()
        for select in tree.find_all(exp.Select):
            if _extreme_in_condition(select):
                continue  # "m = (SELECT MAX(m) …)": the row it picks is what the result rests on
            read = [t for t in select.find_all(exp.Table) if t.find_ancestor(exp.Select) is select]
            names = {t.name for t in read if t.name in self._by_name or t.name in self._views}
            if not names:
                continue
            if len(read) != 1 or select.args.get("joins"):
                whole |= names
                continue
            (name,) = names
            where = select.args.get("where")
            condition = f" {where.sql(dialect='duckdb')}" if where is not None else ""
            if read[0].alias:  # the condition names the table by its alias ("T1.location")
                condition = f' AS "{read[0].alias}"{condition}'
            try:
                kept = self._row_numbers(name, condition)
            except SqlError:  # a condition that needs the outer query: count every row
                whole.add(name)
                continue
            rows.setdefault(name, set()).update(kept)
        used = {c.name for c in tree.find_all(exp.Column)}
        cited: dict[str, tuple[set[int], set[str]]] = {}  # base table → rows, column names
        for name in sorted(set(rows) | whole):
            numbers = self._row_numbers(name, "") if name in whole else sorted(rows[name])
            if name in self._views:  # a period view cites its table's label and period cells
                base, view_columns = self._views[name]
                names = {c.name for c in view_columns}
            else:
                base = name
                names = {c.name for c in self._by_name[name].columns if c.name in used}
            found = cited.setdefault(base, (set(), set()))
            found[0].update(numbers)
            found[1].update(names)
        out = []
        for base, (numbers_used, names) in cited.items():
            table = self._by_name[base]
            columns = tuple(c for c in table.columns if c.name in names) or table.columns
            out.append(CitedCells(table, tuple(sorted(numbers_used)), columns))
        return out

    def _row_numbers(self, name: str, condition: str) -> list[int]:
        found, _ = self._execute(
            f'SELECT "{ROW_COLUMN}" FROM "{name}"{condition} ORDER BY 1', limit=None
        )
        return [int(row[0]) for row in found]


def _ordering_shown(tree: exp.Expression) -> exp.Expression:
    """The query also selecting what it ranks by: "SELECT department … ORDER BY SUM(salary)
    DESC LIMIT 1" answers "Engineering" and leaves the reply to guess the total it names;
    with the sum selected the result shows it (and its cells are cited)."""
    if not isinstance(tree, exp.Select) or not tree.args.get("limit") or tree.args.get("distinct"):
        return tree
    order = tree.args.get("order")
    if order is None or any(isinstance(e, exp.Star) for e in tree.expressions):
        return tree
    shown = {e.unalias().sql() for e in tree.expressions} | {e.alias for e in tree.expressions}
    for ordered in order.expressions:
        key = ordered.this
        if isinstance(key, exp.Literal) or key.sql() in shown:
            continue  # by position, or already selected (or its alias is)
        if isinstance(key, exp.Column) and not key.table and key.name in shown:
            continue
        tree = tree.select(key.copy(), copy=False)
        shown.add(key.sql())
    return tree


def _with_ties(tree: exp.Expression) -> exp.Expression:
    """A ranking that keeps the rows tied with the last one it shows: "which team has the most
    tickets" over two teams of three answers both, not whichever DuckDB returns first.
    `ORDER BY k LIMIT n` becomes `QUALIFY RANK() OVER (ORDER BY k) <= n ORDER BY k`; a
    position in ORDER BY ("ORDER BY 2") is spelt out, since a window orders by values."""
    if (
        not isinstance(tree, exp.Select)
        or tree.args.get("offset")
        or tree.args.get("qualify")
        or tree.args.get("distinct")
    ):
        return tree
    limit, order = tree.args.get("limit"), tree.args.get("order")
    count = limit.expression if isinstance(limit, exp.Limit) else None
    if order is None or not isinstance(count, exp.Literal) or not count.is_int:
        return tree
    keys = []
    for ordered in order.expressions:
        key = ordered.this
        if isinstance(key, exp.Literal):
            position = int(key.this) if key.is_int else 0
            if not 1 <= position <= len(tree.expressions):
                return tree
            key = tree.expressions[position - 1].unalias()
        if key.find(exp.Window) is not None or isinstance(key, exp.Star):
            return tree
        keys.append(ordered.copy())
        keys[-1].set("this", key.copy())
    ranked = ", ".join(key.sql(dialect="duckdb") for key in keys)
    condition = sqlglot.parse_one(f"RANK() OVER (ORDER BY {ranked}) <= {count.this}", read="duckdb")
    tree.set("limit", None)
    tree.set("qualify", exp.Qualify(this=condition))
    return tree


def _extreme_in_condition(select: exp.Select) -> bool:
    """Whether this SELECT is a MAX or MIN inside another SELECT's WHERE, without grouping."""
    where = select.find_ancestor(exp.Where)
    return (
        where is not None
        and select.parent_select is not None
        and not select.args.get("group")
        and any(
            isinstance(e, exp.Max | exp.Min) or isinstance(e.unalias(), exp.Max | exp.Min)
            for e in select.expressions
        )
    )


def _columns(source_table: SourceTable) -> tuple[SqlColumn, ...]:
    table = source_table.table
    taken = {ROW_COLUMN}
    out = []
    # A row with a single filled cell is a note or a section title ("(in millions)",
    # "Industrial Solutions:"), not a value of the column it happens to sit in.
    notes = {i for i, row in enumerate(table.rows) if sum(1 for cell in row if cell) <= 1}
    for index, header in enumerate(table.header):
        cells = [
            row[index] if index < len(row) and i not in notes else ""
            for i, row in enumerate(table.rows)
        ]
        filled = [cell for cell in cells if not is_blank_number(cell)]
        # A column is a number column only when every filled cell is a number: a label such as
        # "Total" among years must stay readable (and filterable) as text.
        numeric = bool(filled) and all(parse_number(cell) is not None for cell in filled)
        letter = table.columns[index] if index < len(table.columns) else ""
        periods = sum(1 for h in table.header[1:] if _PERIOD.search(h))
        if index == 0 and not numeric and periods >= 2 and _UNNAMED.fullmatch(header):
            # A statement's row labels under a blank or a unit note ("(Millions)"): called
            # what they are, as the period view calls them, so one name works in both.
            name = _unique("label", taken)
        else:
            name = _unique(_identifier(header, "column"), taken)
        out.append(SqlColumn(name, header, letter, numeric))
    return tuple(out)


# A header that names no column: blank, a placeholder ("Column 1"), or only a unit note
# ("(In millions, except per share)").
_WORD = re.compile(r"\w+")
MAX_NAMED_VALUES = 5000  # repeated values of one column compared with a question's words
# Row labels that recur in any table without naming a thing of their own.
_ROW_WORDS = frozenset(
    {"total", "totals", "subtotal", "sum", "net", "other", "others", "all", "none", "n", "a"}
)
_UNNAMED = re.compile(
    r"\s*(?:\([^()]*\)\s*)*|column \d+|\s*(?:\$\s*)?in (?:thousands|millions|billions)\b.*",
    re.IGNORECASE,
)


# A row that totals the rows above it: a bare "Total", "Subtotal", "Grand total" or "Sum" label
# (a statement's "Total current assets" is a line of its own, read like any other).
_TOTAL_LABEL = re.compile(r"\s*(?:grand\s+|sub-?)?totals?\s*:?\s*|\s*sum\s*:?\s*", re.IGNORECASE)
_NAMES_TOTAL = re.compile(r"total|\bsum\b", re.IGNORECASE)


def _total_rows(source_table: SourceTable, columns: Sequence[SqlColumn]) -> tuple[int, ...]:
    """The row numbers of a table's total rows: a text cell that is a bare total label, every
    other text cell blank, wherever the label stands ("", "", "Total", "$8,129.70")."""
    return _rows_labelled(
        source_table, columns, lambda text: all(_TOTAL_LABEL.fullmatch(cell) for cell in text)
    )


# A row that reconciles a table's members (segments, categories) to its total, no member
# itself: "Unallocated items (c)", "Eliminations", "Intersegment eliminations", "Reconciling
# items", "Corporate and other".
_RECONCILING = re.compile(
    r"\s*(?:unallocated(?:\s+\w+)?|(?:inter-?segment\s+)?eliminations?|reconciling\s+items?|"
    r"corporate\s+and\s+other)\s*(?:\([a-z0-9]{1,2}\))?\s*:?\s*",
    re.IGNORECASE,
)
_NAMES_RECONCILING = re.compile(r"unallocated|eliminat|reconcil|corporate", re.IGNORECASE)


def _reconciling_rows(source_table: SourceTable, columns: Sequence[SqlColumn]) -> tuple[int, ...]:
    """The row numbers of a table's reconciling rows: its first text cell a reconciling label."""
    return _rows_labelled(source_table, columns, lambda text: bool(_RECONCILING.fullmatch(text[0])))


def _rows_labelled(
    source_table: SourceTable,
    columns: Sequence[SqlColumn],
    is_label: Callable[[list[str]], bool],
) -> tuple[int, ...]:
    """The row numbers of the rows whose text cells (those of the non-numeric columns that
    are filled, in order; at least one) `is_label` accepts."""
    table = source_table.table
    found = []
    for index, row in enumerate(table.rows):
        text = [row[i] for i, c in enumerate(columns) if not c.numeric and i < len(row) and row[i]]
        if text and is_label(text):
            found.append(table.row_number(index))
    return tuple(found)


def _arrow(source_table: SourceTable, columns: Sequence[SqlColumn]) -> pa.Table:
    table = source_table.table
    data: dict[str, pa.Array] = {}
    for index, column in enumerate(columns):
        cells = [row[index] if index < len(row) else "" for row in table.rows]
        if column.numeric:
            data[column.name] = pa.array([parse_number(cell) for cell in cells], pa.float64())
        else:
            data[column.name] = pa.array([cell or None for cell in cells], pa.string())
    numbers = [table.row_number(i) for i in range(len(table.rows))]
    data[ROW_COLUMN] = pa.array(numbers, pa.int64())
    return pa.table(data)


_PERIOD = re.compile(  # a month stands alone: "V/dec" (volts per decade) is no December
    rf"\b(?:19|20)\d\d\b|\b(?:FY|Q[1-4]|H[12])\b|(?<![/\w]){MONTH}\b(?!/)", re.IGNORECASE
)


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _quoted(text: str) -> str:
    """A SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def _titled(condition: exp.Expr, own: set[str], titles: str) -> bool:
    """Whether a condition reads only columns no table has and compares them with values that
    `titles` write ("year = 2015" under "… November - 2015")."""
    columns = {column.name.lower() for column in condition.find_all(exp.Column)}
    values = [str(value.this).casefold().strip("% ") for value in condition.find_all(exp.Literal)]
    return (
        bool(columns)
        and not columns & own
        and bool(values)
        and all(
            value and re.search(rf"(?<!\w){re.escape(value)}(?!\w)", titles) for value in values
        )
    )


def _without_periods_named(tree: exp.Expression, headers: str) -> exp.Expression:
    """The query without its conditions on `period` whose values the `headers` write."""

    def named(part: exp.Expr) -> bool:
        values = [str(v.this).lower().strip("%") for v in part.find_all(exp.Literal)]
        return (
            {c.name.lower() for c in part.find_all(exp.Column)} == {"period"}
            and bool(values)
            and all(value and value in headers for value in values)
        )

    return _without_conditions(tree, named)


def _without_conditions(
    tree: exp.Expression, dropped: Callable[[exp.Expr], bool]
) -> exp.Expression:
    """The query without the ANDed conditions of its WHERE clauses that `dropped` picks; a
    clause left without any goes."""
    for where in list(tree.find_all(exp.Where)):
        condition = where.this
        parts = list(condition.flatten()) if isinstance(condition, exp.And) else [condition]
        kept = [part for part in parts if not dropped(part)]
        if len(kept) == len(parts):
            continue
        if kept:
            where.set("this", exp.and_(*kept))
        else:
            where.pop()
    return tree


def _identifier(text: str, fallback: str) -> str:
    """A plain SQL name for a header or table name: "Freshwater Ducks" → freshwater_ducks,
    "2019" → y2019, "% change" → pct_change."""
    words = re.sub(r"%", " pct ", text.lower())
    name = re.sub(r"[^a-z0-9]+", "_", words).strip("_")[:40].strip("_")
    if not name:
        return fallback
    if name[0].isdigit():
        return ("y" if re.fullmatch(r"(19|20)\d\d", name) else "c") + name
    return name


def _unique(name: str, taken: set[str]) -> str:
    candidate, n = name, 1
    while candidate in taken:
        n += 1
        candidate = f"{name}_{n}"
    taken.add(candidate)
    return candidate


def _value(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, float):
        return show(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return show(float(value))
    return str(value)


def _runs(numbers: Sequence[int]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for number in sorted(set(numbers)):
        if runs and number == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], number)
        else:
            runs.append((number, number))
    return runs


# The line of a result that says where the values a query found nothing for are; the critic
# passes it on with its repair.
NOTE = "note: "
# DuckDB's words for a column no table of the query has, or not the table it names.
_MISSING_COLUMN = re.compile(
    r'Referenced column "(?P<a>[^"]+)" not found|does not have a column named "(?P<b>[^"]+)"'
)


def _first_line(error: BaseException) -> str:
    return " ".join(str(error).split("\n")[0].split())[:200]


__all__ = ["NOTE", "CitedCells", "Locator", "SqlError", "SqlResult", "TableDatabase"]


def _screened(cell: str) -> str:
    """A cell as a model may read it: NULL when empty, instruction-like sentences left out."""
    return screen_passage(cell).text if cell else "NULL"
