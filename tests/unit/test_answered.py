"""The check that a looked-up answer's passages answer the question as asked, driven by a
scripted model that says how much of its probability goes to "no"."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from polyrag.agent.answers import Request
from polyrag.agent.fast import answer_fast
from polyrag.agent.steps import Steps
from polyrag.agent.trace import Trace
from polyrag.answer.evidence import Evidence
from polyrag.answer.resting import resting_sentence
from polyrag.answer.verify import Verdict
from polyrag.errors import ProviderUnavailableError
from polyrag.llm.base import GenerationOptions, Message
from polyrag.llm.fallback import FallbackChain
from polyrag.settings import Settings
from polyrag.types import NOT_ANSWERED, Answer, Citation
from tests.unit.replies import Replies
from tests.unit.test_agent_graph import CHUNKS, WordRetriever, ask, make_agent

TEMPLE = "Who served as Chief of Protocol of the United States?"
REPLY = "Shirley Temple served as Chief of Protocol [1]."


def fast(tmp_path: Path, chat: Replies, question: str, **answer: object) -> tuple[Answer, Trace]:
    settings = Settings(home=tmp_path, answer={"min_similarity": 0.1, **answer})
    steps = Steps(WordRetriever(), FallbackChain([chat]), settings)
    trace = Trace(lambda _event: None)
    return answer_fast(steps, Request(question), question, trace), trace


def checked(trace: Trace) -> list[str]:
    return [s.summary for s in trace.steps if s.name == "answered"]


def test_an_answer_the_passages_give_to_the_question_as_asked_stands(tmp_path: Path) -> None:
    chat = Replies([REPLY], doubts=[0.05])
    answer, trace = fast(tmp_path, chat, TEMPLE)
    assert not answer.refused and "Shirley Temple" in answer.text
    assert answer.model_calls == 2  # the reply and the check
    assert (
        "the sentence the reply rests on answers the question as asked (no: 0.05"
        in (checked(trace)[0])
    )
    # The model is shown the sentence the reply rests on with its file name, and the question;
    # nothing else.
    assert "(from Shirley_Temple.md): Shirley Temple served as Chief of Protocol" in chat.weighed[0]
    assert TEMPLE in chat.weighed[0] and "ducks" not in chat.weighed[0].lower()
    (step,) = [s for s in trace.steps if s.name == "answered"]
    assert (
        step.data["weighed"] == "Shirley Temple served as Chief of Protocol of the United States."
    )


def test_a_plausible_answer_to_another_question_is_withdrawn(tmp_path: Path) -> None:
    """The passage names a Chief of Protocol, not a Chief of Staff: the model's reply is
    plausible and its words are in the passage, so only the check can catch it."""
    question = "Who served as the chief of staff of the United States?"
    chat = Replies(["Shirley Temple served as Chief of Protocol of the United States [1]."])
    chat.doubts = [0.45]
    answer, trace = fast(tmp_path, chat, question)
    assert answer.refused and answer.refusal_reason == NOT_ANSWERED
    assert "does not answer" in checked(trace)[0] and "refused from 0.38" in checked(trace)[0]


def test_the_sentence_a_reply_rests_on_is_the_one_holding_what_it_adds_to_the_question() -> None:
    passage = (
        "The abbey was founded in 1120. Its first abbot was Odo of Metz. "
        "He enlarged the church in 1150. The abbey was dissolved in 1790."
    )
    question = "Who enlarged the abbey church?"
    # "Odo" is in the reply, not in the question: the sentence naming him is found, and the
    # one that follows it ("He enlarged…") is not, as it holds no word the reply adds.
    sentence = resting_sentence("Odo of Metz enlarged the church.", question, passage)
    assert sentence == "The abbey was founded in 1120. Its first abbot was Odo of Metz."
    # A reply that adds a year: the sentence with that year, after the one before it.
    question = "When was the church enlarged?"
    sentence = resting_sentence("It was enlarged in 1150.", question, passage)
    assert sentence == "Its first abbot was Odo of Metz. He enlarged the church in 1150."
    # Nothing added: the sentence sharing the most of the question's words.
    assert resting_sentence("", "When was it dissolved?", passage).endswith("dissolved in 1790.")
    # A line of a list or table is not a sentence: it means nothing without its neighbours.
    career = "Senior career\n1993–1996 Leicester City 100 (41)\n1997–2004 Norwich City 278 (84)"
    question = "For which club did Iwan Roberts make 278 appearances?"
    assert resting_sentence("Norwich City [1].", question, career) is None
    assert resting_sentence("Odo.", "Who?", "") is None


def test_a_reply_resting_on_several_passages_is_weighed_against_them_all(tmp_path: Path) -> None:
    chat = Replies([], doubts=[0.05])
    steps = Steps(WordRetriever(), FallbackChain([chat]), Settings(home=tmp_path))
    evidence = [Evidence(n, chunk, chunk.text) for n, chunk in enumerate(CHUNKS[1:3], start=1)]
    reply = "Shirley Temple played Corliss Archer [1] and served as Chief of Protocol [2]."
    cited = tuple(Citation(e.n, e.chunk) for e in evidence)
    verdict = Verdict(reply, False, "answered", cited)
    question = "What position did the actress who played Corliss Archer hold?"
    weighed = steps.answered(question, verdict, evidence, Trace(lambda _event: None))
    assert weighed == verdict
    assert "(Kiss_and_Tell.md) Kiss and Tell is a 1945 film" in chat.weighed[0]
    assert "(Shirley_Temple.md) Shirley Temple served" in chat.weighed[0]


def test_the_threshold_is_a_setting_and_zero_turns_the_check_off(tmp_path: Path) -> None:
    answer, trace = fast(tmp_path, Replies([REPLY], doubts=[0.45]), TEMPLE, unanswered_at=0.5)
    assert not answer.refused
    answer, trace = fast(tmp_path, Replies([REPLY], doubts=[0.99]), TEMPLE, unanswered_at=0)
    assert not answer.refused and checked(trace) == []
    assert answer.model_calls == 1


def test_a_yes_no_question_is_not_weighed(tmp_path: Path) -> None:
    """ "no" could be the answer itself, not a verdict on the passages."""
    question = "Did Shirley Temple serve as Chief of Protocol?"
    chat = Replies(["Yes, Shirley Temple served as Chief of Protocol [1]."], doubts=[0.9])
    answer, trace = fast(tmp_path, chat, question)
    assert not answer.refused and checked(trace) == [] and chat.weighed == []


def test_a_table_lookup_is_left_to_code(tmp_path: Path) -> None:
    chat = Replies(["In 2020, 135 freshwater ducks were observed [1]."], doubts=[0.9])
    answer, _ = fast(tmp_path, chat, "How many freshwater ducks were observed in 2020?")
    assert not answer.refused and chat.weighed == []


def test_without_a_model_to_weigh_the_answer_stands_and_the_trace_says_so(
    tmp_path: Path,
) -> None:
    class Failing(Replies):
        def weigh(self, messages: Sequence[Message], choices: Sequence[str]) -> dict[str, float]:
            raise ProviderUnavailableError("scripted: the model stopped")

    answer, trace = fast(tmp_path, Failing([REPLY]), TEMPLE)
    assert not answer.refused
    (summary,) = checked(trace)
    assert summary.startswith("not checked: no language model weighed the choices — scripted")


class Picker:
    """A remote-like model: no `weigh`, it answers a choice as JSON."""

    name = "remote"

    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.options: list[GenerationOptions] = []
        self.asked: list[list[Message]] = []

    def stream(self, messages: Sequence[Message], options: GenerationOptions) -> Iterator[str]:
        self.options.append(options)
        self.asked.append(list(messages))
        yield self.reply

    def healthy(self) -> bool:
        return True

    def count_tokens(self, text: str) -> int:
        return len(text.split())


@pytest.mark.parametrize(("reply", "no"), [('{"answer": "no"}', 1.0), ('{"answer": "yes"}', 0.0)])
def test_a_model_that_cannot_weigh_picks_one_choice_under_a_schema(reply: str, no: float) -> None:
    picker = Picker(reply)
    shares, provider = FallbackChain([picker]).weigh([Message("user", "?")], ("yes", "no"))
    assert (shares["no"], provider) == (no, "remote")
    assert picker.asked[0][-1].content.endswith(
        'Reply as JSON: {"answer": "yes"} or {"answer": "no"}'
    )
    schema = picker.options[0].json_schema
    assert schema is not None and schema["properties"]["answer"]["enum"] == ["yes", "no"]


def test_a_choice_outside_the_list_moves_on_to_the_next_provider() -> None:
    chain = FallbackChain([Picker('{"answer": "maybe"}'), Replies([], doubts=[0.3])])
    shares, provider = chain.weigh([Message("user", "?")], ("yes", "no"))
    assert (shares["no"], provider) == (0.3, "scripted")


def test_the_agent_leaves_a_chain_of_passages_unweighed(tmp_path: Path) -> None:
    """No single passage answers a two-hop question as asked (the one about Shirley Temple
    never names Corliss Archer), so the check would take back a right answer."""
    more = {"answer": "", "found": "Shirley Temple", "next_search": "Shirley Temple position"}
    done = {"answer": "Chief of Protocol", "found": "", "next_search": ""}
    replies = [
        json.dumps(more),
        json.dumps(done),
        "Shirley Temple served as Chief of Protocol [2].",
    ]
    agent, chat = make_agent(tmp_path / "hops", replies)
    chat.doubts = [0.9]
    question = "What position did the woman who portrayed Corliss Archer hold?"
    answer, trace = ask(agent, question, "multihop")
    assert not answer.refused and chat.weighed == [] and not checked(trace)  # type: ignore[attr-defined]

    # Routed as a lookup, the same reply is weighed only if it rests on one document: the
    # chain's first passage is cited, so it is not.
    reply = "Shirley Temple played Corliss Archer [1] and served as Chief of Protocol [2]."
    replies = [json.dumps(more), json.dumps(done), reply]
    agent, chat = make_agent(tmp_path / "lookup", replies)
    chat.doubts = [0.9]
    answer, trace = ask(agent, question, "lookup")
    assert not answer.refused, answer.text  # type: ignore[attr-defined]
    assert len({c.chunk.path for c in answer.citations}) == 2  # type: ignore[attr-defined]
    assert chat.weighed == [] and not checked(trace)


def test_a_multi_hop_reply_resting_on_one_document_gets_the_checks_code_makes(
    tmp_path: Path,
) -> None:
    """A question routed as multi-hop or comparing is not weighed by the model, but its reply,
    resting on one document, still meets the checks code makes: "a more specific question"
    answered from the sentence about a more general one (SQuAD 2.0) was let through."""
    found = {"answer": "Shirley Temple", "found": "", "next_search": ""}
    question = "Who served as Chief of Protocol of the United States on the MK2?"
    agent, chat = make_agent(tmp_path / "code", [json.dumps(found), REPLY])
    chat.doubts = [0.9]
    answer, trace = ask(agent, question, "multihop")
    assert answer.refused and answer.refusal_reason == NOT_ANSWERED  # type: ignore[attr-defined]
    assert checked(trace) == ["refused: the question names 'MK2', which no passage shown writes"]
    assert chat.weighed == []
    agent, chat = make_agent(tmp_path / "written", [json.dumps(found), REPLY])
    chat.doubts = [0.9]
    answer, trace = ask(agent, TEMPLE, "multihop")
    assert not answer.refused and chat.weighed == [] and not checked(trace)  # type: ignore[attr-defined]


@pytest.mark.parametrize(("doubt", "refused"), [(0.9, True), (0.05, False)])
def test_the_agent_weighs_a_lookup_that_rests_on_one_document(
    tmp_path: Path, doubt: float, refused: bool
) -> None:
    """The graph's evaluation lets through a plausible answer to a question its passage does
    not answer (SQuAD 2.0: 2 of 31 unanswerable questions refused), so a lookup resting on
    one document gets the fast path's check."""
    found = {"answer": "Shirley Temple", "found": "", "next_search": ""}
    agent, chat = make_agent(tmp_path, [json.dumps(found), REPLY])
    chat.doubts = [doubt]
    answer, trace = ask(agent, TEMPLE, "lookup")
    assert answer.refused is refused  # type: ignore[attr-defined]
    assert "Shirley_Temple.md" in chat.weighed[0] and TEMPLE in chat.weighed[0]
    (summary,) = checked(trace)
    assert ("does not answer" in summary) is refused
    # The answer's own record includes the check and its model call.
    assert "answered" in [s.name for s in answer.steps]  # type: ignore[attr-defined]
    assert answer.model_calls == trace.model_calls  # type: ignore[attr-defined]
    if refused:
        assert answer.refusal_reason == NOT_ANSWERED  # type: ignore[attr-defined]


