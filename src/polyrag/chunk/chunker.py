"""Blocks → Chunks: sentence-aware token windows with overlap; tables and pictures on their own.

- The layout decides the unit (see chunk/layout.py): a slide deck is chunked one slide (or
  slide-like page) per chunk; everything else as running text, as follows.
- Text is cut into sentences, packed into windows of at most `max_tokens` embedder tokens;
  the next window repeats the last sentences worth at most `overlap_tokens`.
- A BREAK (new page, slide, sheet) closes the window: no chunk spans two pages.
- A heading closes a window that is already a quarter full, so sections start fresh chunks,
  and the heading path travels with every chunk in the locator.
- A TABLE or PICTURE among text leaves a placeholder ("[Table 3: Region, Revenue]") in its
  text window and becomes its own chunks, whose `anchor` is that text chunk's ordinal: the
  table as Markdown (a long table split by rows, repeating its header) and its rows as
  sentences with their header names; a picture's text in sentence windows.
- A spreadsheet's tables (blocks on a sheet) stand alone, followed by their ROW sentences,
  which are packed like text, without overlap, and the locator spans their rows.
- A chunk whose locator has a time span (a transcript segment) has the AUDIO modality.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from polyrag.chunk.figures import (
    lead_in,
    picture_summary,
    picture_title,
    placeholder,
    read_table,
    row_sentences,
    table_summary,
    table_title,
)
from polyrag.chunk.layout import Layout, classify
from polyrag.chunk.sentences import sentence_spans, split_long
from polyrag.index.embed.base import TokenCounter
from polyrag.settings import ChunkSettings
from polyrag.types import Block, BlockKind, Chunk, Locator, Modality, Source, column_order


@dataclass(frozen=True)
class _Unit:
    """A sentence (or row, or heading line, or placeholder) with its place and cost."""

    text: str
    locator: Locator
    tokens: int
    is_row: bool = False
    is_heading: bool = False
    separator: str = " "  # what stood before it in the source: a space, or a line break
    is_placeholder: bool = False  # "[Table 3: ...]": marks where a table or picture stood


@dataclass(frozen=True)
class _Figure:
    """A table's or picture's own chunks, waiting for the ordinal of the text that holds it."""

    pieces: tuple[tuple[str, Locator], ...]
    modality: Modality


@dataclass
class _Numbers:
    """Tables and pictures are numbered in document order, as a reader would count them."""

    tables: int = 0
    pictures: int = 0


class Chunker:
    def __init__(self, counter: TokenCounter, settings: ChunkSettings) -> None:
        self._count = counter.count_tokens
        self._settings = settings

    @property
    def version(self) -> str:
        """Changes whenever the chunks of an unchanged file would change (chunk13: a table's
        row of units joins its column names)."""
        s = self._settings
        return f"chunk13-{s.max_tokens}-{s.overlap_tokens}-{s.table_max_tokens}-{s.page_max_tokens}"

    def chunk(
        self, source: Source, blocks: Iterable[Block], layout: Layout | str | None = None
    ) -> list[Chunk]:
        """The chunks of one source; `layout` is the parser's `Document.layout`."""
        builder = _Builder(source)
        numbers = _Numbers()
        if classify(source.media_type, layout) == "slides":
            for segment in _segments(blocks):
                self._page(segment, builder, numbers)
        else:
            self._report(blocks, builder, numbers)
        return builder.chunks

    # -- reports: sentence windows ------------------------------------------------------------

    def _report(self, blocks: Iterable[Block], builder: _Builder, numbers: _Numbers) -> None:
        window: list[_Unit] = []
        pending: list[_Figure] = []  # figures whose placeholder sits in the window
        headings: list[tuple[int, str]] = []
        # What the last paragraph says the tables after it hold ("The following table shows
        # key hotel statistics for our Las Vegas Strip Resorts:"); a table with no caption of
        # its own is titled by it. A heading or another paragraph ends it; a short line such
        # as "Year Ended December 31," (a header's remnant) does not.
        leading = ""

        def flush(keep_overlap: bool, content_follows: bool = False) -> None:
            nonlocal window, pending
            if not window:
                return
            if content_follows and all(unit.is_heading for unit in window):
                # Headings alone before a table or rows: they travel in the heading path of
                # what follows; a chunk of nothing but a title would only crowd out evidence.
                window = []
                return
            anchor = None
            if pending and all(unit.is_heading or unit.is_placeholder for unit in window):
                window = []  # no text around the figures: they stand alone
            else:
                anchor = builder.add(window, Modality.TABLE if window[-1].is_row else Modality.TEXT)
                window = self._overlap(window) if keep_overlap and not window[-1].is_row else []
            for figure in pending:
                builder.add_figure(figure, anchor)
            pending = []

        def place(unit: _Unit) -> None:
            if window and (window[-1].is_row != unit.is_row):
                flush(keep_overlap=False, content_follows=unit.is_row)
            if window and sum(u.tokens for u in window) + unit.tokens > self._limit():
                flush(keep_overlap=True)
            window.append(unit)

        for block in blocks:
            if block.kind is BlockKind.BREAK:
                flush(keep_overlap=False)
                headings.clear()
                continue
            if block.kind is BlockKind.HEADING:
                leading = ""
            elif block.kind is BlockKind.TEXT and not _fragment(block.text):
                spans = list(sentence_spans(block.text.strip()))
                leading = lead_in(block.text.strip()[spans[-1][0] :]) if spans else ""
            if block.kind is BlockKind.HEADING:
                title = " ".join(block.text.split())
                if not title:
                    continue
                level = max(block.level, 1)
                headings[:] = [(lvl, text) for lvl, text in headings if lvl < level]
                headings.append((level, title))
                if sum(u.tokens for u in window) >= self._settings.max_tokens // 4:
                    flush(keep_overlap=False)
            path = tuple(text for _, text in headings)
            locator = replace(block.locator, heading_path=block.locator.heading_path or path)
            if block.kind is BlockKind.TABLE and block.locator.sheet is not None:
                # A spreadsheet's table stands alone; its rows follow as ROW blocks.
                flush(keep_overlap=False, content_follows=True)
                for part in self._table_parts(block.text, self._settings.table_max_tokens):
                    builder.add([_Unit(part, locator, self._count(part))], Modality.TABLE)
                continue
            if block.kind in (BlockKind.TABLE, BlockKind.PICTURE):
                if not block.text.strip():
                    continue
                title, figure = self._figure(block, locator, numbers, leading)
                mark = placeholder(title)
                place(_Unit(mark, locator, self._count(mark), separator="\n", is_placeholder=True))
                pending.append(figure)
                continue
            is_row = block.kind is BlockKind.ROW
            is_heading = block.kind is BlockKind.HEADING
            for unit in self._units(block, locator, is_row, is_heading):
                place(unit)
        flush(keep_overlap=False)

    # -- tables and pictures ------------------------------------------------------------------

    def _figure(
        self, block: Block, locator: Locator, numbers: _Numbers, leading: str = ""
    ) -> tuple[str, _Figure]:
        """The figure's title ("Table 3: Region, Revenue", or what the sentence `leading` into
        it says it holds) and its own chunks."""
        if block.kind is BlockKind.TABLE:
            numbers.tables += 1
            table = read_table(block.text)
            title = table_title(numbers.tables, table_summary(table, leading))
            pieces = self._table_pieces(title, block.text, locator)
            return title, _Figure(tuple(pieces), Modality.TABLE)
        numbers.pictures += 1
        text = block.text.strip()
        title = picture_title(numbers.pictures)
        label = f"{title}: "
        budget = self._limit() - self._count(label)
        pieces = [(label + text[a:b].strip(), locator) for a, b in self._windows(text, budget)]
        return f"{title}: {picture_summary(text)}", _Figure(tuple(pieces), Modality.PICTURE)

    def _table_pieces(self, title: str, text: str, locator: Locator) -> list[tuple[str, Locator]]:
        """The table as Markdown parts, then its rows as sentences, each under its title."""
        table = read_table(text)
        title_cost = self._count(title) + 1
        markdown = table.markdown if table else text
        limit = max(self._settings.table_max_tokens - title_cost, 32)
        pieces = [(f"{title}\n{part}", locator) for part in self._table_parts(markdown, limit)]
        if table is None:
            return pieces
        group: list[tuple[int, str]] = []
        cost = title_cost

        def close() -> None:
            if group:
                body = "\n".join(line for _, line in group)
                rows = (group[0][0], group[-1][0])
                pieces.append((f"{title}\n{body}", replace(locator, rows=rows)))

        for number, line in row_sentences(table):
            line_cost = self._count(line) + 1
            if group and cost + line_cost > self._limit():
                close()
                group, cost = [], title_cost
            group.append((number, line))
            cost += line_cost
        close()
        return pieces

    def _windows(self, text: str, budget: int) -> Iterator[tuple[int, int]]:
        """Spans of consecutive sentences of `text` of at most `budget` tokens each."""
        start: int | None = None
        end = 0
        used = 0
        for a, b in sentence_spans(text):
            cost = self._count(text[a:b])
            runs = [(a, b)]
            if cost > budget:
                runs = [(a + c, a + d) for c, d in split_long(text[a:b], budget, self._count)]
            for c, d in runs:
                piece_cost = cost if len(runs) == 1 else self._count(text[c:d])
                if start is not None and used + piece_cost > budget:
                    yield start, end
                    start, used = None, 0
                if start is None:
                    start = c
                end = d
                used += piece_cost + 1
        if start is not None:
            yield start, end

    # -- slides: one chunk per page -----------------------------------------------------------

    def _page(self, segment: list[Block], builder: _Builder, numbers: _Numbers) -> None:
        """One slide (or slide-like page) as one chunk, its tables and pictures also on their
        own; a page longer than `page_max_tokens` is chunked as running text instead."""
        saved = (numbers.tables, numbers.pictures)
        title = next((b.text for b in segment if b.kind is BlockKind.HEADING and b.text), "")
        path = (" ".join(title.split()),) if title.strip() else ()
        units: list[_Unit] = []
        figures: list[_Figure] = []
        for block in segment:
            text = block.text.strip()
            if block.kind is BlockKind.BREAK or not text:
                continue
            locator = replace(block.locator, heading_path=block.locator.heading_path or path)
            is_heading = block.kind is BlockKind.HEADING
            if block.kind is BlockKind.TABLE:
                figure_title, figure = self._figure(block, locator, numbers)
                table = read_table(text)
                text = f"{figure_title}\n{table.markdown if table else text}"
                figures.append(figure)
            elif block.kind is BlockKind.PICTURE:
                figure_title, figure = self._figure(block, locator, numbers)
                text = f"{picture_title(numbers.pictures)}: " + " ".join(text.split())
                figures.append(figure)
            units.append(_Unit(text, locator, 0, is_heading=is_heading, separator="\n"))
        if not units or (not figures and all(_untitled(unit) for unit in units)):
            return  # an empty slide: nothing but the "Slide 3" its parser named it
        page_text = "\n".join(unit.text for unit in units)
        if self._count(page_text) > self._settings.page_max_tokens:
            numbers.tables, numbers.pictures = saved
            self._report(segment, builder, numbers)
            return
        anchor = builder.add(units, Modality.TEXT)
        for figure in figures:
            builder.add_figure(figure, anchor)

    def _limit(self) -> int:
        return self._settings.max_tokens

    def _units(
        self, block: Block, locator: Locator, is_row: bool, is_heading: bool
    ) -> Iterable[_Unit]:
        text = block.text
        spans = [(0, len(text))] if is_row else list(sentence_spans(text))
        base = locator.char_span[0] if locator.char_span else None
        previous_end = None
        for start, end in spans:
            sentence = text[start:end].strip()
            tokens = self._count(sentence)
            pieces = [(start, end)]
            if tokens > self._limit():
                runs = split_long(sentence, self._limit(), self._count)
                pieces = [(start + a, start + b) for a, b in runs]
            for a, b in pieces:
                piece = text[a:b].strip() if len(pieces) > 1 else sentence
                where = locator
                if base is not None:
                    where = replace(locator, char_span=(base + a, base + b))
                cost = tokens if len(pieces) == 1 else self._count(piece)
                gap = text[previous_end:a] if previous_end is not None else "\n"
                separator = "\n" if "\n" in gap else " "
                previous_end = b
                yield _Unit(piece, where, cost, is_row, is_heading, separator)

    def _overlap(self, window: list[_Unit]) -> list[_Unit]:
        kept: list[_Unit] = []
        budget = self._settings.overlap_tokens
        for unit in reversed(window[1:]):  # never carry the whole window over
            if unit.tokens > budget or unit.is_placeholder:
                break
            kept.insert(0, unit)
            budget -= unit.tokens
        return kept

    def _table_parts(self, markdown: str, limit: int) -> list[str]:
        """The table as pieces of at most `limit` tokens, each repeating the header rows."""
        lines = [line for line in markdown.strip().splitlines() if line.strip()]
        if self._count(markdown) <= limit or len(lines) <= 3:
            return ["\n".join(lines)]
        header_size = (
            2 if len(lines) > 1 and set(lines[1].replace("|", "").strip()) <= set("-: ") else 1
        )
        header, body = lines[:header_size], lines[header_size:]
        header_cost = self._count("\n".join(header))
        parts: list[str] = []
        current: list[str] = []
        cost = header_cost
        for line in body:
            line_cost = self._count(line) + 1
            if current and cost + line_cost > limit:
                parts.append("\n".join(header + current))
                current, cost = [], header_cost
            current.append(line)
            cost += line_cost
        if current:
            parts.append("\n".join(header + current))
        return parts


