"""The gate before any model call: nothing close enough to the question is a refusal, unless a
best passage writes the full names the question asks about."""

from __future__ import annotations

from pathlib import Path

from polyrag.agent.questions import names_written
from polyrag.agent.steps import Steps
from polyrag.agent.trace import Trace
from polyrag.llm.fallback import FallbackChain
from polyrag.settings import Settings
from polyrag.types import WEAK_EVIDENCE, Chunk, Hit, Locator, Modality
from tests.unit.replies import Replies
from tests.unit.test_agent_graph import WordRetriever

ROWS = (
    "Row 3: Name is Bob Kumar, Department is Sales, Start year is 2020\n"
    "Row 4: Name is Carla Diaz, Department is Engineering, Start year is 2015"
)


def hit(text: str, similarity: float) -> Hit:
    chunk = Chunk("c1", "s1", "/d/staff.xlsx", text, Locator(sheet="Staff"), Modality.TABLE)
    return Hit(chunk, 1.0, vector_similarity=similarity)


def test_full_names_a_passage_writes_are_found() -> None:
    assert names_written("When did Carla Diaz start?", [hit(ROWS, 0.1)]) == "'Carla Diaz'"
    assert names_written("When did CARLA  DIAZ start?", [hit(ROWS, 0.1)]) == "'CARLA DIAZ'"
    assert names_written("When did Carla Dias start?", [hit(ROWS, 0.1)]) == ""
    # One word is no evidence: every document has some ("Sales", "April").
    assert names_written("What were Sales in April?", [hit(ROWS, 0.1)]) == ""
    # Every name must be written, in one passage.
    assert names_written("Did Carla Diaz start before Hugo Brandt?", [hit(ROWS, 0.1)]) == ""


def test_a_name_a_listing_writes_surname_first_is_found() -> None:
    """The Senate's listing of payees writes "ENGLERT, PAYTON A STAFF ASSISTANT 25,499.96":
    asked about Payton Englert, the gate refused before any model call."""
    listing = hit("BAIN, J MATTHEW DISTRICT DIRECTOR 37,499.96\nENGLERT, PAYTON A STAFF", 0.14)
    assert names_written("What is Payton Englert's position?", [listing]) == "'Payton Englert'"
    assert names_written("What is Payton Bain's position?", [listing]) == ""
    assert names_written("What is Englert Payton's position?", [listing]) == ""


def gate(tmp_path: Path, hits: list[Hit], question: str) -> tuple[str | None, Trace]:
    steps = Steps(WordRetriever(), FallbackChain([Replies([])]), Settings(home=tmp_path))
    trace = Trace(lambda _event: None)
    return steps.gate(hits, trace, question), trace


def test_a_weak_match_that_writes_the_names_asked_about_passes(tmp_path: Path) -> None:
    reason, trace = gate(tmp_path, [hit(ROWS, 0.16)], "When did Carla Diaz start?")
    assert reason is None
    assert "a passage writes 'Carla Diaz' as the question does" in trace.steps[-1].summary
    reason, trace = gate(tmp_path, [hit(ROWS, 0.16)], "When did Grace Liu start?")
    assert reason == WEAK_EVIDENCE
    assert "refused before any model call" in trace.steps[-1].summary
    assert gate(tmp_path, [hit(ROWS, 0.5)], "When did Grace Liu start?")[0] is None
    assert gate(tmp_path, [], "When did Carla Diaz start?")[0] == WEAK_EVIDENCE
