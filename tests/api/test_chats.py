"""Chats over the REST API: a follow-up uses the chat's history, also after a restart, answers
stream as named events, feedback is kept. The chat model is scripted (this tests the API's
control flow); tests/e2e asks the real model through the server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from polyrag.api import create_app
from polyrag.settings import load_settings

from ..conftest import MODELS_DIR
from .conftest import upload
from .reader import POLICY, Reader


def app_at(home: Path) -> TestClient:
    return TestClient(create_app(load_settings(home, models_dir=MODELS_DIR)))


def test_a_follow_up_uses_the_chat_history_after_a_restart(tmp_path: Path, reader: Reader) -> None:
    with app_at(tmp_path) as client:
        upload(client, "default", ("policy.md", POLICY))
        chat = client.post("/api/v1/workspaces/default/chats", json={}).json()
        first = client.post(
            f"/api/v1/workspaces/default/chats/{chat['chat_id']}/ask",
            json={"question": "What is the hotel cap per night in London?", "mode": "fast"},
        ).json()
        assert "GBP 180" in first["answer"] and first["citations"][0]["path"].endswith("policy.md")
        assert first["message_id"] > 0
    with app_at(tmp_path) as client:  # a new server over the same home
        follow = client.post(
            f"/api/v1/workspaces/default/chats/{chat['chat_id']}/ask",
            json={"question": "And in Paris?", "mode": "fast"},
        ).json()
        assert "EUR 210" in follow["answer"]
        rewrite = next(p for p in reader.prompts if p.startswith("Rewrite"))
        assert "What is the hotel cap per night in London?" in rewrite  # the stored turn
        kept = client.get(f"/api/v1/workspaces/default/chats/{chat['chat_id']}").json()
        assert kept["title"] == "What is the hotel cap per night in London?"
        assert [m["role"] for m in kept["messages"]] == ["user", "assistant"] * 2
        listed = client.get("/api/v1/workspaces/default/chats").json()["chats"]
        assert [c["chat_id"] for c in listed] == [chat["chat_id"]]


def test_a_follow_up_reads_the_passages_the_last_answer_cited(
    tmp_path: Path, reader: Reader
) -> None:
    """Retrieval keeps one hit here and the library's memory of similar questions is off, so
    only the chat brings London's passage back to a follow-up about Paris; once london.md is
    removed, it does not."""
    london = b"# London\n\nThe hotel cap per night in London is GBP 180.\n"
    paris = b"# Paris\n\nThe hotel cap per night in Paris is EUR 210.\n"
    settings = load_settings(
        tmp_path, models_dir=MODELS_DIR, retrieve={"k": 1}, agent={"memory": False}
    )
    with TestClient(create_app(settings)) as client:
        upload(client, "default", ("london.md", london), ("paris.md", paris))
        chat = client.post("/api/v1/workspaces/default/chats", json={}).json()["chat_id"]
        asked = f"/api/v1/workspaces/default/chats/{chat}/ask"
        first = client.post(asked, json={"question": "What is the hotel cap per night in London?"})
        assert [c["path"].rsplit("/", 1)[-1] for c in first.json()["citations"]] == ["london.md"]

        follow = client.post(asked, json={"question": "And in Paris?", "mode": "fast"}).json()
        assert "EUR 210" in follow["answer"]
        step = next(s for s in follow["steps"] if s["step"] == "conversation")
        assert step["data"]["question"] == "What is the hotel cap per night in London?"
        assert [place.split()[0] for place in step["data"]["joined"]] == ["london.md"]
        shown = sources_of([p for p in reader.prompts if "<<sources" in p][-1])
        assert "London is GBP 180" in shown and "Paris is EUR 210" in shown

        listed = client.get("/api/v1/workspaces/default/sources").json()["sources"]
        gone = next(s["source_id"] for s in listed if s["name"] == "london.md")
        client.delete(f"/api/v1/workspaces/default/sources/{gone}")
        again = client.post(asked, json={"question": "And in Paris?", "mode": "fast"}).json()
        assert all(s["step"] != "conversation" for s in again["steps"])
        shown = sources_of([p for p in reader.prompts if "<<sources" in p][-1])
        assert "London is GBP 180" not in shown and "Paris is EUR 210" in shown


def sources_of(prompt: str) -> str:
    """The fenced sources of an answer prompt (the turns above them quote earlier replies)."""
    return prompt.split("<<sources", 1)[1]


def test_a_chat_answer_streams_and_is_stored(tmp_path: Path, reader: Reader) -> None:
    with app_at(tmp_path) as client:
        upload(client, "default", ("policy.md", POLICY))
        chat = client.post("/api/v1/workspaces/default/chats", json={"title": "Hotels"}).json()
        events = read_events(
            client,
            f"/api/v1/workspaces/default/chats/{chat['chat_id']}/ask/stream",
            {"question": "What is the hotel cap per night in London?", "mode": "fast"},
        )
        names = [name for name, _ in events]
        assert names[-1] == "answer" and "step" in names and "token" in names
        assert names.index("evidence") < names.index("token")  # evidence before the reply
        final = events[-1][1]
        assert "GBP 180" in final["answer"] and final["message_id"] > 0
        stored = client.get(f"/api/v1/workspaces/default/chats/{chat['chat_id']}").json()
        assert stored["messages"][-1]["message_id"] == final["message_id"]
        assert stored["title"] == "Hotels"

        judged = client.post(
            f"/api/v1/workspaces/default/chats/{chat['chat_id']}/messages/"
            f"{final['message_id']}/feedback",
            json={"helpful": False, "comment": "I meant Paris"},
        ).json()
        assert judged["message"]["feedback"]["helpful"] is False
        again = client.get(f"/api/v1/workspaces/default/chats/{chat['chat_id']}").json()
        assert again["messages"][-1]["feedback"]["comment"] == "I meant Paris"
        wrong = client.post(
            f"/api/v1/workspaces/default/chats/{chat['chat_id']}/messages/"
            f"{final['message_id'] - 1}/feedback",
            json={"helpful": True},
        )
        assert wrong.status_code == 404 and wrong.json()["hint"]
        assert (
            client.delete(f"/api/v1/workspaces/default/chats/{chat['chat_id']}").status_code == 204
        )
        assert client.get(f"/api/v1/workspaces/default/chats/{chat['chat_id']}").status_code == 404


def read_events(client: TestClient, url: str, body: dict[str, Any]) -> list[tuple[str, Any]]:
    """The named events of a server-sent event stream, with their JSON data."""
    events: list[tuple[str, Any]] = []
    name = "message"
    with client.stream("POST", url, json=body) as stream:
        assert stream.status_code == 200
        assert stream.headers["content-type"].startswith("text/event-stream")
        for line in stream.iter_lines():
            if line.startswith("event: "):
                name = line.removeprefix("event: ")
            elif line.startswith("data: "):
                events.append((name, json.loads(line.removeprefix("data: "))))
                name = "message"
    return events


def test_an_unhelpful_answer_is_reconsidered_with_its_comment(
    tmp_path: Path, reader: Reader
) -> None:
    with app_at(tmp_path) as client:
        upload(client, "default", ("policy.md", POLICY))
        chat = client.post("/api/v1/workspaces/default/chats", json={}).json()
        url = f"/api/v1/workspaces/default/chats/{chat['chat_id']}"
        first = client.post(
            f"{url}/ask", json={"question": "What is the hotel cap per night?", "mode": "fast"}
        ).json()
        assert "London" in first["answer"]
        judged = client.post(
            f"{url}/messages/{first['message_id']}/feedback",
            json={"helpful": False, "comment": "in Paris", "reconsider": True},
        ).json()
        assert judged["message"]["feedback"]["helpful"] is False
        assert "EUR 210" in judged["answer"]["answer"]  # asked again with the comment
        messages = client.get(url).json()["messages"]
        assert [m["text"] for m in messages if m["role"] == "user"][-1] == "in Paris"
        assert messages[-1]["message_id"] == judged["answer"]["message_id"]
