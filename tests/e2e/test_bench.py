"""`make bench`'s suite runs end to end on the least data per section (no timing is asserted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import REPO
from .tiny_sets import write_tiny_beir

pytestmark = pytest.mark.slow

SECTIONS = (
    "## Retrieval latency",
    "## Ingestion",
    "## Scans and recordings",
    "## Answers with the local model",
    "## The server under load",
    "## Scale: the index on object storage",
    "## Retrieval quality (tiny,",
    "## Finding the evidence",
    "## Question answering",
)


def test_the_benchmark_suite_runs_on_a_tiny_dataset(tmp_path: Path) -> None:
    beir = write_tiny_beir(tmp_path / "tiny")
    home, out = tmp_path / "home", tmp_path / "BENCHMARKS.md"
    command = [sys.executable, "-m", "bench.run", "--tiny", "--scifact", str(beir)]
    done = subprocess.run(
        [*command, "--home", str(home), "--out", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads((home / "bench-results.json").read_text())
    assert [run["chunks"] for run in results["retrieval"]] == [1000]
    assert results["ingest"]["files"] == 1 and results["ingest"]["failed"] == 0
    assert results["ingest"]["pages"] > 0 and results["ingest"]["chunks"] > 0
    assert results["answers"]["questions"] == 1
    assert results["answers"]["memory"]["repeats"] == 2
    assert results["media"]["scanned_pages"] >= 1 and results["media"]["audio_seconds"] > 5
    server = results["server"]
    assert server["errors"] == 0 and server["asks"] == 1 and server["searches"] == 1
    assert server["first_event_p50_ms"] <= server["answer_p50_ms"]
    store, cluster = results["scale"]["store"], results["scale"]["cluster"]
    assert store["chunks"] == 2000 and store["disk_mb"] > 0
    assert all(store[where]["p50_ms"] > 0 for where in ("local", "s3"))
    runs = [cluster[key] for key in ("local", "ray_1_node", "ray_2_node")]
    assert all(run["failed"] == 0 and run["ingested"] == cluster["pdfs"] == 2 for run in runs)
    assert cluster["same_chunk_ids"]  # the same chunks, wherever parsed
    assert cluster["same_index"], cluster["differences"]  # texts, vectors, manifest rows too
    hybrid = results["scifact"]["test"]["results"]["hybrid"]
    assert hybrid["recall@10"] == 1.0  # five documents: every relevant one is in the top ten
    found = results["evidence"]["hotpotqa"]["collection"]
    assert found["questions"] == 2 and found["overall"]["documents@10"]["n"] == 2
    assert set(results["qa"]) == {"office-qa", "squad2"}
    assert all(set(by_mode) == {"fast", "agent"} for by_mode in results["qa"].values())
    assert all(run["questions"] == 1 for by in results["qa"].values() for run in by.values())
    # Each question's answer is kept beside the figures, to see later which ones failed.
    (asked,) = (home / "cases" / "office-qa-agent.jsonl").read_text().splitlines()
    case = json.loads(asked)
    assert case["question"] and case["mode"] == "agent" and "correct" in case["scores"]
    report = out.read_text()
    for heading in SECTIONS:
        assert heading in report
    assert "| test | 4 | hybrid |" in report
    assert "| office-qa | 1 (0 unanswerable) | fast |" in report
    assert "| hotpotqa | collection | 2 |" in report
    assert "| office-qa | 1 (0 unanswerable) | agent |" in report

    # An interrupted run is written out as it stands, naming what it has not measured.
    results["qa"]["squad2"].pop("agent")
    interrupted = tmp_path / "interrupted"
    interrupted.mkdir()
    (interrupted / "bench-results.partial.json").write_text(json.dumps(results))
    partial_out = tmp_path / "PARTIAL.md"
    written = subprocess.run(
        [*command, "--home", str(interrupted), "--out", str(partial_out), "--write-partial"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert written.returncode == 0, written.stderr[-3000:]
    partial = partial_out.read_text()
    assert "interrupted before it measured squad2 (agent);" in partial
    squad_rows = [line for line in partial.splitlines() if line.startswith("| squad2 |")]
    assert len(squad_rows) == 1 and "| fast |" in squad_rows[0]
    nothing = subprocess.run(
        [*command, "--home", str(tmp_path / "none"), "--out", str(partial_out), "--write-partial"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert nothing.returncode == 1 and "no interrupted run" in nothing.stderr
