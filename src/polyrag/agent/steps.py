"""The steps of answering, each a plain call that records itself in the trace.

The fast path calls them in one fixed order (retrieve → gate → evidence → generate → verify);
the agent graph uses the same calls as its nodes and adds planning, more retrieval rounds and
tools. A step never decides the control flow; the caller does.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from polyrag.agent.critic import ABOUT_YEARS
from polyrag.agent.questions import (
    name_beside_figure,
    names_written,
    opposite_words,
    unwritten_codes,
    unwritten_names,
)
from polyrag.agent.trace import Trace, now
from polyrag.answer.citations import MARKER
from polyrag.answer.evidence import (
    Evidence,
    ParentLookup,
    content_words,
    label,
    named_numbers,
    row_key,
    row_name,
    select_evidence,
    title,
)
from polyrag.answer.gate import best_similarity, gate
from polyrag.answer.generate import Generator, Turn
from polyrag.answer.guard import screen_answer, screen_passage
from polyrag.answer.numbers import numbers_in_text, same_number
from polyrag.answer.prompts import prompt
from polyrag.answer.resting import resting_sentence
from polyrag.answer.verify import Verdict, verify, years_of_another_time
from polyrag.errors import LLMError
from polyrag.llm.base import GenerationOptions, Message
from polyrag.llm.fallback import FallbackChain
from polyrag.retrieve.base import Retriever
from polyrag.retrieve.modalities import FanOut, ModalityRouter
from polyrag.settings import Settings
from polyrag.types import NOT_ANSWERED, REFUSAL, UNSAFE, Filter, Hit, Modality, TokenEvent


@dataclass(frozen=True)
class Draft:
    """A reply that was generated, before it is checked."""

    text: str
    provider: str
    first_token_ms: float | None
    skipped: tuple[str, ...] = ()  # providers passed over, with why


class Steps:
    """The collaborators every step needs, built once per engine."""

    def __init__(
        self,
        retriever: Retriever,
        chat: FallbackChain,
        settings: Settings,
        parents: ParentLookup | None = None,
        router: ModalityRouter | None = None,
    ) -> None:
        self.retriever = retriever
        self.router = router  # fans a question out to the modalities it is about
        self.chat = chat
        self.settings = settings
        self.parents = parents
        self.generator = Generator(chat, settings.answer)

    # -- retrieval ----------------------------------------------------------------------------

    def rewrite(self, question: str, history: Sequence[Turn], trace: Trace) -> str:
        """A follow-up rewritten to stand alone, using the recent turns (one model call)."""
        turns = list(history)[-self.settings.answer.history_turns :]
        if not turns:
            return question
        started = now()
        lines = [f"User: {asked}\nAssistant: {replied}" for asked, replied in turns]
        messages = [
            Message("user", prompt("rewrite").format(history="\n".join(lines), question=question))
        ]
        trace.model_calls += 1
        opened = self.chat.open_stream(messages, GenerationOptions(max_tokens=64))
        rewritten = " ".join("".join(opened.tokens).split()).strip().strip('"') or question
        trace.add("rewrite", f"understood as: {rewritten}", {"standalone": rewritten}, started)
        return rewritten

    def retrieve(
        self,
        query: str,
        where: Filter | None,
        trace: Trace,
        *,
        k: int | None = None,
        fan_out: FanOut = "none",
    ) -> list[Hit]:
        """`fan_out`: also search each modality the question is about ("all": by meaning or
        by a passage nearly as close as the best; "asked": only those it speaks of), and
        fuse."""
        started = now()
        joined: list[str] = []
        if fan_out != "none" and self.router is not None:
            result, joined = self.router.search(
                query, k=k, where=where, asked_only=fan_out == "asked"
            )
        else:
            result = self.retriever.search(query, k=k, where=where)
        hits = titled_first(query, result.hits)
        trace.mark("retrieval")
        shown = [
            {
                "rank": rank,
                "path": hit.chunk.path,
                "where": hit.chunk.locator.describe(),
                "score": round(hit.score, 4),
                "similarity": round(hit.vector_similarity or 0.0, 4),
            }
            for rank, hit in enumerate(hits, start=1)
        ]
        best = f", best {Path(hits[0].chunk.path).name}" if hits else ""
        also = f"; also searched: {', '.join(joined)}" if joined else ""
        trace.add(
            "retrieve",
            f"{len(hits)} passages for {query!r}{best}{also}",
            {
                "query": query,
                "hits": shown,
                "modalities": joined,
                "timings_ms": _rounded(result.timings_ms),
            },
            started,
        )
        return hits

    def gate(self, hits: Sequence[Hit], trace: Trace, question: str = "") -> str | None:
        """Refuse when nothing found is close enough to the question, unless a best passage
        writes the full names the question asks about: a row of a table ("Carla Diaz |
        Engineering | 105000 | 2015") is far from "When did Carla Diaz start?" as a vector
        but is the answer."""
        threshold = self.settings.answer.min_similarity
        reason = gate(hits, threshold)
        best = best_similarity(hits)
        summary = f"best similarity {best:.2f} (threshold {threshold:.2f})"
        named = names_written(question, hits[:_NAMED_HITS]) if reason and question else ""
        if named:
            reason = None
            summary += f", but a passage writes {named} as the question does"
        trace.add(
            "gate",
            summary + (": refused before any model call" if reason else ""),
            {"best_similarity": round(best, 4), "threshold": threshold, "refused": bool(reason)},
        )
        return reason

    # -- evidence -----------------------------------------------------------------------------

    def evidence(
        self,
        question: str,
        hits: Sequence[Hit],
        trace: Trace,
        *,
        derived: Sequence[Evidence] = (),
        items: int | None = None,
        budget: int | None = None,
        relative: float | None = None,
    ) -> list[Evidence]:
        """Any tool results, then the passages the reply is written from, all screened: a
        query's rows and a calculation's cited cells are document text too."""
        started = now()
        answer = self.settings.answer
        chosen = select_evidence(
            hits,
            question,
            self.chat.count_tokens,
            budget if budget is not None else answer.context_tokens,
            items if items is not None else answer.evidence_items,
            answer.min_relative_score if relative is None else relative,
            parents=self.parents,
        )
        flagged: list[dict[str, str]] = []
        screened: list[Evidence] = []
        # A tool's result comes first: it is the answer the code computed, and a small model
        # reads the first source most carefully.
        for item in [*derived, *chosen]:
            result = screen_passage(item.text)
            if result.flagged:
                flagged += [{"path": item.chunk.path, "text": t} for t in result.flagged]
            screened.append(replace(item, text=result.text))
        if flagged:
            trace.add(
                "guard",
                f"{len(flagged)} instruction-like sentence(s) in the sources were left out",
                {"flagged": flagged},
            )
        screened = [replace(item, n=i) for i, item in enumerate(screened, start=1)]
        trace.add(
            "evidence",
            f"{len(screened)} item(s) for the model",
            {
                "items": [
                    {"n": e.n, "label": label(e.chunk), "derived": e.derived} for e in screened
                ]
            },
            started,
        )
        return screened

    # -- the reply ----------------------------------------------------------------------------

    def generate(
        self,
        question: str,
        evidence: Sequence[Evidence],
        history: Sequence[Turn],
        trace: Trace,
        *,
        style: str = "",
    ) -> Draft:
        """The reply, its pieces passed on as TokenEvents while the model writes them."""
        started = now()
        messages = self.generator.messages(question, evidence, history, style=style)
        trace.model_calls += 1
        opened = self.generator.open(messages)
        pieces: list[str] = []
        first: float | None = None
        for piece in opened.tokens:
            if first is None:
                first = (now() - started) * 1000
                trace.mark("first_token")
            pieces.append(piece)
            trace.emit(TokenEvent(piece))
        skipped = tuple(f"{a.provider}: {a.error}" for a in opened.attempts)
        text = "".join(pieces).strip()
        trace.add(
            "generate",
            f"{opened.provider} wrote {len(text)} characters",
            {"provider": opened.provider, "first_token_ms": first, "skipped": list(skipped)},
            started,
        )
        return Draft(text, opened.provider, first, skipped)

    def verify(
        self,
        draft: Draft,
        evidence: Sequence[Evidence],
        trace: Trace,
        *,
        arithmetic: bool,
        question: str = "",
        check_answered: bool = True,
    ) -> Verdict:
        """The reply's claims checked against the evidence; with `check_answered`, a looked-up
        answer is also weighed against the question (`answered`), which costs one model call."""
        started = now()
        verdict = verify(draft.text, evidence, arithmetic=arithmetic, question=question)
        if not verdict.refused:
            withheld = screen_answer(verdict.text, [prompt("system")])
            if withheld:
                verdict = Verdict(REFUSAL, True, UNSAFE, (), withdrawn=(verdict.text,))
        if check_answered and not verdict.refused and not arithmetic and question:
            verdict = self.answered(question, verdict, evidence, trace)
        summary = "supported" if not verdict.refused else f"refused: {verdict.reason}"
        if verdict.partial and not verdict.refused:
            summary = "partly supported: kept what the sources state"
        trace.add(
            "verify",
            summary,
            {
                "reason": verdict.reason,
                "partial": verdict.partial,
                "computed": list(verdict.computed),
                "withdrawn": list(verdict.withdrawn),
            },
            started,
        )
        return verdict

    def answered(
        self,
        question: str,
        verdict: Verdict,
        evidence: Sequence[Evidence],
        trace: Trace,
        *,
        weigh: bool = True,
    ) -> Verdict:
        """A looked-up answer from prose stands only when its cited passages answer the
        question as asked.

        A passage about the right subject often holds a plausible answer to a question it does
        not answer: the question adds a "not", names another year or person, asks for the
        least instead of the most. The model weighs one decision — does this answer this
        exact question? — over the sentence the reply rests on when it cites one passage of
        prose (over the passages when it cites several, or the answer sits in a line of a list
        or table), and code refuses when "no" gets `answer.unanswered_at` of the probability
        or more. Left to other checks: computed answers and tool results (the critic and the
        arithmetic check), tables (looked up by code), and yes/no questions (where "no" could
        be the answer itself). Some replies code alone refuses, without a model call
        (`_refused_by_code`): rows the question names none of, a full name or a code no
        passage writes, an opposite word ("left" for "right"), an outlook asked of what was
        reported, money asked of passages writing none. Without `weigh`, only those run."""
        threshold = self.settings.answer.unanswered_at
        by_number = {item.n: item for item in evidence}
        cited = _holding(
            verdict.text,
            question,
            [by_number[c.n] for c in verdict.citations if c.n in by_number],
            evidence,
        )
        prose = all(
            not item.derived and item.chunk.modality is not Modality.TABLE for item in cited
        )
        refusal = _refused_by_code(question, verdict, evidence, cited, hops=not weigh)
        if refusal is not None:
            summary, data = refusal
            trace.add("answered", f"refused: {summary}", data, now())
            return Verdict(REFUSAL, True, NOT_ANSWERED, (), withdrawn=(verdict.text,))
        if (
            not weigh
            or not threshold
            or not cited
            or not prose
            or verdict.computed
            or verdict.partial
            or YES_NO.match(question)
        ):
            return verdict
        started = now()
        beside = name_beside_figure(question, verdict.text, [item.text for item in cited])
        if beside:  # a line of a listing gives the name asked about and the reply's figure
            trace.add(
                "answered",
                f"a cited passage writes {beside}, the name asked about with the reply's figure",
                {"written": beside},
                started,
            )
            return verdict
        # Each passage with its file and place: a document's name can say what its text does
        # not ("expense-policy-2024.md" for "the 2024 one").
        places = dict.fromkeys((label(i.chunk), i.text) for i in cited)
        (place, passage), *others = places
        sentence = None if others else resting_sentence(verdict.text, question, passage)
        if sentence:  # one passage of prose: the sentence the reply rests on is weighed
            text = prompt("answered_sentence").format(label=place, text=sentence, question=question)
        else:
            passages = "\n\n".join(f"({where}) {shown}" for where, shown in places)
            text = prompt("answered").format(passages=passages, question=question)
        trace.model_calls += 1
        try:
            shares, provider = self.chat.weigh([Message("user", text)], ("yes", "no"))
        except LLMError as error:  # the check is a safeguard: without a model, the answer stands
            trace.add("answered", f"not checked: {error.one_line()}", {}, started)
            return verdict
        doubt = shares.get("no", 0.0)
        refused = doubt >= threshold
        trace.add(
            "answered",
            f"{_weighed(sentence, refused)} the question as asked "
            f"(no: {doubt:.2f}, refused from {threshold:.2f})",
            {
                "no": round(doubt, 3),
                "threshold": threshold,
                "provider": provider,
                "weighed": sentence or "the cited passages",
            },
            started,
        )
        if not refused:
            return verdict
        return Verdict(REFUSAL, True, NOT_ANSWERED, (), withdrawn=(verdict.text,))


def _refused_by_code(
    question: str,
    verdict: Verdict,
    evidence: Sequence[Evidence],
    cited: Sequence[Evidence],
    *,
    hops: bool = False,
) -> tuple[str, dict[str, object]] | None:
    """Why code alone finds that a looked-up reply does not answer the question as asked (a
    summary and the trace's data), or None: the cited rows are none the question names, the
    question gives a full name or a code no passage writes, a word of it no passage writes
    has its opposite in the sentence the reply rests on, it asks what is expected of passages
    that report only what was, the passages it rests on write other years than the one asked,
    or it asks for money of passages writing none. With `hops` (a multi-hop or comparing reply)
    the years are left alone: the one asked may be the bridge's ("the driver born in 1990"),
    written in a passage the reply need not cite."""
    if verdict.refused:
        return None
    unnamed = unnamed_rows(question, cited)
    listed = any(content_words(name) <= content_words(verdict.text) for name in unnamed)
    missing = absent_words(question, evidence) if unnamed and not listed else []
    if missing and not verdict.computed and not YES_NO.match(question):
        return (
            f"the cited rows are none the question names ({'; '.join(unnamed[:3])}) and no "
            f"source writes {', '.join(missing)}",
            {"rows": unnamed[:10], "absent": missing},
        )
    shown = [
        text
        for item in evidence
        for text in (item.text, *item.chunk.locator.heading_path, Path(item.chunk.path).stem)
    ]
    unwritten = (
        []
        if verdict.computed
        else [*unwritten_names(question, shown), *unwritten_codes(question, shown)]
    )
    if unwritten:
        # "In what year did Robert Harper become the first president?" over a passage naming
        # William Rainey Harper (president in 1891) and Robert Maynard Hutchins; "What is
        # Fe2O?" over one writing Fe2O3.
        names = ", ".join(repr(name) for name in unwritten)
        return f"the question names {names}, which no passage shown writes", {
            "unwritten": unwritten
        }
    resting = [resting_sentence(verdict.text, question, item.text) for item in cited]
    swapped = (
        []
        if verdict.computed or YES_NO.match(question)
        else opposite_words(question, shown, [s for s in resting if s])
    )
    if swapped:
        # "When the Rhine took a right turn what did it create?" answered from "the Rhine took
        # a left turn, creating the Channel River".
        words = ", ".join(repr(word) for word, _ in swapped)
        opposites = ", ".join(repr(word) for _, word in swapped)
        return (
            f"the question asks about {words}, which no passage shown writes, and the sentence "
            f"the reply rests on says {opposites}",
            {"opposites": [list(pair) for pair in swapped]},
        )
    ahead = _ASKS_AHEAD.search(question)
    if ahead and not YES_NO.match(question) and not _looks_ahead(cited or evidence):
        # "What is the fiscal 2023 outlook for capital expenditures?" answered with the year's
        # capital expenditures from the statement of cash flows: what was spent, not planned.
        return (
            f"the question asks what is expected ({ahead.group(0)}) and the cited passages "
            "report what was, with no outlook, plan or forecast",
            {"asked": ahead.group(0)},
        )
    years, written = (
        ([], [])
        if hops or verdict.computed or YES_NO.match(question) or ABOUT_YEARS.search(question)
        else years_of_another_time(question, cited)
    )
    if years:
        # "As of 2014 how quickly is building material being printed?" answered from a passage
        # of "January 2013"; 2014 is written in the next one, of another building.
        return (
            f"the question asks about {', '.join(years)} and the passages the reply rests on "
            f"write {', '.join(written[:3])}",
            {"asked": years, "written": written[:10]},
        )
    asked = money_unwritten(question, (item.text for item in evidence))
    if asked and not verdict.computed:
        # "What is the price of the cake?" over a receipt that lists quantities only: its "1"
        # became "$1.00". No passage shown writes a price, a currency or an amount.
        return money_refused(asked), {"asked": asked}
    return None


def money_refused(asked: str) -> str:
    """Why a reply to a question asking for money (`asked`, from `money_unwritten`) is refused."""
    return (
        f"the question asks for money ({asked}) and no passage writes a price, a currency or "
        "an amount"
    )


def money_unwritten(question: str, passages: Iterable[str]) -> str:
    """The words by which a question asks for an amount of money ("price", "paid") when no
    passage writes a price, a currency or an amount, or "": then any figure given for it
    is another thing's (a receipt's quantities summed as "the total amount paid")."""
    asked = _ASKS_MONEY.search(question)
    if asked is None or any(_WRITES_MONEY.search(text) for text in passages):
        return ""
    return asked.group(0)


def _holding(
    reply: str, question: str, cited: list[Evidence], evidence: Sequence[Evidence]
) -> list[Evidence]:
    """The passages a reply rests on: those it cites, unless none of them writes the figures
    it adds to the question and other passages shown do — then those ("2.73 seconds [1]" cites
    the paragraph over a table, and the figure is in the table's row [2]: weighed against the
    paragraph's caption, a right answer was refused)."""
    asked = numbers_in_text(question)
    said = MARKER.sub(" ", reply)  # "[1]" is no figure of the reply's
    added = [n for n in numbers_in_text(said) if not any(same_number(n, q) for q in asked)]
    if not added:
        return cited

    def holds(item: Evidence) -> bool:
        written = numbers_in_text(item.text)
        return all(any(same_number(n, w) for w in written) for n in added)

    if not cited or any(holds(item) for item in cited):
        return cited
    return [item for item in evidence if holds(item)] or cited


def unnamed_rows(question: str, cited: Sequence[Evidence]) -> list[str]:
    """The names of the table rows a looked-up answer cites, when it cites only rows and the
    question names none of them ("How common is headache …?" answered from the row of
    "Gamma-glutamyltransferase increased"); [] otherwise. A row is named by a word of its
    first cell, or by the number standing there ("6 g" for the row of 6). A reply that names
    a row itself lists rows ("Which segments are reported?"), and a question whose every word
    some source writes may name its row otherwise ("the first month" for the row of January):
    the caller lets both stand."""
    if not cited or any(
        item.derived or item.chunk.modality is not Modality.TABLE for item in cited
    ):
        return []
    asked = content_words(question) | named_numbers(question)
    names: list[str] = []
    for item in cited:
        for line in item.text.split("\n"):
            name = row_name(line)
            if name is None:
                continue
            if asked & (content_words(name) | row_key(line)):
                return []
            names.append(name)
    return names


# A question after what a company expects rather than what it reported, and the words of a
# passage that speaks of the future (an outlook's heading, "we expect", "will", a plan).
_ASKS_AHEAD = re.compile(
    r"\b(?:outlook|guidance|forecast\w*|projected|projections?|anticipat\w*|expect\w*)\b",
    re.IGNORECASE,
)
_AHEAD = re.compile(
    r"\b(?:outlook|guidance|guided|forecast\w*|project\w*|anticipat\w*|expect\w*|plan\w*|"
    r"target\w*|estimat\w*|intend\w*|goals?|will|should|may|could|future|next|upcoming|"
    r"assum\w*|predict\w*|budget\w*)\b",
    re.IGNORECASE,
)


def _looks_ahead(cited: Sequence[Evidence]) -> bool:
    """Whether a passage (with what a tool result rests on, and the headings over it) speaks
    of the future."""
    return any(
        _AHEAD.search(text)
        for item in cited
        for text in (
            item.text,
            *(c.text for c in item.backing),
            *item.chunk.locator.heading_path,
        )
    )


# A question after an amount of money, and what a passage holding one writes: a currency, a
# scale of amounts, or a word that names money or a sale (a "Price" column, "Cost of sales",
# "sold for 5 million").
_ASKS_MONEY = re.compile(
    r"\b(?:price[sd]?|costs?|cost of|paid|pay|fees?|charged?|spen[dt]|salary|salaries|wages?|"
    r"dollars?|euros?)\b|\$|€|£",
    re.IGNORECASE,
)
_WRITES_MONEY = re.compile(
    r"[$€£¥]|\b(?:USD|EUR|GBP|CHF|JPY|CAD|AUD|INR|RMB|CNY)\b|"
    r"\b(?:dollars?|euros?|pounds|francs|yen|cents?|price[sd]?|pricing|costs?|costing|paid|"
    r"payments?|pay|fees?|charged?|charges|amounts?|spen[dt]|spending|expenses?|expenditures?|"
    r"salary|salaries|wages?|budget|revenues?|sales|income|earnings|sold|sells?|bought|buys?|"
    r"purchased?|worth|valued?|(?:thousand|million|billion|trillion)s?|k€|m€)\b",
    re.IGNORECASE,
)


def absent_words(question: str, evidence: Sequence[Evidence]) -> list[str]:
    """The question's content words (of four letters or more) that no evidence writes, not
    even in another form (the first five letters of a word stand for it: "reactions" is
    written by "reaction"; a hyphenated word by its parts)."""
    written = {word[:5] for item in evidence for word in _parts(content_words(item.text))}
    asked = [w for w in _parts(content_words(question)) if len(w) >= 4 and w not in _ASKING]
    return [word for word in dict.fromkeys(asked) if word[:5] not in written]


# Words of how a question asks, not of what it asks about: no source need write them.
_NAMED_HITS = 3  # the best passages the gate looks for the question's names in
_ASKING = frozenset(
    {"many", "much", "total", "value", "values", "amount", "number", "year", "years", "month",
     "months", "quarter", "period", "first", "second", "third", "fourth", "last", "most",
     "least", "more", "less", "fewer", "than", "higher", "lower", "highest", "lowest",
     "largest", "smallest", "greatest", "biggest", "best", "worst", "change", "difference",
     "percentage", "percent", "ratio", "average", "sum", "item", "items", "component",
     "components", "category", "type", "kind", "listed", "shown", "given", "according",
     "table", "report", "document", "file", "source", "sources", "mentioned", "stated"}
)  # fmt: skip


def _parts(words: set[str]) -> set[str]:
    return words | {part for word in words for part in word.split("-") if part}


YES_NO = re.compile(  # a question answered yes or no (shared with the agent graph)
    r"^(?:is|are|was|were|do|does|did|has|have|had|can|could|will|would|should)\b", re.I
)


def titled_first(query: str, hits: Sequence[Hit]) -> list[Hit]:
    """Hits whose document or section is titled exactly what was searched come first: a search
    for "Terry Richardson" wants his own page before a footballer named Kenton Terry Richardson
    whose short page matches the words better."""
    wanted = _plain(query)
    titled = [h for h in hits if wanted and _plain(title(h.chunk)) == wanted]
    if not titled or titled[0] is hits[0]:
        return list(hits)
    return titled + [h for h in hits if h not in titled]


def _plain(text: str) -> str:
    return " ".join(re.sub(r"[\W_]+", " ", text).casefold().split())


def _rounded(timings: dict[str, float]) -> dict[str, float]:
    return {key: round(value, 1) for key, value in timings.items()}


def _weighed(sentence: str | None, refused: bool) -> str:
    """What the answered check weighed, and its finding, as the trace says it."""
    if sentence:
        return f"the sentence the reply rests on {'does not answer' if refused else 'answers'}"
    return f"the cited passages {'do not answer' if refused else 'answer'}"
