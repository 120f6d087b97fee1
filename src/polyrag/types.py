"""Frozen value types shared by every stage of the pipeline.

discover → parse (Block) → chunk (Chunk) → store → retrieve (Hit) → answer (Answer, Citation)
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any


class BlockKind(StrEnum):
    """What a parsed block is; the chunker treats each kind differently."""

    HEADING = "heading"  # a section title; `level` says how deep (1 = top)
    TEXT = "text"  # running text: a paragraph, a list item, a slide's text box
    TABLE = "table"  # a whole table as Markdown; becomes its own chunk(s)
    ROW = "row"  # one spreadsheet row written as a sentence ("Row 12: Team is ...")
    PICTURE = "picture"  # what an image shows: its OCR text or a model's description
    BREAK = "break"  # a hard boundary (new page, slide or sheet): no chunk spans it


class Modality(StrEnum):
    """What a chunk holds; used as a retrieval filter."""

    TEXT = "text"
    TABLE = "table"
    PICTURE = "picture"  # OCR text or a description of an image, a scan's region, a figure
    AUDIO = "audio"  # a transcript segment of a recording (audio or video)


@dataclass(frozen=True)
class Locator:
    """Where a piece of text sits in its source, precise enough to find it again.

    Pages, slides and rows are 1-based, as a person counts them.
    """

    page: int | None = None
    bbox: tuple[float, float, float, float] | None = None  # x0, y0, x1, y1 in PDF points
    slide: int | None = None
    sheet: str | None = None
    rows: tuple[int, int] | None = None  # first and last row, inclusive
    heading_path: tuple[str, ...] = ()
    char_span: tuple[int, int] | None = None  # offsets in the source's extracted text
    time_span: tuple[float, float] | None = None  # seconds into a recording
    cells: str | None = None  # a spreadsheet range in A1 notation ("B5:C10"), or a table's rows
    columns: tuple[str, str] | None = None  # a sheet's first and last column letters ("B", "D")
    # The page number printed on a PDF page where it is not the physical one (a cover and a
    # contents before page 1): "page 9" in a question may mean either.
    printed_page: int | None = None

    def describe(self) -> str:
        """A short human label such as 'page 3', 'slide 2', 'Cups!A2:C5' or 'sheet Cups, row 1'."""
        parts: list[str] = []
        if self.page is not None:
            printed = f" (printed {self.printed_page})" if self.printed_page is not None else ""
            parts.append(f"page {self.page}{printed}")
        if self.slide is not None:
            parts.append(f"slide {self.slide}")
        reference = self.cell_reference()
        if reference is not None:
            parts.append(reference)
        else:
            if self.sheet is not None:
                parts.append(f"sheet {self.sheet}")
            if self.cells is not None:
                parts.append(f"cells {self.cells}")
            elif self.rows is not None:
                first, last = self.rows
                parts.append(f"row {first}" if first == last else f"rows {first}-{last}")
        if self.time_span is not None:
            parts.append(f"{_clock(self.time_span[0])}-{_clock(self.time_span[1])}")
        # A sheet's own name as its only heading is said once, by the cell reference.
        if self.heading_path and not (reference and self.heading_path == (self.sheet,)):
            parts.append("§ " + " > ".join(self.heading_path))
        return ", ".join(parts)

    def cell_reference(self) -> str | None:
        """The cells of a sheet as a spreadsheet writes them ("'Duck Observations'!B5:C10",
        "Sheet1!C5:C7, Sheet1!C9"), or None when the locator names no sheet and cells."""
        if self.sheet is None:
            return None
        ranges = [r.strip() for r in self.cells.split(",")] if self.cells else []
        if not ranges and self.columns is not None and self.rows is not None:
            (first, last), (top, bottom) = self.columns, self.rows
            start, end = f"{first}{top}", f"{last}{bottom}"
            ranges = [start if start == end else f"{start}:{end}"]
        if not ranges:
            return None
        sheet = self.sheet
        if not re.fullmatch(r"[A-Za-z_][\w.]*", sheet):
            sheet = "'" + sheet.replace("'", "''") + "'"
        return ", ".join(f"{sheet}!{r}" for r in ranges)

    def to_dict(self) -> dict[str, Any]:
        """Only the fields that are set, as JSON-ready values."""
        out: dict[str, Any] = {}
        for key, value in asdict(self).items():
            if value is None or value == ():
                continue
            out[key] = list(value) if isinstance(value, tuple) else value
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Locator:
        def pair(key: str) -> Any:
            value = data.get(key)
            return tuple(value) if value is not None else None

        return cls(
            page=data.get("page"),
            bbox=pair("bbox"),
            slide=data.get("slide"),
            sheet=data.get("sheet"),
            rows=pair("rows"),
            heading_path=tuple(data.get("heading_path", ())),
            char_span=pair("char_span"),
            time_span=pair("time_span"),
            cells=data.get("cells"),
            columns=pair("columns"),
            printed_page=data.get("printed_page"),
        )

    @classmethod
    def from_json(cls, text: str) -> Locator:
        return cls.from_dict(json.loads(text) if text else {})


def column_order(letter: str) -> tuple[int, str]:
    """A sort key for spreadsheet column letters in their order: Z before AA."""
    return len(letter), letter


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}:{secs:02d}"


@dataclass(frozen=True)
class TablePart:
    """One page's piece of a table printed over several pages."""

    name: str  # what the chunks call that piece ("Table 4")
    first: int  # the index of its first data row in the whole table
    locator: Locator  # where the piece sits


