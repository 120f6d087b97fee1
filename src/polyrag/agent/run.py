"""One question's run through the agent graph: what its nodes share and may not checkpoint."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from polyrag.agent.answers import Request
from polyrag.agent.route import Route
from polyrag.agent.trace import Trace
from polyrag.types import Answer, Hit

if TYPE_CHECKING:
    from polyrag.agent.tools.sql import TableDatabase

PER_ROUND = 3  # hits of each search shown to the model


@dataclass
class Run:
    """The request, its trace and what the nodes found that is not plain JSON (the tables
    opened for SQL, the answer once written)."""

    request: Request
    route: Route
    trace: Trace
    first_hits: list[Hit]
    budget: int  # model calls this question may make (agent.max_model_calls; fixed: the reply)
    result: Answer | None = None
    database: TableDatabase | None = None
    tables_loaded: bool = False
    thread: str = ""
    notes: dict[str, Any] = field(default_factory=dict)

    def calls_left(self, needed: int = 2) -> bool:
        """Whether `needed` more calls fit the budget (the reply's call included)."""
        return self.trace.model_calls + needed <= self.budget
