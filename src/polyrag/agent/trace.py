"""The trace of one answer: every step as it finishes, handed on as an event at once."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from polyrag.types import AskEvent, Step, StepEvent


class Trace:
    """Collects the steps of one answer and counts model calls; `emit` sees each event."""

    def __init__(self, emit: Callable[[AskEvent], None]) -> None:
        self.emit = emit
        self.steps: list[Step] = []
        self.model_calls = 0
        self.started = time.perf_counter()
        self.marks: dict[str, float] = {}  # elapsed ms at moments the answer reports

    def mark(self, name: str) -> None:
        """Remember how long it took to get here (the first mark of a name counts)."""
        self.marks.setdefault(name, self.elapsed_ms())

    def add(
        self, name: str, summary: str, data: dict[str, Any] | None = None, since: float = 0.0
    ) -> Step:
        elapsed = (time.perf_counter() - since) * 1000 if since else 0.0
        step = Step(name, summary, data or {}, elapsed)
        self.steps.append(step)
        self.emit(StepEvent(step))
        return step

    def elapsed_ms(self) -> float:
        return (time.perf_counter() - self.started) * 1000


def now() -> float:
    return time.perf_counter()
