"""A question as asked, and the Answer every path ends with."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from polyrag.agent.trace import Trace
from polyrag.answer.evidence import Evidence
from polyrag.answer.generate import Turn
from polyrag.answer.verify import Verdict
from polyrag.types import REFUSAL, Answer, Citation, EvidenceEvent, Filter


@dataclass(frozen=True)
class Request:
    question: str
    history: tuple[Turn, ...] = ()
    where: Filter | None = None
    mode: str | None = None  # fast, agent, auto or fixed; None: the settings' mode
    thread: str | None = None  # an agent conversation to continue (a clarification's reply)
    earlier: tuple[Answer, ...] = ()  # the conversation's past answers, oldest first


def show_evidence(evidence: Sequence[Evidence], trace: Trace) -> None:
    """Hand the evidence on before the reply is written (a tool result by what backs it)."""
    trace.emit(EvidenceEvent(tuple(_cited(evidence))))


def _cited(evidence: Sequence[Evidence]) -> list[Citation]:
    out = []
    for item in evidence:
        for chunk in item.backing or (item.chunk,):
            out.append(Citation(item.n, chunk))
    return out


def refusal(
    request: Request,
    trace: Trace,
    reason: str,
    *,
    mode: str,
    standalone: str,
    provider: str | None = None,
    thread: str | None = None,
) -> Answer:
    return Answer(
        question=request.question,
        text=REFUSAL,
        refused=True,
        citations=(),
        provider=provider,
        timings_ms=_timings(trace),
        standalone_question=standalone if standalone != request.question else None,
        refusal_reason=reason,
        mode=mode,
        steps=tuple(trace.steps),
        model_calls=trace.model_calls,
        thread=thread,
    )


def conclude(
    request: Request,
    trace: Trace,
    verdict: Verdict,
    provider: str,
    *,
    mode: str,
    standalone: str,
    thread: str | None = None,
) -> Answer:
    if verdict.refused:
        return refusal(
            request,
            trace,
            verdict.reason,
            mode=mode,
            standalone=standalone,
            provider=provider,
            thread=thread,
        )
    return Answer(
        question=request.question,
        text=verdict.text,
        refused=False,
        citations=verdict.citations,
        provider=provider,
        timings_ms=_timings(trace),
        standalone_question=standalone if standalone != request.question else None,
        mode=mode,
        steps=tuple(trace.steps),
        model_calls=trace.model_calls,
        partial=verdict.partial,
        thread=thread,
    )


def _timings(trace: Trace) -> dict[str, float]:
    timings = dict(trace.marks)
    timings["total"] = trace.elapsed_ms()
    return timings
