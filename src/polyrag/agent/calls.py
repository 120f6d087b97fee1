"""The agent's tool calls: arguments from one small decision, repaired by code where plainly off.

The statement reader, sums and changes need no decision (code reads the rows); SQL is written
by the model and repaired by code before it runs (a join nothing reads, a count that should be a
sum, a filter on values the question never names); the calculator's operands are checked
against what the model was shown; a user's tool is chosen and filled in by one decision.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from polyrag.agent import critic
from polyrag.agent.decisions import Expression, SqlQuery, ToolChoice, decide
from polyrag.agent.questions import NAMES_PAGE, dated_sentences
from polyrag.agent.run import Run
from polyrag.agent.state import AgentState, outcome_from_dict
from polyrag.agent.steps import Steps
from polyrag.agent.tables import question_tables
from polyrag.agent.tools import changes, lists, statements, sums
from polyrag.agent.tools.base import ToolContext, ToolOutcome
from polyrag.agent.tools.registry import Toolbox
from polyrag.agent.tools.sql import TableDatabase
from polyrag.answer.evidence import Evidence, label, render
from polyrag.answer.numbers import numbers_in_text, same_number
from polyrag.errors import LLMError
from polyrag.index.store.base import Store
from polyrag.index.tables.base import SourceTable, TableStore
from polyrag.settings import AgentSettings
from polyrag.types import Chunk, Hit

# The evidence the model is shown for a state: (state, hits, run, quiet=) → evidence.
EvidenceFor = Callable[..., list[Evidence]]

_BUILTIN = frozenset({"sql", "calculator", "date_difference", "read_page"})
_STATEMENT_SOURCES = 3  # the filings a statement figure is looked for in, best found first


class ToolCalls:
    """Calls the agent's tools over the engine's store and tables; one per agent."""

    def __init__(
        self,
        steps: Steps,
        toolbox: Toolbox,
        store: Store,
        tables: TableStore,
        settings: AgentSettings,
        evidence_for: EvidenceFor,
    ) -> None:
        self.steps = steps
        self.toolbox = toolbox
        self.store = store
        self.table_store = tables
        self.settings = settings
        self.evidence_for = evidence_for

    def call(self, tool: str, state: AgentState, hits: list[Hit], run: Run) -> ToolOutcome:
        """One call of `tool`: its arguments from one small decision (or from code, for the
        statement reader), the model told why its last attempt failed."""
        question = state["question"]
        feedback = state.get("feedback", "")
        note = f"The last attempt failed: {feedback}\n" if feedback else ""
        passages = [h.chunk for h in hits]
        earlier = [outcome_from_dict(t) for t in state.get("tools", []) if t.get("accepted")]
        context = ToolContext(
            passages=passages,
            results=earlier,
            tables=lambda: self._database(run, hits),
            pages=lambda document, page: self._page(hits, document, page),
        )
        try:
            if tool == "statement":
                sources = list(dict.fromkeys(hit.chunk.source_id for hit in hits))
                tables = self.table_store.tables(sources[:_STATEMENT_SOURCES])
                read: dict[str, list[Chunk]] = {}

                def chunks_of(source: str) -> list[Chunk]:
                    if source not in read:
                        read[source] = self.store.chunks_of(source)
                    return read[source]

                return statements.run(question, tables, context, chunks_of)
            if tool == "count":
                return lists.run(question, passages)
            if tool == "page":
                return self._named_pages(question, hits, context)
            if tool == "sum":
                return sums.run(question, passages, self.source_tables(hits))
            if tool == "change":
                return changes.run(question, passages, self.source_tables(hits))
            if tool == "sql":
                database = self._database(run, hits)
                schema = database.schema() if database is not None else "(none)"
                query = decide(
                    self.steps.chat,
                    run.trace,
                    "sql",
                    SqlQuery,
                    max_tokens=200,
                    schema=schema,
                    question=question,
                    feedback=note,
                )
                outcome = self._run_sql(question, query.sql, context, run)
                return self._repaired_by_code(question, outcome, context, run)
            if tool == "calculator":
                evidence = self.evidence_for(state, hits, run, quiet=True)
                # What the model is shown may join rows of several chunks (a long table's rows
                # that answer the question): its operands are checked against that text too.
                context = replace(
                    context,
                    passages=[
                        *passages,
                        *(replace(e.chunk, text=e.text) for e in evidence if not e.derived),
                    ],
                    stated=tuple(numbers_in_text(question)),  # "DPO is 365 * …"
                )
                expression = decide(
                    self.steps.chat,
                    run.trace,
                    "calculate",
                    Expression,
                    max_tokens=100,
                    context=render(evidence),
                    question=question,
                    feedback=note,
                )
                outcome = self.toolbox.call(
                    "calculator", {"expression": expression.expression}, context
                )
                return self._difference_by_code(question, outcome, context, run)
            offer = state.get("offer", [])
            found = "; ".join(label(h.chunk) for h in hits[:4])
            if "date_difference" in offer:  # the dates it may run between, as written
                found += "\nDates in the sources:\n" + "\n".join(
                    f"- {sentence}" for sentence in dated_sentences([h.chunk.text for h in hits])
                )
            choice = decide(
                self.steps.chat,
                run.trace,
                "tool",
                ToolChoice,
                tools=self.toolbox.describe(offer or None),
                question=question,
                found=found,
                feedback=note,
            )
            if choice.tool == "none":
                return ToolOutcome("none", {}, False, error="no tool needed")
            if offer and choice.tool not in offer:
                return ToolOutcome(
                    choice.tool,
                    choice.arguments,
                    False,
                    error=f"only {', '.join(offer)} may be used for this question",
                )
            return self.toolbox.call(choice.tool, choice.arguments, context)
        except LLMError as error:
            return ToolOutcome(
                tool, {}, False, error=f"no arguments from the model: {error.one_line()}"
            )

    def _run_sql(self, question: str, query: str, context: ToolContext, run: Run) -> ToolOutcome:
        """The model's query, first repaired by code where it is plainly off: a joined table
        nothing reads is dropped, and "how many <column>" adds the column up instead of
        counting its rows, and "which <label> has the most" over rows where a label repeats
        compares totals per label. A repaired query that fails gives way to the one written."""
        repaired, notes = query, []
        joins = critic.drop_idle_joins(repaired)
        if joins is not None:
            repaired = joins[0]
            notes.append("dropped the join of " + ", ".join(joins[1]) + " (nothing of it is read)")
        unfolded = critic.conditions_out_of_case(repaired)
        if unfolded is not None:
            repaired = unfolded
            notes.append("the CASE's condition became the WHERE, so the rows read are cited")
        database = context.tables()
        if critic.aggregates_all(repaired):
            # A sum over rows the model picked by numbers the question never says ("col_1 IN
            # (1, 2, 3, 4)", read off the example rows), or by a list of values it never names,
            # is a sum over fewer rows than asked.
            titles = database.titles() if database else ""
            unnamed = critic.drop_unnamed_filters(
                question, repaired, copied_only=True, titles=titles
            )
            if unnamed is not None:
                repaired = unnamed[0]
                notes.append("the question names no value of " + "; ".join(unnamed[1]))
        turned = critic.change_the_way_asked(question, repaired)
        if turned is not None:
            repaired = turned[0]
            notes.append("turned " + "; ".join(turned[1]) + " the way the question's change goes")
        numeric = database.numeric if database else (lambda _table: [])
        summed = critic.summed_not_counted(question, repaired, numeric)
        if summed is not None:
            repaired = summed[0]
            notes.append("added up " + ", ".join(summed[1]) + " instead of counting its rows")
        grouped = (
            critic.totals_per_label(repaired, database.repeats, question) if database else None
        )
        if grouped is not None:
            repaired = grouped[0]
            notes.append(f"{grouped[1]} repeats across rows, so the totals per {grouped[1]} decide")
        ranked = critic.rank_groups(question, repaired)
        if ranked is not None:
            repaired = ranked[0]
            notes.append(f"the question asks for one: the groups ranked by {ranked[1]}")
        kind = critic.kind_asked(question)
        narrowed = database.of_kind(repaired, kind) if database and kind else None
        if narrowed is not None:
            repaired = narrowed
            notes.append(f"the question asks which {kind}: only rows naming a {kind} are ranked")
        if notes:
            outcome = self.toolbox.call("sql", {"query": repaired}, context)
            if outcome.ok:
                run.trace.add(
                    "critic",
                    "repair: " + "; ".join(notes),
                    {"verdict": "repair", "written": query, "query": repaired},
                )
                return outcome
            run.trace.add(
                "critic",
                f"the repair ({'; '.join(notes)}) failed: {outcome.error}; the query as written "
                "runs instead",
                {"verdict": "repair failed", "written": query, "query": repaired},
            )
        return self.toolbox.call("sql", {"query": query}, context)

    def _repaired_by_code(
        self, question: str, outcome: ToolOutcome, context: ToolContext, run: Run
    ) -> ToolOutcome:
        """A query that found nothing, run again by code with its equalities on words as
        "contains" ("company = 'ProCourier'" over "ProCourier, Inc."); one that failed or found
        nothing, without the WHERE conditions on values the question never names; one that
        failed or found nothing through tables joined only to filter it, over its first table
        alone; one
        that picked its answer before ranking ("Which state had the most …?" over three
        example rows), without that pick. The first repair that finds rows is taken; the first
        attempt stays in the trace."""
        asked = str(outcome.arguments.get("query", ""))
        tries: list[tuple[str, str, list[str]]] = []  # (query, why, conditions dropped)
        if outcome.ok and not critic.found_nothing(outcome.result):
            unpicked = critic.without_preset(question, asked, critic.titles_of(outcome))
            if unpicked is not None:
                why = "the query picked the answer before ranking (" + unpicked[1] + "): ranked all"
                tries.append((unpicked[0], why, [unpicked[1]]))
        else:
            contains = critic.equalities_as_contains(asked) if outcome.ok else None
            if contains is not None:
                why = "no row equals " + "; ".join(contains[1]) + ": rows holding those words"
                tries.append((contains[0], why, contains[1]))
            repaired = critic.drop_unnamed_filters(question, asked)
            if repaired is not None:
                why = "the question names no value of " + "; ".join(repaired[1]) + ", so it ran"
                tries.append((repaired[0], why + " without", repaired[1]))
            single = critic.without_filtering_joins(asked)
            if single is not None:
                why = "the tables joined only filter it, and it found nothing: ran without "
                why = (why if outcome.ok else why.replace("found nothing", "failed")) + "; ".join(
                    single[1]
                )
                tries.append((single[0], why, single[1]))
        for query, why, dropped in tries:
            again = self.toolbox.call("sql", {"query": query}, context)
            if not again.ok or critic.found_nothing(again.result):
                continue
            first = outcome.result.split("\n")[0] if outcome.ok else f"failed — {outcome.error}"
            run.trace.add("tool", f"sql: {first}", outcome.to_dict())
            run.trace.add(
                "critic",
                "repair: " + why,
                {"verdict": "repair", "dropped": dropped, "query": query},
            )
            return again
        return outcome

    def _difference_by_code(
        self, question: str, outcome: ToolOutcome, context: ToolContext, run: Run
    ) -> ToolOutcome:
        """A difference between two rows the question names under a column it names ("the
        difference between the totals of Indiana and Illinois"), or between the amounts of two
        entries of a listing it names ("How much more was paid to A than to B?"), computed by
        code from those rows when the model's expression failed or did not take both their
        figures (it misread Indiana's 130,333 as 129,190 twice, and "MAY 22 26,874.99" as
        874.99). The first attempt stays in the trace."""
        named = critic.difference_of_rows(question, context.passages)
        if named is None:
            return outcome
        expression, what = named
        wanted = [float(n.strip("()")) for n in expression.split(" - ")]
        taken = critic.operands_of(outcome) if outcome.ok else []
        if all(any(same_number(w, t) for t in taken) for w in wanted):
            return outcome
        again = self.toolbox.call("calculator", {"expression": expression}, context)
        if not again.ok:
            return outcome
        first = outcome.result.split("\n")[0] if outcome.ok else f"failed — {outcome.error}"
        run.trace.add("tool", f"calculator: {first}", outcome.to_dict())
        run.trace.add(
            "critic",
            f"repair: the question names the two figures to subtract ({what}): {expression}",
            {"verdict": "repair", "expression": expression},
        )
        return again

    def _database(self, run: Run, hits: Sequence[Hit]) -> TableDatabase | None:
        if not run.tables_loaded:
            run.tables_loaded = True
            tables = question_tables(
                self.table_store, run.request.question, hits, self.settings.max_tables
            )
            if tables:
                run.database = TableDatabase(tables, timeout_s=self.settings.sql_timeout_s)
        return run.database

    def source_tables(self, hits: Sequence[Hit]) -> list[SourceTable]:
        """The whole tables of the best sources found (a passage holds only some rows of a
        long table)."""
        sources = list(dict.fromkeys(hit.chunk.source_id for hit in hits))
        return self.table_store.tables(sources[:_STATEMENT_SOURCES])

    def has_tables(self, run: Run, hits: Sequence[Hit]) -> bool:
        database = self._database(run, hits)
        return database is not None and bool(database.tables)

    def named_repeats(self, run: Run, hits: Sequence[Hit], question: str) -> list[str]:
        """What the question names that several rows of a found table stand for (see
        `TableDatabase.named_repeats`)."""
        database = self._database(run, hits)
        return database.named_repeats(question) if database is not None else []

    def _named_pages(self, question: str, hits: Sequence[Hit], context: ToolContext) -> ToolOutcome:
        """The pages the question names (at most two), read whole from the best-found document
        that has pages: "the title of the diagram on page 9" is about page 9, which a search
        for the question's words may rank below pages that say "diagram" more often."""
        document = next(Path(h.chunk.path).name for h in hits if h.chunk.locator.page)
        pages = list(dict.fromkeys(int(m.group(1)) for m in NAMES_PAGE.finditer(question)))[:2]
        read = [
            self.toolbox.call("read_page", {"document": document, "page": n}, context)
            for n in pages
        ]
        found = [outcome for outcome in read if outcome.ok]
        if not found:
            return replace(read[0], tool="page")
        return ToolOutcome(
            "page",
            {"document": document, "pages": pages},
            True,
            "; ".join(outcome.result for outcome in found),
            passages=tuple(chunk for outcome in found for chunk in outcome.passages),
        )

    def _page(self, hits: Sequence[Hit], document: str, page: int) -> list[Chunk]:
        wanted = Path(document).name.casefold()
        for hit in hits:
            if Path(hit.chunk.path).name.casefold() == wanted:
                chunks = self.store.chunks_of(hit.chunk.source_id)
                return [c for c in chunks if c.locator.page == page]
        return []

    def user_tools(self) -> bool:
        """Whether the settings registered tools of the user's own."""
        return any(name not in _BUILTIN for name in self.toolbox.names())
