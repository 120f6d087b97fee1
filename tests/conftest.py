"""Shared paths and fixtures. The evaluation data lives in ../shared beside the checkout."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from .api.reader import Reader

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
CORPUS = SHARED / "eval" / "corpus"
MODELS_DIR = Path(os.environ.get("POLYRAG_MODELS_DIR") or REPO / ".polyrag" / "models")

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ["POLYRAG_MODELS_DIR"] = str(MODELS_DIR)


@pytest.fixture(scope="session")
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.fail(f"evaluation corpus missing at {CORPUS}: clone with ../shared beside it")
    return CORPUS


@pytest.fixture
def reader(monkeypatch: pytest.MonkeyPatch) -> Reader:
    """Every engine the test builds answers with a scripted Reader (tests/api/reader.py)."""
    from polyrag import build
    from polyrag.llm.fallback import FallbackChain
    from polyrag.settings import Settings

    from .api.reader import Reader

    model = Reader()

    def chain(settings: Settings) -> FallbackChain:
        return FallbackChain([model])

    monkeypatch.setattr(build, "chat", chain)
    return model


@dataclass(frozen=True)
class ObjectStore:
    """A bucket on the S3-compatible server the tests run on 127.0.0.1 (moto's)."""

    endpoint: str
    bucket: str
    options: dict[str, str]  # LanceDB storage options: endpoint, plain HTTP, test credentials

    def uri(self, name: str) -> str:
        return f"s3://{self.bucket}/{name}"


@pytest.fixture(scope="session")
def object_store() -> Iterator[ObjectStore]:
    """moto's S3 server in a thread on a free port of 127.0.0.1, one bucket, for the session."""
    import boto3
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        endpoint = f"http://{host}:{port}"
        keys = {"aws_access_key_id": "polyrag-test", "aws_secret_access_key": "polyrag-test"}
        boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", **keys).create_bucket(
            Bucket="polyrag-test"
        )
        options = {"aws_endpoint": endpoint, "allow_http": "true", "aws_region": "us-east-1"}
        yield ObjectStore(endpoint, "polyrag-test", {**options, **keys})
    finally:
        server.stop()
