"""polyrag: answers from your own documents, with citations, offline.

    import polyrag
    library = polyrag.open("./.polyrag")
    library.ingest(["docs/"])
    answer = library.ask("When was Iwan Roberts born?")
    print(answer.text, [c.chunk.path for c in answer.citations])

`Library` (the engine) is imported on first use, so `import polyrag` stays light.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from polyrag.errors import PolyragError
from polyrag.settings import Settings, load_settings
from polyrag.types import REFUSAL, Answer, Chunk, Citation, Filter, Hit, Locator, Modality

if TYPE_CHECKING:
    from polyrag.engine import Engine as Library

__all__ = [
    "REFUSAL",
    "Answer",
    "Chunk",
    "Citation",
    "Filter",
    "Hit",
    "Library",
    "Locator",
    "Modality",
    "PolyragError",
    "Settings",
    "open",
]

__version__ = "0.1.0"


def open(home: str | Path | None = None, **settings: Any) -> Library:
    """Open (or create) the polyrag home at `home`; keyword arguments override settings."""
    from polyrag.engine import Engine

    return Engine(load_settings(home, **settings))


def __getattr__(name: str) -> Any:
    if name == "Library":
        from polyrag.engine import Engine

        return Engine
    raise AttributeError(f"module 'polyrag' has no attribute {name!r}")