@dataclass(frozen=True)
class Table:
    """A table as cells, for computing over it (SQL): header, data rows and where they sit.

    `row_numbers` and `columns` say where each data row and column sits in the original: the
    spreadsheet's row numbers and column letters, so results cite cells ("B5:C10"). For a table
    in a PDF, a slide or a document they are empty: rows are counted from 2 under the header,
    as the table's row sentences count them.
    """

    header: tuple[str, ...]  # a name for every column
    rows: tuple[tuple[str, ...], ...]  # data rows, each as wide as the header
    locator: Locator = field(default_factory=Locator)  # where the whole table sits
    name: str = ""  # what the source calls it: its sheet, or "Table 3" as the chunks number it
    title: str = ""  # its caption or the title line above it
    row_numbers: tuple[int, ...] = ()
    columns: tuple[str, ...] = ()
    # A table printed over several pages, its pieces in order (the first is the table's own
    # name and locator); its rows are numbered on from one piece to the next. Empty when whole.
    parts: tuple[TablePart, ...] = ()

    def row_number(self, index: int) -> int:
        """The row number a person sees for data row `index` (0-based)."""
        return self.row_numbers[index] if self.row_numbers else index + 2

    def names(self) -> tuple[str, ...]:
        """The table's name and those of its later pieces."""
        return (self.name, *(part.name for part in self.parts[1:]))

    def pieces(self) -> tuple[Table, ...]:
        """The table as its pages print it: one table per piece, its rows counted from 2 under
        the header, as each piece's chunks count them (the table itself when whole)."""
        if not self.parts:
            return (self,)
        ends = [part.first for part in self.parts[1:]] + [len(self.rows)]
        return tuple(
            Table(
                header=self.header,
                rows=self.rows[part.first : end],
                locator=part.locator,
                name=part.name,
                title=self.title,
            )
            for part, end in zip(self.parts, ends, strict=True)
        )


@dataclass(frozen=True)
class Block:
    """One unit a parser read from a source, with where it sits."""

    kind: BlockKind
    text: str
    locator: Locator = field(default_factory=Locator)
    level: int = 0  # heading depth for HEADING blocks
    # For a TABLE block: the whole table as cells when the parser knows them better than its
    # Markdown says (a spreadsheet's row numbers and column letters); set on the first block
    # of a table split into several.
    table: Table | None = None


@dataclass(frozen=True)
class Source:
    """A file the user gave us, identified by the hash of its content."""

    source_id: str
    path: str
    sha256: str
    size: int
    media_type: str  # the sniffed format, e.g. "pdf", "docx", "csv"


