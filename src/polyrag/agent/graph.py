"""The agent graph (LangGraph): plan → retrieve → evaluate ↺ → tool → critic → answer → verify.

    clarify? → plan → retrieve → evaluate ─┬─ retrieve (another round: new searches)
                                           ├─ tool → critic ─┬─ tool (retry, repair)
                                           │                 └─ evaluate
                                           ├─ answer (generate, verify) → END
                                           └─ refuse → END

Every node is one of the shared steps or one small decision; the control flow is code. Caps
set here, not by LangGraph's own default: `agent.max_rounds` retrieval rounds (the critic's
search for a repair among them), at most `agent.max_model_calls` model calls (one is always
kept for the reply, calls made before the graph count too), `agent.tool_retries`
retries per tool, and `agent.recursion_limit` graph steps. Running out of any of them moves on
to the answer, so a question always ends with an answer or a refusal.

State is plain JSON (agent/state.py), checkpointed under the polyrag home, so a conversation
paused by a clarifying question resumes later, in another process too. The nodes hold the
control flow; the tools are called by agent/calls.py and the reply is written by agent/reply.py.
"""

from __future__ import annotations

import re
import sqlite3
import uuid
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.errors import GraphRecursionError
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Command, interrupt

from polyrag.agent import critic
from polyrag.agent.answers import Request, refusal
from polyrag.agent.calls import ToolCalls
from polyrag.agent.decisions import (
    Assessment,
    Plan,
    decide,
)
from polyrag.agent.questions import (
    ASKS_DAYS,
    NAMES_PAGE,
    ambiguous,
    bridge_searches,
    chosen_by_reply,
    entity_searches,
    full_dates,
    older_by_dates,
    relevant,
    stated_in,
)
from polyrag.agent.reply import Replier
from polyrag.agent.route import Route
from polyrag.agent.run import PER_ROUND, Run
from polyrag.agent.state import (
    AgentState,
    hit_from_dict,
    hit_to_dict,
    outcome_from_dict,
    outcome_to_dict,
)
from polyrag.agent.steps import Steps
from polyrag.agent.terms import ask_about, undefined_term
from polyrag.agent.tools import changes, lists, statements, sums
from polyrag.agent.tools.registry import Toolbox
from polyrag.agent.trace import Trace, now
from polyrag.answer.evidence import render, title
from polyrag.answer.gate import gate
from polyrag.errors import LLMError
from polyrag.index.store.base import Store
from polyrag.index.tables.base import TableStore
from polyrag.types import (
    NEEDS_CLARIFICATION,
    WEAK_EVIDENCE,
    Answer,
    Filter,
    Hit,
)

# Tools that are code, not a model's call: one that failed would fail the same way again.
_BY_CODE = frozenset({"statement", "count", "sum", "change", "page"})
# The model writes the query or the expression, or picks the tool and its arguments.
_BY_MODEL = frozenset({"sql", "calculator", "choose"})