class _Builder:
    """Turns unit windows into Chunks with merged locators and deterministic ids."""

    def __init__(self, source: Source) -> None:
        self._source = source
        self.chunks: list[Chunk] = []

    def add(self, units: list[_Unit], modality: Modality) -> int | None:
        """Adds the window as a chunk; returns its ordinal (None when it holds no text)."""
        text = "".join(
            (unit.separator if position else "") + unit.text for position, unit in enumerate(units)
        ).strip()
        return self._append(text, _merge(units), modality, None)

    def add_figure(self, figure: _Figure, anchor: int | None) -> None:
        for text, locator in figure.pieces:
            self._append(text.strip(), locator, figure.modality, anchor)

    def _append(
        self, text: str, locator: Locator, modality: Modality, anchor: int | None
    ) -> int | None:
        if not text:
            return None
        if modality is Modality.TEXT and locator.time_span is not None:
            modality = Modality.AUDIO
        ordinal = len(self.chunks)
        self.chunks.append(
            Chunk(
                chunk_id=f"{self._source.source_id}-{ordinal:05d}",
                source_id=self._source.source_id,
                path=self._source.path,
                text=text,
                locator=locator,
                modality=modality,
                ordinal=ordinal,
                anchor=anchor,
            )
        )
        return ordinal


