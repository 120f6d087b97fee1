"""Tables and pictures as the chunker sees them: numbered, titled, and written out row by row.

A table block holds Markdown (optionally after a caption line, e.g. "Chart: Sales"). It becomes
its own chunks — the Markdown, and one sentence per row with the header names beside the
values ("Row 2: Region is Nordics, Q3 revenue is 4.1 M"), which is what a small model reads
correctly — while a placeholder ("[Table 3: Region, Q3 revenue]") keeps its place in the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SUMMARY_CHARS = 80  # longest caption or header summary in a placeholder
PICTURE_WORDS = 8  # words of a picture's text in its placeholder
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_SEPARATOR = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?$")


@dataclass(frozen=True)
class TableText:
    """A Markdown table read back into its caption, header names and data rows."""

    caption: str
    header: tuple[str, ...]  # a name for every column ("Column 3" where the cell is empty)
    labels: tuple[str, ...]  # the header cells that are not empty
    rows: tuple[tuple[str, ...], ...]
    markdown: str  # the pipe lines only (header, separator, body)


def read_table(text: str) -> TableText | None:
    """The parts of a Markdown pipe table (after optional caption lines), or None if not one."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    first = next((i for i, line in enumerate(lines) if line.startswith("|")), None)
    if first is None:
        return None
    caption = " ".join(" ".join(lines[:first]).split())
    pipes = [line for line in lines[first:] if line.startswith("|")]
    if not pipes:
        return None
    has_separator = len(pipes) > 1 and bool(_SEPARATOR.match(pipes[1]))
    header = _cells(pipes[0])
    body = [_cells(line) for line in pipes[2 if has_separator else 1 :]]
    names = _header_names(header)
    width = len(names)
    rows = tuple(tuple(row[:width]) + ("",) * (width - len(row)) for row in body if any(row))
    labels = tuple(cell for cell in header if cell)
    return TableText(caption, tuple(names), labels, rows, "\n".join(pipes))


def _cells(line: str) -> list[str]:
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return [cell.strip().replace("\\|", "|") for cell in _CELL_SPLIT.split(inner)]


def _header_names(cells: list[str]) -> list[str]:
    names: list[str] = []
    for position, cell in enumerate(cells, start=1):
        name = cell or f"Column {position}"
        if name in names:
            name = f"{name} ({position})"
        names.append(name)
    return names


def table_summary(table: TableText | None) -> str:
    """The caption if there is one, else the header names: what the placeholder shows."""
    if table is None:
        return ""
    if table.caption:
        return _shorten(table.caption)
    return _shorten(", ".join(table.labels))


def row_sentences(table: TableText) -> list[tuple[int, str]]:
    """(table row number, "Row n: Header is value, ...") for every data row; the header is row 1.

    A table without header names (its first row was figures) says each row's first cell, then
    its values: "Row 2: Net sales: $ 3,642, $ 3,507".
    """
    out: list[tuple[int, str]] = []
    for number, row in enumerate(table.rows, start=2):
        if table.labels:
            cells = zip(table.header, row, strict=True)
            text = ", ".join(f"{name} is {value}" for name, value in cells if value)
        else:
            values = [value for value in row if value]
            text = values[0] + (": " + ", ".join(values[1:]) if len(values) > 1 else "")
        if text:
            out.append((number, f"Row {number}: {text}"))
    return out


def table_title(number: int, summary: str) -> str:
    return f"Table {number}: {summary}" if summary else f"Table {number}"


def picture_summary(text: str) -> str:
    words = text.split()
    head = " ".join(words[:PICTURE_WORDS])
    return _shorten(head + (" …" if len(words) > PICTURE_WORDS else ""))


def picture_title(number: int) -> str:
    return f"Picture {number}"


def placeholder(title: str) -> str:
    """How a table or picture is marked in the text around it: "[Table 3: Region, Revenue]"."""
    return f"[{title}]"


def figure_pattern(kind: str, number: int) -> re.Pattern[str]:
    """Finds a figure's placeholder, or its title line in a page chunk, in a parent's text."""
    return re.compile(rf"\[{kind} {number}(?::[^\]\n]*)?\]|^{kind} {number}(?::[^\n]*)?$", re.M)


def _shorten(text: str) -> str:
    text = " ".join(text.split()).replace("[", "(").replace("]", ")")
    if len(text) <= SUMMARY_CHARS:
        return text
    cut = text[: SUMMARY_CHARS - 1].rsplit(" ", 1)[0].rstrip(",;: ")
    return cut + "…"
