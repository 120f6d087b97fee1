"""The REST API over real parts: a real home with LanceDB, the packaged embedder, real files.

One app is shared by the module's tests (engines and models load once); each test works in a
workspace of its own, so they do not see each other's sources."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from polyrag.api import create_app
from polyrag.settings import load_settings

from ..conftest import MODELS_DIR


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    home = tmp_path_factory.mktemp("api-home")
    settings = load_settings(home, models_dir=MODELS_DIR, server={"max_upload_mb": 1})
    with TestClient(create_app(settings)) as client:
        yield client


@pytest.fixture
def workspace(client: TestClient) -> str:
    name = f"ws-{uuid.uuid4().hex[:8]}"
    assert client.post("/api/v1/workspaces", json={"name": name}).status_code == 201
    return name


def finished(client: TestClient, workspace: str, job: dict[str, Any], limit_s: float = 300) -> Any:
    """Poll an ingest job until it ends (bounded)."""
    deadline = time.monotonic() + limit_s
    while True:
        state = client.get(f"/api/v1/workspaces/{workspace}/jobs/{job['job_id']}").json()
        if state["status"] in ("done", "failed", "cancelled"):
            return state
        assert time.monotonic() < deadline, f"job still {state['status']}: {state}"
        time.sleep(0.2)


def upload(client: TestClient, workspace: str, *files: tuple[str, bytes]) -> Any:
    sent = [("files", (name, data)) for name, data in files]
    response = client.post(f"/api/v1/workspaces/{workspace}/sources", files=sent)
    assert response.status_code == 202, response.text
    return finished(client, workspace, response.json())


def home_of(client: TestClient, workspace: str) -> Path:
    return Path(client.app.state.workspaces.home(workspace))  # type: ignore[attr-defined]
