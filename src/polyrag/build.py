"""The composition root: the one module that names concrete classes.

Each function makes one part from the settings; the engine, the parse workers, eval and bench
ask here instead of constructing parts themselves.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

from polyrag.agent.graph import Agent
from polyrag.agent.memory import Memory
from polyrag.agent.steps import Steps
from polyrag.agent.tools.registry import Toolbox, builtin_tools, load_user_tools
from polyrag.chats import ChatStore
from polyrag.errors import ConfigError
from polyrag.index.embed.base import Embedder
from polyrag.index.embed.onnx import OnnxMiniLM
from polyrag.index.store.base import Store
from polyrag.index.store.lancedb import LanceStore
from polyrag.index.tables.base import TableStore
from polyrag.index.tables.lance import LanceTableStore
from polyrag.index.tables.sqlite import SqliteTableStore
from polyrag.ingest.lance_manifest import LanceManifest
from polyrag.ingest.manifest import Manifest, SqliteManifest
from polyrag.ingest.workers import ParsePool, Pool
from polyrag.llm.base import ChatModel
from polyrag.llm.fallback import FallbackChain
from polyrag.llm.local import LocalLlamaModel
from polyrag.llm.remote import OpenAICompatibleModel
from polyrag.models.files import model_path
from polyrag.models.registry import MINILM_ONNX, MINILM_TOKENIZER
from polyrag.retrieve.hybrid import HybridRetriever
from polyrag.retrieve.modalities import ModalityRouter
from polyrag.settings import Settings


def embedder(settings: Settings) -> OnnxMiniLM:
    cache = settings.model_cache
    return OnnxMiniLM(
        model_path(MINILM_ONNX, cache),
        model_path(MINILM_TOKENIZER, cache),
        batch_size=settings.embed.batch_size,
        threads=settings.embed.threads,
    )


def store(settings: Settings, embedder: Embedder) -> Store:
    """The index: a LanceDB database in the home, or where `store.uri` says; or Milvus."""
    config = settings.store
    if config.engine == "milvus":
        try:
            from polyrag.index.store.milvus import MilvusStore
        except ImportError as error:
            raise ConfigError(
                f"store.engine = milvus needs pymilvus ({error.name} is not installed)",
                hint="pip install 'polyrag[milvus]'",
            ) from None
        return MilvusStore(
            config.uri or Path(settings.home) / "milvus.db",
            embedder.dim,
            model=embedder.model_id,
            collection=config.collection,
            token=os.environ.get(config.token_env, "") if config.token_env else "",
        )
    return LanceStore(
        config.uri or Path(settings.home) / "index",
        dim=embedder.dim,
        model=embedder.model_id,
        storage_options=config.storage_options(),
        staleness=timedelta(seconds=config.staleness_s),
    )


def parse_pool(settings: Settings) -> Pool:
    """Where sources are read, parsed (and on a cluster embedded): worker processes here, or
    Ray actors when `ingest.cluster` names a cluster."""
    if settings.ingest.cluster:
        from polyrag.ingest.cluster import RayPool

        return RayPool(settings, settings.ingest.cluster)
    return ParsePool(settings)


def table_store(settings: Settings) -> TableStore:
    """The tables read from sources: beside a shared index (`store.uri`) in its database, so
    every server sees them; otherwise a SQLite file in the home."""
    shared = _beside_the_index(settings)
    if shared is not None:
        return LanceTableStore(**shared)
    return SqliteTableStore(Path(settings.home) / "tables.sqlite")


def chats(settings: Settings) -> ChatStore:
    """The conversations people had with the home, their answers and feedback."""
    return ChatStore(Path(settings.home) / "chats.sqlite")


def _beside_the_index(settings: Settings) -> dict[str, Any] | None:
    """Where the manifest and the tables live when the index is LanceDB outside the home
    (`store.uri`): in its database, as keyword arguments; None when they stay in the home."""
    config = settings.store
    if config.engine != "lancedb" or not config.uri:
        return None
    return {
        "location": config.uri,
        "storage_options": config.storage_options(),
        "staleness": timedelta(seconds=config.staleness_s),
    }


def manifest(settings: Settings) -> Manifest:
    """The sources indexed: beside a shared index (`store.uri`) in its database, so every
    server and ingest worker sees the same; otherwise a SQLite file in the home."""
    shared = _beside_the_index(settings)
    if shared is not None:
        return LanceManifest(**shared)
    return SqliteManifest(Path(settings.home) / "manifest.sqlite")


def retriever(settings: Settings, store: Store, embedder: OnnxMiniLM) -> HybridRetriever:
    return HybridRetriever(store, embedder, settings.retrieve)


def chat(settings: Settings) -> FallbackChain:
    """The remote providers in order, then the local model (always, when nothing else is set)."""
    providers: list[ChatModel] = [
        OpenAICompatibleModel(provider) for provider in settings.llm.providers
    ]
    if settings.llm.local.enabled or not providers:
        providers.append(LocalLlamaModel.packaged(settings.model_cache, settings.llm.local))
    return FallbackChain(providers)


def steps(
    settings: Settings,
    retriever: HybridRetriever,
    chat: FallbackChain,
    store: Store,
    embedder: OnnxMiniLM,
) -> Steps:
    router = ModalityRouter(retriever, store.count, embedder.embed)
    return Steps(retriever, chat, settings, parents=store.chunks_by_ordinal, router=router)


def toolbox(settings: Settings) -> Toolbox:
    return Toolbox([*builtin_tools(), *load_user_tools(settings.agent.user_tools)])


def memory(settings: Settings, embedder: OnnxMiniLM, live: Callable[[], set[str]]) -> Memory:
    """Questions answered before, under the home."""
    return Memory(
        Path(settings.home) / "memory.sqlite",
        embedder.embed,
        live,
        repeat_similarity=settings.agent.memory_similarity,
    )


def agent(settings: Settings, steps: Steps, store: Store, tables: TableStore) -> Agent:
    """The agent graph, its conversations checkpointed under the home."""
    return Agent(steps, toolbox(settings), store, tables, Path(settings.home) / "agent.sqlite")
