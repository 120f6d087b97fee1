"""Two named things compared by asking about each in its own passage (agent/compare.py): the
shapes read from questions, and the agent deciding with a scripted model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from polyrag.agent.compare import comparison_of
from polyrag.types import Chunk, Locator

from .test_agent_graph import CHUNKS, ask, make_agent, steps_named

# The graph's evaluation of what the first round found: enough to answer.
ENOUGH = json.dumps({"answer": "", "found": "both passages", "next_search": ""})


@pytest.mark.parametrize(
    ("question", "shape", "names", "asked"),
    [
        (
            "Were Scott Derrickson and Ed Wood of the same nationality?",
            "same",
            ("Scott Derrickson", "Ed Wood"),
            "What is the nationality of Scott Derrickson?",
        ),
        (
            "Are the Laleli Mosque and Esma Sultan Mansion located in the same neighborhood?",
            "same",
            ("Laleli Mosque", "Esma Sultan Mansion"),
            "What is the neighborhood of Laleli Mosque?",
        ),
        (
            "Did the Hoover Dam and Lake Mead lie in the same state?",
            "same",
            ("Hoover Dam", "Lake Mead"),
            "What is the state of Hoover Dam?",
        ),
        (
            "Are Local H and For Against both from the United States?",
            "both",
            ("Local H", "For Against"),
            "Is Local H from the United States?",
        ),
        (
            "Are both Dictyosperma, and Huernia described as a genus?",
            "both",
            ("Dictyosperma", "Huernia"),
            "Is Dictyosperma described as a genus?",
        ),
        (
            "Were both the Golden Gate Bridge and the Bay Bridge opened in the 1930s?",
            "both",
            ("Golden Gate Bridge", "Bay Bridge"),
            "Was Golden Gate Bridge opened in the 1930s?",
        ),
        (
            "Which writer was from England, Henry Roth or Robert Erskine Childers?",
            "choice",
            ("Henry Roth", "Robert Erskine Childers"),
            "Was Henry Roth from England?",
        ),
        (
            "Who was born in Ohio, Ann Lee or the painter Bo Ray?",
            "choice",
            ("Ann Lee", "painter Bo Ray"),
            "Was Ann Lee born in Ohio?",
        ),
    ],
)
def test_the_shape_of_a_comparison_and_what_is_asked_of_each(
    question: str, shape: str, names: tuple[str, str], asked: str
) -> None:
    comparison = comparison_of(question)
    assert comparison is not None
    assert (comparison.shape, comparison.names, comparison.asked[0]) == (shape, names, asked)


@pytest.mark.parametrize(
    "question",
    [
        "Who is older, Annie Morton or Terry Richardson?",  # by degree: dates decide
        "Which band formed later, Blur or Oasis?",
        "Which act has a higher instrument to person ratio, Badly Drawn Boy or Wolf Alice?",
        "Is the Eiffel Tower in Paris?",  # one thing
        "What government position was held by the woman who portrayed Corliss Archer?",
        "How many more ducks were seen in 2021 than in 2019?",
    ],
)
def test_other_questions_are_not_comparisons_of_each(question: str) -> None:
    assert comparison_of(question) is None


MOSQUES = [
    Chunk("l1", "laleli", "/docs/Laleli_Mosque.md",
          "The Laleli Mosque is an 18th-century Ottoman imperial mosque located in Laleli, "
          "Fatih, Istanbul, Turkey.", Locator()),
    Chunk("e1", "esma", "/docs/Esma_Sultan_Mansion.md",
          "The Esma Sultan Mansion is a historical yalı located on the Bosphorus in the "
          "Ortaköy neighborhood of Istanbul, Turkey.", Locator()),
    Chunk("r1", "roth", "/docs/Henry_Roth.md",
          "Henry Roth was an American novelist and short story writer.", Locator()),
    Chunk("c1", "childers", "/docs/Robert_Erskine_Childers.md",
          "Robert Erskine Childers was an English-born Irish writer whose novel The Riddle "
          "of the Sands was published in 1903.", Locator()),
]  # fmt: skip


@pytest.fixture
def sources(monkeypatch: pytest.MonkeyPatch) -> None:
    import tests.unit.test_agent_graph as graph_tests

    monkeypatch.setattr(graph_tests, "CHUNKS", [*CHUNKS, *MOSQUES])


@pytest.mark.usefixtures("sources")
def test_the_same_neighborhood_is_read_from_each_passage_and_compared(tmp_path: Path) -> None:
    agent, chat = make_agent(
        tmp_path,
        [
            ENOUGH,
            json.dumps({"value": "Laleli, Fatih"}),
            json.dumps({"value": "Ortaköy neighborhood"}),
        ],
    )
    chat.doubts = [0.49]  # "Laleli, Fatih" and "Ortaköy" the same? yes at 0.51: not sure enough
    question = "Are the Laleli Mosque and Esma Sultan Mansion located in the same neighborhood?"
    answer, trace = ask(agent, question, "compare")
    assert answer.text.startswith("No."), answer.text
    assert "Laleli, Fatih" in answer.text and "Ortaköy" in answer.text
    assert {c.chunk.chunk_id for c in answer.citations} == {"l1", "e1"}
    assert answer.provider == "code" and steps_named(trace, "compare")
    assert "Esma Sultan Mansion" in chat.asked[2][0][-1].content  # each asked on its own
    assert "Laleli Mosque" not in chat.asked[2][0][-1].content


@pytest.mark.usefixtures("sources")
def test_a_finding_not_written_in_its_passage_leaves_the_answer_to_the_reply(
    tmp_path: Path,
) -> None:
    agent, _chat = make_agent(
        tmp_path,
        [
            ENOUGH,
            json.dumps({"value": "Laleli, Fatih"}),
            json.dumps({"value": "Sultanahmet"}),  # not in the mansion's passage
            "No, they are in different neighborhoods [1][2].",
        ],
    )
    question = "Are the Laleli Mosque and Esma Sultan Mansion located in the same neighborhood?"
    answer, trace = ask(agent, question, "compare")
    assert answer.provider != "code"
    assert any("not read from its passage" in s for s in steps_named(trace, "compare"))


@pytest.mark.usefixtures("sources")
def test_a_choice_of_two_is_the_one_that_fits_when_asked_of_each(tmp_path: Path) -> None:
    agent, chat = make_agent(tmp_path, [ENOUGH])
    chat.doubts = [0.9, 0.2]  # Henry Roth from England? no. Childers? yes
    question = "Which writer was from England, Henry Roth or Robert Erskine Childers?"
    answer, _trace = ask(agent, question, "compare")
    assert answer.text.startswith("Robert Erskine Childers ["), answer.text
    assert "Was Henry Roth from England? No [" in answer.text
    assert {c.chunk.chunk_id for c in answer.citations} == {"r1", "c1"}
    assert chat.weighed[0] == (
        "Passage:\nHenry Roth was an American novelist and short story writer.\n\n"
        "Question: Was Henry Roth from England?\n\n"
        "Answer from this passage only. Answer yes or no.\n"
    )
    assert len(chat.asked) == 1  # the evaluation; two weighed answers and no generated reply


@pytest.mark.usefixtures("sources")
def test_a_choice_neither_passage_decides_is_left_to_the_reply(tmp_path: Path) -> None:
    agent, chat = make_agent(tmp_path, [ENOUGH, "Robert Erskine Childers [1]."])
    chat.doubts = [0.1, 0.15]  # both fit, nearly alike: asking each cannot tell them apart
    question = "Which writer was from England, Henry Roth or Robert Erskine Childers?"
    answer, trace = ask(agent, question, "compare")
    assert answer.provider != "code"
    assert any("both fit" in s for s in steps_named(trace, "compare"))


@pytest.mark.usefixtures("sources")
def test_a_choice_goes_to_the_clearly_likelier_of_two(tmp_path: Path) -> None:
    """Neither passage says "from England" outright ("English-born Irish"), but the question
    says one of the two is: the clearly likelier one is chosen, in words that say so."""
    agent, chat = make_agent(tmp_path, [ENOUGH])
    chat.doubts = [0.88, 0.77]  # yes: Henry Roth 0.12, Childers 0.23
    question = "Which writer was from England, Henry Roth or Robert Erskine Childers?"
    answer, _trace = ask(agent, question, "compare")
    assert answer.text.startswith("Robert Erskine Childers ["), answer.text
    assert 'fits "Was Robert Erskine Childers from England?" better than Henry Roth\'s' in (
        answer.text
    )
    assert answer.provider == "code"


@pytest.mark.usefixtures("sources")
def test_the_same_value_in_other_words_is_the_same(tmp_path: Path) -> None:
    agent, chat = make_agent(
        tmp_path,
        [ENOUGH, json.dumps({"value": "Istanbul, Turkey"}), json.dumps({"value": "Istanbul"})],
    )
    question = "Are the Laleli Mosque and Esma Sultan Mansion located in the same city?"
    answer, _trace = ask(agent, question, "compare")
    assert answer.text.startswith("Yes. The city of Laleli Mosque is Istanbul, Turkey ["), (
        answer.text
    )
    assert not chat.weighed  # one finding's words hold the other's: code decides alone
