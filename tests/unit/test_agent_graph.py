"""The agent graph's control flow, driven by a scripted model: tools with retries and a critic,
hops that build on each other, caps that always end in an answer, and a paused clarification
that resumes from its checkpoint."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from polyrag.agent.answers import Request
from polyrag.agent.graph import Agent
from polyrag.agent.questions import Bridge, bridge_of, entity_searches
from polyrag.agent.route import Route
from polyrag.agent.steps import Steps
from polyrag.agent.tools import lists
from polyrag.agent.tools.base import ToolContext, ToolOutcome
from polyrag.agent.tools.registry import Toolbox, builtin_tools
from polyrag.agent.trace import Trace
from polyrag.answer.evidence import content_words
from polyrag.index.tables.sqlite import SqliteTableStore
from polyrag.llm.fallback import FallbackChain
from polyrag.retrieve.base import RetrievalResult
from polyrag.settings import Settings
from polyrag.types import (
    NOT_ANSWERED,
    Chunk,
    Citation,
    Filter,
    Hit,
    Locator,
    Modality,
    StepEvent,
    Table,
)
from tests.unit.replies import Replies

DUCK_ROWS = (
    "| Year | Freshwater Ducks |\n| --- | --- |\n| 2019 | 120 |\n| 2020 | 135 |\n| 2021 | 150 |"
)
CHUNKS = [
    Chunk("d1", "ducks", "/docs/ducks.xlsx", "Duck Observations\n" + DUCK_ROWS,
          Locator(sheet="Duck Observations", rows=(4, 7)), Modality.TABLE),
    Chunk("k1", "kiss", "/docs/Kiss_and_Tell.md",
          "Kiss and Tell is a 1945 film starring Shirley Temple as Corliss Archer.", Locator()),
    Chunk("s1", "temple", "/docs/Shirley_Temple.md",
          "Shirley Temple served as Chief of Protocol of the United States.", Locator()),
    Chunk("p1", "pol-a", "/docs/travel-policy-2023.md",
          "The hotel cap in the policy is 150 EUR.", Locator()),
    Chunk("p2", "pol-b", "/docs/travel-policy-2024.md",
          "The hotel cap in the policy is 180 EUR.", Locator()),
    Chunk("w1", "sales", "/docs/sales.xlsx",
          "| Product | Revenue |\n| --- | --- |\n| Widget C | 3000 |\n| Widget D | 8000 |\n"
          "| Widget C | 15000 |\n| Widget D | 9000 |",
          Locator(sheet="Sales", rows=(1, 5)), Modality.TABLE),
    Chunk("l1", "kindergarten", "/docs/reporting-procedure.docx",
          "Student falls ill\n- Suggested Reportable Symptoms:\n＊ Fever\n＊ Cough\n＊ Diarrhea\n"
          "＊ Vomiting\n＊ Rash\n＊ Blisters\n＊ Headache\n＊ Sore throat\n"
          "If a caregiver suspects the same symptoms, report within 24 hours.", Locator()),
    Chunk("n1", "nics", "/docs/nics.pdf",
          "Table 1: NICS Firearm Background Checks November - 2015\n"
          "Row 16: State / Territory is Illinois, Permit is 87,190, Totals is 129,861\n"
          "Row 17: State / Territory is Indiana, Permit is 81,935, Totals is 130,333",
          Locator(page=1), Modality.TABLE),
    Chunk("m1", "merger", "/docs/merger.pdf",
          "The merger agreement was signed on 3 March 2024.", Locator(page=1)),
    Chunk("m2", "merger", "/docs/merger.pdf",
          "The deal closed on 15 April 2024 after the approval.", Locator(page=2)),
]  # fmt: skip
SALES = Table(
    header=("Product", "Revenue"),
    rows=(("Widget C", "3000"), ("Widget D", "8000"), ("Widget C", "15000"), ("Widget D", "9000")),
    locator=Locator(sheet="Sales", rows=(1, 5)),
    name="Sales",
    row_numbers=(2, 3, 4, 5),
    columns=("A", "B"),
)
DUCKS = Table(
    header=("Year", "Freshwater Ducks"),
    rows=(("2019", "120"), ("2020", "135"), ("2021", "150")),
    locator=Locator(sheet="Duck Observations", rows=(4, 7)),
    name="Duck Observations",
    row_numbers=(5, 6, 7),
    columns=("B", "C"),
)


class WordRetriever:
    """Ranks the chunks by the words they share with the query (a fake for control flow)."""

    def search(
        self, query: str, k: int | None = None, where: Filter | None = None, mode: str = "hybrid"
    ) -> RetrievalResult:
        terms = content_words(query)
        allowed = [
            c
            for c in CHUNKS
            if not where or not where.source_ids or c.source_id in where.source_ids
        ]
        scored = [(len(terms & content_words(c.text + " " + c.path)), c) for c in allowed]
        ranked = sorted((s for s in scored if s[0]), key=lambda s: -s[0])[: k or 6]
        return RetrievalResult([Hit(c, float(n), 1, 1, 0.6) for n, c in ranked])


class Store:
    def chunks_of(self, source_id: str) -> list[Chunk]:
        return [c for c in CHUNKS if c.source_id == source_id]


def make_agent(
    tmp_path: Path,
    replies: Sequence[str | Exception],
    toolbox: Toolbox | None = None,
    **agent: object,
) -> tuple[Agent, Replies]:
    chat = Replies(list(replies))
    settings = Settings(home=tmp_path, agent=agent, answer={"min_similarity": 0.1})
    steps = Steps(WordRetriever(), FallbackChain([chat]), settings)  # type: ignore[arg-type]
    tables = SqliteTableStore(tmp_path / "tables.sqlite")
    tables.put("ducks", "/docs/ducks.xlsx", [DUCKS])
    built = Agent(
        steps, toolbox or Toolbox(builtin_tools()), Store(), tables, tmp_path / "agent.sqlite"
    )  # type: ignore[arg-type]
    return built, chat


def ask(
    agent: Agent, question: str, kind: str, *, thread: str | None = None
) -> tuple[object, Trace]:
    trace = Trace(lambda _event: None)
    hits = agent.steps.retrieve(question, None, trace)
    answer = agent.answer(
        Request(question, thread=thread), question, Route(kind, True, "test"), hits, trace
    )
    return answer, trace


def steps_named(trace: Trace, name: str) -> list[str]:
    return [s.summary for s in trace.steps if s.name == name]


def sql(query: str) -> str:
    return json.dumps({"sql": query})


def test_a_computation_for_a_period_no_source_writes_is_refused(tmp_path: Path) -> None:
    """The sum over the ducks of 2019 to 2021 is no answer for October 2021, which no source
    shown writes: refused before the reply is written (a SQL result over the report of
    November 2015 once answered for December 2015)."""
    query = sql("SELECT SUM(freshwater_ducks) AS total FROM duck_observations")
    reply = "In total 405 freshwater ducks were observed [1]."
    agent, chat = make_agent(tmp_path, [query, reply])
    asked = "How many freshwater ducks were observed in total in October 2021?"
    answer, trace = ask(agent, asked, "aggregate")
    assert answer.refused and answer.refusal_reason == NOT_ANSWERED  # type: ignore[attr-defined]
    assert steps_named(trace, "answered") == [
        "refused: the question asks about October, which no source shown writes"
    ]
    assert len(chat.asked) == 1  # the query's decision; no reply was written
    agent, _chat = make_agent(tmp_path / "written", [query, reply])
    answer, _trace = ask(agent, asked.replace(" in October 2021", ""), "aggregate")
    assert not answer.refused  # type: ignore[attr-defined]


def test_a_computed_sum_of_money_no_source_writes_is_refused(tmp_path: Path) -> None:
    """ "How much was paid in total for the ducks?" summed over counts of ducks (the query
    names its result "total_amount_paid"): no passage writes a price, a currency or an
    amount, so the sum is of other things. Refused before the reply is written."""
    query = sql("SELECT SUM(freshwater_ducks) AS total_amount_paid FROM duck_observations")
    reply = "In total 405 was paid [1]."
    agent, chat = make_agent(tmp_path, [query, reply])
    answer, trace = ask(agent, "How much was paid in total for the freshwater ducks?", "aggregate")
    assert answer.refused and answer.refusal_reason == NOT_ANSWERED  # type: ignore[attr-defined]
    assert steps_named(trace, "answered") == [
        "refused: the question asks for money (paid) and no passage writes a price, a "
        "currency or an amount"
    ]
    assert len(chat.asked) == 1  # the query's decision; no reply was written
    # The rows a result rests on count, the result's own words do not.
    from polyrag.agent.reply import _passages
    from polyrag.agent.steps import money_unwritten
    from polyrag.answer.evidence import Evidence
    from polyrag.types import Chunk, Locator

    rows = Chunk("r", "s", "/docs/menu.csv", "Row 2: Item is Cake, Price is 4.50", Locator())
    result = Evidence(1, rows, "total_amount_paid = 4.5", backing=(rows,))
    assert money_unwritten("How much was paid for cake?", _passages([result])) == ""
    cakes = Chunk("c", "s", "/docs/order.csv", "Row 2: Item is Cake, Quantity is 4", Locator())
    counts = Evidence(1, cakes, "total_paid = 4", backing=(cakes,))
    assert money_unwritten("How much was paid for cake?", _passages([counts])) == "paid"


def test_a_failing_query_is_retried_with_its_error_and_the_answer_cites_cells(
    tmp_path: Path,
) -> None:
    agent, chat = make_agent(
        tmp_path,
        [
            sql("SELECT SUM(ducks) FROM nowhere"),  # loud failure: unknown table
            sql("SELECT SUM(freshwater_ducks) AS total FROM duck_observations"),
            "In total 405 freshwater ducks were observed [1].",
        ],
    )
    answer, trace = ask(agent, "How many freshwater ducks were observed in total?", "aggregate")
    assert not answer.refused and "405" in answer.text
    assert answer.citations[0].chunk.locator.cells == "C5:C7"  # the column summed, its rows
    retry_prompt = chat.asked[1][0][-1].content
    assert "unknown table 'nowhere'" in retry_prompt  # the error was fed back
    assert any("failed" in s for s in steps_named(trace, "tool"))
    assert answer.model_calls == 3


def test_a_tool_that_keeps_failing_is_set_aside_and_the_question_still_answered(
    tmp_path: Path,
) -> None:
    bad_sums = [json.dumps({"expression": f"120 + 135 + {n}"}) for n in (999, 998)]  # in no source
    agent, _ = make_agent(
        tmp_path,
        [sql(f"SELECT {n} FROM nowhere") for n in (1, 2, 3)]
        + bad_sums
        + ["The sources show 120 ducks in 2019 [1]."],
        tool_retries=2,
    )
    answer, trace = ask(agent, "How many freshwater ducks were observed in total?", "aggregate")
    aside = [s for s in steps_named(trace, "critic") if "set aside" in s]
    assert aside == ["sql set aside for this question", "calculator set aside for this question"]
    assert len(steps_named(trace, "tool")) == 5  # SQL, retried twice; the calculator once more
    assert answer.model_calls == 6  # the budget: five tool calls and the reply
    assert not answer.refused and "120" in answer.text


def test_corrupted_arguments_are_caught_by_the_critic_and_repaired(tmp_path: Path) -> None:
    """A condition that compares two columns and keeps no row: the model is told, repairs it."""
    wrong_column = "WHERE freshwater_ducks > year"
    agent, chat = make_agent(
        tmp_path,
        [
            sql(f"SELECT SUM(freshwater_ducks) AS total FROM duck_observations {wrong_column}"),
            sql("SELECT SUM(freshwater_ducks) AS total FROM duck_observations"),
            "405 freshwater ducks were observed in total [1].",
        ],
    )
    answer, trace = ask(agent, "How many freshwater ducks were observed in total?", "aggregate")
    assert steps_named(trace, "critic")[0].startswith("repair: the query found nothing")
    assert "found nothing" in chat.asked[1][0][-1].content
    assert "405" in answer.text


class CorruptingToolbox(Toolbox):
    """Returns a corrupted result for the first successful call (a silent failure)."""

    def __init__(self) -> None:
        super().__init__(builtin_tools())
        self.corrupted = False

    def call(self, name: str, arguments: dict[str, object], context: ToolContext) -> ToolOutcome:
        outcome = super().call(name, arguments, context)
        if not self.corrupted and outcome.ok:
            self.corrupted = True
            return replace(outcome, result="total = 99999999999999999999")
        return outcome


def test_a_corrupted_tool_output_is_discarded_and_never_reaches_the_answer(tmp_path: Path) -> None:
    agent, _ = make_agent(
        tmp_path,
        [
            sql("SELECT SUM(freshwater_ducks) AS total FROM duck_observations"),
            json.dumps({"expression": "120 + 135 + 150"}),
            "In total 405 freshwater ducks were observed [1].",
        ],
        CorruptingToolbox(),
    )
    answer, trace = ask(agent, "How many freshwater ducks were observed in total?", "aggregate")
    assert steps_named(trace, "critic")[0] == "discard: the result is implausibly large"
    assert "99999" not in answer.text and "405" in answer.text
    evidence = [s for s in trace.steps if s.name == "evidence"][-1]
    assert evidence.data["items"][0]["derived"]  # the calculation; the corrupted SQL is gone


def test_a_second_hop_searches_for_what_the_first_found_and_both_are_cited(tmp_path: Path) -> None:
    assess = {
        "answer": "",
        "found": "Shirley Temple played Corliss Archer",
        "next_search": "Shirley Temple government position",
    }
    agent, chat = make_agent(
        tmp_path,
        [
            json.dumps(assess),
            json.dumps({"answer": "Chief of Protocol", "found": "", "next_search": ""}),
            "Shirley Temple, who played Corliss Archer, served as Chief of Protocol [2].",
        ],
    )
    question = (
        "What government position was held by the woman who portrayed Corliss Archer in the "
        "film Kiss and Tell?"
    )
    answer, trace = ask(agent, question, "multihop")
    searches = [s.data["query"] for s in trace.steps if s.name == "retrieve"]
    assert "Shirley Temple government position" in searches[1:]  # the model's next search
    assert "Chief of Protocol" in answer.text
    assert {c.chunk.path for c in answer.citations} == {
        "/docs/Kiss_and_Tell.md",
        "/docs/Shirley_Temple.md",
    }
    # The reply is written from the two hops' passages alone, told whom the question describes.
    written = chat.asked[-1][0][-1].content
    assert "(The one the question describes is Shirley Temple [1].)" in written
    assert written.index("[1] (Kiss_and_Tell.md") < written.index("[2] (Shirley_Temple.md")
    assert "[3]" not in written
    assert steps_named(trace, "bridge")


def test_the_bridge_of_a_two_hop_question_is_a_name_with_its_own_passage() -> None:
    question = (
        "What government position was held by the woman who portrayed Corliss Archer in the "
        "film Kiss and Tell?"
    )
    passages = [
        ("wood", "Ed Wood", "Ed Wood was an American filmmaker who worked with Bela Lugosi."),
        ("kiss", "Kiss and Tell (1945 film)", "Kiss and Tell is a 1945 comedy film starring "
         "then 17-year-old Shirley Temple as Corliss Archer, directed by Richard Wallace."),
        ("temple", "Shirley Temple", "Shirley Temple Black was an actress and diplomat."),
    ]  # fmt: skip
    assert bridge_of(question, passages) == Bridge("Shirley Temple", via=1, about=2)
    # Richard Wallace has no passage of his own; a quoted title is one of the question's names.
    assert bridge_of(question, passages[:2]) is None
    quoted = 'The director of the romantic comedy "Big Stone Gap" is based in what city?'
    film = ("gap", "Big Stone Gap", "Big Stone Gap is a 2014 film directed by Adriana Trigiani.")
    author = ("ta", "Adriana Trigiani", "Adriana Trigiani is an author based in Greenwich Village.")
    assert bridge_of(quoted, [author, film]) == Bridge("Adriana Trigiani", via=1, about=0)
    # A section of the same document titled with the name is not a document of its own.
    report = [
        ("10-K", "Revenue", "Revenue of the segment that grew, Cloud Services, rose."),
        ("10-K", "Cloud Services", "Cloud Services revenue was 12 billion."),
    ]
    assert bridge_of("What did the segment that grew in Revenue earn?", report) is None
    assert bridge_of("What is a science fantasy series?", passages) is None


def test_a_model_that_never_stops_searching_is_stopped_by_the_round_cap(tmp_path: Path) -> None:
    endless = [
        json.dumps({"answer": "", "found": "x", "next_search": f"search {i} ducks"})
        for i in range(10)
    ]
    agent, _ = make_agent(
        tmp_path,
        [*endless[:2], "I cannot find this information in the provided sources."],
        max_rounds=3,
    )
    answer, trace = ask(
        agent, "What government position was held by the woman who counted ducks?", "multihop"
    )
    assert len([s for s in trace.steps if s.name == "retrieve"]) == 3  # the first and two more
    assert answer.refused or answer.text  # always an answer or a refusal


def test_the_step_limit_ends_a_long_search_with_an_answer_or_a_refusal(tmp_path: Path) -> None:
    """Rounds and calls left, LangGraph's step limit (`agent.recursion_limit`) still holds: the
    graph stops, says so, and the reply is written from what was found."""
    endless = [
        json.dumps({"answer": "", "found": "x", "next_search": f"search {i} ducks"})
        for i in range(10)
    ]
    agent, _ = make_agent(
        tmp_path,
        [*endless, "I cannot find this information in the provided sources."],
        max_rounds=10,
        max_model_calls=30,
        recursion_limit=10,
    )
    answer, trace = ask(
        agent, "What government position was held by the woman who counted ducks?", "multihop"
    )
    assert steps_named(trace, "stop") == ["the step limit (10) was reached"]
    assert 1 < len(steps_named(trace, "retrieve")) < 10
    assert answer.refused or answer.text  # type: ignore[attr-defined]


def test_the_model_call_budget_keeps_one_call_for_the_reply(tmp_path: Path) -> None:
    more = {"answer": "", "found": "Shirley Temple", "next_search": "Shirley Temple position"}
    agent, _ = make_agent(
        tmp_path,
        [json.dumps(more), "Shirley Temple served as Chief of Protocol [2]."],
        max_model_calls=2,
    )
    question = "What position did the woman who portrayed Corliss Archer hold?"
    answer, trace = ask(agent, question, "multihop")
    searches = [s.data["query"] for s in trace.steps if s.name == "retrieve"]
    assert "Shirley Temple position" in searches  # the search it asked for (and one by code)
    assert answer.model_calls == 2 and not answer.refused  # then no room for another decision


def test_a_tool_the_model_drives_needs_a_call_left_beside_the_reply(tmp_path: Path) -> None:
    """Calls made before the graph (a rewrite, the question's kind) count: with one call left,
    the query is not written, and the reply keeps the budget's last call."""
    agent, chat = make_agent(
        tmp_path, ["405 freshwater ducks were observed in total [1]."], max_model_calls=2
    )
    question = "How many freshwater ducks were observed in total?"
    trace = Trace(lambda _event: None)
    trace.model_calls = 1  # the question's kind, decided by the model before the graph
    hits = agent.steps.retrieve(question, None, trace)
    answer = agent.answer(
        Request(question), question, Route("aggregate", True, "test"), hits, trace
    )
    assert "no model call left for the sql tool" in steps_named(trace, "evaluate")
    assert not steps_named(trace, "tool") and len(chat.asked) == 1
    assert answer.model_calls == 2  # type: ignore[attr-defined]


@pytest.mark.parametrize(("max_rounds", "retrievals"), [(1, 1), (3, 2)])
def test_the_critics_search_is_a_retrieval_round(
    tmp_path: Path, max_rounds: int, retrievals: int
) -> None:
    """A repair's search for the rows a calculation needs is one of `agent.max_rounds`."""
    agent, _ = make_agent(
        tmp_path,
        [json.dumps({"expression": "150 - 150"}), *["I cannot find this."] * 4],
        max_rounds=max_rounds,
    )
    question = "How many more freshwater ducks were observed in 2022 than in 2021?"
    answer, trace = ask(agent, question, "compute")
    assert steps_named(trace, "critic")[0].startswith("repair: a number is subtracted")
    assert len(steps_named(trace, "retrieve")) == retrievals
    left = "no retrieval round left to search 'freshwater ducks observed'"
    assert (left in steps_named(trace, "critic")) is (retrievals == 1)
    assert answer.refused or answer.text  # type: ignore[attr-defined]


DAYS = "How many days passed between the signing of the merger agreement and the deal closed?"


def test_days_between_two_written_dates_are_counted_by_the_date_tool(tmp_path: Path) -> None:
    """A span of days over passages that write two dates: the model is offered the date tool
    alone, shown the sentences with dates, and picks the two; code counts the days."""
    dates = {"start": "3 March 2024", "end": "15 April 2024", "unit": "days"}
    agent, chat = make_agent(
        tmp_path,
        [json.dumps({"tool": "date_difference", "arguments": dates}), "43 days passed [1]."],
    )
    answer, trace = ask(agent, DAYS, "compute")
    assert steps_named(trace, "evaluate")[0] == "needs a tool: choose"
    shown = chat.asked[0][0][-1].content
    assert "- date_difference(" in shown and "calculator" not in shown and "sql(" not in shown
    assert "- The deal closed on 15 April 2024 after the approval." in shown
    assert steps_named(trace, "tool") == [
        "date_difference: from 3 March 2024 to 15 April 2024: 43 days"
    ]
    assert "43 days" in answer.text and not answer.refused  # type: ignore[attr-defined]


def test_a_tool_outside_the_offer_is_refused_and_set_aside(tmp_path: Path) -> None:
    wrong = {"tool": "calculator", "arguments": {"expression": "15 - 3"}}
    agent, _ = make_agent(
        tmp_path, [json.dumps(wrong)] * 3 + ["I cannot find this information."] * 3
    )
    _answer, trace = ask(agent, DAYS, "compute")
    failed = [s for s in steps_named(trace, "tool") if "failed" in s]
    assert failed[0] == "calculator: failed — only date_difference may be used for this question"


def test_a_page_the_question_names_is_read_by_code_and_shown_first(tmp_path: Path) -> None:
    """ "On page 2" is about page 2: code reads it whole, without a model call, and its text
    comes first in what the reply is written from."""
    agent, chat = make_agent(tmp_path, ["The deal closed on 15 April 2024 [1]."])
    question = "What does the merger filing say on page 2?"
    answer, trace = ask(agent, question, "lookup")
    assert steps_named(trace, "tool") == ["page: page 2 of merger.pdf: 52 characters read"]
    assert len(chat.asked) == 1  # the reply alone
    (evidence,) = [s for s in trace.steps if s.name == "evidence"]
    assert evidence.data["items"][0]["label"] == "merger.pdf, page 2"
    assert answer.citations[0].chunk.chunk_id == "m2"  # type: ignore[attr-defined]


def test_a_clarifying_question_pauses_and_the_reply_resumes_the_thread(tmp_path: Path) -> None:
    agent, _ = make_agent(tmp_path, ["The hotel cap is 180 EUR [1]."])
    paused, _ = ask(agent, "What is the hotel cap in the policy?", "lookup")
    assert paused.clarify is not None and "travel-policy-2023.md" in paused.clarify
    assert paused.thread and paused.refused
    agent.close()

    enough = json.dumps({"answer": "180 EUR", "found": "", "next_search": ""})
    again, chat = make_agent(tmp_path, [enough, "The hotel cap is 180 EUR [1]."])  # a new process
    resumed, trace = ask(again, "the 2024 one", "lookup", thread=paused.thread)
    assert "180 EUR" in resumed.text and resumed.clarify is None
    assert steps_named(trace, "clarified") == ["the user answered: the 2024 one"]
    assert "(the 2024 one)" in chat.asked[-1][0][-1].content
    finished = again.graph.get_state({"configurable": {"thread_id": paused.thread}})
    assert not finished.values  # a finished conversation leaves no checkpoint behind


def test_a_next_hop_is_searched_by_code_too() -> None:
    from polyrag.agent.questions import bridge_searches

    question = "What position was held by the woman who portrayed Corliss Archer in Kiss and Tell?"
    film = "Kiss and Tell is a 1945 film starring Shirley Temple as Corliss Archer."
    assert bridge_searches(question, [film]) == ["Shirley Temple position held woman portrayed"]


def test_the_likeliest_bridge_is_named_where_the_passage_repeats_the_description() -> None:
    from polyrag.agent.questions import bridge_names, bridge_searches, has_own_passage

    question = "How many seats has the arena where the Riverside Otters played their home games?"
    team = (
        "Riverside Otters\nThe Riverside Otters were a junior hockey team of the Northern Ice "
        "League based in Riverside, Ontario. The team played its home games at the Harbour Bank "
        "Centre. They won the Founders Cup in 2009."
    )
    other = "Dwyer Hall\nDwyer Hall houses the Lakeside Owls, who play their home games there."
    names = bridge_names(question, [team, other])
    assert names[0] == "Harbour Bank Centre"  # beside "home games", in a passage on the Otters
    assert "They" not in names and "Riverside" not in names and "Lakeside Owls" not in names
    assert bridge_searches(question, [team, other]) == [
        "Harbour Bank Centre many seats arena",
        "Northern Ice League many seats arena",
    ]
    # The next hop is already there: nothing more to search.
    assert bridge_searches(question, [team], titles=["Harbour Bank Centre (arena)"]) == []

    asked = (
        "Jane Doe was Deputy Secretary of Transport during the administration of a president "
        "who served during what years?"
    )
    life = (
        "Jane Doe\nJane Doe (4 April 1901 – 1990) was an American engineer. She served as Deputy "
        "Secretary of Transport during the Carter administration."
    )
    named = bridge_names(asked, [life])
    assert named[0] == "Carter"  # a surname, right beside "administration"
    assert "April" not in named and "American" not in named  # a month, a nationality
    assert has_own_passage("Carter", ["Jimmy Carter"])
    assert not has_own_passage("Carter", ["Carter Page Foundation"])


def test_a_bridge_without_its_own_passage_is_searched_before_any_model_call(
    tmp_path: Path,
) -> None:
    enough = {"answer": "Chief of Protocol", "found": "", "next_search": ""}
    agent, chat = make_agent(
        tmp_path, [json.dumps(enough), "Shirley Temple served as Chief of Protocol [2]."]
    )
    question = (
        "What government position was held by the woman who portrayed Corliss Archer in the "
        "film Kiss and Tell?"
    )
    answer, trace = ask(agent, question, "multihop")
    first = next(s for s in trace.steps if s.name == "evaluate")
    assert first.data == {
        "next": "retrieve",
        "searches": ["Shirley Temple government position held woman"],
        "by": "code",
    }
    searches = [s.data["query"] for s in trace.steps if s.name == "retrieve"]
    assert searches[1] == "Shirley Temple government position held woman"
    assert len(chat.asked) == 2  # one assessment, once both hops were in, and the reply
    assert "Chief of Protocol" in answer.text
    assert {c.chunk.path for c in answer.citations} == {
        "/docs/Kiss_and_Tell.md",
        "/docs/Shirley_Temple.md",
    }


def fixed(agent: Agent, question: str, kind: str) -> tuple[object, Trace]:
    """The graph with no model decision (mode fixed): the reply is the model's one call."""
    trace = Trace(lambda _event: None)
    hits = agent.steps.retrieve(question, None, trace)
    route = Route(kind, True, "test")
    return agent.answer(Request(question), question, route, hits, trace, decisions=False), trace


def test_the_fixed_order_baseline_runs_codes_steps_and_asks_the_model_only_to_reply(
    tmp_path: Path,
) -> None:
    # A second hop that code finds is searched; the model is asked for nothing but the reply.
    agent, chat = make_agent(tmp_path, ["Shirley Temple served as Chief of Protocol [2]."])
    question = (
        "What government position was held by the woman who portrayed Corliss Archer in the "
        "film Kiss and Tell?"
    )
    answer, trace = fixed(agent, question, "multihop")
    searches = [s.data["query"] for s in trace.steps if s.name == "retrieve"]
    assert searches[1] == "Shirley Temple government position held woman"
    assert len(chat.asked) == 1 and not [s for s in trace.steps if s.name.startswith("decide")]
    assert "Chief of Protocol" in answer.text  # type: ignore[attr-defined]
    # Tools whose arguments the model writes are not used; the reply is written from the rows.
    agent, chat = make_agent(tmp_path, ["405 freshwater ducks were observed in total [1]."])
    answer, trace = fixed(agent, "How many freshwater ducks were observed in total?", "aggregate")
    assert "no model call left for the sql tool" in steps_named(trace, "evaluate")
    assert not steps_named(trace, "tool") and len(chat.asked) == 1
    # Code's own tools are: the page a question names is read without a model call.
    agent, chat = make_agent(tmp_path, ["The deal closed on 15 April 2024 [1]."])
    answer, trace = fixed(agent, "What does the merger filing say on page 2?", "lookup")
    assert steps_named(trace, "tool") == ["page: page 2 of merger.pdf: 52 characters read"]
    assert len(chat.asked) == 1


def test_a_bridge_passage_ranked_below_the_evidence_shown_is_searched_for(
    tmp_path: Path,
) -> None:
    """The first search found the bridge's passage only sixth, below what the reply is shown:
    it counts as not found, and code searches it, which brings it into the evidence."""
    kiss, temple = CHUNKS[1], CHUNKS[2]
    fillers = [
        Chunk(f"f{i}", f"film-{i}", f"/docs/Film_{i}.md", f"Film {i} is a 1945 comedy.", Locator())
        for i in range(4)
    ]

    class Ranked:
        def search(
            self, query: str, k: int | None = None, where: Filter | None = None, mode: str = ""
        ) -> RetrievalResult:
            found = [temple] if query.startswith("Shirley Temple") else [kiss, *fillers, temple]
            return RetrievalResult([Hit(c, 1.0 - i / 10, 1, 1, 0.6) for i, c in enumerate(found)])

    chat = Replies(
        [
            json.dumps({"answer": "Chief of Protocol", "found": "", "next_search": ""}),
            "Shirley Temple served as Chief of Protocol [2].",
        ]
    )
    settings = Settings(home=tmp_path, answer={"min_similarity": 0.1})
    steps = Steps(Ranked(), FallbackChain([chat]), settings)  # type: ignore[arg-type]
    tables = SqliteTableStore(tmp_path / "tables.sqlite")
    agent = Agent(steps, Toolbox(builtin_tools()), Store(), tables, tmp_path / "agent.sqlite")  # type: ignore[arg-type]
    question = (
        "What government position was held by the woman who portrayed Corliss Archer in the "
        "film Kiss and Tell?"
    )
    answer, trace = ask(agent, question, "multihop")
    first = next(s for s in trace.steps if s.name == "evaluate")
    assert first.data["by"] == "code"
    assert first.data["searches"][0].startswith("Shirley Temple")
    assert "Chief of Protocol" in answer.text
    assert "/docs/Shirley_Temple.md" in {c.chunk.path for c in answer.citations}


def test_comparisons_search_each_thing_named() -> None:
    assert entity_searches("Were Scott Derrickson and Ed Wood of the same nationality?") == [
        "Scott Derrickson nationality",
        "Ed Wood nationality",
    ]


def test_every_step_is_an_event_in_order(tmp_path: Path) -> None:
    agent, _ = make_agent(
        tmp_path,
        [
            sql("SELECT SUM(freshwater_ducks) AS total FROM duck_observations"),
            "405 ducks in total [1].",
        ],
    )
    seen: list[str] = []
    trace = Trace(
        lambda event: seen.append(event.step.name) if isinstance(event, StepEvent) else None
    )
    question = "How many freshwater ducks were observed in total?"
    hits = agent.steps.retrieve(question, None, trace)
    agent.answer(Request(question), question, Route("aggregate", True, "test"), hits, trace)
    assert seen[:2] == ["retrieve", "plan"]
    assert seen.index("tool") < seen.index("critic") < seen.index("generate") < seen.index("verify")


@pytest.mark.parametrize("kind", ["lookup", "compare"])
def test_a_refusal_when_nothing_fits(tmp_path: Path, kind: str) -> None:
    agent, chat = make_agent(tmp_path, [])
    answer, _ = ask(agent, "zebra quantum", kind)
    assert answer.refused and not chat.asked


def test_an_answer_the_sources_do_not_state_does_not_stop_the_search(tmp_path: Path) -> None:
    claimed = {
        "answer": "Secretary of State",  # not written in the first passage: checked, rejected
        "found": "Shirley Temple",
        "next_search": "Shirley Temple government position",
    }
    agent, _ = make_agent(
        tmp_path,
        [
            json.dumps(claimed),
            json.dumps({"answer": "Chief of Protocol", "found": "", "next_search": ""}),
            "Shirley Temple served as Chief of Protocol [2].",
        ],
    )
    answer, trace = ask(
        agent, "What position did the woman who portrayed Corliss Archer hold?", "multihop"
    )
    searched = [s.data["query"] for s in trace.steps if s.name == "retrieve"]
    assert "Shirley Temple government position" in searched
    assert "Chief of Protocol" in answer.text


def test_an_answer_cites_the_passage_that_links_it_to_the_question() -> None:
    from polyrag.agent.grounding import with_chain
    from polyrag.answer.evidence import Evidence
    from polyrag.types import Answer, Citation

    film, temple = CHUNKS[1], CHUNKS[2]
    evidence = [Evidence(1, film, film.text), Evidence(2, temple, temple.text)]
    answer = Answer("q", "Chief of Protocol [2].", False, (Citation(2, temple),), "m", {})
    question = "What position was held by the woman who portrayed Corliss Archer in Kiss and Tell?"
    linked = with_chain(answer, evidence, question)
    assert [c.chunk.chunk_id for c in linked.citations] == ["s1", "k1"]
    unrelated = "What position did Shirley Temple hold?"  # the cited passage names it all
    assert with_chain(answer, evidence, unrelated).citations == answer.citations


def test_an_answer_cites_the_passage_its_description_comes_from() -> None:
    from polyrag.agent.grounding import with_coverage
    from polyrag.answer.evidence import Evidence
    from polyrag.types import Answer, Citation

    person = Chunk(
        "e1",
        "fateh",
        "/docs/Eenasul_Fateh.md",
        "Eenasul Fateh, known by his stage name Aladin, is a former consultant.",
        Locator(),
    )
    practice = Chunk(
        "m1",
        "consulting",
        "/docs/Management_consulting.md",
        "Management consulting is the practice of helping organizations to improve "
        "their performance.",
        Locator(),
    )
    other = Chunk("x1", "magic", "/docs/Magic.md", "Magicians improve with practice.", Locator())
    evidence = [Evidence(1, person, person.text), Evidence(2, other, other.text),
                Evidence(3, practice, practice.text)]  # fmt: skip
    answer = Answer("q", "Eenasul Fateh [1].", False, (Citation(1, person),), "m", {})
    question = (
        "Who was known by his stage name Aladin and helped organizations improve their "
        "performance as a consultant?"
    )
    described = with_coverage(answer, evidence, question)
    assert [c.chunk.chunk_id for c in described.citations] == ["e1", "m1"]
    covered = "Who was known by his stage name Aladin?"  # the cited passage says it all
    assert with_coverage(answer, evidence, covered).citations == answer.citations


def test_a_search_for_a_name_puts_the_page_titled_so_first() -> None:
    from polyrag.agent.steps import titled_first

    def hit(name: str, heading: str = "") -> Hit:
        locator = Locator(heading_path=(heading,)) if heading else Locator()
        return Hit(Chunk(name, name, f"/docs/{name}.md", "text", locator), 1.0)

    footballer, photographer = hit("Kenton_Richardson"), hit("Terry_Richardson")
    section = hit("notes", heading="Terry Richardson")
    found = titled_first("Terry Richardson", [footballer, section, photographer])
    assert [h.chunk.chunk_id for h in found] == ["notes", "Terry_Richardson", "Kenton_Richardson"]
    assert titled_first("Richardson", [footballer, photographer]) == [footballer, photographer]


def test_a_not_helpful_verdict_asks_back_and_the_reply_is_answered(tmp_path: Path) -> None:
    enough = json.dumps({"answer": "180 EUR", "found": "", "next_search": ""})
    agent, _ = make_agent(tmp_path, [enough, "The hotel cap is 180 EUR [1]."])
    first = Chunk("p1", "pol-a", "/docs/travel-policy-2023.md", "cap 150 EUR", Locator())
    unhelpful = replace(
        ask(agent, "zebra quantum", "lookup")[0],  # any answer will do: it is judged below
        question="What is the hotel cap?",
        citations=(Citation(1, first),),
    )
    trace = Trace(lambda _event: None)
    asked = agent.reconsider(Request("What is the hotel cap?"), unhelpful, trace)
    assert asked.clarify and "travel-policy-2023.md" in asked.clarify and asked.thread
    resumed, trace = ask(agent, "the 2024 policy", "lookup", thread=asked.thread)
    assert "180 EUR" in resumed.text
    assert steps_named(trace, "clarified") == ["the user answered: the 2024 policy"]


def test_queries_that_find_no_rows_lead_to_a_refusal_not_another_tool(tmp_path: Path) -> None:
    """The table has no 2018: every query finds nothing, no calculation stands in for it, and
    code refuses before a reply is written, since no source shown writes 2018. Where the
    question names no period, the reply is told that the queries found no rows."""
    no_rows = sql("SELECT freshwater_ducks FROM duck_observations WHERE year = '2018'")
    agent, chat = make_agent(
        tmp_path,
        [no_rows] * 2  # the same query after the feedback: not asked for a third time
        + [json.dumps({"answer": "", "found": "", "next_search": ""})]  # nothing else to search
        + ["150 freshwater ducks were observed in 2018 [1]."],
        tool_retries=2,
    )
    answer, trace = ask(agent, "How many freshwater ducks were observed in 2018?", "aggregate")
    assert steps_named(trace, "tool") == ["sql: no rows"] * 2
    assert answer.refused and answer.model_calls == 3
    assert steps_named(trace, "answered")[0].startswith("refused: the question asks about 2018")
    above = sql("SELECT year FROM duck_observations WHERE freshwater_ducks > 200")
    agent, chat = make_agent(
        tmp_path / "above",
        [above] * 2
        + [json.dumps({"answer": "", "found": "", "next_search": ""})]
        + ["No year had more than 200 freshwater ducks [1]."],
        tool_retries=2,
    )
    asked = "In which year were more than 200 freshwater ducks observed?"
    answer, trace = ask(agent, asked, "aggregate")
    assert steps_named(trace, "tool") == ["sql: no rows"] * 2
    assert "found no rows" in chat.asked[-1][0][-1].content


def test_a_failing_query_filtered_on_values_the_question_never_names_is_rerun_without(
    tmp_path: Path,
) -> None:
    """A small model copies example rows into the WHERE clause; code drops those conditions
    (no model call), keeps the first attempt in the trace and cites the cells summed."""
    agent, _chat = make_agent(
        tmp_path,
        [
            sql(
                "SELECT SUM(freshwater_ducks) FROM duck_observations "
                "WHERE year LIKE '2019' AND freshwater_ducks LIKE '120'"
            ),
            "In total 405 freshwater ducks were observed [1].",
        ],
    )
    answer, trace = ask(agent, "How many freshwater ducks were observed in total?", "aggregate")
    tools = steps_named(trace, "tool")
    assert tools[0].startswith("sql: failed") and tools[-1].endswith("= 405")
    assert any("names no value of" in s for s in steps_named(trace, "critic"))
    assert "405" in answer.text and answer.citations[0].chunk.locator.cells == "C5:C7"
    assert answer.model_calls == 2


def test_a_sum_over_rows_the_model_picked_by_number_is_taken_over_all_rows(
    tmp_path: Path,
) -> None:
    """The query runs and sums, but over rows chosen by numbers the question never says: code
    drops that filter before it runs (no model call) and says so in the trace."""
    agent, _chat = make_agent(
        tmp_path,
        [
            sql(
                "SELECT SUM(freshwater_ducks) FROM duck_observations "
                "WHERE freshwater_ducks IN (120, 135)"
            ),
            "In total 405 freshwater ducks were observed [1].",
        ],
    )
    answer, trace = ask(agent, "How many freshwater ducks were observed in total?", "aggregate")
    assert steps_named(trace, "tool")[-1].endswith("= 405")
    assert any("names no value of freshwater_ducks IN" in s for s in steps_named(trace, "critic"))
    assert "405" in answer.text and answer.model_calls == 2


def test_a_ranking_over_rows_picked_off_the_examples_is_ranked_over_all_by_code(
    tmp_path: Path,
) -> None:
    """ "In which year were the most ducks observed?" ranked over 2019 and 2020 only (copied off
    the example rows): code ranks every row (no model call) and says so in the trace."""
    agent, _chat = make_agent(
        tmp_path,
        [
            sql(
                "SELECT year FROM duck_observations WHERE year = '2019' OR year = '2020' "
                "ORDER BY freshwater_ducks DESC LIMIT 1"
            ),
            "The most freshwater ducks were observed in 2021 [1].",
        ],
    )
    question = "In which year were the most freshwater ducks observed?"
    answer, trace = ask(agent, question, "aggregate")
    assert steps_named(trace, "tool")[-1].startswith("sql: year = 2021")
    assert any("picked the answer before ranking" in s for s in steps_named(trace, "critic"))
    assert "2021" in answer.text and answer.model_calls == 2


def test_a_filter_the_question_names_is_never_dropped(tmp_path: Path) -> None:
    """2018 is asked for: the query that finds no 2018 row is not rerun over every year."""
    agent, _chat = make_agent(
        tmp_path,
        [sql("SELECT freshwater_ducks FROM duck_observations WHERE year = '2018'")] * 2
        + [json.dumps({"answer": "", "found": "", "next_search": ""})]
        + ["I cannot find this."],
        tool_retries=2,
    )
    _answer, trace = ask(agent, "How many freshwater ducks were observed in 2018?", "aggregate")
    assert steps_named(trace, "tool") == ["sql: no rows"] * 2
    assert not any("names no value" in s for s in steps_named(trace, "critic"))


def test_a_query_plainly_off_is_repaired_by_code_before_it_runs(tmp_path: Path) -> None:
    """An idle join multiplies rows and COUNT counts them; code drops the join and adds the
    column up, and says so in the trace."""
    agent, _chat = make_agent(
        tmp_path,
        [
            sql(
                "SELECT COUNT(T1.freshwater_ducks) FROM duck_observations AS T1 "
                "JOIN duck_observations AS T2 ON T1.year = '2021'"
            ),
            "150 freshwater ducks were observed in 2021 [1].",
        ],
    )
    answer, trace = ask(agent, "How many freshwater ducks were observed in 2021?", "aggregate")
    assert steps_named(trace, "tool") == ["sql: sum(T1.freshwater_ducks) = 150"]
    (repair,) = [s for s in steps_named(trace, "critic") if s.startswith("repair")]
    assert "dropped the join" in repair and "added up freshwater_ducks" in repair
    assert answer.citations[0].chunk.locator.cells == "B7:C7"  # the year and its count


def test_a_term_the_sources_never_write_is_asked_about_and_the_reply_resumes(
    tmp_path: Path,
) -> None:
    agent, chat = make_agent(tmp_path, [])
    paused, trace = ask(agent, "How many FWD were observed in 2020?", "lookup")
    assert paused.clarify is not None and "'FWD'" in paused.clarify and paused.thread
    assert not chat.asked  # asked back before any model call
    (step,) = [s for s in trace.steps if s.name == "clarify"]
    assert step.data["term"] == "FWD"
    agent.close()

    enough = json.dumps({"answer": "135", "found": "", "next_search": ""})
    again, chat = make_agent(tmp_path, [enough, "In 2020, 135 freshwater ducks were seen [1]."])
    resumed, _ = ask(again, "freshwater ducks", "lookup", thread=paused.thread)
    assert "135" in resumed.text and resumed.clarify is None and not resumed.refused
    assert "How many freshwater ducks were observed in 2020?" in chat.asked[-1][0][-1].content


def test_a_term_the_sources_write_is_not_asked_about(tmp_path: Path) -> None:
    hotel = json.dumps({"answer": "180 EUR", "found": "", "next_search": ""})
    agent, _ = make_agent(tmp_path, [hotel, "The hotel cap is 180 EUR [1]."])
    answer, trace = ask(agent, "What is the hotel cap in EUR in the 2024 travel policy?", "lookup")
    assert answer.clarify is None and not steps_named(trace, "clarify")


def test_a_computed_answer_states_the_calculators_result() -> None:
    from polyrag.agent.grounding import derived, with_result
    from polyrag.agent.tools.base import ToolOutcome
    from polyrag.answer.evidence import Evidence
    from polyrag.types import NOT_SUPPORTED, Answer, Citation

    table = "| | 2019 | 2018 |\n| Discount rate | 4.00% | 3.75% |"
    rates = Chunk("r1", "rates", "/docs/rates.md", table, Locator())
    formula = "(4 − 3.75) ÷ 3.75 × 100 = 6.67"
    outcome = ToolOutcome("calculator", {}, True, formula, backing=(rates,), formula=formula)
    calculation = replace(derived(outcome), n=2)
    evidence = [Evidence(1, rates, rates.text), calculation]
    question = "What is the percentage change in the discount rate from 2018 to 2019?"

    # The model gave the difference it was computed from: code writes the result instead.
    redone = Answer("q", "The change is 0.25% [1].", False, (Citation(1, rates),), "m", {})
    fixed = with_result(redone, evidence, question)
    assert fixed.text == "6.67%, computed as (4 − 3.75) ÷ 3.75 × 100 [2]."
    assert [c.chunk.chunk_id for c in fixed.citations] == ["r1"]
    # A reply that states the result, rounded as people do, stands.
    stated = replace(redone, text="The rate rose by 6.7% [2].")
    assert with_result(stated, evidence, question) is stated
    # A reply withdrawn as unsupported gives way to the accepted calculation.
    withdrawn = replace(redone, text="", refused=True, refusal_reason=NOT_SUPPORTED)
    assert not with_result(withdrawn, evidence, question).refused
    # Without a calculation, nothing changes.
    assert with_result(redone, evidence[:1], question) is redone
    # Nor for a year no passage writes ("How much did it grow in the year 2000?" over a
    # passage on the 2000s): the accepted calculation is about other years.
    elsewhen = question.replace("from 2018 to 2019", "in 2017")
    assert with_result(withdrawn, evidence, elsewhen) is withdrawn


def test_a_reply_names_the_rows_the_query_picked() -> None:
    """The query ranks teams by their tickets and keeps the two tied first; a reply naming
    one of them is written by code with both, and one naming both stands."""
    from polyrag.agent.grounding import derived, with_rows_picked
    from polyrag.agent.tools.base import ToolOutcome
    from polyrag.answer.evidence import Evidence
    from polyrag.types import Answer, Citation

    rows = next(c for c in CHUNKS if c.chunk_id == "w1")
    query = (
        "(query: SELECT team, COUNT(*) AS tickets FROM t GROUP BY team "
        "ORDER BY tickets DESC LIMIT 1; cells: E2:E8)"
    )
    result = f"team = Desktop, tickets = 3\nteam = Network, tickets = 3\n{query}"
    outcome = ToolOutcome("sql", {}, True, result, backing=(rows,))
    evidence = [Evidence(1, rows, rows.text), replace(derived(outcome), n=2)]
    question = "Which team has the most tickets?"
    one = Answer("q", "Desktop has the most tickets, 3 [2].", False, (Citation(2, rows),), "m", {})
    fixed = with_rows_picked(one, evidence, question)
    assert fixed.text == (
        "Desktop and Network tie, with 3 (tickets) each, computed with SQL from the cited rows [2]."
    )
    both = replace(one, text="Desktop and Network have 3 tickets each [2].")
    assert with_rows_picked(both, evidence, question) is both
    # A ranking without a limit picks the rows tied with its first (Desktop alone); a question
    # that ranks nothing leaves the reply alone.
    listing = result.replace("Network, tickets = 3", "Network, tickets = 2").replace(" LIMIT 1", "")
    listed = [evidence[0], replace(derived(replace(outcome, result=listing)), n=2)]
    assert with_rows_picked(one, listed, question) is one
    assert with_rows_picked(one, evidence, "How many tickets does each team have?") is one
    # The one row a condition kept: "HR" named where the query found IT alone.
    fewer = (
        "department = IT, y2024 = 280\n(query: SELECT department, y2024 FROM t "
        "WHERE y2024 < y2023; cells: A3:C3)"
    )
    kept = [evidence[0], replace(derived(replace(outcome, result=fewer)), n=2)]
    asked = "Which department had fewer training hours in 2024 than in 2023?"
    hr = replace(one, text="HR had fewer training hours in 2024 than in 2023 [1].")
    assert with_rows_picked(hr, kept, asked).text == (
        "IT (y2024 = 280), computed with SQL from the cited rows [2]."
    )
    it = replace(one, text="IT had fewer training hours in 2024 [2].")
    assert with_rows_picked(it, kept, asked) is it
    # "it" is not the acronym, and a column the question does not name is not its answer.
    lower = replace(one, text="HR had fewer; it fell [1].")
    assert with_rows_picked(lower, kept, asked) is not lower
    assert with_rows_picked(hr, kept, "Which year had fewer hours than 2023?") is hr
    # Row labels under no header answer any ranking: "Which zone had the lowest sales?"
    lowest = (
        "column_1 = Zone GC\n(query: SELECT column_1 FROM t WHERE sales = "
        "(SELECT MIN(sales) FROM t); cells: A13:B13)"
    )
    zones = [evidence[0], replace(derived(replace(outcome, result=lowest)), n=2)]
    latam = replace(one, text="Zone LATAM had the lowest sales [1].")
    written = with_rows_picked(latam, zones, "Which zone had the lowest sales?").text
    assert written == "Zone GC, computed with SQL from the cited rows [2]."
    # A chart's categories are the periods asked for: "In which quarter …" names Q3.
    highest = (
        "category = Q3, y2026 = 30\n(query: SELECT category, y2026 FROM t WHERE y2026 = "
        "(SELECT MAX(y2026) FROM t); cells: slide 2, row 4)"
    )
    charted = [evidence[0], replace(derived(replace(outcome, result=highest)), n=2)]
    year = replace(one, text="In the quarter of 2026, revenue was highest at 30 [2].")
    asked = "In which quarter was revenue highest?"
    assert with_rows_picked(year, charted, asked).text == (
        "Q3 (y2026 = 30), computed with SQL from the cited rows [2]."
    )
    assert with_rows_picked(year, charted, "In which region was revenue highest?") is year
    # The options the question writes out name the column: "state_territory" is no word of
    # "Of Vermont, Rhode Island and Wyoming, which had the most checks?"
    most = (
        "state_territory = Wyoming, sum(totals) = 5017\n(query: SELECT state_territory FROM t "
        "WHERE state_territory IN ('Vermont', 'Rhode Island', 'Wyoming') GROUP BY "
        "state_territory ORDER BY SUM(totals) DESC LIMIT 1; cells: page 1, rows 44-56)"
    )
    states = [evidence[0], replace(derived(replace(outcome, result=most)), n=2)]
    options = "Of Vermont, Rhode Island and Wyoming, which had the most checks in total?"
    island = replace(one, text="Rhode Island had the most checks, with 3,136. [1]")
    assert with_rows_picked(island, states, options).text == (
        "Wyoming (sum(totals) = 5017), computed with SQL from the cited rows [2]."
    )
    assert with_rows_picked(island, states, "Which had the most checks?") is island


def test_a_computed_answer_states_the_one_figure_a_query_gave() -> None:
    from polyrag.agent.grounding import derived, with_result
    from polyrag.agent.tools.base import ToolOutcome
    from polyrag.answer.evidence import Evidence
    from polyrag.types import Answer, Citation

    rows = next(c for c in CHUNKS if c.chunk_id == "w1")
    query = "(query: SELECT SUM(...) - SUM(...) AS revenue_difference FROM sales; cells: A2:B5)"
    outcome = ToolOutcome("sql", {}, True, f"revenue_difference = 1000\n{query}", backing=(rows,))
    evidence = [Evidence(1, rows, rows.text), replace(derived(outcome), n=2)]
    question = "How much more revenue did Widget C make than Widget D?"

    # The model subtracted two single sales instead: code writes the query's figure.
    redone = Answer("q", "Widget C made 5000 more [1].", False, (Citation(1, rows),), "m", {})
    fixed = with_result(redone, evidence, question)
    assert fixed.text == ("1000 (revenue_difference), computed with SQL from the cited rows [2].")
    assert [c.chunk.chunk_id for c in fixed.citations] == ["w1"]
    stated = replace(redone, text="Widget C made 1,000 more [2].")
    assert with_result(stated, evidence, question) is stated
    # A query giving rows (a figure per widget) leaves the reply to say what they mean.
    per_widget = "product = Widget C, total = 18000\nproduct = Widget D, total = 17000\n" + query
    outcome = replace(outcome, result=per_widget)
    rows_given = [evidence[0], replace(derived(outcome), n=2)]
    assert with_result(redone, rows_given, question) is redone


def test_a_question_that_picks_something_keeps_its_reply() -> None:
    from polyrag.agent.grounding import derived, with_result
    from polyrag.agent.tools.base import ToolOutcome
    from polyrag.answer.evidence import Evidence
    from polyrag.types import Answer, Citation

    costs = Chunk("a1", "costs", "/docs/costs.md", "| Acquisition costs | 30 | 14 |", Locator())
    outcome = ToolOutcome("calculator", {}, True, "30 − 14 = 16", backing=(costs,),
                          formula="30 − 14 = 16")  # fmt: skip
    evidence = [Evidence(1, costs, costs.text), replace(derived(outcome), n=2)]
    reply = Answer("q", "2019 [1].", False, (Citation(1, costs),), "m", {})
    for question in ("In which year were acquisition costs larger?", "Were costs larger in 2019?"):
        assert with_result(reply, evidence, question) is reply
    assert with_result(reply, evidence, "By how much did costs change?") is not reply


def test_a_code_repair_that_fails_is_traced_and_the_query_as_written_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from polyrag.agent import critic

    broken = ("SELECT SUM(nothing) FROM nowhere", "year")  # an injected, failing repair
    monkeypatch.setattr(critic, "totals_per_label", lambda query, repeats, question="": broken)
    agent, _ = make_agent(
        tmp_path,
        [
            sql("SELECT SUM(freshwater_ducks) AS total FROM duck_observations"),
            "405 freshwater ducks were observed [1].",
        ],
    )
    answer, trace = ask(agent, "How many freshwater ducks were observed in total?", "aggregate")
    (failed,) = [s for s in trace.steps if s.data.get("verdict") == "repair failed"]
    assert "unknown table 'nowhere'" in failed.summary and "as written runs" in failed.summary
    assert steps_named(trace, "tool") == ["sql: total = 405"] and "405" in answer.text


def test_who_is_older_is_decided_by_code_from_the_birth_dates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tests.unit.test_agent_graph as here

    people = [
        Chunk("m1", "morton", "/docs/Annie_Morton.md",
              "Annie Morton (born October 8, 1970) is an American model photographed by "
              "Terry Richardson.", Locator()),
        Chunk("r1", "richardson", "/docs/Terry_Richardson.md",
              'Terrence "Uncle Terry" Richardson (born August 14, 1965) is an American '
              "photographer.", Locator()),
    ]  # fmt: skip
    monkeypatch.setattr(here, "CHUNKS", [*CHUNKS, *people])
    agent, chat = make_agent(tmp_path, [])
    for question, name in (
        ("Who is older, Annie Morton or Terry Richardson?", "Terry Richardson is older"),
        ("Who is younger, Annie Morton or Terry Richardson?", "Annie Morton is younger"),
    ):
        answer, trace = ask(agent, question, "compare")
        assert answer.text.startswith(name), answer.text
        assert {c.chunk.chunk_id for c in answer.citations} == {"m1", "r1"}
        assert steps_named(trace, "compare") and answer.provider == "code"
    assert not chat.asked  # no model call: the dates decide


def test_a_birth_is_read_right_after_the_name() -> None:
    from polyrag.agent.questions import birth, older_by_dates

    film = "Glen or Glenda was directed by Ed Wood and released in 1953 (a low-budget film)."
    wood = "Edward Davis Wood Jr. (October 10, 1924 – December 10, 1978) was a filmmaker."
    assert birth("Ed Wood", [film, wood]) is not None
    assert birth("Ed Wood", [film, wood]).written == "October 10, 1924"  # type: ignore[union-attr]
    assert birth("Ed Wood", [film]) is None  # 1953 is a film's year, not his birth
    same_year = ["Ann Lee (born 1970) sings.", "Bo Ray (born 1970) plays."]
    assert older_by_dates("Who is older, Ann Lee or Bo Ray?", same_year) is None
    assert older_by_dates("Who sang first, Ann Lee or Bo Ray?", same_year) is None


def test_a_calculation_may_use_the_rows_of_a_long_table_the_model_was_shown(
    tmp_path: Path,
) -> None:
    """The model is shown a statement's rows from all its chunks; the operands it copies from
    a row that retrieval did not return itself are numbers of the sources all the same."""
    title = "Table 8: Consolidated Balance Sheets"
    parts = [
        "Row 2: Cash — 2016: 400, 2015: 300\nRow 3: Total current assets — 2016: 1,001, 2015: 705",
        "Row 4: Goodwill — 2016: 90, 2015: 80\nRow 5: Total assets — 2016: 1,211, 2015: 894",
        "Row 6: Total current liabilities — 2016: 577, 2015: 334\n"
        "Row 7: Total liabilities — 2016: 635, 2015: 386",
    ]
    where = Locator(page=68)
    statement = [
        Chunk(f"b{i}", "bs", "/docs/10k.pdf", f"{title}\n{text}", where, Modality.TABLE, i, 0)
        for i, text in enumerate(parts, start=1)
    ]

    class StatementRetriever:  # retrieval returns the last chunk only
        def search(
            self, query: str, k: int | None = None, where: Filter | None = None, mode: str = ""
        ) -> RetrievalResult:
            return RetrievalResult([Hit(statement[2], 1.0, 1, 1, 0.6)])

    def parents(source_id: str, ordinals: Sequence[int]) -> list[Chunk]:
        return [c for c in statement if c.ordinal in set(ordinals)]

    chat = Replies(
        [
            json.dumps({"expression": "1001 / 577"}),
            "The working capital ratio is 1.73 [1].",
        ]
    )
    settings = Settings(home=tmp_path, answer={"min_similarity": 0.1})
    retriever = StatementRetriever()
    steps = Steps(retriever, FallbackChain([chat]), settings, parents=parents)  # type: ignore[arg-type]
    tables = SqliteTableStore(tmp_path / "tables.sqlite")
    database = tmp_path / "agent.sqlite"
    agent = Agent(steps, Toolbox(builtin_tools()), Store(), tables, database)  # type: ignore[arg-type]
    question = (
        "What is the 2016 working capital ratio: total current assets divided by total current "
        "liabilities?"
    )
    answer, trace = ask(agent, question, "compute")
    shown = chat.asked[0][0][-1].content
    assert "Total current assets — 2016: 1,001" in shown  # a row of another chunk
    assert steps_named(trace, "tool")[0].startswith("calculator: 1001 ÷ 577 = 1.73")
    assert steps_named(trace, "critic")[0].startswith("accept")
    assert "1.73" in answer.text  # type: ignore[attr-defined]


def test_a_difference_between_things_of_several_rows_each_is_added_up_by_sql(
    tmp_path: Path,
) -> None:
    """Widget C and Widget D each stand in several rows of single sales: the calculator would
    take one row of each; SQL adds each one's rows up first."""
    agent, _chat = make_agent(
        tmp_path,
        [
            sql(
                "SELECT product, SUM(revenue) AS total FROM sales "
                "WHERE product IN ('Widget C', 'Widget D') GROUP BY product ORDER BY product"
            ),
            "Widget C made 1000 more revenue than Widget D [1].",
        ],
    )
    agent.calls.table_store.put("sales", "/docs/sales.xlsx", [SALES])
    question = "How much more revenue did Widget C make than Widget D?"
    answer, trace = ask(agent, question, "compute")
    assert steps_named(trace, "evaluate")[0] == "needs a tool: sql"
    assert "calculator" not in " ".join(steps_named(trace, "tool"))
    assert not answer.refused and "1000" in answer.text
    # Years that each stand in one row: no sums per year; code reads the two rows' figures.
    agent, _chat = make_agent(tmp_path / "years", ["The count rose by 15 [1]."])
    question = "How much did the number of freshwater ducks change from 2019 to 2020?"
    answer, trace = ask(agent, question, "compute")
    assert steps_named(trace, "evaluate")[0] == "needs a tool: change"
    assert steps_named(trace, "tool")[0].startswith("change: 15")


def test_a_difference_between_two_named_rows_is_taken_by_code_from_those_rows(
    tmp_path: Path,
) -> None:
    """The model misread Indiana's total (129190 for 130,333) twice: code takes the two rows the
    question names under the column it names, in the question's order, and says so."""
    agent, _chat = make_agent(
        tmp_path,
        [
            json.dumps({"expression": "129861 - 129190"}),
            "The difference between the totals of Indiana and Illinois is 472 [1].",
        ],
    )
    question = "What was the difference between the totals of Indiana and Illinois?"
    answer, trace = ask(agent, question, "compute")
    tools = steps_named(trace, "tool")
    assert tools[0].startswith("calculator: failed") and "472" in tools[-1]
    assert any("Totals of Indiana and Illinois" in s for s in steps_named(trace, "critic"))
    assert "472" in answer.text and answer.model_calls == 2


def test_the_items_of_a_list_are_counted_by_code(tmp_path: Path) -> None:
    agent, _chat = make_agent(tmp_path, ["Seven reportable symptoms are listed [1]."])
    question = "How many suggested reportable symptoms are listed in the reporting procedure?"
    answer, trace = ask(agent, question, "aggregate")
    assert not answer.refused
    assert answer.text.startswith("8: the list 'Suggested Reportable Symptoms' has 8 items")
    assert [c.chunk.chunk_id for c in answer.citations] == ["l1"]
    assert any(s.startswith("count: 8") for s in steps_named(trace, "tool"))
    assert answer.model_calls == 1  # the count took no model decision
    # A count the list does not answer ("how many hours") is left to the other tools.
    assert lists.count_list("How many hours are given to report?", CHUNKS) is None


SEGMENT_PROFIT = Chunk(
    "s1", "lmt", "/docs/lmt-2021.pdf",
    "Table 7: 2021, 2020\nRow 2: Deliveries\n"
    "Row 3: Missiles and Fire Control — 2021: 11,693, 2020: 11,257\n"
    "Row 4: Space — 2021: 11,814, 2020: 11,880\nRow 5: Operating profit\n"
    "Row 6: Missiles and Fire Control — 2021: 1,648, 2020: 1,545\n"
    "Row 7: Space — 2021: 1,134, 2020: 1,149",
    Locator(page=42), Modality.TABLE,
)  # fmt: skip


def test_the_rows_a_question_names_are_added_up_by_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(f"{__name__}.CHUNKS", [*CHUNKS, SEGMENT_PROFIT])
    agent, _chat = make_agent(tmp_path, ["The combined operating profit was 2,700 [1]."])
    question = (
        "What was the combined 2021 operating profit of the Missiles and Fire Control and Space "
        "segments?"
    )
    answer, trace = ask(agent, question, "aggregate")
    assert steps_named(trace, "evaluate")[0] == "needs a tool: sum"
    assert steps_named(trace, "tool")[0].startswith("sum: 2,782")
    assert not answer.refused
    assert answer.text.startswith("2,782, computed as 1,648 + 1,134")  # type: ignore[attr-defined]
    assert [c.chunk.chunk_id for c in answer.citations] == ["s1"]  # type: ignore[attr-defined]
    assert answer.model_calls == 1  # the sum took no model decision  # type: ignore[attr-defined]


def test_a_rows_change_between_two_years_is_computed_by_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(f"{__name__}.CHUNKS", [*CHUNKS, SEGMENT_PROFIT])
    agent, _chat = make_agent(tmp_path, ["Space's deliveries fell by 31 [1]."])
    question = "How much did the Space deliveries change from 2020 to 2021?"
    answer, trace = ask(agent, question, "compute")
    assert steps_named(trace, "evaluate")[0] == "needs a tool: change"
    assert steps_named(trace, "tool")[0].startswith("change: -66")
    assert answer.text.startswith("-66, computed as 11,814 − 11,880")  # type: ignore[attr-defined]
    assert [c.chunk.chunk_id for c in answer.citations] == ["s1"]  # type: ignore[attr-defined]
    assert answer.model_calls == 1  # the change took no model decision  # type: ignore[attr-defined]
