"""The composition root: the only module that names concrete classes.

Reading `ingest()` and `ask()` top to bottom shows the whole pipeline. Every part is built on
first use, so `polyrag sources list` never loads a model.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Generic, TypeVar, overload

from polyrag import build
from polyrag.agent.answers import Request
from polyrag.agent.conversation import consult
from polyrag.agent.decisions import Classified, decide
from polyrag.agent.fast import answer_fast
from polyrag.agent.graph import Agent
from polyrag.agent.memory import Memory, Recalled
from polyrag.agent.route import RESUMED, Route, route
from polyrag.agent.steps import Steps
from polyrag.agent.terms import candidates
from polyrag.agent.trace import Trace
from polyrag.answer.generate import Turn
from polyrag.chats import ChatStore
from polyrag.errors import ConfigError, LLMError, SourceNotFoundError
from polyrag.index.embed.onnx import OnnxMiniLM
from polyrag.index.store.base import Store
from polyrag.index.tables.base import TableStore
from polyrag.ingest.manifest import INDEXED, Entry, Manifest
from polyrag.ingest.pipeline import Ingestor, IngestReport, Progress
from polyrag.ingest.sync import remove_source
from polyrag.ingest.watch import snapshot, watch_folders
from polyrag.llm.fallback import FallbackChain
from polyrag.retrieve.base import RetrievalResult, SearchMode
from polyrag.retrieve.hybrid import HybridRetriever
from polyrag.retrieve.modalities import FanOut
from polyrag.settings import ASK_MODES, Settings, load_settings
from polyrag.types import Answer, AnswerEvent, AskEvent, Filter, Hit, TokenEvent

_DONE = object()
_T = TypeVar("_T")


class part(Generic[_T]):
    """A part of the engine, built on first use and kept: once per engine, even when several
    threads (a server's first requests) ask for it together — the 1.1 GB model must never load
    twice. (functools.cached_property holds no lock since Python 3.12.)"""

    def __init__(self, build: Callable[[Any], _T]) -> None:
        self.build = build
        self.name = build.__name__
        self.__doc__ = build.__doc__

    @overload
    def __get__(self, engine: None, owner: type[Any]) -> part[_T]: ...
    @overload
    def __get__(self, engine: Engine, owner: type[Any]) -> _T: ...
    def __get__(self, engine: Engine | None, owner: type[Any]) -> part[_T] | _T:
        if engine is None:
            return self
        with engine._parts_lock:  # re-entrant: one part is built from others
            if self.name not in engine.__dict__:
                engine.__dict__[self.name] = self.build(engine)
            value: _T = engine.__dict__[self.name]
            return value


class Engine:
    """A polyrag home: its index, its manifest and the models that serve it."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or load_settings()
        self.home = Path(self.settings.home)
        self._parts_lock = threading.RLock()

    # -- parts, built on first use -------------------------------------------------------------

    @part
    def embedder(self) -> OnnxMiniLM:
        return build.embedder(self.settings)

    @part
    def store(self) -> Store:
        return build.store(self.settings, self.embedder)

    @part
    def chats(self) -> ChatStore:
        return build.chats(self.settings)

    @part
    def manifest(self) -> Manifest:
        return build.manifest(self.settings)

    @part
    def tables(self) -> TableStore:
        return build.table_store(self.settings)

    @part
    def retriever(self) -> HybridRetriever:
        return build.retriever(self.settings, self.store, self.embedder)

    @part
    def chat(self) -> FallbackChain:
        return build.chat(self.settings)

    @part
    def steps(self) -> Steps:
        return build.steps(self.settings, self.retriever, self.chat, self.store, self.embedder)

    @part
    def memory(self) -> Memory:
        return build.memory(self.settings, self.embedder, self._live_sources)

    def _live_sources(self) -> set[str]:
        return {e.source_id for e in self.manifest.all() if e.status == INDEXED}

    @part
    def agent(self) -> Agent:
        return build.agent(self.settings, self.steps, self.store, self.tables)

    # -- the pipeline ---------------------------------------------------------------------------

    def ingestor(self) -> Ingestor:
        """Parse workers and the committer; close it (or use `with`) to stop the workers."""
        return Ingestor(
            pool=build.parse_pool(self.settings),
            embedder=self.embedder,
            store=self.store,
            manifest=self.manifest,
            settings=self.settings,
            tables=self.tables,
        )

    def ingest(
        self,
        paths: Iterable[Path | str],
        on_progress: Callable[[Progress], None] | None = None,
        *,
        password: str | None = None,
        force: bool = False,
    ) -> IngestReport:
        """Index files, folders and URLs; `password` opens protected files; `force` reads
        unchanged sources again."""
        with self.ingestor() as ingestor:
            report = ingestor.ingest(paths, password=password, on_progress=on_progress, force=force)
        self._after(report)
        return report

    def sync(
        self,
        paths: Sequence[Path | str],
        on_progress: Callable[[Progress], None] | None = None,
        *,
        password: str | None = None,
    ) -> IngestReport:
        """Ingest new and changed files under `paths`; drop sources whose files are gone."""
        with self.ingestor() as ingestor:
            report = ingestor.sync(paths, password=password, on_progress=on_progress)
        self._after(report)
        return report

    def watch(
        self,
        paths: Sequence[Path | str],
        on_report: Callable[[IngestReport], None],
        on_progress: Callable[[Progress], None] | None = None,
        *,
        password: str | None = None,
    ) -> None:
        """Ingest `paths`, then sync them whenever files change, until interrupted."""
        with self.ingestor() as ingestor:

            def sync() -> IngestReport:
                report = ingestor.sync(paths, password=password, on_progress=on_progress)
                self._after(report)
                return report

            before = snapshot(paths)  # taken first, so changes during the first sync are seen
            on_report(sync())
            interval = self.settings.ingest.watch_interval_s
            watch_folders(paths, sync, on_report, interval_s=interval, since=before)

    def _after(self, report: IngestReport) -> None:
        if report.ingested or report.removed:
            self.store.optimize()  # fold the new rows into the BM25 and vector indexes

    def search(
        self,
        query: str,
        k: int | None = None,
        where: Filter | None = None,
        mode: SearchMode = "hybrid",
    ) -> RetrievalResult:
        return self.retriever.search(query, k=k, where=where, mode=mode)

    def ask(
        self,
        question: str,
        history: Sequence[Turn] = (),
        on_token: Callable[[str], None] | None = None,
        where: Filter | None = None,
        *,
        mode: str | None = None,
        thread: str | None = None,
        earlier: Sequence[Answer] = (),
    ) -> Answer:
        """Answer a question from the index; `on_token` sees the reply as it is written.

        `history` is the conversation's recent turns as (question, reply); `earlier` its past
        answers with their citations, whose passages a follow-up reads again."""

        def emit(event: AskEvent) -> None:
            if on_token is not None and isinstance(event, TokenEvent):
                on_token(event.text)

        request = Request(question, tuple(history), where, mode, thread, tuple(earlier))
        return self._answer(request, emit)

    def ask_events(
        self,
        question: str,
        history: Sequence[Turn] = (),
        where: Filter | None = None,
        *,
        mode: str | None = None,
        thread: str | None = None,
        earlier: Sequence[Answer] = (),
    ) -> Iterator[AskEvent]:
        """Answer while telling what happens: steps as they finish, the evidence before the
        reply, the reply's text as it is written, and last an AnswerEvent."""
        events: queue.Queue[object] = queue.Queue()
        request = Request(question, tuple(history), where, mode, thread, tuple(earlier))

        def work() -> None:
            try:
                events.put(AnswerEvent(self._answer(request, events.put)))
            except BaseException as error:  # handed to the reader, which raises it
                events.put(error)
            finally:
                events.put(_DONE)

        threading.Thread(target=work, name="polyrag-ask", daemon=True).start()
        while (event := events.get()) is not _DONE:
            if isinstance(event, BaseException):
                raise event
            yield event  # type: ignore[misc]

    def _answer(self, request: Request, emit: Callable[[AskEvent], None]) -> Answer:
        """fast: the fixed steps; agent: the graph; auto: retrieve once, then the cheap route
        (and the model, when it is unsure) decides which of the two goes on from there; fixed:
        the graph without model decisions."""
        trace = Trace(emit)
        steps = self.steps
        mode = request.mode or self.settings.agent.mode
        if mode not in ASK_MODES:
            raise ConfigError(f"unknown mode {mode!r}: {', '.join(ASK_MODES)}")
        if request.thread:  # a reply to the agent's question: the graph picks up its state
            return self.agent.answer(request, request.question, RESUMED, [], trace)
        standalone = steps.rewrite(request.question, request.history, trace)
        recalled = self._recall(standalone, request, trace)
        if recalled is not None and recalled.answer is not None:
            return recalled.answer
        # Beside everything, the agent searches each kind of content (tables, pictures,
        # recordings) the question is about or that holds a passage nearly as close as the
        # best; auto, those the question speaks of ("the chart", "in the call"); fast keeps to
        # the one plain search.
        fan_out: FanOut = "asked" if mode == "auto" else "none" if mode == "fast" else "all"
        hits = steps.retrieve(standalone, request.where, trace, fan_out=fan_out)
        if recalled is not None:  # a similar question was answered from these passages
            known = {hit.chunk.chunk_id for hit in hits}
            hits = [*hits, *(h for h in recalled.hits if h.chunk.chunk_id not in known)]
        hits = self._consult_earlier(request, standalone, hits, trace)
        answer = self._by_mode(mode, request, standalone, hits, trace)
        if self.settings.agent.memory:
            self.memory.remember(standalone, request.where, answer)
        return answer

    def not_helpful(self, answer: Answer, comment: str | None = None) -> Answer:
        """A "not helpful" verdict on an answer: with a comment, the question is asked again
        with it; without one, the agent asks back what was wanted (answer it with `thread`).
        Either way the remembered answer is forgotten: asked again, the question is answered
        anew."""
        self.memory.forget(answer.standalone_question or answer.question)
        if comment:
            return self.ask(f"{answer.question} ({comment})", mode="agent")
        request = Request(answer.question, mode="agent")
        return self.agent.reconsider(request, answer, Trace(lambda _event: None))

    def _consult_earlier(
        self, request: Request, standalone: str, hits: list[Hit], trace: Trace
    ) -> list[Hit]:
        """A follow-up also reads the passages the conversation's last answer cited."""
        started = time.perf_counter()
        consulted = consult(
            request.question,
            standalone,
            request.earlier,
            hits,
            request.where,
            self.store.chunks_by_ordinal,
            self._live_sources,
        )
        if consulted is None:
            return hits
        places = [f"{Path(c.path).name} {c.locator.describe()}".strip() for c in consulted.joined]
        trace.add(
            "conversation",
            f"a follow-up of {consulted.question!r}: {len(places)} passage(s) its answer cited "
            f"join ({'; '.join(places)})",
            {"question": consulted.question, "joined": places},
            started,
        )
        return consulted.hits

    def _recall(self, question: str, request: Request, trace: Trace) -> Recalled | None:
        """A question asked before: its answer (when it is the same question) or its passages."""
        if not self.settings.agent.memory:
            return None
        started = time.perf_counter()
        recalled = self.memory.recall(question, request.where)
        if recalled is None:
            return None
        if recalled.answer is not None:
            trace.add(
                "memory",
                f"asked before as {recalled.question!r} ({recalled.similarity:.2f}): answer reused",
                {"question": recalled.question, "similarity": round(recalled.similarity, 4)},
                started,
            )
            return replace(
                recalled,
                answer=replace(
                    recalled.answer,
                    question=request.question,
                    standalone_question=question if question != request.question else None,
                    timings_ms={"total": trace.elapsed_ms()},
                    steps=tuple(trace.steps),
                    model_calls=trace.model_calls,
                    mode="memory",
                ),
            )
        trace.add(
            "memory",
            f"similar to {recalled.question!r} ({recalled.similarity:.2f}): its passages join",
            {"question": recalled.question, "similarity": round(recalled.similarity, 4)},
            started,
        )
        return recalled

    def _by_mode(
        self, mode: str, request: Request, standalone: str, hits: list[Hit], trace: Trace
    ) -> Answer:
        steps = self.steps
        if mode == "fast":
            return answer_fast(steps, request, standalone, trace, hits)
        chosen = route(standalone, hits)
        if mode == "auto" and not chosen.sure:
            chosen = self._classify(standalone, chosen, trace)
        if (
            mode == "auto"
            and not chosen.agent
            and self.settings.agent.clarify
            and candidates(standalone)
        ):
            term = self.agent.undefined_term(standalone, hits, request.where)
            if term is not None:  # the agent asks what it means rather than guess
                chosen = Route(chosen.kind, True, f"the sources never write {term!r}")
        if mode in ("agent", "fixed"):
            chosen = replace(chosen, agent=True)
        trace.add(
            "route",
            f"{'agent' if chosen.agent else 'fast'}: {chosen.why}",
            {"kind": chosen.kind, "agent": chosen.agent, "why": chosen.why},
        )
        if not chosen.agent:
            return answer_fast(steps, request, standalone, trace, hits)
        if mode == "fixed":  # the graph with no model decision: the reply is the one call
            fixed = self.agent.answer(request, standalone, chosen, hits, trace, decisions=False)
            return replace(fixed, mode="fixed")
        return self.agent.answer(request, standalone, chosen, hits, trace)

    def _classify(self, question: str, cheap: Route, trace: Trace) -> Route:
        """The model's one-word reading of what the question needs (one small decision)."""
        try:
            kind = decide(self.chat, trace, "classify", Classified, question=question).kind
        except LLMError as error:
            trace.add("route", f"no classification: {error.one_line()}")
            return cheap
        return Route(kind, kind != "lookup", f"the model reads it as {kind}")

    # -- sources --------------------------------------------------------------------------------

    def sources(self) -> list[Entry]:
        return self.manifest.all()

    def remove(self, id_or_path: str) -> list[Entry]:
        """Forget a source and the sources inside it: their manifest rows and every chunk no
        other path still uses."""
        entries = self.manifest.find(id_or_path)
        if not entries:
            raise SourceNotFoundError(f"no indexed source matches {id_or_path!r}")
        removed: list[Entry] = []
        for entry in entries:
            if self.manifest.get(entry.path) is not None:  # not gone with its parent already
                removed += remove_source(self.manifest, self.store, self.tables, entry)
        return removed

    def close(self) -> None:
        """Release the index, the manifest and worker threads (models are freed with the engine)."""
        if "agent" in self.__dict__:
            self.agent.close()
        if "memory" in self.__dict__:
            self.memory.close()
        if "retriever" in self.__dict__:
            self.retriever.close()
        if "store" in self.__dict__:
            self.store.close()
        if "manifest" in self.__dict__:
            self.manifest.close()
        if "chats" in self.__dict__:
            self.chats.close()
        if "tables" in self.__dict__:
            self.tables.close()