def test_a_lookup_from_table_rows_the_question_names_none_of_is_refused(tmp_path: Path) -> None:
    """ "How common is headache?" over the row of another reaction: the model restated the
    question with that row's figure. Checked by code, without a model call; a row named by
    its word or its number ("with 6 g"), and a reply listing rows, stand."""
    from polyrag.types import Chunk, Locator, Modality

    steps = Steps(WordRetriever(), FallbackChain([Replies([])]), Settings(home=tmp_path))
    row = "Row 31: System organ class is Gamma-glutamyltransferase increased, VTEt is Common"
    chunk = Chunk("t1", "s1", "/docs/leaflet.pdf", row, Locator(page=1), Modality.TABLE)
    evidence = [Evidence(1, chunk, row)]
    verdict = Verdict(
        "Headache is Common in DVT patients [1].", False, "answered", (Citation(1, chunk),)
    )
    trace = Trace(lambda _event: None)
    refused = steps.answered("How common is headache in DVT patients?", verdict, evidence, trace)
    assert refused.refused and refused.reason == NOT_ANSWERED
    assert "none the question names (Gamma-glutamyltransferase increased)" in checked(trace)[0]
    # Asked yes or no, "no" may be the answer: left to the reply.
    denied = Verdict("No, headache is not listed [1].", False, "answered", verdict.citations)
    asked_yes_no = "Is headache listed as common in DVT patients?"
    assert steps.answered(asked_yes_no, denied, evidence, trace) == denied
    named = "How common is gamma-glutamyltransferase increased in DVT patients?"
    assert steps.answered(named, verdict, evidence, trace) == verdict
    listed = Verdict(
        "Gamma-glutamyltransferase increased [1].", False, "answered", verdict.citations
    )
    assert steps.answered("Which reaction is listed?", listed, evidence, trace) == listed
    dose = "Row 5: Dose (g) is 6, Corrosion rate (mm/year) is 0.4318"
    doses = [Evidence(1, replace(chunk, text=dose), dose)]
    rate = Verdict("0.4318 mm/year [1].", False, "answered", verdict.citations)
    assert steps.answered("What was the corrosion rate with 6 g?", rate, doses, trace) == rate
    # Every word of the question written somewhere: it may name its row otherwise.
    month = "Row 2: Period is January 26 - February 22, Shares purchased is 262"
    months = [
        Evidence(1, replace(chunk, text=month), month),
        Evidence(2, replace(chunk, chunk_id="t2", text="Shares bought in the first month."), ""),
    ]
    months[1] = replace(months[1], text="Shares bought in the first month.")
    bought = Verdict("262 shares [1].", False, "answered", verdict.citations)
    asked = "How many shares were purchased in the first month?"
    assert steps.answered(asked, bought, months, trace) == bought


