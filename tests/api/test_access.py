"""Access tokens: a server on an address other machines reach starts only with tokens, then
every request needs one; tokens are stored hashed and may be limited to workspaces or reading."""

from __future__ import annotations

import logging
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from polyrag.api import create_app
from polyrag.api.access import TokenStore, tokens_of
from polyrag.errors import ConfigError
from polyrag.settings import load_settings

from ..conftest import MODELS_DIR


def test_tokens_are_stored_as_hashes_and_verified(tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "tokens.sqlite")
    secret = store.add("alice", workspaces=["team"], read_only=True)
    assert secret.startswith("prt_") and len(secret) > 40
    grant = store.verify(secret)
    assert grant is not None and grant.name == "alice" and grant.read_only
    assert grant.allows("team") and not grant.allows("default")
    assert store.verify(secret + "x") is None and store.verify("") is None
    store.close()
    stored = sqlite3.connect(tmp_path / "tokens.sqlite").execute("SELECT * FROM tokens").fetchall()
    assert secret not in repr(stored)  # only its hash is kept
    again = TokenStore(tmp_path / "tokens.sqlite")
    with pytest.raises(ConfigError):
        again.add("bad name!")
    again.remove("alice")
    assert again.verify(secret) is None and not again


def test_a_server_for_other_machines_needs_tokens(tmp_path: Path) -> None:
    settings = load_settings(tmp_path, models_dir=MODELS_DIR, server={"host": "0.0.0.0"})
    with pytest.raises(ConfigError, match=r"refusing to listen on 0\.0\.0\.0"):
        create_app(settings)
    env = {**os.environ, "POLYRAG_HOME": str(tmp_path)}
    refused = subprocess.run(
        [sys.executable, "-m", "polyrag.cli.app", "serve", "--host", "0.0.0.0"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert refused.returncode == 2 and "polyrag tokens add" in refused.stderr
    made = subprocess.run(
        [sys.executable, "-m", "polyrag.cli.app", "tokens", "add", "ops", "--read-only"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert made.returncode == 0 and made.stdout.strip().startswith("prt_")
    listed = subprocess.run(
        [sys.executable, "-m", "polyrag.cli.app", "tokens", "list"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert listed.stdout.strip() == "ops: every workspace, read-only"
    assert made.stdout.strip() not in listed.stdout


def test_every_request_carries_a_token_that_allows_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    tokens = tokens_of(tmp_path)
    full = tokens.add("full")
    team = tokens.add("team", workspaces=["team"])
    reader = tokens.add("reader", read_only=True)
    tokens.close()
    settings = load_settings(tmp_path, models_dir=MODELS_DIR, server={"host": "0.0.0.0"})
    with TestClient(create_app(settings)) as client:
        bare = client.get("/api/v1/workspaces")
        assert bare.status_code == 401 and "access token" in bare.json()["error"]
        assert bare.headers["www-authenticate"] == "Bearer"
        page = client.get("/", follow_redirects=False)
        assert page.status_code == 303 and page.headers["location"] == "/login.html"
        assert client.get("/login.html").status_code == 200  # the sign-in page itself is open
        assert client.get("/health").status_code == 200
        assert client.post("/mcp", json={}).status_code == 401
        assert (
            client.get("/api/v1/workspaces", headers={"authorization": "Bearer prt_x"}).status_code
            == 401
        )

        def as_(secret: str) -> dict[str, str]:
            return {"authorization": f"Bearer {secret}"}

        assert (
            client.post("/api/v1/workspaces", json={"name": "team"}, headers=as_(full)).status_code
            == 201
        )
        names = client.get("/api/v1/workspaces", headers=as_(team)).json()["workspaces"]
        assert [w["name"] for w in names] == ["team"]
        assert client.get("/api/v1/workspaces/team/sources", headers=as_(team)).status_code == 200
        other = client.get("/api/v1/workspaces/default/sources", headers=as_(team))
        assert (
            other.status_code == 403
            and "does not open workspace 'default'" in other.json()["error"]
        )
        completion = client.post(
            "/v1/chat/completions",
            json={"model": "default", "messages": [{"role": "user", "content": "Hi?"}]},
            headers=as_(team),
        )
        assert completion.status_code == 403
        # MCP lets the token in; each tool checks its workspace (tests/mcp).
        assert client.post("/mcp", json={}, headers=as_(team)).status_code != 403

        upload = client.post(
            "/api/v1/workspaces/default/sources",
            files=[("files", ("a.md", b"# A\n\nText.\n"))],
            headers=as_(reader),
        )
        assert upload.status_code == 403 and "may read and ask" in upload.json()["error"]
        search = client.post(
            "/api/v1/workspaces/default/search", json={"query": "text"}, headers=as_(reader)
        )
        assert search.status_code == 200

        # The web app signs in once: the token rides in an HttpOnly cookie.
        wrong = client.post("/api/v1/session", json={"token": "prt_nope"})
        assert wrong.status_code == 401
        signed = client.post("/api/v1/session", json={"token": full})
        assert signed.status_code == 200 and signed.json()["name"] == "full"
        assert "httponly" in signed.headers["set-cookie"].lower()
        assert client.get("/").status_code == 200  # the cookie is sent from now on
        assert client.get("/api/v1/workspaces").status_code == 200
        assert full not in signed.text
    logged = caplog.text
    assert all(secret not in logged for secret in (full, team, reader))  # never in a log
