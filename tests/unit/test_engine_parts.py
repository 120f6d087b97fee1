"""The engine's parts are built once, even when threads ask for them together."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from polyrag import build
from polyrag.engine import Engine
from polyrag.settings import load_settings


def test_concurrent_first_uses_build_a_part_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[object] = []
    gate = threading.Barrier(8)

    def slow_chat(settings: object) -> object:
        time.sleep(0.2)  # long enough for every thread to arrive while it is being built
        built.append(object())
        return built[-1]

    monkeypatch.setattr(build, "chat", slow_chat)
    engine = Engine(load_settings(tmp_path))

    def first_use(_: int) -> object:
        gate.wait()
        return engine.chat

    with ThreadPoolExecutor(max_workers=8) as pool:
        seen = list(pool.map(first_use, range(8)))
    assert len(built) == 1
    assert all(found is built[0] for found in seen)
    assert engine.chat is built[0]  # kept: later uses read it without building