def test_money_asked_of_passages_that_write_none_is_refused(tmp_path: Path) -> None:
    """ "What is the price of the cake?" over a receipt listing quantities only: the model made
    its "1" into "$1.00". Checked by code, without a model call; a passage writing a price,
    a currency or an amount lets the reply stand."""
    from polyrag.types import Chunk, Locator, Modality

    steps = Steps(WordRetriever(), FallbackChain([Replies([])]), Settings(home=tmp_path))
    rows = "Receipt\n| Item Description | Quantity |\n| --- | --- |\n| Coffee | 1 |\n| Cake | 1 |"
    chunk = Chunk("t1", "s1", "/docs/receipt.html", rows, Locator(), Modality.TABLE)
    evidence = [Evidence(1, chunk, rows)]
    verdict = Verdict("The cake's price is $1.00 [1].", False, "answered", (Citation(1, chunk),))
    trace = Trace(lambda _event: None)
    question = "What is the price of the cake on the receipt?"
    refused = steps.answered(question, verdict, evidence, trace)
    assert refused.refused and refused.reason == NOT_ANSWERED
    assert "asks for money (price)" in checked(trace)[0]
    priced = rows.replace("Quantity |", "Quantity | Price (EUR) |").replace("| 1 |", "| 1 | 4.5 |")
    shown = [Evidence(1, replace(chunk, text=priced), priced)]
    cake = Verdict("The cake costs 4.5 EUR [1].", False, "answered", verdict.citations)
    assert steps.answered(question, cake, shown, trace) == cake
    # A sale or a scale of amounts is money enough: "sold for 5 million" answers a price.
    sold = "The painting sold for 5 million at auction."
    sale = [Evidence(1, replace(chunk, text=sold, modality=Modality.TEXT), sold)]
    paid = Verdict("5 million [1].", False, "answered", verdict.citations)
    unweighed = Settings(home=tmp_path, answer={"unanswered_at": 0})  # the model's check aside
    plain = Steps(WordRetriever(), FallbackChain([Replies([])]), unweighed)
    assert not plain.answered("What price was paid for the painting?", paid, sale, trace).refused
    # A count over the same rows asks for no money.
    count = Verdict("1 cake [1].", False, "answered", verdict.citations)
    assert steps.answered("How many cakes were ordered?", count, evidence, trace) == count