@dataclass(frozen=True)
class Chunk:
    """A retrievable piece of a source: what is embedded, searched and cited."""

    chunk_id: str
    source_id: str
    path: str
    text: str
    locator: Locator
    modality: Modality = Modality.TEXT
    ordinal: int = 0  # position within its source, for putting chunks back in order
    # For a table or picture chunk: the ordinal of the text chunk that holds its placeholder
    # ("[Table 3: ...]"), so that the answer stage can show it inside its parent text.
    anchor: int | None = None

    @property
    def embedded_text(self) -> str:
        """What the embedder reads: the section path, then the chunk text."""
        path = " > ".join(self.locator.heading_path)
        return f"{path}\n{self.text}" if path else self.text

    @property
    def embedded_sha256(self) -> str:
        """The key a stored vector is reused by: the same words under another heading are
        embedded anew, because the heading is part of what was embedded."""
        return hashlib.sha256(self.embedded_text.encode("utf-8")).hexdigest()

    @property
    def nearest_heading(self) -> str:
        """The title of the section, sheet or slide the chunk is in (the innermost one)."""
        return self.locator.heading_path[-1] if self.locator.heading_path else ""

    @property
    def keyword_text(self) -> str:
        """What BM25 reads: the chunk's nearest heading, unless its text holds it already, then
        the text.

        A chunk deep in a section still matches the words of its title ("Statements of Cash
        Flows", an abstract's title over its third chunk), as its vector does. Only the nearest
        heading: the outer ones (a company's name, "Notes to Consolidated Financial
        Statements") head whole parts of a document, and counting them in every chunk let a
        10-K's notes outrank its income statement on the company's name.
        """
        nearest = self.nearest_heading
        if not nearest or nearest.lower() in self.text.lower():
            return self.text
        return f"{nearest}\n{self.text}"


@dataclass(frozen=True)
class Filter:
    """Restricts retrieval; every field that is set must hold."""

    source_ids: tuple[str, ...] = ()
    modalities: tuple[Modality, ...] = ()
    pages: tuple[int, ...] = ()
    printed_pages: tuple[int, ...] = ()  # page numbers printed on PDF pages (Locator.printed_page)

    def is_empty(self) -> bool:
        return not (self.source_ids or self.modalities or self.pages or self.printed_pages)

    def holds(self, chunk: Chunk) -> bool:
        """Whether the chunk passes every field that is set."""
        return (
            (not self.source_ids or chunk.source_id in self.source_ids)
            and (not self.modalities or chunk.modality in self.modalities)
            and (not self.pages or chunk.locator.page in self.pages)
            and (not self.printed_pages or chunk.locator.printed_page in self.printed_pages)
        )


@dataclass(frozen=True)
class Hit:
    """A chunk found by retrieval with its fused score."""

    chunk: Chunk
    score: float
    keyword_rank: int | None = None  # 1-based rank in the keyword list, if it appeared there
    vector_rank: int | None = None
    vector_similarity: float | None = None  # cosine similarity to the query

    def to_dict(self) -> dict[str, Any]:
        return {
            "chunk_id": self.chunk.chunk_id,
            "source_id": self.chunk.source_id,
            "path": self.chunk.path,
            "modality": self.chunk.modality.value,
            "locator": self.chunk.locator.to_dict(),
            "where": self.chunk.locator.describe(),
            "score": round(self.score, 6),
            "text": self.chunk.text,
        }


@dataclass(frozen=True)
class Citation:
    """A numbered piece of evidence the answer points to as [n]."""

    n: int
    chunk: Chunk

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "chunk_id": self.chunk.chunk_id,
            "source_id": self.chunk.source_id,
            "path": self.chunk.path,
            "modality": self.chunk.modality.value,
            "locator": self.chunk.locator.to_dict(),
            "where": self.chunk.locator.describe(),
            "cells": self.chunk.locator.cell_reference(),  # "Sheet1!B5:C9", or None
            "text": self.chunk.text,
        }


