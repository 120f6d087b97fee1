"""The fast path: one retrieval, one reply, checked — the steps in a fixed order, no decisions."""

from __future__ import annotations

from collections.abc import Sequence

from polyrag.agent.answers import Request, conclude, refusal, show_evidence
from polyrag.agent.steps import Steps
from polyrag.agent.trace import Trace
from polyrag.types import NO_EVIDENCE_FITS, Answer, Hit


def answer_fast(
    steps: Steps,
    request: Request,
    standalone: str,
    trace: Trace,
    hits: Sequence[Hit] | None = None,
) -> Answer:
    """`hits`: what retrieval already found for the question (auto mode retrieves first)."""
    if hits is None:
        hits = steps.retrieve(standalone, request.where, trace)
    reason = steps.gate(hits, trace, standalone)
    if reason is not None:
        return refusal(request, trace, reason, mode="fast", standalone=standalone)
    evidence = steps.evidence(standalone, hits, trace)
    if not evidence:
        return refusal(request, trace, NO_EVIDENCE_FITS, mode="fast", standalone=standalone)
    show_evidence(evidence, trace)
    draft = steps.generate(standalone, evidence, request.history, trace)
    verdict = steps.verify(draft, evidence, trace, arithmetic=False, question=standalone)
    return conclude(request, trace, verdict, draft.provider, mode="fast", standalone=standalone)
