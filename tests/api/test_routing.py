"""Routing by meaning through the API: in auto mode a question that speaks of a kind of content
("according to the spreadsheet") is also searched within it; fast mode keeps to one plain
search. Real index and embedder; the chat model is scripted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from polyrag.api import create_app
from polyrag.settings import load_settings

from ..conftest import MODELS_DIR
from .conftest import upload
from .reader import POLICY, Reader

RATES = b"City,Rule\nLondon,The hotel cap per night in London is GBP 180.\n"


def retrieved(client: TestClient, question: str, mode: str) -> dict[str, Any]:
    answer = client.post(
        "/api/v1/workspaces/default/ask", json={"question": question, "mode": mode}
    ).json()
    step: dict[str, Any] = next(s for s in answer["steps"] if s["step"] == "retrieve")
    return step["data"]


def test_auto_searches_the_kind_of_content_a_question_speaks_of(
    tmp_path: Path, reader: Reader
) -> None:
    settings = load_settings(tmp_path, models_dir=MODELS_DIR, agent={"memory": False})
    with TestClient(create_app(settings)) as client:
        upload(client, "default", ("policy.md", POLICY), ("rates.csv", RATES))
        asked = "What is the hotel cap in London according to the spreadsheet?"
        assert retrieved(client, asked, "auto")["modalities"] == ["table (asked about)"]
        assert retrieved(client, asked, "fast")["modalities"] == []
        # A question about no kind of content in particular is one plain search in auto.
        plain = retrieved(client, "What is the hotel cap per night in London?", "auto")
        assert plain["modalities"] == []
