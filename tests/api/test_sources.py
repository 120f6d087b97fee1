"""Workspaces, uploads, ingest jobs, sources and search over the REST API."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from .conftest import finished, home_of, upload

POLICY = (
    "# Travel policy\n\nThe hotel cap per night in London is GBP 180. Elsewhere in the UK the "
    "cap is GBP 140.\n\n## Meals\n\nMeals are reimbursed up to GBP 40 a day.\n"
)
REVENUE = "region,quarter,revenue\nNordics,Q3,4.2\nNordics,Q2,3.9\nIberia,Q3,2.7\n"


def test_health_and_the_api_reference(client: TestClient) -> None:
    assert client.get("/health").json()["status"] == "ok"
    paths = client.get("/openapi.json").json()["paths"]
    for path in (
        "/api/v1/workspaces",
        "/api/v1/workspaces/{workspace}/sources",
        "/api/v1/workspaces/{workspace}/search",
        "/api/v1/workspaces/{workspace}/ask",
        "/api/v1/workspaces/{workspace}/ask/stream",
        "/api/v1/workspaces/{workspace}/jobs/{job_id}",
    ):
        assert path in paths


def test_workspaces_are_created_listed_and_deleted(client: TestClient) -> None:
    assert client.post("/api/v1/workspaces", json={"name": "team-a"}).status_code == 201
    names = [w["name"] for w in client.get("/api/v1/workspaces").json()["workspaces"]]
    assert names[0] == "default" and "team-a" in names
    again = client.post("/api/v1/workspaces", json={"name": "team-a"})
    assert again.status_code == 409 and again.json()["hint"]
    bad = client.post("/api/v1/workspaces", json={"name": "../etc"})
    assert bad.status_code == 400 and "invalid workspace name" in bad.json()["error"]
    assert client.delete("/api/v1/workspaces/default").status_code == 400
    notes = [("files", (f"n{i}.md", f"# N{i}\n\n{'Words. ' * 300}\n".encode())) for i in range(6)]
    job = client.post("/api/v1/workspaces/team-a/sources", files=notes).json()
    busy = client.delete("/api/v1/workspaces/team-a")
    if client.get(f"/api/v1/workspaces/team-a/jobs/{job['job_id']}").json()["status"] != "done":
        assert busy.status_code == 409 and "/cancel" in busy.json()["hint"]
    finished(client, "team-a", job)
    assert client.delete("/api/v1/workspaces/team-a").status_code == 204
    gone = client.get("/api/v1/workspaces/team-a/sources")
    assert gone.status_code == 404 and gone.json()["hint"]


def test_uploads_are_indexed_listed_searched_and_deleted(
    client: TestClient, workspace: str
) -> None:
    job = upload(
        client, workspace, ("policy.md", POLICY.encode()), ("revenue.csv", REVENUE.encode())
    )
    assert job["status"] == "done" and job["ingested"] == 2 and job["failed"] == 0
    assert job["done"] == job["total"] == 2 and job["eta_s"] is None
    listed = client.get(f"/api/v1/workspaces/{workspace}/sources").json()
    by_name = {s["name"]: s for s in listed["sources"]}
    assert set(by_name) == {"policy.md", "revenue.csv"} and listed["indexed"] == 2
    assert all(s["status"] == "indexed" and s["chunks"] > 0 for s in by_name.values())
    one = client.get(f"/api/v1/workspaces/{workspace}/sources/{by_name['policy.md']['source_id']}")
    assert one.json()["path"].endswith("policy.md")

    found = client.post(
        f"/api/v1/workspaces/{workspace}/search", json={"query": "hotel cap London", "k": 3}
    ).json()
    assert found["hits"][0]["path"].endswith("policy.md") and found["hits"][0]["rank"] == 1
    assert "heading_path" in found["hits"][0]["locator"]
    tables = client.post(
        f"/api/v1/workspaces/{workspace}/search",
        json={"query": "Nordics revenue", "modalities": ["table"]},
    ).json()
    assert tables["hits"] and all(h["modality"] == "table" for h in tables["hits"])

    diagnosed = client.get(f"/api/v1/workspaces/{workspace}/sources/diagnostics").json()
    by_source = {d["name"]: d for d in diagnosed["sources"]}
    assert by_source["revenue.csv"]["by_modality"].get("table", 0) >= 1
    assert by_source["policy.md"]["indexed_chunks"] == by_name["policy.md"]["chunks"]
    assert diagnosed["totals"]["text"] >= 1 and diagnosed["orphaned_sources"] == []

    source_id = by_name["policy.md"]["source_id"]
    removed = client.delete(f"/api/v1/workspaces/{workspace}/sources/{source_id}").json()
    assert removed["removed"][0]["source_id"] == source_id
    assert not (home_of(client, workspace) / "uploads" / "policy.md").exists()
    after = client.post(
        f"/api/v1/workspaces/{workspace}/search", json={"query": "hotel cap London"}
    ).json()
    assert all(not h["path"].endswith("policy.md") for h in after["hits"])
    missing = client.get(f"/api/v1/workspaces/{workspace}/sources/{source_id}")
    assert missing.status_code == 404 and missing.json()["hint"]


def test_an_upload_again_replaces_its_earlier_version(client: TestClient, workspace: str) -> None:
    upload(client, workspace, ("notes.md", b"# Notes\n\nThe launch is on 3 March.\n"))
    job = upload(client, workspace, ("notes.md", b"# Notes\n\nThe launch moved to 9 May.\n"))
    assert job["ingested"] == 1
    sources = client.get(f"/api/v1/workspaces/{workspace}/sources").json()["sources"]
    assert [s["name"] for s in sources] == ["notes.md"]
    hit = client.post(f"/api/v1/workspaces/{workspace}/search", json={"query": "launch"}).json()
    assert "9 May" in hit["hits"][0]["text"]


def test_upload_names_stay_inside_the_workspace(client: TestClient, workspace: str) -> None:
    job = upload(client, workspace, ("../../outside.md", b"# Escape\n\nStill inside the home.\n"))
    assert job["ingested"] == 1
    stored = home_of(client, workspace) / "uploads" / "outside.md"
    assert stored.is_file()
    assert not (home_of(client, workspace).parent / "outside.md").exists()
    nameless = client.post(
        f"/api/v1/workspaces/{workspace}/sources", files=[("files", ("..", b"x"))]
    )
    assert nameless.status_code == 400, nameless.text
    assert nameless.json()["error"] == "an uploaded file has no usable name"


def test_an_upload_over_the_limit_is_refused_and_not_kept(
    client: TestClient, workspace: str
) -> None:
    big = b"a" * (1024 * 1024 + 1)  # the app's limit is 1 MB
    response = client.post(
        f"/api/v1/workspaces/{workspace}/sources", files=[("files", ("big.txt", big))]
    )
    assert response.status_code == 413
    body: dict[str, Any] = response.json()
    assert "upload limit" in body["error"] and "max_upload_mb" in body["hint"]
    assert list((home_of(client, workspace) / "uploads").iterdir()) == []
    # A refused file refuses its whole request: an earlier version of a file sent with it stays.
    upload(client, workspace, ("notes.md", b"# Notes\n\nFirst version.\n"))
    both = [("files", ("notes.md", b"# Notes\n\nSecond version.\n")), ("files", ("big.txt", big))]
    assert client.post(f"/api/v1/workspaces/{workspace}/sources", files=both).status_code == 413
    kept = sorted((home_of(client, workspace) / "uploads").iterdir())
    assert [p.name for p in kept] == ["notes.md"] and b"First version" in kept[0].read_bytes()


def test_a_bad_file_fails_alone_with_one_line(client: TestClient, workspace: str) -> None:
    job = upload(
        client,
        workspace,
        ("broken.pdf", b"%PDF-1.7\nthis is not really a pdf"),
        ("fine.md", b"# Fine\n\nThis one reads.\n"),
    )
    assert job["status"] == "done" and job["ingested"] == 1 and job["failed"] == 1
    failure = next(f for f in job["files"] if f["outcome"] == "failed")
    assert failure["path"].endswith("broken.pdf") and "\n" not in failure["detail"]


def test_reindex_reads_an_unchanged_source_again(client: TestClient, workspace: str) -> None:
    upload(client, workspace, ("policy.md", POLICY.encode()))
    source = client.get(f"/api/v1/workspaces/{workspace}/sources").json()["sources"][0]
    started = client.post(f"/api/v1/workspaces/{workspace}/sources/{source['source_id']}/reindex")
    assert started.status_code == 202
    job = finished(client, workspace, started.json())
    assert job["ingested"] == 1 and job["unchanged"] == 0
    again = client.get(f"/api/v1/workspaces/{workspace}/sources").json()["sources"]
    assert len(again) == 1 and again[0]["status"] == "indexed" and again[0]["chunks"] > 0


def test_job_progress_streams_until_done(client: TestClient, workspace: str) -> None:
    files = [
        ("files", (f"note-{i}.md", f"# Note {i}\n\nItem {i} costs {i} euros.\n".encode()))
        for i in range(4)
    ]
    job = client.post(f"/api/v1/workspaces/{workspace}/sources", files=files).json()
    events = []
    with client.stream(
        "GET", f"/api/v1/workspaces/{workspace}/jobs/{job['job_id']}/events"
    ) as stream:
        for line in stream.iter_lines():
            if line.startswith("event: "):
                events.append(line.removeprefix("event: "))
    assert events[-1] == "done" and set(events) <= {"progress", "done"}
    state = client.get(f"/api/v1/workspaces/{workspace}/jobs/{job['job_id']}").json()
    assert state["status"] == "done" and state["ingested"] == 4
    listed = client.get(f"/api/v1/workspaces/{workspace}/jobs").json()["jobs"]
    assert listed[0]["job_id"] == job["job_id"]


def test_a_cancelled_job_leaves_every_source_whole(client: TestClient, workspace: str) -> None:
    files = [
        ("files", (f"part-{i:02}.md", note(i, f"Words about part {i}. " * 40))) for i in range(24)
    ]
    job = client.post(f"/api/v1/workspaces/{workspace}/sources", files=files).json()
    cancelled = client.post(f"/api/v1/workspaces/{workspace}/jobs/{job['job_id']}/cancel")
    assert cancelled.status_code == 200
    state = finished(client, workspace, job)
    assert state["status"] in ("cancelled", "done")
    print(f"cancelled after {state['ingested']} of 24 files: {state['status']}")
    sources = client.get(f"/api/v1/workspaces/{workspace}/sources").json()["sources"]
    assert all(s["status"] == "indexed" and s["chunks"] > 0 for s in sources)
    assert len(sources) == state["ingested"]
    if state["status"] == "cancelled":
        assert state["ingested"] < 24
    # Running it again finishes the work.
    uploads = home_of(client, workspace) / "uploads"
    engine = client.app.state.workspaces.engine(workspace)  # type: ignore[attr-defined]
    engine.ingest([uploads])
    assert len(client.get(f"/api/v1/workspaces/{workspace}/sources").json()["sources"]) == 24


def test_errors_are_json_with_a_hint(client: TestClient, workspace: str) -> None:
    invalid = client.post(f"/api/v1/workspaces/{workspace}/search", json={"query": ""})
    assert invalid.status_code == 422 and invalid.json()["error"].startswith("invalid request")
    unknown = client.post(f"/api/v1/workspaces/{workspace}/search", json={"q": "x"})
    assert unknown.status_code == 422
    job = client.get(f"/api/v1/workspaces/{workspace}/jobs/nope")
    assert job.status_code == 404 and job.json()["hint"]
    url = client.post(
        f"/api/v1/workspaces/{workspace}/sources/url", json={"url": "http://127.0.0.1:9/x"}
    )
    state = finished(client, workspace, url.json())
    assert state["failed"] == 1 and "\n" not in state["files"][0]["detail"]


def note(number: int, text: str) -> bytes:
    return f"# Note {number}\n\n{text}\n".encode()
