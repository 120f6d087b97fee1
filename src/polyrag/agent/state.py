"""The agent's state: plain JSON values only, so a paused conversation is checkpointed and can
resume in another process."""

from __future__ import annotations

from typing import Any, TypedDict

from polyrag.agent.tools.base import ToolOutcome
from polyrag.types import Chunk, Hit, Locator, Modality


class AgentState(TypedDict, total=False):
    question: str  # the question as it stands alone
    kind: str  # lookup, compute, aggregate, compare, multihop
    pending: list[str]  # searches for the next round
    searched: list[str]  # searches already run
    rounds: int
    hits: list[dict[str, Any]]  # every hit so far, each with the round that found it
    found: list[str]  # what each round found that the next builds on (bridge facts)
    tools: list[dict[str, Any]]  # tool outcomes, in order
    failures: dict[str, int]  # failed calls per tool
    set_aside: list[str]  # tools not to be used again for this question
    feedback: str  # the last error or critic note, fed to the next tool call
    tool: str  # the tool to call next
    offer: list[str]  # the tools the model may choose from, when it chooses (empty: all)
    next: str  # what evaluate or critic decided: retrieve, tool, answer, refuse
    clarified: str  # the user's reply to a clarifying question
    term: str  # the term the clarifying question asked about (the documents never write it)
    focus: list[str]  # source ids the user's reply chose: later searches stay inside them
    ask_back: str  # a question to ask the user before anything else (after "not helpful")
    nothing_found: bool  # queries over the tables ran but found no rows the question asks for


def chunk_to_dict(chunk: Chunk) -> dict[str, Any]:
    return {
        "chunk_id": chunk.chunk_id,
        "source_id": chunk.source_id,
        "path": chunk.path,
        "text": chunk.text,
        "locator": chunk.locator.to_dict(),
        "modality": chunk.modality.value,
        "ordinal": chunk.ordinal,
        "anchor": chunk.anchor,
    }


def chunk_from_dict(data: dict[str, Any]) -> Chunk:
    return Chunk(
        chunk_id=data["chunk_id"],
        source_id=data["source_id"],
        path=data["path"],
        text=data["text"],
        locator=Locator.from_dict(data.get("locator") or {}),
        modality=Modality(data.get("modality", "text")),
        ordinal=int(data.get("ordinal", 0)),
        anchor=data.get("anchor"),
    )


def hit_to_dict(hit: Hit, round_number: int, search: str = "") -> dict[str, Any]:
    return {
        "chunk": chunk_to_dict(hit.chunk),
        "score": hit.score,
        "keyword_rank": hit.keyword_rank,
        "vector_rank": hit.vector_rank,
        "vector_similarity": hit.vector_similarity,
        "round": round_number,
        "search": search,  # the search that found it
    }


def hit_from_dict(data: dict[str, Any]) -> Hit:
    return Hit(
        chunk=chunk_from_dict(data["chunk"]),
        score=float(data["score"]),
        keyword_rank=data.get("keyword_rank"),
        vector_rank=data.get("vector_rank"),
        vector_similarity=data.get("vector_similarity"),
    )


def outcome_to_dict(outcome: ToolOutcome) -> dict[str, Any]:
    return {
        "tool": outcome.tool,
        "arguments": outcome.arguments,
        "ok": outcome.ok,
        "result": outcome.result,
        "error": outcome.error,
        "backing": [chunk_to_dict(c) for c in outcome.backing],
        "passages": [chunk_to_dict(c) for c in outcome.passages],
        "formula": outcome.formula,
        "elapsed_ms": outcome.elapsed_ms,
        "accepted": True,
    }


def outcome_from_dict(data: dict[str, Any]) -> ToolOutcome:
    return ToolOutcome(
        tool=data["tool"],
        arguments=dict(data.get("arguments") or {}),
        ok=bool(data["ok"]),
        result=data.get("result", ""),
        error=data.get("error", ""),
        backing=tuple(chunk_from_dict(c) for c in data.get("backing", [])),
        passages=tuple(chunk_from_dict(c) for c in data.get("passages", [])),
        formula=data.get("formula", ""),
        elapsed_ms=float(data.get("elapsed_ms", 0.0)),
    )