class Agent:
    """The compiled graph over the engine's parts; one per engine, safe to share."""

    def __init__(
        self,
        steps: Steps,
        toolbox: Toolbox,
        store: Store,
        tables: TableStore,
        checkpoints: Path,
    ) -> None:
        self.steps = steps
        self.settings = steps.settings.agent
        self.toolbox = toolbox
        self.store = store
        self.table_store = tables
        checkpoints.parent.mkdir(parents=True, exist_ok=True)
        self._connection = sqlite3.connect(str(checkpoints), check_same_thread=False)
        self.checkpointer = SqliteSaver(self._connection)
        self.reply = Replier(steps, self.settings)
        self.calls = ToolCalls(
            steps, toolbox, store, tables, self.settings, self.reply.evidence_for
        )
        self.graph = self._build().compile(checkpointer=self.checkpointer)

    def close(self) -> None:
        self._connection.close()

    # -- running ------------------------------------------------------------------------------

    def answer(
        self,
        request: Request,
        standalone: str,
        route: Route,
        first_hits: list[Hit],
        trace: Trace,
        *,
        decisions: bool = True,
    ) -> Answer:
        """Run the graph for a question (or resume the thread it continues).

        Without `decisions` the model makes none (no plan, no assessment, no query or
        expression, no tool choice): the steps and code's tools run in their set order and the
        model writes only the reply — the fixed-order baseline beside the agent."""
        thread = request.thread or uuid.uuid4().hex[:16]
        budget = self.settings.max_model_calls if decisions else trace.model_calls + 1
        run = Run(request, route, trace, first_hits, budget, thread=thread)
        config = self._config(thread)
        if request.thread:
            pending = self.graph.get_state(config)
            if not pending.next:
                trace.add("resume", f"thread {thread} has nothing waiting: asked anew")
                thread = uuid.uuid4().hex[:16]
                run.thread = thread
                config["configurable"]["thread_id"] = thread
                payload: Any = self._start(standalone, route, first_hits)
            else:
                trace.add("resume", f"thread {thread} continues with the reply")
                payload = Command(resume=request.question)
        else:
            payload = self._start(standalone, route, first_hits)
        try:
            self.graph.invoke(payload, config, context=run)
        except GraphRecursionError:
            trace.add("stop", f"the step limit ({self.settings.recursion_limit}) was reached")
        finally:
            if run.database is not None:
                run.database.close()
        state = self.graph.get_state(config)
        if state.next and state.tasks and state.tasks[0].interrupts:
            question = str(state.tasks[0].interrupts[0].value)
            base = refusal(
                request,
                trace,
                NEEDS_CLARIFICATION,
                mode="agent",
                standalone=standalone,
                thread=thread,
            )
            return replace(base, clarify=question, text=question)
        if run.result is None:  # stopped by a cap before answering: answer from what is there
            run.result = self.reply.answer_from(run, dict(state.values))
        self.checkpointer.delete_thread(thread)  # finished: only paused threads are kept
        return run.result

    def reconsider(self, request: Request, answer: Answer, trace: Trace) -> Answer:
        """An answer the user found not helpful starts a clarification round: the agent asks
        what was wanted (naming where the answer came from) and waits for the reply."""
        used = sorted({Path(c.chunk.path).name for c in answer.citations})
        where = f" It came from {', '.join(used)}." if used else ""
        question = f"What should the answer have told you, or which document should I read?{where}"
        thread = uuid.uuid4().hex[:16]
        route = Route("lookup", True, "not helpful")
        run = Run(request, route, trace, [], self.settings.max_model_calls, thread=thread)
        config = self._config(thread)
        start = self._start(request.question, run.route, [])
        start["ask_back"] = question
        trace.add("feedback", "the answer was not helpful: asking what was wanted", {})
        self.graph.invoke(start, config, context=run)
        base = refusal(
            request,
            trace,
            NEEDS_CLARIFICATION,
            mode="agent",
            standalone=request.question,
            thread=thread,
        )
        return replace(base, clarify=question, text=question)

    def undefined_term(
        self, question: str, hits: Sequence[Hit], where: Filter | None = None
    ) -> str | None:
        """A coined term of the question (an acronym, a quoted phrase) the index never writes."""

        def search(term: str) -> Sequence[Hit]:
            found = self.steps.retriever.search(term, k=5, where=where, mode="keyword").hits
            if " " in term:  # a phrase of common words may have no full-text match at all
                found = [*found, *self.steps.retriever.search(term, k=5, where=where).hits]
            return found

        return undefined_term(question, hits, search)

    def _config(self, thread: str) -> RunnableConfig:
        return {
            "configurable": {"thread_id": thread},
            "recursion_limit": self.settings.recursion_limit,
        }

    def _start(self, question: str, route: Route, first_hits: Sequence[Hit]) -> AgentState:
        return {
            "question": question,
            "kind": route.kind,
            "pending": [],
            "searched": [question] if first_hits else [],
            "rounds": 1 if first_hits else 0,
            "hits": [hit_to_dict(hit, 1, question) for hit in first_hits],
            "found": [],
            "tools": [],
            "failures": {},
            "set_aside": [],
            "feedback": "",
            "tool": "",
            "next": "",
            "clarified": "",
        }

    # -- the graph ----------------------------------------------------------------------------

    def _build(self) -> StateGraph[AgentState, Run, AgentState, AgentState]:
        graph: StateGraph[AgentState, Run, AgentState, AgentState] = StateGraph(
            AgentState, context_schema=Run
        )
        graph.add_node("clarify", self._clarify)
        graph.add_node("plan", self._plan)
        graph.add_node("retrieve", self._retrieve)
        graph.add_node("evaluate", self._evaluate)
        graph.add_node("tool", self._tool)
        graph.add_node("critic", self._critic)
        graph.add_node("answer", self._answer)
        graph.add_node("refuse", self._refuse)
        graph.add_edge(START, "clarify")
        graph.add_edge("clarify", "plan")
        graph.add_edge("plan", "retrieve")
        graph.add_edge("retrieve", "evaluate")
        graph.add_conditional_edges("evaluate", _next, ["retrieve", "tool", "answer", "refuse"])
        graph.add_edge("tool", "critic")
        graph.add_conditional_edges("critic", _next, ["tool", "evaluate", "answer"])
        graph.add_edge("answer", END)
        graph.add_edge("refuse", END)
        return graph

    # -- nodes --------------------------------------------------------------------------------

    def _clarify(self, state: AgentState, runtime: Runtime[Run]) -> dict[str, Any]:
        """Ask back when the question points at "the" document and several fit equally, or
        hinges on a term (an acronym, a quoted phrase) that no document writes; a reply that
        says what the term means takes its place in the question."""
        run = runtime.context
        if state.get("clarified"):
            return {}
        question = state.get("ask_back") or None  # a "not helpful" verdict asks back at once
        term = None
        if question is None and self.settings.clarify:
            first = [hit_from_dict(h) for h in state.get("hits", [])]
            question = ambiguous(state["question"], first)
            if question is None:
                term = self.undefined_term(state["question"], first, run.request.where)
                question = ask_about(term) if term else None
        if question is None:
            return {}
        run.trace.add("clarify", question, {"question": question, "term": term})
        reply = str(interrupt(question))
        run.trace.add("clarified", f"the user answered: {reply}", {"reply": reply})
        hits = state.get("hits", [])
        if term:  # a reply about a term names a document only by its file name
            named = reply.casefold()
            chosen = [h for h in hits if Path(h["chunk"]["path"]).stem.casefold() in named]
        else:
            chosen = chosen_by_reply(hits, reply)
        focus = sorted({h["chunk"]["source_id"] for h in chosen})
        only_a_file = any(
            reply.casefold().strip(" .") in (path.stem.casefold(), path.name.casefold())
            for path in (Path(h["chunk"]["path"]) for h in chosen)
        )
        if term and not only_a_file and 0 < len(reply.split()) <= 8:  # it says what it means
            meaning = reply.strip(" .?!")
            asked = re.sub(rf"\b{re.escape(term)}\b", lambda _: meaning, state["question"])
            run.trace.add("clarified", f"understood as: {asked}", {"question": asked})
        else:
            asked = f"{state['question']} ({reply})"
        return {
            "question": asked,
            "clarified": reply,
            "term": term or "",  # the reply said what this term means: it picks no document
            "hits": chosen,  # the document the user chose, if the reply names it
            "focus": focus,
        }

    def _plan(self, state: AgentState, runtime: Runtime[Run]) -> dict[str, Any]:
        run = runtime.context
        question = state["question"]
        kind = state["kind"]
        searches: list[str] = []
        how = "the question itself"
        if kind == "compare":
            searches = entity_searches(question)
            how = "one search per thing compared"
            weak = gate(run.first_hits, self.steps.settings.answer.min_similarity) is not None
            if len(searches) < 2 and not weak and run.calls_left():
                try:
                    plan = decide(self.steps.chat, run.trace, "plan", Plan, question=question)
                    searches = [s for s in plan.searches if s.strip()]
                    how = "the model's plan"
                except LLMError as error:
                    run.trace.add("plan", f"no plan from the model: {error.one_line()}")
        searched = state.get("searched", [])
        pending = [s for s in searches if s.casefold() not in {q.casefold() for q in searched}]
        if question not in searched:  # a clarified question is searched anew
            pending = [question, *pending]
        run.trace.add(
            "plan",
            f"{kind}: "
            + (", ".join(repr(s) for s in pending) or "no further search")
            + f" ({how})",
            {"kind": kind, "searches": pending},
        )
        return {"pending": pending}

    def _retrieve(self, state: AgentState, runtime: Runtime[Run]) -> dict[str, Any]:
        run = runtime.context
        pending = state.get("pending", [])
        if not pending:
            return {}
        round_number = state.get("rounds", 0) + 1
        hits = list(state.get("hits", []))
        where = run.request.where
        if state.get("focus"):  # the user chose a document: search only there
            where = replace(where or Filter(), source_ids=tuple(state["focus"]))
        for search in pending:  # each search keeps its own ranking (a chunk may be in several)
            for hit in self.steps.retrieve(search, where, run.trace):
                hits.append(hit_to_dict(hit, round_number, search))
        update: dict[str, Any] = {
            "hits": hits,
            "pending": [],
            "searched": [*state.get("searched", []), *pending],
            "rounds": round_number,
        }
        reply = state.get("clarified", "")
        if reply and not state.get("focus") and not state.get("term"):  # names a document found now
            chosen = chosen_by_reply(hits, reply)
            if chosen:
                update["hits"] = chosen
                update["focus"] = sorted({h["chunk"]["source_id"] for h in chosen})
        return update

    def _evaluate(self, state: AgentState, runtime: Runtime[Run]) -> dict[str, Any]:
        run = runtime.context
        started = now()
        hits = [hit_from_dict(h) for h in state.get("hits", [])]
        if self.steps.gate(hits, run.trace, state["question"]) is not None:
            return {"next": "refuse"}
        kind = state["kind"]
        done = {t["tool"] for t in state.get("tools", []) if t.get("accepted")}
        aside = set(state.get("set_aside", []))
        tool = ""
        offer: list[str] = []  # the tools the model may choose from (all, when empty)
        if done & {"count", "sum", "change"}:
            pass  # code counted, added or compared what the question names: the answer's figure
        elif "statement" not in done | aside and statements.plan(state["question"]) is not None:
            tool = "statement"  # a statement's figure or a standard ratio: code reads the rows
        elif "count" not in done | aside and lists.count_list(
            state["question"], [hit.chunk for hit in hits]
        ):
            tool = "count"  # "how many … are listed": code counts the list's items
        elif (
            "sum" not in done | aside
            and sums.asks_sum(state["question"])  # before reading the sources' tables
            and sums.named_sum(
                state["question"], [hit.chunk for hit in hits], self.calls.source_tables(hits)
            )
        ):
            tool = "sum"  # "the combined X of A and B": code adds the rows it names
        elif (
            not done  # the statement reader's figure, when it found one, is the answer's
            and "change" not in aside
            and changes.asks_change(state["question"])
            and changes.named_change(
                state["question"], [hit.chunk for hit in hits], self.calls.source_tables(hits)
            )
        ):
            tool = "change"  # "how much did A's X change from P1 to P2": code reads both figures
        elif kind == "aggregate" and "sql" not in done | aside and self.calls.has_tables(run, hits):
            tool = "sql"
        elif (
            kind == "compute"
            and not done
            and "sql" not in aside
            and self.calls.named_repeats(run, hits, state["question"])
        ):
            # "How much more revenue did Widget C make than Widget D?" over rows of single
            # sales: each operand is a total of its rows, which SQL adds up.
            tool = "sql"
        elif (
            not done
            and "date_difference" not in aside
            and ASKS_DAYS.search(state["question"])
            and len(full_dates([hit.chunk.text for hit in hits])) >= 2
        ):
            tool, offer = "choose", ["date_difference"]  # days between two written dates
        elif kind in ("compute", "aggregate") and "calculator" not in done | aside:
            if not done and not state.get("nothing_found"):
                tool = "calculator"
        elif (
            not done
            and "page" not in aside
            and NAMES_PAGE.search(state["question"])
            and any(hit.chunk.locator.page for hit in hits)
        ):
            tool = "page"  # "the diagram on page 9": code reads the page the question names
        elif self.calls.user_tools() and not done:
            tool = "choose"
        if tool in _BY_MODEL and not run.calls_left(2):
            # The query or the expression is a model call, and the reply needs the last one.
            run.trace.add("evaluate", f"no model call left for the {tool} tool", {"tool": tool})
            tool = ""
        if tool:
            run.trace.add(
                "evaluate", f"needs a tool: {tool}", {"next": "tool", "tool": tool}, started
            )
            return {"next": "tool", "tool": tool, "feedback": "", "offer": offer}
        if state.get("rounds", 0) < self.settings.max_rounds and not done:
            follow = self._follow_up(state, hits, run)
            if follow:
                return follow
        run.trace.add("evaluate", "enough to answer", {"next": "answer"}, started)
        return {"next": "answer"}

    def _follow_up(self, state: AgentState, hits: list[Hit], run: Run) -> dict[str, Any] | None:
        """Interleaved hops: in a multi-hop question's first round, code searches the bridge the
        passages name when its own passage is not found yet; otherwise the model says whether
        the evidence answers the question and, if not, what was found and what to search next.
        A search already run is not repeated."""
        question = state["question"]
        evidence = self.reply.evidence_for(state, hits, run, quiet=True)
        if older_by_dates(question, [e.chunk.text for e in evidence]) is not None:
            return None  # both birth dates are there: code compares them, no model call needed
        texts = [e.text for e in evidence]
        searched = {s.casefold() for s in state.get("searched", [])}
        searches: list[str] = []
        if state.get("kind") == "multihop" and state.get("rounds", 1) <= 1:
            # The next hop made by code from what the best passages name, before any model
            # call: when the likeliest bridge has no passage of its own among those found, it
            # is searched at once (a small model often takes the first hop's passage for the
            # answer: "Jim Cummings voiced Winnie the Pooh"); the model weighs the evidence
            # once both hops are in.
            # Whether the bridge's passage is there is judged on the evidence the reply will
            # see, not on every hit: a sixth hit is cut from the evidence, and then neither
            # searched for nor read.
            shown = [e.chunk for e in evidence if not e.derived]
            titles = [title(chunk) for chunk in shown]
            whole = [chunk.text for chunk in shown]  # not trimmed to the question's words
            searches = bridge_searches(question, relevant(whole, question)[:4], titles)
            searches = [s for s in searches if s.casefold() not in searched]
            if searches:
                run.trace.add(
                    "evaluate",
                    "the passages name what the question describes: search "
                    + ", ".join(repr(s) for s in searches)
                    + " next",
                    {"next": "retrieve", "searches": searches, "by": "code"},
                )
                return {"next": "retrieve", "pending": searches[:2]}
        assessment: Assessment | None = None
        if run.calls_left(2):
            try:
                assessment = decide(
                    self.steps.chat,
                    run.trace,
                    "evaluate",
                    Assessment,
                    question=question,
                    found=render(evidence),
                )
            except LLMError as error:
                run.trace.add("evaluate", f"no assessment: {error.one_line()}")
        if assessment is not None:
            # The model's word that the sources answer the question is checked: its answer must
            # be written in a passage about the question, else the search goes on.
            if stated_in(assessment.answer, relevant(texts, question)):
                return None
            suggested = " ".join(assessment.next_search.split())
            if suggested:
                searches.insert(0, suggested)
        searches = list(dict.fromkeys(s for s in searches if s.casefold() not in searched))
        if not searches:
            return None
        found = state.get("found", [])
        if assessment is not None and assessment.found:
            found = [*found, assessment.found]
        run.trace.add(
            "evaluate",
            "not yet answered: search " + ", ".join(repr(s) for s in searches) + " next",
            {"next": "retrieve", "searches": searches},
        )
        return {"next": "retrieve", "pending": searches[:2], "found": found}

    def _tool(self, state: AgentState, runtime: Runtime[Run]) -> dict[str, Any]:
        run = runtime.context
        hits = [hit_from_dict(h) for h in state.get("hits", [])]
        tool = state.get("tool", "")
        failures = dict(state.get("failures", {}))
        outcome = self.calls.call(tool, state, hits, run)
        run.trace.add(
            "tool",
            f"{outcome.tool}: "
            + (outcome.result.split("\n")[0] if outcome.ok else f"failed — {outcome.error}"),
            outcome.to_dict(),
            now() - outcome.elapsed_ms / 1000,
        )
        record = outcome_to_dict(outcome)
        record["accepted"] = False
        update: dict[str, Any] = {"tools": [*state.get("tools", []), record], "tool": outcome.tool}
        if not outcome.ok:
            failures[outcome.tool] = failures.get(outcome.tool, 0) + 1
            update["failures"] = failures
            update["feedback"] = outcome.error
        return update

    def _critic(self, state: AgentState, runtime: Runtime[Run]) -> dict[str, Any]:
        run = runtime.context
        tools = list(state.get("tools", []))
        last = outcome_from_dict(tools[-1])
        failures = dict(state.get("failures", {}))
        aside = list(state.get("set_aside", []))
        if last.ok:
            passages = [hit_from_dict(h).chunk for h in state.get("hits", [])]
            verdict = critic.review(state["question"], last, passages)
            run.trace.add(
                "critic",
                f"{verdict.verdict}: {verdict.why}",
                {"verdict": verdict.verdict, "why": verdict.why},
            )
            if verdict.verdict == "accept":
                tools[-1] = {**tools[-1], "accepted": True}
                return {"tools": tools, "next": "evaluate", "feedback": ""}
            failures[last.tool] = failures.get(last.tool, 0) + 1
            feedback = verdict.why if verdict.verdict == "repair" else ""
            if verdict.verdict == "discard":
                failures[last.tool] = self.settings.tool_retries + 1
            found = self._search_for_repair(verdict.search, state, run)
        else:
            feedback = last.error
            found = {}
        retries_left = failures.get(last.tool, 0) <= self.settings.tool_retries
        # The same call again after the feedback: another try would only repeat it (unless a
        # search just brought passages it has not seen).
        repeated = "hits" not in found and any(
            t["tool"] == last.tool and t["arguments"] == last.arguments for t in tools[:-1]
        )
        repeated = repeated or last.tool in _BY_CODE  # it would fail the same way again
        if retries_left and not repeated and run.calls_left(2):
            return {"failures": failures, "feedback": feedback, "next": "tool", **found}
        aside.append(last.tool)
        run.trace.add(
            "critic", f"{last.tool} set aside for this question", {"set_aside": last.tool}
        )
        update: dict[str, Any] = {
            "failures": failures,
            "set_aside": aside,
            "next": "evaluate",
            "feedback": "",
            **found,
        }
        # Queries that ran and found no rows, every time: the tables do not hold what the
        # question asks for (a year they do not cover), which the answer must not paper over.
        ran = [t for t in tools if t["tool"] == "sql" and t["ok"]]
        if last.tool == "sql" and ran and all(critic.found_nothing(t["result"]) for t in ran):
            update["nothing_found"] = True
        return update

    def _search_for_repair(self, search: str, state: AgentState, run: Run) -> dict[str, Any]:
        """The critic's search for what a repair needs (the rows about what the question
        measures: "total assets"), run once, inside the documents already found; its best
        passages join the evidence the next call sees. It is a retrieval round like any other:
        with the rounds spent (`agent.max_rounds`), there is none."""
        searched = state.get("searched", [])
        rounds = state.get("rounds", 1)
        if not search or search.casefold() in {s.casefold() for s in searched}:
            return {}
        if rounds >= self.settings.max_rounds:
            run.trace.add("critic", f"no retrieval round left to search {search!r}", {})
            return {}
        sources = tuple(dict.fromkeys(h["chunk"]["source_id"] for h in state.get("hits", [])))
        where = replace(run.request.where or Filter(), source_ids=sources) if sources else None
        found = self.steps.retrieve(search, where or run.request.where, run.trace)[:PER_ROUND]
        known = {h["chunk"]["chunk_id"] for h in state.get("hits", [])}
        fresh = [h for h in found if h.chunk.chunk_id not in known]
        update: dict[str, Any] = {"searched": [*searched, search], "rounds": rounds + 1}
        if fresh:
            update["hits"] = [
                *state.get("hits", []),
                *(hit_to_dict(h, rounds + 1, search) for h in fresh),
            ]
        return update

    def _answer(self, state: AgentState, runtime: Runtime[Run]) -> dict[str, Any]:
        run = runtime.context
        run.result = self.reply.answer_from(run, dict(state))
        return {}

    def _refuse(self, state: AgentState, runtime: Runtime[Run]) -> dict[str, Any]:
        run = runtime.context
        run.result = refusal(
            run.request,
            run.trace,
            WEAK_EVIDENCE,
            mode="agent",
            standalone=state["question"],
            thread=run.thread,
        )
        return {}


def _next(state: AgentState) -> str:
    return state.get("next") or "answer"