def test_a_figure_cited_to_the_paragraph_over_its_table_is_weighed_where_it_stands(
    tmp_path: Path,
) -> None:
    """ "2.73 seconds [1]" cites the paragraph that introduces a table; the figure is in the
    table's row [2]. Weighed against the paragraph's caption, the right answer was refused;
    the row is a table's, which code looks up, so no model call is made."""
    from polyrag.types import Chunk, Locator, Modality

    chat = Replies([], doubts=[0.9])
    steps = Steps(WordRetriever(), FallbackChain([chat]), Settings(home=tmp_path))
    caption = "Table 1. HPO performed in OTSL and HTML representation on the same architecture."
    row = "Row 2: # enc-layers is 6, # dec-layers is 6, Language is OTSL, Inference time is 2.73"
    text = Chunk("p1", "s1", "/docs/paper.pdf", caption, Locator(page=1))
    table = Chunk("t1", "s1", "/docs/paper.pdf", row, Locator(page=1), Modality.TABLE)
    evidence = [Evidence(1, text, caption), Evidence(2, table, row)]
    reply = Verdict(
        "The inference time was 2.73 seconds [1].", False, "answered", (Citation(1, text),)
    )
    question = "What was the inference time of the OTSL model with 6 encoder and 6 decoder layers?"
    trace = Trace(lambda _event: None)
    assert steps.answered(question, reply, evidence, trace) == reply and chat.weighed == []
    # A figure no passage shown writes is weighed where the reply cites it, as before.
    other = replace(reply, text="The inference time was 3.1 seconds [1].")
    assert steps.answered(question, other, evidence, trace).refused and len(chat.weighed) == 1


