from __future__ import annotations

from polyrag.answer.citations import (
    attribute,
    cited_numbers,
    is_refusal,
    strip_markers,
    support,
)
from polyrag.answer.evidence import Evidence, select_evidence
from polyrag.types import REFUSAL, Chunk, Hit, Locator


def chunk(text: str, i: int = 0) -> Chunk:
    return Chunk(f"s-{i}", "s", "/d/f.txt", text, Locator(page=i + 1))


def test_markers_parsed_and_checked() -> None:
    assert cited_numbers("A [2]. B [1, 3] and [2-4] and [9].", 4) == [2, 1, 3, 4]
    assert strip_markers("Paris [1] [7].", 3) == "Paris [1] ."


def test_refusals_recognised() -> None:
    assert is_refusal(REFUSAL)
    assert is_refusal("The sources do not contain this.")
    assert is_refusal("")
    assert not is_refusal("He was born on 26 June 1968 [1].")


def test_support_rejects_invented_numbers() -> None:
    passages = ["Iwan Roberts (born 26 June 1968) is a Welsh footballer."]
    assert support("Iwan Roberts was born on 26 June 1968 [1].", passages) >= 0.8
    assert support("He was born in 1970 [1].", passages) == 0.0
    assert support("The Moon's largest city is Tranquility Base.", passages) < 0.5


def test_attribute_without_markers() -> None:
    evidence = [
        Evidence(1, chunk("Cats sleep a lot."), "Cats sleep a lot."),
        Evidence(
            2, chunk("Iwan Roberts played for Norwich.", 1), "Iwan Roberts played for Norwich."
        ),
    ]
    assert attribute("Roberts played for Norwich.", evidence) == [2]
    assert attribute("Unrelated words entirely.", evidence) == []


def test_select_evidence_respects_budget() -> None:
    def count(text: str) -> int:
        return len(text.split())

    long_text = " ".join(f"Sentence {i} about nothing in particular." for i in range(60))
    hits = [
        Hit(chunk("The launch is on 14 March 2027 in Lisbon.", 0), 1.0),
        Hit(chunk(long_text + " The launch date moved.", 1), 0.9),
    ]
    chosen = select_evidence(hits, "When is the launch?", count, budget=60)
    assert chosen[0].n == 1 and chosen[0].text.startswith("The launch")
    total = sum(count(e.text) + 6 for e in chosen)
    assert total <= 60
    if len(chosen) > 1:
        assert "launch" in chosen[1].text


def test_select_evidence_leaves_out_hits_far_below_the_best() -> None:
    hits = [
        Hit(chunk("Purple is in Column 1, Orange in Column 2.", 0), 1.0),
        Hit(chunk("The slide title is A Slide with a Table.", 1), 0.76),
        Hit(chunk("Column 8 is Purple in another sheet.", 2), 0.61),
    ]
    kept = select_evidence(hits, "Column 2 Purple?", len, 10_000, 3, min_relative_score=0.7)
    assert [e.chunk.chunk_id for e in kept] == ["s-0", "s-1"]
    everything = select_evidence(hits, "Column 2 Purple?", len, 10_000, 3)
    assert len(everything) == 3


def test_evidence_is_put_in_reading_order() -> None:
    def part(text: str, source: str, ordinal: int) -> Chunk:
        return Chunk(
            f"{source}-{ordinal}", source, f"/d/{source}.txt", text, Locator(), ordinal=ordinal
        )

    hits = [
        Hit(part("Later in A.", "a", 5), 1.0),
        Hit(part("Only in B.", "b", 0), 0.9),
        Hit(part("Earlier in A.", "a", 2), 0.8),
    ]
    chosen = select_evidence(hits, "Where?", len, 10_000, 3)
    assert [e.chunk.chunk_id for e in chosen] == ["a-2", "a-5", "b-0"]
    assert [e.n for e in chosen] == [1, 2, 3]