@dataclass(frozen=True)
class Step:
    """One step of answering, as the trace shows it: what ran, what it found, how long it took.

    `data` is JSON-ready; a tool call carries its tool, arguments, result or error there.
    """

    name: str  # route, rewrite, plan, retrieve, gate, evidence, evaluate, tool, critic, ...
    summary: str  # one line a person reads
    data: dict[str, Any] = field(default_factory=dict)
    elapsed_ms: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "step": self.name,
            "summary": self.summary,
            "data": self.data,
            "elapsed_ms": round(self.elapsed_ms, 1),
        }


@dataclass(frozen=True)
class Answer:
    """What `ask` returns: the reply, its evidence and who produced it."""

    question: str
    text: str
    refused: bool
    citations: tuple[Citation, ...]
    provider: str | None
    timings_ms: dict[str, float]
    standalone_question: str | None = None
    refusal_reason: str | None = None  # why it was refused, one of REFUSAL_REASONS
    mode: str = "fast"  # how it was answered: fast, agent (the graph), fixed or memory
    steps: tuple[Step, ...] = ()  # the trace
    model_calls: int = 0  # chat model calls made for this answer (decisions and the reply)
    partial: bool = False  # it answers part of the question and says what the sources lack
    thread: str | None = None  # the agent conversation it belongs to (to resume it)
    clarify: str | None = None  # a question back to the user: the answer waits for the reply

    def skipped_providers(self) -> list[str]:
        """The providers passed over before `provider` answered, each with why."""
        return [
            str(skipped)
            for step in self.steps
            if step.name == "generate"
            for skipped in step.data.get("skipped", [])
        ]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "question": self.question,
            "answer": self.text,
            "refused": self.refused,
            "refusal_reason": self.refusal_reason,
            "refusal_explained": REFUSAL_REASONS.get(self.refusal_reason or ""),
            "partial": self.partial,
            "citations": [c.to_dict() for c in self.citations],
            "provider": self.provider,
            "skipped_providers": self.skipped_providers(),
            "mode": self.mode,
            "model_calls": self.model_calls,
            "timings_ms": {k: round(v, 1) for k, v in self.timings_ms.items()},
            "steps": [step.to_dict() for step in self.steps],
        }
        if self.thread is not None:
            out["thread"] = self.thread
        if self.clarify is not None:
            out["clarify"] = self.clarify
        return out


# Events `Engine.ask_events` yields while it answers, in this order: steps as they finish, the
# evidence the reply is written from (before the reply), the reply's text as it is generated,
# and at last the answer (or a clarifying question, which also ends with an answer event).


@dataclass(frozen=True)
class StepEvent:
    step: Step


@dataclass(frozen=True)
class EvidenceEvent:
    """The numbered passages (and tool results) the reply will be written from."""

    evidence: tuple[Citation, ...]


@dataclass(frozen=True)
class TokenEvent:
    text: str


@dataclass(frozen=True)
class AnswerEvent:
    answer: Answer


AskEvent = StepEvent | EvidenceEvent | TokenEvent | AnswerEvent


REFUSAL = "I cannot find this information in the provided sources."
# Answer.refusal_reason values, in the order the checks run (agent/steps.py)
WEAK_EVIDENCE = "weak evidence"
NO_EVIDENCE_FITS = "no evidence fits"
NO_ANSWER_FOUND = "model found no answer"
NOT_SUPPORTED = "answer not supported"
NOT_ANSWERED = "question not answered"
NEEDS_CLARIFICATION = "needs clarification"
UNSAFE = "unsafe request"
REFUSAL_REASONS = {  # each reason, as it is explained to the user
    WEAK_EVIDENCE: "nothing in the index is close enough to the question",
    NO_EVIDENCE_FITS: "the retrieved passages do not fit the model's context",
    NO_ANSWER_FOUND: "the model found no answer in the retrieved passages",
    NOT_SUPPORTED: "the model's reply was withdrawn: the sources do not support it",
    NOT_ANSWERED: "the cited passages are about the question but do not answer it as asked",
    NEEDS_CLARIFICATION: "the question can be read several ways: answer the question back",
    UNSAFE: "the reply was withheld: it would reveal instructions or harmful content",
}
