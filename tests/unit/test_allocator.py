"""polyrag's processes limit malloc arenas, for themselves and the processes they start, unless
the user chose a limit."""

from __future__ import annotations

import os
import subprocess
import sys

PROBE = (
    "import os; from polyrag.allocator import limit_arenas; "
    "print(limit_arenas(), os.environ['MALLOC_ARENA_MAX'])"
)


def run(env: dict[str, str]) -> str:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, check=True
    )
    return done.stdout.strip()


def test_the_limit_is_set_here_and_passed_on() -> None:
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}
    assert run(env) == "True 2"  # glibc on Linux: mallopt accepted it


def test_a_limit_the_user_set_is_kept() -> None:
    assert run({**os.environ, "MALLOC_ARENA_MAX": "4"}) == "False 4"
