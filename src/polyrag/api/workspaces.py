"""Workspaces: each its own polyrag home, served by one engine shared by every request.

The server's own home is the workspace named `default` (so `polyrag ingest` and `polyrag serve`
on the same home see the same sources); the others live under `<home>/workspaces/<name>`. An
engine is opened on the first request that needs it and kept until the workspace is deleted or
the server stops; its parts (the embedder, the 1.1 GB local model) load once, even when the
first requests arrive together.
"""

from __future__ import annotations

import re
import shutil
import threading
from pathlib import Path

from polyrag.engine import Engine
from polyrag.errors import ConfigError, PolyragError
from polyrag.settings import Settings

DEFAULT = "default"
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,62}$")


class WorkspaceNotFoundError(PolyragError):
    hint = "list the workspaces with GET /api/v1/workspaces"


class WorkspaceExistsError(PolyragError):
    hint = "choose another name"


class WorkspaceBusyError(PolyragError):
    """Work is going on in the workspace (an ingest job)."""


class Workspaces:
    """Name → engine, created once under a lock; safe to share between request threads."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.root = Path(settings.home)
        self._engines: dict[str, Engine] = {}
        self._lock = threading.Lock()

    def names(self) -> list[str]:
        folder = self.root / "workspaces"
        others = sorted(p.name for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []
        return [DEFAULT, *(name for name in others if _NAME.match(name) and name != DEFAULT)]

    def home(self, name: str) -> Path:
        _check(name)
        return self.root if name == DEFAULT else self.root / "workspaces" / name

    def exists(self, name: str) -> bool:
        return name == DEFAULT or (_NAME.match(name) is not None and self.home(name).is_dir())

    def engine(self, name: str) -> Engine:
        """The workspace's engine, opened on first use."""
        if not self.exists(name):
            raise WorkspaceNotFoundError(f"no workspace named {name!r}")
        with self._lock:
            engine = self._engines.get(name)
            if engine is None:
                self.home(name).mkdir(parents=True, exist_ok=True)
                engine = Engine(self.settings_for(name))
                self._engines[name] = engine
            return engine

    def settings_for(self, name: str) -> Settings:
        """The workspace's settings: its home, and an index of its own when the index lives
        outside the homes (`store.uri`): a folder under that URI, or (Milvus) a collection."""
        update: dict[str, object] = {
            "home": self.home(name),
            "models_dir": self.settings.model_cache,
        }
        store = self.settings.store
        if name != DEFAULT and store.uri:
            if store.engine == "milvus":
                own = {"collection": f"{store.collection}_{name.replace('-', '_')}"}
            else:
                own = {"uri": f"{store.uri.rstrip('/')}/workspaces/{name}"}
            update["store"] = store.model_copy(update=own)
        return self.settings.model_copy(update=update)

    def create(self, name: str) -> Path:
        _check(name)
        if self.exists(name):
            raise WorkspaceExistsError(f"workspace {name!r} exists already")
        home = self.home(name)
        home.mkdir(parents=True)
        return home

    def delete(self, name: str) -> None:
        """Close the workspace's engine and remove its home (the default one cannot go)."""
        if name == DEFAULT:
            raise ConfigError(
                "the default workspace is the server's home and cannot be deleted",
                hint="delete its sources instead",
            )
        if not self.exists(name):
            raise WorkspaceNotFoundError(f"no workspace named {name!r}")
        with self._lock:
            engine = self._engines.pop(name, None)
        if engine is not None:
            engine.close()
        shutil.rmtree(self.home(name))

    def close(self) -> None:
        with self._lock:
            engines, self._engines = list(self._engines.values()), {}
        for engine in engines:
            engine.close()


def _check(name: str) -> None:
    if not _NAME.match(name):
        raise ConfigError(
            f"invalid workspace name {name!r}",
            hint="use 1-63 lower-case letters, digits, '-' or '_', starting with a letter or digit",
        )