def over_one_passage(
    tmp_path: Path, name: str, text: str, reply: str
) -> tuple[Steps, Replies, list[Evidence], Verdict]:
    """Steps whose model doubts little, one passage of `text` and a reply citing it."""
    from polyrag.types import Chunk, Locator

    chat = Replies([], doubts=[0.05] * 3)
    steps = Steps(WordRetriever(), FallbackChain([chat]), Settings(home=tmp_path))
    chunk = Chunk("c1", "s1", f"/docs/{name}", text, Locator())
    verdict = Verdict(reply, False, "answered", (Citation(1, chunk),))
    return steps, chat, [Evidence(1, chunk, text)], verdict


def refused_by_code(
    steps: Steps, chat: Replies, question: str, verdict: Verdict, evidence: list[Evidence]
) -> str:
    """What the answered check says, having refused `verdict` without a model call."""
    trace = Trace(lambda _event: None)
    refused = steps.answered(question, verdict, evidence, trace)
    assert refused.refused and refused.reason == NOT_ANSWERED
    assert chat.weighed == []
    (summary,) = checked(trace)
    return summary


CHICAGO = (
    "The University of Chicago was incorporated in 1890; William Rainey Harper became the "
    "university's first president in 1891. Both Harper and future president Robert Maynard "
    "Hutchins advocated a curriculum based upon theoretical issues."
)


