"""The agent's reply: written from the evidence its rounds and tools gathered, then checked.

Code takes over where a small model is unreliable: a two-hop question's reply is written from
the passage naming the bridge and the passage about it alone; who is older is decided from the
birth dates; a figure or a result code computed is written into the reply when the model left it
out; a yes/no question gets its yes or no from one small decision.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from polyrag.agent.answers import conclude, refusal, show_evidence
from polyrag.agent.compare import compare, comparison_of
from polyrag.agent.critic import ABOUT_YEARS
from polyrag.agent.decisions import YesNo, decide
from polyrag.agent.grounding import (
    derived,
    with_bridges,
    with_chain,
    with_coverage,
    with_figure,
    with_result,
    with_rows_picked,
)
from polyrag.agent.questions import AGES, bridge_of, older_by_dates
from polyrag.agent.run import PER_ROUND, Run
from polyrag.agent.state import AgentState, hit_from_dict, outcome_from_dict
from polyrag.agent.steps import YES_NO, Steps, money_refused, money_unwritten
from polyrag.agent.trace import Trace
from polyrag.answer.evidence import Evidence, label, render, title
from polyrag.answer.prompts import prompt
from polyrag.answer.verify import Verdict, unwritten_periods
from polyrag.errors import LLMError
from polyrag.settings import AgentSettings
from polyrag.types import NO_EVIDENCE_FITS, NOT_ANSWERED, Answer, Citation, Hit


def _passages(evidence: Sequence[Evidence]) -> list[str]:
    """The sources' text shown: each passage, and for a tool's result the chunks it rests on."""
    return [
        text
        for item in evidence
        for text in ([chunk.text for chunk in item.backing] if item.derived else [item.text])
    ]


def _periods_unwritten(question: str, evidence: Sequence[Evidence]) -> list[str]:
    """The years, quarters and months the question names, as it writes them, when no evidence
    shown (its text, headings or file name) writes them; none for a question about a span of
    years ("how many years since 1990")."""
    if ABOUT_YEARS.search(question):
        return []
    return [
        found.group(0)
        for pattern in unwritten_periods(question, evidence, ranks=False)
        if (found := pattern.search(question)) is not None
    ]


class Replier:
    """Writes and checks the agent's reply; one per agent."""

    def __init__(self, steps: Steps, settings: AgentSettings) -> None:
        self.steps = steps
        self.settings = settings

    def answer_from(self, run: Run, state: dict[str, Any]) -> Answer:
        """The reply from the evidence gathered so far, checked, with what code computed or
        compared written in when the model left it out."""
        question = state.get("question") or run.request.question
        hits = [hit_from_dict(h) for h in state.get("hits", [])]
        evidence = self.evidence_for(state, hits, run)
        if not evidence:
            return refusal(
                run.request,
                run.trace,
                NO_EVIDENCE_FITS,
                mode="agent",
                standalone=question,
                thread=run.thread,
            )
        hint = ""
        asks_two = YES_NO.match(question) or AGES.search(question)
        if state.get("kind") == "multihop" and not asks_two:
            evidence, hint = self._across_bridge(question, evidence, run)
        show_evidence(evidence, run.trace)
        if state.get("kind") in ("compute", "aggregate"):
            unseen = _periods_unwritten(question, evidence)
            # A tool's result is named by the model ("total_amount_paid = 4"): only the
            # passages, and the rows a result rests on, say whether the sources hold money.
            money = money_unwritten(question, _passages(evidence))
            if unseen or money:
                # "How many background checks did Texas have in December 2015?" over the
                # report of November 2015: a query or a calculation over what the sources
                # hold answers for another period. "The total amount paid" over a receipt
                # of quantities: a sum of other things.
                why = (
                    f"the question asks about {', '.join(unseen)}, which no source shown writes"
                    if unseen
                    else money_refused(money)
                )
                run.trace.add(
                    "answered",
                    f"refused: {why}",
                    {"unwritten": unseen} if unseen else {"asked": money},
                )
                return refusal(
                    run.request,
                    run.trace,
                    NOT_ANSWERED,
                    mode="agent",
                    standalone=question,
                    thread=run.thread,
                )
        compared = self._by_birth_dates(run, question, evidence) or self._by_each(
            run, question, evidence
        )
        if compared is not None:
            return compared
        style = prompt("yesno") if YES_NO.match(question) else ""
        if any(item.derived for item in evidence):
            style += prompt("computed")
        elif state.get("nothing_found"):
            style += prompt("no_rows")
        style += hint
        draft = self.steps.generate(question, evidence, run.request.history, run.trace, style=style)
        arithmetic = state.get("kind") in ("compute", "aggregate", "compare")
        verdict = self.steps.verify(
            draft,
            evidence,
            run.trace,
            arithmetic=arithmetic,
            question=question,
            # Weighed below, once the chain of passages the reply rests on is cited.
            check_answered=False,
        )
        answer = conclude(
            run.request,
            run.trace,
            verdict,
            draft.provider,
            mode="agent",
            standalone=question,
            thread=run.thread,
        )
        # What code read or computed, written in when the reply left it out; the first that
        # applies wins.
        rewrites = [
            (
                with_figure(answer, evidence),
                "the reply did not state the figure code read from the statements",
            )
        ]
        if state.get("kind") in ("compute", "aggregate"):
            rewrites += [
                (
                    with_result(answer, evidence, question),
                    "the reply did not state the calculation's result",
                ),
                (
                    with_rows_picked(answer, evidence, question),
                    "the reply did not name the rows the query picked",
                ),
            ]
        for written, why in rewrites:
            if written is not answer:
                run.trace.add(
                    "result",
                    f"{why}: code wrote the answer",
                    {"answer": written.text, "was": answer.text},
                )
                answer = replace(written, steps=tuple(run.trace.steps))
                break
        if state.get("kind") in ("multihop", "compare", "compute", "lookup") and not answer.refused:
            answer = with_bridges(answer, evidence, state)
            answer = with_chain(answer, evidence, question)
            answer = with_coverage(answer, evidence, question)
        if state.get("kind") not in ("compute", "aggregate"):
            weigh = state.get("kind") not in ("multihop", "compare")
            answer = self._weighed(run, question, evidence, answer, weigh=weigh)
        if YES_NO.match(question) and not answer.refused:
            answer = self._yes_or_no(run, question, evidence, answer)
        return answer

    def _weighed(
        self,
        run: Run,
        question: str,
        evidence: Sequence[Evidence],
        answer: Answer,
        *,
        weigh: bool = True,
    ) -> Answer:
        """A looked-up reply resting on one document gets the fast path's check: do its
        passages answer this exact question? A passage about the right subject often holds a
        plausible answer to a question it does not answer, and the graph's evaluation let nearly
        all of those through (SQuAD 2.0: 2 of 31 unanswerable questions refused). A reply that
        rests on a chain of passages from several documents is left alone: no single one
        answers the question as asked, and weighing them took back right HotpotQA answers
        (0.53 → 0.43 right and grounded). Without `weigh` (a multi-hop or comparing question,
        whose one document's passages may each answer a part), only the checks code makes
        run: a name or code no passage writes, an opposite word, and the like."""
        if answer.refused or len({c.chunk.path for c in answer.citations}) != 1:
            return answer
        verdict = Verdict(answer.text, False, "answered", answer.citations, partial=answer.partial)
        weighed = self.steps.answered(question, verdict, evidence, run.trace, weigh=weigh)
        if not weighed.refused:
            return replace(answer, steps=tuple(run.trace.steps), model_calls=run.trace.model_calls)
        return refusal(
            run.request,
            run.trace,
            weighed.reason,
            mode="agent",
            standalone=question,
            provider=answer.provider,
            thread=run.thread,
        )

    def _across_bridge(
        self, question: str, evidence: list[Evidence], run: Run
    ) -> tuple[list[Evidence], str]:
        """A small model given both hops' passages among others often answers the first hop
        ("the woman who portrayed Corliss Archer was Shirley Temple"). When code finds the
        bridge, the model sees only the passage naming it and the passage about it, and is
        told whom the question describes."""
        passages = [(e.chunk.source_id, title(e.chunk), e.chunk.text) for e in evidence]
        bridge = bridge_of(question, passages)
        if bridge is None:
            return evidence, ""
        via = replace(evidence[bridge.via], n=1)
        about = replace(evidence[bridge.about], n=2)
        run.trace.add(
            "bridge",
            f"the question describes {bridge.name} ({label(via.chunk)}); the answer is in "
            f"{label(about.chunk)}",
            {"name": bridge.name, "via": via.chunk.chunk_id, "about": about.chunk.chunk_id},
        )
        return [via, about], prompt("bridge").format(name=bridge.name)

    def _by_birth_dates(
        self, run: Run, question: str, evidence: Sequence[Evidence]
    ) -> Answer | None:
        """ "Who is older, A or B?": code compares the birth dates the passages give right after
        each name and writes the answer citing both; None when it cannot tell."""
        found = older_by_dates(question, [item.chunk.text for item in evidence])
        asked = AGES.search(question)
        if found is None or asked is None:
            return None
        chosen, other = found
        one, two = evidence[chosen.passage], evidence[other.passage]
        word = asked["word"].lower()
        verb = {"older": "is older", "elder": "is the elder", "younger": "is younger"}
        text = (
            f"{chosen.name} {verb.get(word, f'was {word}')}: born {chosen.written} [{one.n}], "
            f"while {other.name} was born {other.written} [{two.n}]."
        )
        run.trace.add(
            "compare",
            f"birth dates compared by code: {chosen.name} {chosen.written}, "
            f"{other.name} {other.written}",
            {
                "answer": chosen.name,
                "dates": {chosen.name: chosen.written, other.name: other.written},
            },
        )
        return _written_by_code(run, question, text, (one, two))

    def _by_each(self, run: Run, question: str, evidence: Sequence[Evidence]) -> Answer | None:
        """ "Are A and B in the same X?", "Are A and B both P?", "Which N was P, A or B?":
        asked of each thing in its own passage, decided and written by code (agent/compare.py);
        None when the question is not of those shapes or the findings cannot tell."""
        comparison = comparison_of(question)
        if comparison is None:
            return None
        calls_left = run.budget - run.trace.model_calls
        compared = compare(comparison, evidence, self.steps.chat, run.trace, calls_left)
        if compared is None:
            return None
        run.trace.add(
            "compare",
            f"asked of each in its own passage ({comparison.shape}): {compared.findings}",
            {"shape": comparison.shape, "findings": compared.findings},
        )
        return _written_by_code(run, question, compared.text, compared.cited)

    def _yes_or_no(
        self, run: Run, question: str, evidence: Sequence[Evidence], answer: Answer
    ) -> Answer:
        """A yes/no question answered without its yes or no gets it from one small decision."""
        if re.match(r"^\W*(?:yes|no)\b", answer.text, re.IGNORECASE):
            return answer
        if run.trace.model_calls >= run.budget:
            return answer
        try:
            verdict = decide(
                self.steps.chat,
                run.trace,
                "yesno",
                YesNo,
                max_tokens=16,
                question=question,
                found=render(evidence),
                answer=answer.text,
            )
        except LLMError:
            return answer
        word = "Yes" if verdict.answer == "yes" else "No"
        return replace(answer, text=f"{word}. {answer.text}", model_calls=run.trace.model_calls)

    def evidence_for(
        self, state: dict[str, Any] | AgentState, hits: list[Hit], run: Run, *, quiet: bool = False
    ) -> list[Evidence]:
        """Each search's best hits, interleaved (so every hop and every thing compared is
        shown), then accepted tool results as derived evidence."""
        rounds: dict[str, list[Hit]] = {}
        for raw, hit in zip(state.get("hits", []), hits, strict=True):
            key = raw.get("search") or str(raw.get("round", 1))
            rounds.setdefault(key, []).append(hit)
        ordered: list[Hit] = []
        seen: set[str] = set()
        for rank in range(PER_ROUND):
            for group in rounds.values():
                if rank < len(group) and group[rank].chunk.chunk_id not in seen:
                    ordered.append(group[rank])
                    seen.add(group[rank].chunk.chunk_id)
        ranked = [
            Hit(h.chunk, 1.0 - i / 100, h.keyword_rank, h.vector_rank, h.vector_similarity)
            for i, h in enumerate(ordered)
        ]
        outcomes = [outcome_from_dict(t) for t in state.get("tools", []) if t.get("accepted")]
        results = [derived(o) for o in outcomes if o.ok and o.backing]
        # Pages a tool read were asked for ("on page 9"): they come first.
        passages = [Hit(c, 1.0) for o in outcomes for c in o.passages]
        read = {hit.chunk.chunk_id for hit in passages}
        ranked = [hit for hit in ranked if hit.chunk.chunk_id not in read]
        items = max(self.steps.settings.answer.evidence_items, 2 * len(rounds), 3)
        budget = self.steps.settings.answer.context_tokens + 160 * (len(rounds) - 1)
        if results:  # the computed result and its rows say it all: one passage for context
            items = len(results) + 1
        trace = run.trace if not quiet else Trace(lambda _event: None)
        # A hop's passage is trimmed to the sentences about what it was searched for ("Shirley
        # Temple government position"), which may share no word with the question itself.
        about = " ".join(dict.fromkeys([state.get("question", ""), *state.get("searched", [])]))
        return self.steps.evidence(
            about,
            passages + ranked,
            trace,
            derived=results,
            items=items,
            budget=budget,
            relative=0.0,
        )


def _written_by_code(run: Run, question: str, text: str, cited: Sequence[Evidence]) -> Answer:
    """An answer code wrote (a comparison it decided), citing these passages."""
    citations = tuple(Citation(item.n, item.chunk) for item in cited)
    verdict = Verdict(text, False, "answered", citations)
    return conclude(
        run.request, run.trace, verdict, "code", mode="agent", standalone=question,
        thread=run.thread,
    )  # fmt: skip
