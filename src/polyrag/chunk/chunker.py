"""Blocks → Chunks: sentence-aware token windows with overlap; tables on their own.

- Text is cut into sentences, packed into windows of at most `max_tokens` embedder tokens;
  the next window repeats the last sentences worth at most `overlap_tokens`.
- A BREAK (new page, slide, sheet) closes the window: no chunk spans two pages.
- A heading closes a window that is already a quarter full, so sections start fresh chunks,
  and the heading path travels with every chunk in the locator.
- TABLE blocks become their own chunks; a long table is split by rows, repeating its header.
- ROW sentences are packed like text, without overlap, and the locator spans their rows.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from polyrag.chunk.sentences import sentence_spans, split_long
from polyrag.index.embed.base import TokenCounter
from polyrag.settings import ChunkSettings
from polyrag.types import Block, BlockKind, Chunk, Locator, Modality, Source


@dataclass(frozen=True)
class _Unit:
    """A sentence (or row, or heading line) with its place and cost."""

    text: str
    locator: Locator
    tokens: int
    is_row: bool = False
    is_heading: bool = False
    separator: str = " "  # what stood before it in the source: a space, or a line break


class Chunker:
    def __init__(self, counter: TokenCounter, settings: ChunkSettings) -> None:
        self._count = counter.count_tokens
        self._settings = settings

    @property
    def version(self) -> str:
        """Changes whenever the chunks of an unchanged file would change."""
        s = self._settings
        return f"chunk3-{s.max_tokens}-{s.overlap_tokens}-{s.table_max_tokens}"

    def chunk(self, source: Source, blocks: Iterable[Block]) -> list[Chunk]:
        builder = _Builder(source)
        window: list[_Unit] = []
        headings: list[tuple[int, str]] = []

        def flush(keep_overlap: bool, content_follows: bool = False) -> None:
            nonlocal window
            if not window:
                return
            if content_follows and all(unit.is_heading for unit in window):
                # Headings alone before a table or rows: they travel in the heading path of
                # what follows; a chunk of nothing but a title would only crowd out evidence.
                window = []
                return
            builder.add(window, Modality.TABLE if window[-1].is_row else Modality.TEXT)
            window = self._overlap(window) if keep_overlap and not window[-1].is_row else []

        for block in blocks:
            if block.kind is BlockKind.BREAK:
                flush(keep_overlap=False)
                headings.clear()
                continue
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
            if block.kind is BlockKind.TABLE:
                flush(keep_overlap=False, content_follows=True)
                for part in self._table_parts(block.text):
                    builder.add([_Unit(part, locator, self._count(part))], Modality.TABLE)
                continue
            is_row = block.kind is BlockKind.ROW
            if window and window[-1].is_row != is_row:
                flush(keep_overlap=False, content_follows=is_row)
            for unit in self._units(block, locator, is_row, block.kind is BlockKind.HEADING):
                if window and sum(u.tokens for u in window) + unit.tokens > self._limit():
                    flush(keep_overlap=True)
                window.append(unit)
        flush(keep_overlap=False)
        return builder.chunks

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
            if unit.tokens > budget:
                break
            kept.insert(0, unit)
            budget -= unit.tokens
        return kept

    def _table_parts(self, markdown: str) -> list[str]:
        """The table as chunks of at most `table_max_tokens`, each repeating the header rows."""
        limit = self._settings.table_max_tokens
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

    def add(self, units: list[_Unit], modality: Modality) -> None:
        text = "".join(
            (unit.separator if position else "") + unit.text for position, unit in enumerate(units)
        ).strip()
        if not text:
            return
        ordinal = len(self.chunks)
        self.chunks.append(
            Chunk(
                chunk_id=f"{self._source.source_id}-{ordinal:05d}",
                source_id=self._source.source_id,
                path=self._source.path,
                text=text,
                locator=_merge(units),
                modality=modality,
                ordinal=ordinal,
            )
        )


def _merge(units: list[_Unit]) -> Locator:
    """One locator for a window: where it starts, spanning its rows, characters and times.

    The heading path is the one over the first piece of content, not over a heading line.
    """
    locators = [u.locator for u in units]
    content = next((u.locator for u in units if not u.is_heading), locators[0])
    first = replace(locators[0], heading_path=content.heading_path)
    rows = [loc.rows for loc in locators if loc.rows]
    spans = [loc.char_span for loc in locators if loc.char_span]
    times = [loc.time_span for loc in locators if loc.time_span]
    return replace(
        first,
        bbox=first.bbox if len(locators) == 1 else None,
        rows=(min(r[0] for r in rows), max(r[1] for r in rows)) if rows else None,
        char_span=(min(s[0] for s in spans), max(s[1] for s in spans)) if spans else None,
        time_span=(min(t[0] for t in times), max(t[1] for t in times)) if times else None,
    )