def _untitled(unit: _Unit) -> bool:
    """A heading that only numbers its slide ("Slide 3"), as a parser names an untitled one."""
    slide = unit.locator.slide
    return unit.is_heading and slide is not None and unit.text == f"Slide {slide}"


def _segments(blocks: Iterable[Block]) -> Iterator[list[Block]]:
    """The blocks between BREAKs: one slide or page each."""
    segment: list[Block] = []
    for block in blocks:
        if block.kind is BlockKind.BREAK:
            if segment:
                yield segment
            segment = []
        else:
            segment.append(block)
    if segment:
        yield segment


def _merge(units: list[_Unit]) -> Locator:
    """One locator for a window: where it starts, spanning its rows, characters and times.

    The heading path is the one over the first piece of content, not over a heading line. The
    region (bbox) is the union of its pieces' regions when they all lie on one page or slide.
    """
    locators = [u.locator for u in units]
    content = next((u.locator for u in units if not u.is_heading), locators[0])
    first = replace(locators[0], heading_path=content.heading_path)
    rows = [loc.rows for loc in locators if loc.rows]
    spans = [loc.char_span for loc in locators if loc.char_span]
    times = [loc.time_span for loc in locators if loc.time_span]
    letters = [letter for loc in locators if loc.columns for letter in loc.columns]
    return replace(
        first,
        bbox=_region(locators),
        # A sheet's rows span the columns of all of them; rows without columns (a title line
        # above a table) leave the range unknown.
        columns=(min(letters, key=column_order), max(letters, key=column_order))
        if letters and all(loc.columns for loc in locators if loc.rows)
        else None,
        rows=(min(r[0] for r in rows), max(r[1] for r in rows)) if rows else None,
        char_span=(min(s[0] for s in spans), max(s[1] for s in spans)) if spans else None,
        time_span=(min(t[0] for t in times), max(t[1] for t in times)) if times else None,
    )


def _region(locators: list[Locator]) -> tuple[float, float, float, float] | None:
    boxes = [loc.bbox for loc in locators]
    places = {(loc.page, loc.slide) for loc in locators}
    if len(places) != 1 or any(box is None for box in boxes):
        return None
    known = [box for box in boxes if box is not None]
    return (
        min(b[0] for b in known),
        min(b[1] for b in known),
        max(b[2] for b in known),
        max(b[3] for b in known),
    )


def _fragment(text: str) -> bool:
    """A short line that is no sentence: "Year Ended December 31,", "(in millions)"."""
    words = text.split()
    return len(words) <= 6 and not text.rstrip().endswith((".", ":", "!", "?"))
