"""A private asyncio loop on a daemon thread, for calling LanceDB's async API from sync code.

LanceDB's sync API hops to its own loop several times per query (~2 ms of a 5 ms query on
small tables); one hop per call with the async API is cheaper. Calls from several threads run
concurrently on the loop, so a keyword and a vector search overlap.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class EventLoopThread:
    def __init__(self, name: str = "polyrag-store") -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name=name, daemon=True)
        self._thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run `coroutine` on the loop and wait for its result (or its exception)."""
        if self._loop.is_closed():
            coroutine.close()
            raise RuntimeError("the store is closed")
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    def close(self) -> None:
        if self._loop.is_closed():
            return
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        self._loop.close()
