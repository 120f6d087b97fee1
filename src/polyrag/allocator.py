"""Fewer malloc arenas for polyrag's own processes (the CLI, the server and their workers).

glibc gives each thread that contends for the heap an arena of its own, up to eight per core,
and memory freed in one arena is not reused by another. An ingest runs LanceDB's Rust threads,
ONNX Runtime's and a commit thread beside the main one, so freed buffers pile up across arenas:
ingesting 12 FinanceBench filings, the ingest process peaked at 1,120 MB with the default and at
986 MB with two arenas, in the same time (233 s and 239 s).

`limit_arenas()` sets the limit for this process (mallopt) and, through MALLOC_ARENA_MAX, for the
processes it starts. A limit the user set in the environment is kept. A no-op where the C library
is not glibc.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os

ARENAS = 2
_M_ARENA_MAX = -8  # glibc's mallopt parameter number

log = logging.getLogger(__name__)


def limit_arenas(arenas: int = ARENAS) -> bool:
    """Limit malloc arenas; returns whether this process's limit was set."""
    if "MALLOC_ARENA_MAX" in os.environ:  # the user's choice, read by glibc at start
        return False
    os.environ["MALLOC_ARENA_MAX"] = str(arenas)  # for the processes started from here
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc (musl, macOS): nothing to set
        return False
    done = bool(mallopt(_M_ARENA_MAX, arenas))
    if not done:
        log.debug("mallopt(M_ARENA_MAX, %d) was refused", arenas)
    return done
