"""The tables a question may need: those of the sources retrieval found, best matches first."""

from __future__ import annotations

import re
from collections.abc import Sequence

from polyrag.answer.evidence import content_words
from polyrag.index.tables.base import SourceTable, TableStore
from polyrag.parse.tables import FIGURE_CELL
from polyrag.types import Hit

_WORD = re.compile(r"\w+")
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
_CELLS_READ = 5000  # rows of a table whose words may name it


def question_tables(
    store: TableStore, question: str, hits: Sequence[Hit], limit: int
) -> list[SourceTable]:
    """Up to `limit` tables of the hit sources: a table a hit came from first, then by how
    many of the question's words its name, title, header and headings share, or the names its
    cells hold that the question writes whole; when some share words, only those (a slide's
    chart titled only "Chart" is named by its slide's title, "Quarterly revenue"; a list of
    layoffs whose header says only "Company" by the company asked about, in its rows)."""
    sources = list(dict.fromkeys(hit.chunk.source_id for hit in hits))
    if not sources:
        return []
    rank = {source: i for i, source in enumerate(sources)}
    terms = content_words(question)
    asked = f" {' '.join(_WORD.findall(question.lower()))} "
    names = _capitalised(question)

    def score(item: SourceTable) -> tuple[int, int, int]:
        table = item.table
        hit_here = any(_from_table(hit, item) for hit in hits)
        named = [table.name, table.title, *table.header, *table.locator.heading_path]
        words = content_words(" ".join(named)) | _cell_words(item, asked, names)
        return (-int(hit_here), -len(terms & words), rank[item.source_id])

    tables = _without_qualified_copies(store.tables(sources), terms)
    scored = sorted(((score(item), i, item) for i, item in enumerate(tables)))
    found = [item for _, _, item in scored]
    # A table none of the question's words name, beside tables some do, is only a wrong join
    # waiting to happen (a slide's "Class1" table offered with the sheet of Stanley Cups).
    named = [item for key, _, item in scored if key[1] < 0]
    return (named or found)[:limit]


def _without_qualified_copies(tables: list[SourceTable], terms: set[str]) -> list[SourceTable]:
    """A workbook's sheet is left out beside another with the same columns whose name says
    less, when what it says more the question does not write: "how many Stanley Cups
    have the three teams won in total?" asks about the sheet "Stanley Cups", not its copy
    "Stanley Cups Since 67" ("… since 67?" keeps both). Tables of other documents stay.
    (Leaving out, for a question about 2022, the block of a sheet titled for another year lost
    3 of 47 held-out table questions: the model, offered last year's blocks of two sheets, joined
    them.)"""

    def titled(item: SourceTable) -> set[str]:
        """The words of its sheet's name, but years: a sheet named for its year ("Sales
        2023" beside "Sales") is that year's, not a copy qualified by words the question
        leaves out. Not the words of its title, which a parser gives one block of a sheet
        ("Revenue and results, January–June 2023") and not the block below it."""
        words = content_words(item.table.locator.sheet or item.table.name)
        return {w for w in words if not _YEAR.fullmatch(w)}

    def qualified(item: SourceTable) -> bool:
        if item.table.locator.sheet is None:
            return False
        words = titled(item)
        return any(
            other.source_id == item.source_id
            and other.table.header == item.table.header
            and (fewer := titled(other)) < words
            and not (words - fewer) & terms
            for other in tables
        )

    return [item for item in tables if not qualified(item)]


def _cell_words(item: SourceTable, asked: str, names: set[str]) -> set[str]:
    """The words of the names in a table's cells that the question writes whole ("Microsoft
    Corporation" in a list of layoffs whose header says only "Company"): a name of two words
    or more, not a figure; or a cell opening with a name the question writes with a capital
    ("ProCourier" for the cell "ProCourier, Inc."). `asked` is the question's words, lower
    case, spaced and padded; `names`, its capitalised words (see `_capitalised`)."""
    cells = {cell for row in item.table.rows[:_CELLS_READ] for cell in row}
    found: set[str] = set()
    for cell in cells:
        if FIGURE_CELL.match(cell):
            continue
        words = _WORD.findall(cell)
        spaced = f" {' '.join(words).lower()} "
        if (len(words) > 1 and spaced in asked) or (words and words[0] in names):
            found |= content_words(cell)
    return found


def _capitalised(question: str) -> set[str]:
    """The words a question writes with a capital where a sentence would not (not its first
    word), letters only, at least three, not all capitals: "ProCourier", "Nespresso"."""
    words = _WORD.findall(question)
    return {
        word
        for word in words[1:]
        if len(word) >= 3 and word.isalpha() and word[0].isupper() and not word.isupper()
    }


def _from_table(hit: Hit, item: SourceTable) -> bool:
    chunk, table = hit.chunk, item.table
    if chunk.source_id != item.source_id:
        return False
    if table.locator.sheet is not None:
        rows = table.locator.rows
        inside = chunk.locator.rows is not None and rows is not None
        overlaps = inside and chunk.locator.rows[0] <= rows[1] and chunk.locator.rows[1] >= rows[0]  # type: ignore[index]
        return chunk.locator.sheet == table.locator.sheet and (
            overlaps or chunk.locator.rows is None
        )
    return any(chunk.text.startswith((f"{name}:", f"{name}\n")) for name in table.names())
