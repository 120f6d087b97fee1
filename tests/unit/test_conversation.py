"""A follow-up reads again the passages the conversation's last answer cited."""

from __future__ import annotations

from collections.abc import Sequence

from polyrag.agent.conversation import consult
from polyrag.types import Answer, Chunk, Citation, Filter, Hit, Locator, Modality


def chunk(source: str, ordinal: int, text: str = "", **where: object) -> Chunk:
    return Chunk(
        f"{source}-{ordinal:05d}",
        source,
        f"/docs/{source}.md",
        text,
        Locator(**where),
        ordinal=ordinal,
    )  # type: ignore[arg-type]


LONDON = chunk("london", 3, "The hotel cap per night in London is GBP 180.", page=2)
PARIS = chunk("paris", 1, "The hotel cap per night in Paris is EUR 210.")
INDEX = {(c.source_id, c.ordinal): c for c in (LONDON, PARIS, chunk("rome", 0), chunk("oslo", 0))}


def by_ordinal(source: str, ordinals: Sequence[int]) -> list[Chunk]:
    return [INDEX[(source, o)] for o in ordinals if (source, o) in INDEX]


def answered(*cited: Chunk, refused: bool = False) -> Answer:
    citations = tuple(Citation(n, c) for n, c in enumerate(cited, start=1))
    return Answer("What is the hotel cap in London?", "GBP 180 [1].", refused, citations, None, {})


def hits(*found: Chunk) -> list[Hit]:
    return [Hit(c, 1.0 - i / 10) for i, c in enumerate(found)]


def ask(
    earlier: Sequence[Answer],
    found: list[Hit],
    *,
    standalone: str = "What is the hotel cap in Paris?",
    where: Filter | None = None,
    live: set[str] | None = None,
) -> list[Chunk] | None:
    sources = live if live is not None else {"london", "paris", "rome", "oslo"}
    out = consult("And Paris?", standalone, earlier, found, where, by_ordinal, lambda: sources)
    return None if out is None else [hit.chunk for hit in out.hits]


def test_the_last_answers_passages_join_a_follow_up_after_the_best_two_hits() -> None:
    # A stored answer's chunk (no ordinal, text as cited) is read back as the index holds it.
    stored = Chunk(LONDON.chunk_id, "london", LONDON.path, "GBP 180", LONDON.locator)
    found = hits(PARIS, INDEX[("rome", 0)], INDEX[("oslo", 0)])
    assert ask([answered(stored)], found) == [PARIS, INDEX[("rome", 0)], LONDON, INDEX[("oslo", 0)]]
    # A question that stood alone (the rewrite left it as asked) reads nothing again.
    assert ask([answered(LONDON)], found, standalone=" And   Paris? ") is None
    # What retrieval found already is not joined twice; nothing left to join is no step.
    assert ask([answered(LONDON)], hits(LONDON, PARIS)) is None


def test_the_last_answer_with_sources_is_the_one_read() -> None:
    found = hits(PARIS)
    refused = answered(INDEX[("rome", 0)], refused=True)
    assert ask([answered(LONDON), refused], found) == [PARIS, LONDON]
    assert ask([answered(INDEX[("oslo", 0)]), answered(LONDON)], found) == [PARIS, LONDON]
    assert ask([], found) is None


def test_passages_of_changed_or_removed_sources_and_outside_the_filter_are_left_out() -> None:
    found = hits(PARIS)
    assert ask([answered(LONDON)], found, live={"paris"}) is None  # london.md was removed
    # Edited in place: same source id, another chunk at that ordinal.
    edited = Chunk("london-00003", "london", LONDON.path, "", Locator(), ordinal=3)
    INDEX[("london", 3)] = Chunk("london-00003x", "london", LONDON.path, "", Locator(), ordinal=3)
    try:
        assert ask([answered(edited)], found) is None
    finally:
        INDEX[("london", 3)] = LONDON
    assert ask([answered(LONDON)], found, where=Filter(source_ids=("paris",))) is None
    assert ask([answered(LONDON)], found, where=Filter(pages=(2,))) == [PARIS, LONDON]
    assert ask([answered(LONDON)], found, where=Filter(modalities=(Modality.TABLE,))) is None


def test_cited_table_rows_are_kept_and_a_tools_result_is_not() -> None:
    rows = Chunk(
        "london#Rates!B2:C3", "london", LONDON.path, "| City | Cap |", Locator(sheet="Rates")
    )
    tool = Chunk("tool:calculator:123", "london", LONDON.path, "180 - 150 = 30", Locator())
    assert ask([answered(tool, rows)], hits(PARIS)) == [PARIS, rows]
    assert ask([answered(rows)], hits(PARIS), live={"paris"}) is None
