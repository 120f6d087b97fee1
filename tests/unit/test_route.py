"""The cheap route: what a question needs, from its shape and what retrieval found."""

from __future__ import annotations

import pytest

from polyrag.agent.route import route
from polyrag.types import Chunk, Hit, Locator, Modality


def hits(
    modality: Modality, text: str = "Revenue 1,577 in 2019 and 1,373 in 2018 and 2,001"
) -> list[Hit]:
    return [Hit(Chunk("c", "s", "/d/f", text, Locator(), modality), 1.0)]


@pytest.mark.parametrize(
    ("question", "modality", "kind", "agent"),
    [
        ("How many freshwater ducks were observed in total?", Modality.TABLE, "aggregate", True),
        ("Which year had the fewest ducks?", Modality.TABLE, "aggregate", True),
        ("In which year was the tax receivable larger?", Modality.TABLE, "aggregate", True),
        (
            "What was the percentage change in revenue from 2018 to 2019?",
            Modality.TEXT,
            "compute",
            True,
        ),
        (
            "Were Scott Derrickson and Ed Wood of the same nationality?",
            Modality.TEXT,
            "compare",
            True,
        ),
        (
            "What government position was held by the woman who portrayed Corliss Archer?",
            Modality.TEXT,
            "multihop",
            True,
        ),
        ("When was Iwan Roberts born?", Modality.TEXT, "lookup", False),
    ],
)
def test_question_shapes(question: str, modality: Modality, kind: str, agent: bool) -> None:
    chosen = route(question, hits(modality))
    assert (chosen.kind, chosen.agent) == (kind, agent)


def test_an_aggregate_word_without_a_table_is_unsure() -> None:
    chosen = route("What was the total attendance?", hits(Modality.TEXT, "no figures here"))
    assert not chosen.agent and not chosen.sure
