"""A polyrag home whose index lives on S3-compatible object storage (moto's server on
127.0.0.1), shared by two homes as two servers or ingest workers would share it."""

from __future__ import annotations

import time
from datetime import timedelta
from pathlib import Path

import pytest

import polyrag
from polyrag.errors import StoreError
from polyrag.index.store.lancedb import LanceStore
from polyrag.testing.store import DIM, MODEL, document

from ..conftest import CORPUS, ObjectStore


def home_on(bucket: ObjectStore, home: Path, prefix: str) -> None:
    """A home whose config.toml puts the index in the bucket; credentials stay in the
    environment, as they would in a deployment."""
    home.mkdir(parents=True)
    (home / "config.toml").write_text(
        f'[store]\nuri = "{bucket.uri(prefix)}"\nendpoint = "{bucket.endpoint}"\n'
        'region = "us-east-1"\n',
        encoding="utf-8",
    )


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch, object_store: ObjectStore) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", object_store.options["aws_access_key_id"])
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", object_store.options["aws_secret_access_key"])


def test_two_homes_share_one_index_in_the_bucket(
    object_store: ObjectStore, keys: None, tmp_path: Path
) -> None:
    for name in ("ingester", "server"):
        home_on(object_store, tmp_path / name, "shared-home")
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "vault.md").write_text("# Vault\n\nThe vault code is amber falcon.\n")
    (notes / "trip.md").write_text("# Trip\n\nThe ferry to Skye leaves at 7:40 from Mallaig.\n")
    (notes / "cups.xlsx").write_bytes(
        (CORPUS / "xlsx/unstructured__stanley-cups.xlsx").read_bytes()
    )

    ingester = polyrag.open(tmp_path / "ingester")
    server = polyrag.open(tmp_path / "server")
    try:
        assert server.search("vault code", k=3).hits == []
        report = ingester.ingest(sorted(notes.iterdir()))
        assert len(report.ingested) == 3 and not report.failed
        hits = server.search("When does the ferry leave?", k=3).hits
        assert hits and "7:40" in hits[0].chunk.text
        assert server.store.health().location == object_store.uri("shared-home")
        assert server.store.count() == ingester.store.count() > 0
        # The manifest and the tables live beside the index: the server lists the sources
        # the other home ingested, and may remove them.
        assert [e.path for e in server.sources()] == [e.path for e in ingester.sources()]
        assert len(server.sources()) == 3
        [cups] = [e for e in server.sources() if e.path.endswith("cups.xlsx")]
        assert server.tables.tables([cups.source_id])  # SQL on the server sees its rows
        assert server.remove(str(notes / "trip.md"))
        assert [Path(e.path).name for e in ingester.sources()] == ["cups.xlsx", "vault.md"]
        assert "7:40" not in " ".join(h.chunk.text for h in ingester.search("ferry", k=3).hits)
    finally:
        ingester.close()
        server.close()
    for name in ("ingester", "server"):  # nothing of the index is kept in either home
        assert not {"index", "manifest.sqlite", "tables.sqlite"} & {
            p.name for p in (tmp_path / name).iterdir()
        }


def test_readers_see_new_commits_within_the_staleness(object_store: ObjectStore) -> None:
    def open_store(staleness: float) -> LanceStore:
        return LanceStore(
            object_store.uri("staleness"),
            DIM,
            model=MODEL,
            storage_options=object_store.options,
            staleness=timedelta(seconds=staleness),
        )

    writer, fresh, lagging = open_store(0), open_store(0), open_store(600)
    try:
        writer.replace(*document("first", ["The first commit."], seed=1))
        assert fresh.source_ids() == lagging.source_ids() == {"first"}
        writer.replace(*document("second", ["The second commit."], seed=2))
        assert fresh.source_ids() == {"first", "second"}  # checks on every read
        assert lagging.source_ids() == {"first"}  # keeps its view for up to 600 s
    finally:
        for store in (writer, fresh, lagging):
            store.close()


def test_an_unreachable_endpoint_is_one_clear_error() -> None:
    started = time.monotonic()
    with pytest.raises(StoreError) as raised:
        store = LanceStore(
            "s3://polyrag-test/nowhere",
            DIM,
            model=MODEL,
            storage_options={
                "aws_endpoint": "http://127.0.0.1:9",  # nothing listens on the discard port
                "allow_http": "true",
                "aws_region": "us-east-1",
                "aws_access_key_id": "x",
                "aws_secret_access_key": "y",
            },
        )
        store.replace(*document("any", ["Text."], seed=3))
    assert str(raised.value) == (
        "the index at s3://polyrag-test/nowhere failed: cannot connect to http://127.0.0.1:9"
    )
    assert "object store" in (raised.value.hint or "")
    assert time.monotonic() - started < 60  # refused at once, not retried for minutes


def test_a_missing_bucket_is_named(object_store: ObjectStore) -> None:
    with pytest.raises(StoreError, match=r"failed: the bucket does not exist$"):
        store = LanceStore(
            "s3://no-such-bucket/index", DIM, model=MODEL, storage_options=object_store.options
        )
        store.replace(*document("any", ["Text."], seed=4))


def test_each_workspace_has_an_index_of_its_own_in_the_bucket(
    object_store: ObjectStore, keys: None, tmp_path: Path
) -> None:
    from polyrag.api.workspaces import Workspaces
    from polyrag.settings import load_settings

    home_on(object_store, tmp_path / "server", "workspaces-home")
    registry = Workspaces(load_settings(tmp_path / "server"))
    try:
        registry.create("team-a")
        shared = object_store.uri("workspaces-home")
        assert registry.settings_for("default").store.uri == shared
        assert registry.settings_for("team-a").store.uri == f"{shared}/workspaces/team-a"
        note = tmp_path / "team.md"
        note.write_text("# Team\n\nThe team offsite is in Porto.\n")
        registry.engine("team-a").ingest([note])
        assert registry.engine("team-a").search("offsite", k=3).hits
        assert registry.engine("default").search("offsite", k=3).hits == []
        assert registry.engine("default").sources() == []
    finally:
        registry.close()
