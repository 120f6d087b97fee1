"""The gate before any model call: nothing close enough to the question is a refusal, unless a
best passage writes the full names the question asks about."""

from __future__ import annotations

from pathlib import Path

from polyrag.agent.questions import (
    name_beside_figure,
    names_written,
    opposite_words,
    unwritten_codes,
    unwritten_names,
)
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


def test_full_names_no_passage_writes_are_found() -> None:
    """A name counts as written with middle names between, surname first, in the plural or in
    its letters alone; a capitalised phrase whose words the texts also write in lower case
    is a concept, not a name ("Total Gross Margin"), and a period or an acronym is no name."""
    rankine = ["It is named after William John Macquorn Rankine, a Scottish polymath."]
    assert unwritten_names("What is William Rankine's nationality?", rankine) == []
    assert unwritten_names("What is Walter Rankine's nationality?", rankine) == ["Walter Rankine"]
    assert unwritten_names("What is Rankine William's job?", ["RANKINE, WILLIAM J"]) == []
    assert unwritten_names("Where do the Norman Huguenots live?", ["Norman Huguenots"]) == []
    assert unwritten_names("Who did Norman Huguenot help?", ["the Norman Huguenots"]) == []
    assert unwritten_names("How did Best Buy do?", ["BESTBUY_2024Q2_10Q"]) == []
    assert (
        unwritten_names("What did the U.S. Information Agency do?", ["U.S Information Agency"])
        == []
    )
    margin = ["Gross margin | 2019 | 2018", "Total | 5 | 4"]
    assert unwritten_names("What is the change in the Total Gross Margin?", margin) == []
    assert unwritten_names("What was Amazon's FY2017 COGS?", ["Amazon cost of sales"]) == []
    assert unwritten_names("What did the IPCC Panel fund?", ["the WMO"]) == []
    assert unwritten_names("Who is the Chief Financial Officer?", ["Jane Roe, CFO"]) == []
    # The question's first word is capitalised as its first, not as a name's.
    assert unwritten_names("After Oligocene times, what grew?", ["the Oligocene"]) == []
    assert unwritten_names("Which tribes did Great Britain fight?", ["Britain"]) == [
        "Great Britain"
    ]


def test_codes_no_passage_writes_are_found() -> None:
    """A formula, a model or a part number must be written as a word of its own ("Fe 2O 3" is
    Fe2O3, not Fe2O), with or without a hyphen or a space where letters meet digits; periods,
    filings, ordinals, measures, dates and a name's number are no codes (they were the
    question's only false finds over TAT-QA's 1,668 and FinanceBench's 85 gold evidence)."""
    iron = ["iron(III) oxide Fe 2O 3, in hematite and rust"]
    assert unwritten_codes("What is Fe2O?", iron) == ["Fe2O"]
    assert unwritten_codes("What is Fe2O3?", iron) == []
    assert unwritten_codes("What is the range of the A321?", ["The A320 flies"]) == ["A321"]
    assert unwritten_codes("What is the range of the A321?", ["The A-321 flies"]) == []
    assert unwritten_codes("What is the IFRS9 opening balance?", ["IFRS 9 opening"]) == []
    assert unwritten_codes("How much CO2 is emitted?", ["co2 emissions"]) == []
    listing = ["DHAW20190045 07/10/2019 CITIBANK - SENATOR IBA CARD", "DHAW20190046 1,112.00"]
    assert unwritten_codes("What was the amount of document DHAW20190045?", listing) == []
    assert unwritten_codes("What was the amount of document DHAW2019004?", listing) == [
        "DHAW2019004"
    ]
    not_codes = (
        "As of FY2023Q1 and in 2Q19, Q3, F2019 and the 10-K, how did COVID-19 change 3D "
        "printing in the 18th century, over 10km, in the 1990s, from Aug 2007-Jan 2011?"
    )
    assert unwritten_codes(not_codes, ["nothing of the kind"]) == []


def test_a_word_whose_opposite_the_resting_sentence_writes_is_found() -> None:
    """ "A right turn" asked of a passage about a left turn: the word is written nowhere and
    its opposite is in the sentence the reply rests on. Written anywhere, asked together with
    its opposite, or a word of a name ("Best Buy"), it is no finding. Each question checked
    against its own gold evidence (its best sentence standing for the resting one): SQuAD's
    500 5 unanswerable and 0 answerable, TAT-QA's 1,668 1 (an arithmetic question, which the
    check leaves alone), FinanceBench's 85 and HotpotQA's 30 none."""
    rhine = "During the ice ages the Rhine took a left turn, creating the Channel River."
    asked = "When the Rhine took a right turn what did it create?"
    assert opposite_words(asked, [rhine], [rhine]) == [("right", "left")]
    assert opposite_words(asked, [rhine, "a right bank"], [rhine]) == []
    assert opposite_words(asked, [rhine], []) == []
    fell = "Revenue decreased by 4% as volumes fell."
    assert opposite_words("Why did revenue increase?", [fell], [fell]) == [("increase", "decrease")]
    assert opposite_words("What is the increase / (decrease) in revenue?", [fell], [fell]) == []
    assert opposite_words("How did Best Buy's revenue change?", ["sold 5"], ["sold 5"]) == []
    raid = ["French irregulars harassed Fort William Henry in 1757."]
    asked = "What troops defended Fort William Henry in early 1757?"
    assert opposite_words(asked, raid, raid) == [("defended", "attacked")]
    gave = ["In 1749 the British government gave land to the Ohio Company."]
    asked = "When did British government take land for development of Ohio Country?"
    assert opposite_words(asked, gave, gave) == [("took", "gave")]
    younger = ["Ann is younger than Bob."]
    assert opposite_words("Who is older, Ann or Bob?", younger, younger) == []
    assert opposite_words("Is Ann older?", younger, younger) == [("oldest", "youngest")]
    assert opposite_words("Buy what?", ["sold 5"], ["sold 5"]) == [("bought", "sold")]


def test_a_line_giving_the_name_and_the_replys_figure_answers_the_lookup() -> None:
    """A precinct's results ("NEEL KASHKARI 247 REP") and a listing of payees answer "how many
    votes did Neel Kashkari receive?": the model judge, weighing the ballot's jumble, had
    refused the right reply. Another name's figure, or a figure further on, is no such line."""
    ballot = ["VOTER NOMINATED YES 90 NEEL KASHKARI 247 REP NO 142 EDMUND G BROWN 69 DEM"]
    question = "How many votes did Neel Kashkari receive?"
    assert name_beside_figure(question, "He received 247 votes [1].", ballot) == (
        "'NEEL KASHKARI 247'"
    )
    assert name_beside_figure(question, "He received 142 votes [1].", ballot) == ""
    assert name_beside_figure(question, "He received 69 votes [1].", ballot) == ""
    assert name_beside_figure("How many votes did Gavin Newsom get?", "247", ballot) == ""
    listing = ["ENGLERT, PAYTON A STAFF ASSISTANT 25,499.96"]
    paid = name_beside_figure("What was Payton Englert paid?", "$25,499.96 [1]", listing)
    assert paid == "'ENGLERT, PAYTON A STAFF ASSISTANT 25,499.96'"
    # Two figures added by the reply: which one the line gives does not settle it.
    assert name_beside_figure(question, "247 votes, 12% of 2,000 [1]", ballot) == ""


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