def test_a_full_name_no_passage_writes_is_refused(tmp_path: Path) -> None:
    """ "Robert Harper" over a passage naming William Rainey Harper and Robert Maynard
    Hutchins: each word is written, the name is not, and the reply "1891" does not restate it.
    Refused by code, without a model call; the name as the passage writes it stands."""
    steps, chat, evidence, verdict = over_one_passage(tmp_path, "chicago.md", CHICAGO, "1891 [1].")
    asked = "In what year did Robert Harper become the first president of the University?"
    assert refused_by_code(steps, chat, asked, verdict, evidence) == (
        "refused: the question names 'Robert Harper', which no passage shown writes"
    )
    for name in ("William Harper", "William Rainey Harper", "Robert Hutchins"):
        trace = Trace(lambda _event: None)
        assert steps.answered(asked.replace("Robert Harper", name), verdict, evidence, trace) == (
            verdict
        )


def test_a_code_no_passage_writes_is_refused(tmp_path: Path) -> None:
    """ "What is Fe2O?" over a passage writing Fe2O3 (as "Fe 2O 3"): the reply named the oxide
    the passage describes. Refused by code, without a model call; asked of Fe2O3, it stands."""
    text = "Iron forms iron(III) oxide Fe 2O 3, in hematite and rust."
    reply = "It is iron(III) oxide [1]."
    steps, chat, evidence, verdict = over_one_passage(tmp_path, "iron.md", text, reply)
    assert refused_by_code(steps, chat, "What is Fe2O?", verdict, evidence) == (
        "refused: the question names 'Fe2O', which no passage shown writes"
    )
    trace = Trace(lambda _event: None)
    assert steps.answered("What is Fe2O3?", verdict, evidence, trace) == verdict


def test_an_opposite_in_the_resting_sentence_is_refused(tmp_path: Path) -> None:
    """ "When the Rhine took a right turn what did it create?" answered from the sentence on its
    left turn: refused by code, without a model call. Asked of the left turn, the reply goes
    on to the model's check."""
    text = (
        "During the ice ages the Rhine took a left turn, creating the Channel River. Its "
        "course now lies below the English Channel."
    )
    reply = "It created the Channel River [1]."
    steps, chat, evidence, verdict = over_one_passage(tmp_path, "rhine.md", text, reply)
    asked = "When the Rhine took a right turn what did it create?"
    assert refused_by_code(steps, chat, asked, verdict, evidence) == (
        "refused: the question asks about 'right', which no passage shown writes, and the "
        "sentence the reply rests on says 'left'"
    )
    trace = Trace(lambda _event: None)
    assert steps.answered(asked.replace("right", "left"), verdict, evidence, trace) == verdict
    assert len(chat.weighed) == 1


PRINTING = (
    "Working versions of 3D-printing building technology are already printing 2 metres of "
    "building material per hour as of January 2013, with the next-generation printers "
    "capable of 3.5 metres per hour."
)


@pytest.mark.parametrize(
    ("question", "refused"),
    [
        ("As of 2014 how quickly is building material being printed?", True),
        ("As of 2013 how quickly is building material being printed?", False),
        ("As of 2012/13 how quickly is building material being printed?", False),  # split
        ("In the 2010s how quickly was building material printed?", False),  # a decade
        ("How many years after 2010 was material printed at 2 metres per hour?", False),
    ],
)
def test_a_year_the_passage_the_reply_rests_on_does_not_write_is_refused(
    tmp_path: Path, question: str, refused: bool
) -> None:
    """The passage the reply rests on writes January 2013, and 2014 only the next passage,
    of another building: the existing check, over every passage shown, found the year written.
    Refused by code, without a model call; asked of a year it writes, or of a decade, or of
    years themselves, the reply goes on to the model's check."""
    steps, chat, evidence, verdict = over_one_passage(
        tmp_path, "3d.md", PRINTING, "Material is printed at 3.5 metres per hour [1]."
    )
    other = "A 3D-printed building is scheduled to be built in 2014."
    evidence.append(
        replace(evidence[0], n=2, chunk=replace(evidence[0].chunk, text=other), text=other)
    )
    if not refused:
        trace = Trace(lambda _event: None)
        assert steps.answered(question, verdict, evidence, trace) == verdict
        assert len(chat.weighed) == 1
        return
    assert refused_by_code(steps, chat, question, verdict, evidence) == (
        "refused: the question asks about 2014 and the passages the reply rests on write 2013"
    )


