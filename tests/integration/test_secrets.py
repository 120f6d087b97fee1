"""No secret is written anywhere: an API key a provider echoes back in its error, a password
given with --password that opens nothing, in error messages, logs and what polyrag keeps."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from polyrag.errors import ProviderRejectedError
from polyrag.llm.base import GenerationOptions, Message, complete
from polyrag.llm.fallback import FallbackChain
from polyrag.llm.remote import OpenAICompatibleModel
from polyrag.settings import ProviderSettings

from ..conftest import CORPUS

KEY = "sk-polyrag-test-7f3a9c1e5b2d4086"
PASSWORD = "pw-polyrag-test-91d2e8"


class _Echo(BaseHTTPRequestHandler):
    """A provider that rejects the key and quotes it back, as some do ("Incorrect API key
    provided: sk-…")."""

    def do_POST(self) -> None:
        asked = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        given = self.headers.get("Authorization", "").removeprefix("Bearer ")
        # Asked for model "long", the key straddles where a shortened message is cut.
        padding = "x" * 100 + " " if asked.get("model") == "long" else ""
        body = json.dumps({"error": {"message": f"{padding}Incorrect API key provided: {given}"}})
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def echoing() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("model", ["short", "long"])
def test_an_api_key_the_provider_echoes_is_not_repeated(
    echoing: str, model: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    settings = ProviderSettings.model_validate(
        {"name": "echo", "base_url": echoing, "model": model, "api_key": KEY}
    )
    provider = OpenAICompatibleModel(settings)
    with pytest.raises(ProviderRejectedError) as caught:
        complete(provider, [Message("user", "Hi?")], GenerationOptions(max_tokens=4))
    line = caught.value.one_line()
    assert "Incorrect API key" in line and KEY not in line
    assert KEY[:12] not in line and KEY[-6:] not in line  # nor a part of it
    chain = FallbackChain([provider])
    with pytest.raises(Exception) as failed:
        complete(chain, [Message("user", "Hi?")], GenerationOptions(max_tokens=4))
    assert KEY not in str(failed.value)
    assert KEY not in caplog.text


def test_a_password_that_opens_nothing_is_not_kept_or_shown(tmp_path: Path) -> None:
    locked = CORPUS / "pdf_encrypted" / "pdfplumber__password-example.pdf"
    home = tmp_path / "home"
    done = subprocess.run(
        [sys.executable, "-m", "polyrag.cli.app", "ingest", str(locked), "--password", PASSWORD,
         "--home", str(home), "--json"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert PASSWORD not in done.stdout + done.stderr
    assert "password" in (done.stdout + done.stderr).lower()  # it says what went wrong
    for kept in home.rglob("*"):
        if kept.is_file():
            assert PASSWORD.encode() not in kept.read_bytes(), kept


def test_object_storage_credentials_are_not_kept_or_shown(tmp_path: Path) -> None:
    """The S3 secret key comes from the environment; an index it cannot reach fails with one
    line that does not carry it, and nothing under the home keeps it."""
    secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz-polyrag-test"
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(
        '[store]\nuri = "s3://nowhere-bucket/index"\nendpoint = "http://127.0.0.1:9"\n'
        'region = "us-east-1"\n',
        encoding="utf-8",
    )
    note = tmp_path / "note.md"
    note.write_text("# Note\n\nA line to index.\n")
    env = {**os.environ, "AWS_ACCESS_KEY_ID": "AKIAPOLYRAGTEST", "AWS_SECRET_ACCESS_KEY": secret}
    done = subprocess.run(
        [sys.executable, "-m", "polyrag.cli.app", "ingest", str(note), "--home", str(home)],
        capture_output=True, text=True, timeout=300, env=env,
    )  # fmt: skip
    assert done.returncode != 0
    assert "s3://nowhere-bucket/index" in done.stderr and "Traceback" not in done.stderr
    assert secret not in done.stdout + done.stderr and secret[:16] not in done.stderr
    for kept in home.rglob("*"):
        if kept.is_file():
            assert secret.encode() not in kept.read_bytes(), kept
