"""polyrag's MCP server through the SDK's own client: in memory, over stdio (a subprocess
running `polyrag mcp`) and over streamable HTTP at /mcp on the API's server on 127.0.0.1.

`ask` uses the scripted Reader of the API tests in memory and over HTTP (this tests the
protocol, not the model); over stdio the server is a separate process, so the tools that need
no model are asked there."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from mcp import Client
from polyrag.api import create_app
from polyrag.api.access import tokens_of
from polyrag.api.workspaces import Workspaces
from polyrag.mcp.server import build_server
from polyrag.settings import load_settings

from ..api.reader import POLICY, Reader
from ..conftest import MODELS_DIR
from ..servers import running


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A home with a travel policy indexed in its default workspace."""
    folder = tmp_path / "home"
    document = tmp_path / "docs" / "policy.md"
    document.parent.mkdir(parents=True)
    document.write_bytes(POLICY)
    workspaces = Workspaces(load_settings(folder, models_dir=MODELS_DIR))
    try:
        workspaces.engine("default").ingest([document])
    finally:
        workspaces.close()
    return folder


def data(result: Any) -> Any:
    """A tool result's JSON (its structured content, else its text)."""
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


async def exercise(client: Client, *, with_model: bool) -> None:
    names = {tool.name for tool in (await client.list_tools()).tools}
    assert names == {"search", "ask", "list_sources", "get_passage"}  # no ingest by default
    sources = data(await client.call_tool("list_sources", {}))["sources"]
    assert [Path(s["path"]).name for s in sources] == ["policy.md"]
    hits = data(await client.call_tool("search", {"query": "hotel cap Paris", "k": 2}))["hits"]
    assert hits[0]["path"].endswith("policy.md") and hits[0]["locator"]["heading_path"]
    passage = data(
        await client.call_tool(
            "get_passage",
            {"source_id": hits[0]["source_id"], "chunk_id": hits[0]["chunk_id"], "around": 1},
        )
    )["passages"]
    assert any(p["cited"] and "EUR 210" in p["text"] for p in passage)
    missing = await client.call_tool("search", {"query": "x", "workspace": "nowhere"})
    assert missing.is_error
    message = missing.content[0].text
    assert "no workspace named 'nowhere'" in message and "GET /api/v1/workspaces" in message
    if with_model:
        answer = data(
            await client.call_tool(
                "ask", {"question": "What is the hotel cap per night in Paris?", "mode": "fast"}
            )
        )
        assert "EUR 210" in answer["answer"] and not answer["refused"]
        assert answer["citations"][0]["locator"]["heading_path"] == ["Travel policy"]


def test_in_memory(home: Path, reader: Reader) -> None:
    workspaces = Workspaces(load_settings(home, models_dir=MODELS_DIR))
    server = build_server(workspaces)

    async def run() -> None:
        async with Client(server) as client:
            await exercise(client, with_model=True)

    try:
        anyio.run(run)
    finally:
        workspaces.close()


def test_ingest_is_offered_only_when_enabled(home: Path, tmp_path: Path) -> None:
    workspaces = Workspaces(load_settings(home, models_dir=MODELS_DIR))
    server = build_server(workspaces, allow_ingest=True)
    extra = tmp_path / "extra.md"
    extra.write_text("# Extra\n\nThe parking cap is GBP 20 a day.\n", encoding="utf-8")

    async def run() -> None:
        async with Client(server) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert "ingest" in names
            done = data(await client.call_tool("ingest", {"paths": [str(extra)]}))
            assert done["summary"].startswith("ingested 1")

    try:
        anyio.run(run)
    finally:
        workspaces.close()


def test_over_stdio(home: Path) -> None:
    parameters = StdioServerParameters(
        command=sys.executable,
        args=["-m", "polyrag.cli.app", "mcp", "--home", str(home)],
        env={**os.environ, "POLYRAG_MODELS_DIR": str(MODELS_DIR), "HF_HUB_OFFLINE": "1"},
    )

    async def run() -> None:
        async with Client(parameters, read_timeout_seconds=120) as client:
            await exercise(client, with_model=False)

    anyio.run(run)


@pytest.fixture
def served(home: Path, reader: Reader) -> Iterator[str]:
    app = create_app(load_settings(home, models_dir=MODELS_DIR))
    with running(app) as url:
        yield url


def test_over_http_on_the_api_server(served: str) -> None:
    async def run() -> None:
        async with Client(f"{served}/mcp", read_timeout_seconds=120) as client:
            await exercise(client, with_model=True)

    anyio.run(run)


def test_over_http_a_token_opens_its_workspaces_only(home: Path, tmp_path: Path) -> None:
    """Off loopback every request carries a token: an MCP tool is refused a workspace the
    token does not open, and ingest with a read-only token, as the REST API refuses them."""
    tokens = tokens_of(home)
    full = tokens.add("full")
    team = tokens.add("team", workspaces=["team"])
    reader = tokens.add("reader", read_only=True)
    tokens.close()
    document = tmp_path / "more.md"
    document.write_text("# More\n\nThe taxi cap is EUR 60.\n")
    settings = load_settings(
        home, models_dir=MODELS_DIR, server={"host": "0.0.0.0", "mcp_ingest": True}
    )

    def connect(url: str, secret: str) -> Client:
        headers = {"authorization": f"Bearer {secret}"}
        return Client(streamable_http_client(url, http_client=create_mcp_http_client(headers)))

    async def run(url: str) -> None:
        async with connect(url, team) as client:
            refused = await client.call_tool("list_sources", {})
            assert refused.is_error
            assert "does not open workspace 'default'" in refused.content[0].text
            assert data(await client.call_tool("list_sources", {"workspace": "team"})) == {
                "sources": []
            }
        async with connect(url, reader) as client:
            hits = await client.call_tool("search", {"query": "hotel cap Paris", "k": 1})
            assert data(hits)["hits"][0]["path"].endswith("policy.md")
            written = await client.call_tool("ingest", {"paths": [str(document)]})
            assert written.is_error and "may read and ask" in written.content[0].text
        async with connect(url, full) as client:
            report = data(await client.call_tool("ingest", {"paths": [str(document)]}))
            assert report["summary"].startswith("ingested 1,")

    with running(create_app(settings)) as url:
        created = httpx.post(
            f"{url}/api/v1/workspaces",
            json={"name": "team"},
            headers={"authorization": f"Bearer {full}"},
            timeout=60,
        )
        assert created.status_code == 201, created.text
        anyio.run(run, f"{url}/mcp")


@pytest.mark.parametrize("module", ["polyrag.mcp.server", "polyrag.api.access", "polyrag.api"])
def test_each_part_imports_on_its_own(module: str) -> None:
    """The app mounts the MCP server and the MCP server uses the API's parts: neither may need
    the other imported first."""
    done = subprocess.run(
        [sys.executable, "-c", f"import {module}"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