def test_a_passage_writing_no_year_a_split_one_or_citing_one_asked_is_weighed(
    tmp_path: Path,
) -> None:
    """A passage writing no year may be about the one asked ("this year"), a fiscal year split
    over two ("2013/14") writes it, and a reply citing passages of which one writes the year
    asked rests on it: each goes on to the model."""
    question = "As of 2014 how quickly is building material being printed?"
    trace = Trace(lambda _event: None)
    for text in (
        "This year the printers reach 3.5 metres of building material per hour.",
        "This year 1500 printers reach 3.5 metres of building material per hour.",
        "In 2013/14 the printers reached 3.5 metres of building material per hour.",
    ):
        steps, _, evidence, verdict = over_one_passage(tmp_path, "3d.md", text, "3.5 metres [1].")
        assert steps.answered(question, verdict, evidence, trace) == verdict
    steps, chat, evidence, _ = over_one_passage(tmp_path, "3d.md", PRINTING, "3.5 metres [1].")
    other = "In 2014 the printers were unchanged."
    evidence.append(
        replace(evidence[0], n=2, chunk=replace(evidence[0].chunk, text=other), text=other)
    )
    both = Verdict(
        "3.5 metres [1][2].", False, "answered", tuple(Citation(e.n, e.chunk) for e in evidence)
    )
    assert steps.answered(question, both, evidence, trace) == both
    assert len(chat.weighed) == 1


def test_an_outlook_asked_of_reported_figures_only_is_refused(tmp_path: Path) -> None:
    """ "What is the fiscal 2023 outlook for capital expenditures?" answered with the year's
    spending from the statement of cash flows: a passage or heading that speaks of the future
    lets the reply stand, and an "expected" that names a measure ("expected volatility") is
    written by the passage it comes from."""
    from polyrag.types import Chunk, Locator, Modality

    chat = Replies([], doubts=[0.05] * 4)
    steps = Steps(WordRetriever(), FallbackChain([chat]), Settings(home=tmp_path))
    row = (
        "Row 23: Label is Capital expenditures, Fiscal 2022 is (312,126), Fiscal 2021 is (172,187)"
    )
    cash = Locator(page=8, heading_path=("Condensed Consolidated Statements of Cash Flows",))
    chunk = Chunk("t1", "s1", "/docs/ulta.pdf", row, cash, Modality.TABLE)
    evidence = [Evidence(1, chunk, row)]
    verdict = Verdict("$312,126 [1].", False, "answered", (Citation(1, chunk),))
    question = "What is Ulta Beauty's fiscal 2023 outlook for capital expenditures?"
    trace = Trace(lambda _event: None)
    refused = steps.answered(question, verdict, evidence, trace)
    assert refused.refused and refused.reason == NOT_ANSWERED
    assert checked(trace)[0].startswith("refused: the question asks what is expected (outlook)")
    outlook = replace(chunk, locator=replace(cash, heading_path=("Fiscal 2023 Outlook",)))
    shown = [Evidence(1, outlook, row)]
    planned = Verdict("$312,126 [1].", False, "answered", (Citation(1, outlook),))
    assert steps.answered(question, planned, shown, trace) == planned
    spent = "What were Ulta Beauty's capital expenditures in fiscal 2022?"
    assert steps.answered(spent, verdict, evidence, trace) == verdict
    term = "Row 2: Label is Expected volatility, 2018 is 28.7%, 2017 is 27.1%"
    rows = [Evidence(1, replace(chunk, text=term), term)]
    rate = Verdict("28.7% [1].", False, "answered", verdict.citations)
    asked = "What was the expected volatility in 2018?"
    assert steps.answered(asked, rate, rows, trace) == rate
