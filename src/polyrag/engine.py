"""The composition root: the only module that names concrete classes.

Reading `ingest()` and `ask()` top to bottom shows the whole pipeline. Every part is built on
first use, so `polyrag sources list` never loads a model.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from functools import cached_property
from pathlib import Path

from polyrag.answer.generator import Answerer
from polyrag.errors import SourceNotFoundError
from polyrag.index.embed.onnx import OnnxMiniLM
from polyrag.index.store.lancedb import LanceStore
from polyrag.index.tables.sqlite import SqliteTableStore
from polyrag.ingest.manifest import Entry, Manifest
from polyrag.ingest.pipeline import Ingestor, IngestReport, Progress
from polyrag.ingest.sync import remove_source
from polyrag.ingest.watch import snapshot, watch_folders
from polyrag.ingest.workers import ParsePool
from polyrag.llm.base import ChatModel
from polyrag.llm.fallback import FallbackChain
from polyrag.llm.local import LocalLlamaModel
from polyrag.llm.remote import OpenAICompatibleModel
from polyrag.models.files import model_path
from polyrag.models.registry import MINILM_ONNX, MINILM_TOKENIZER
from polyrag.retrieve.base import RetrievalResult, SearchMode
from polyrag.retrieve.hybrid import HybridRetriever
from polyrag.settings import Settings, load_settings
from polyrag.types import REFUSAL, Answer, Filter


class Engine:
    """A polyrag home: its index, its manifest and the models that serve it."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or load_settings()
        self.home = Path(self.settings.home)

    # -- parts, built on first use -------------------------------------------------------------

    @cached_property
    def embedder(self) -> OnnxMiniLM:
        cache = self.settings.model_cache
        return OnnxMiniLM(
            model_path(MINILM_ONNX, cache),
            model_path(MINILM_TOKENIZER, cache),
            batch_size=self.settings.embed.batch_size,
            threads=self.settings.embed.threads,
        )

    @cached_property
    def store(self) -> LanceStore:
        return LanceStore(self.home / "index", dim=self.embedder.dim)

    @cached_property
    def manifest(self) -> Manifest:
        return Manifest(self.home / "manifest.sqlite")

    @cached_property
    def tables(self) -> SqliteTableStore:
        return SqliteTableStore(self.home / "tables.sqlite")

    @cached_property
    def retriever(self) -> HybridRetriever:
        return HybridRetriever(self.store, self.embedder, self.settings.retrieve)

    @cached_property
    def chat(self) -> FallbackChain:
        providers: list[ChatModel] = [
            OpenAICompatibleModel(provider) for provider in self.settings.llm.providers
        ]
        if self.settings.llm.local.enabled or not providers:
            providers.append(
                LocalLlamaModel.packaged(self.settings.model_cache, self.settings.llm.local)
            )
        return FallbackChain(providers)

    @cached_property
    def answerer(self) -> Answerer:
        return Answerer(self.chat, self.settings.answer, parents=self.store.chunks_by_ordinal)

    # -- the pipeline ---------------------------------------------------------------------------

    def ingestor(self) -> Ingestor:
        """Parse workers and the committer; close it (or use `with`) to stop the workers."""
        return Ingestor(
            pool=ParsePool(self.settings),
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
    ) -> IngestReport:
        """Index files, folders and URLs; `password` opens protected files."""
        with self.ingestor() as ingestor:
            report = ingestor.ingest(paths, password=password, on_progress=on_progress)
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
        history: Sequence[tuple[str, str]] = (),
        on_token: Callable[[str], None] | None = None,
        where: Filter | None = None,
    ) -> Answer:
        started = time.perf_counter()
        standalone = self.answerer.standalone(question, history) if history else question
        retrieved = self.search(standalone, where=where)
        retrieval_ms = (time.perf_counter() - started) * 1000
        draft = self.answerer.answer(standalone, retrieved.hits, on_token)
        timings = {"retrieval": retrieval_ms, "total": (time.perf_counter() - started) * 1000}
        if draft.first_token_ms is not None:
            timings["first_token"] = retrieval_ms + draft.first_token_ms
        return Answer(
            question=question,
            text=draft.text if not draft.refused else REFUSAL,
            refused=draft.refused,
            citations=draft.citations,
            provider=draft.provider,
            timings_ms=timings,
            standalone_question=standalone if standalone != question else None,
            refusal_reason=draft.reason if draft.refused else None,
        )

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
        if "retriever" in self.__dict__:
            self.retriever.close()
        if "store" in self.__dict__:
            self.store.close()
        if "manifest" in self.__dict__:
            self.manifest.close()
        if "tables" in self.__dict__:
            self.tables.close()
