"""What a tool receives and returns: the question's evidence so far in, a checked outcome out."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from polyrag.answer.numbers import scaled_numbers, written_numbers
from polyrag.types import Chunk

if TYPE_CHECKING:
    from polyrag.agent.tools.sql import TableDatabase


@dataclass
class ToolContext:
    """What the built-in tools may use while answering one question."""

    passages: list[Chunk]  # the evidence gathered so far
    results: list[ToolOutcome] = field(default_factory=list)  # earlier tool results
    tables: Callable[[], TableDatabase | None] = lambda: None  # the question's tables, lazily
    pages: Callable[[str, int], list[Chunk]] = lambda _document, _page: []
    stated: tuple[float, ...] = ()  # numbers the question itself gives ("365 *" in a formula)

    def known_numbers(self) -> list[float]:
        """Numbers a calculation may use: those of the passages, of earlier results and of the
        question's own formula."""
        texts = [chunk.text for chunk in self.passages]
        texts += [r.result for r in self.results if r.ok]
        # "1.2 million euros" may be copied as 1200000.
        return written_numbers(texts) + scaled_numbers(texts) + list(self.stated)

    def chunks_with(self, value: float) -> list[Chunk]:
        """The passages (or earlier results' backing) that state a number."""
        found = [c for c in self.passages if _states(c.text, value)]
        if found:
            return found[:1]
        for result in self.results:
            if result.ok and _states(result.result, value):
                return list(result.backing)
        return []


def _states(text: str, value: float) -> bool:
    written = written_numbers([text]) + scaled_numbers([text])
    return any(abs(abs(n) - abs(value)) < 1e-9 for n in written)


@dataclass(frozen=True)
class ToolOutcome:
    """One tool call: what was asked, and what came back (or the error)."""

    tool: str
    arguments: dict[str, Any]
    ok: bool
    result: str = ""  # what the model reads
    error: str = ""
    backing: tuple[Chunk, ...] = ()  # the cells or passages the result rests on
    passages: tuple[Chunk, ...] = ()  # new evidence the tool read (a page of a document)
    formula: str = ""  # a calculation as a person reads it
    elapsed_ms: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"tool": self.tool, "arguments": self.arguments, "ok": self.ok}
        if self.ok:
            out["result"] = self.result
        else:
            out["error"] = self.error
        if self.formula:
            out["formula"] = self.formula
        if self.backing:
            out["cites"] = [f"{c.path} {c.locator.describe()}".strip() for c in self.backing]
        return out


def first_paragraph(text: str | None) -> str:
    return " ".join((text or "").strip().split("\n\n")[0].split())
