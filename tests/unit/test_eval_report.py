"""Report folders: JSON, Markdown tables and real PNG plots."""

from __future__ import annotations

import json
from pathlib import Path

from polyrag.eval.report import (
    LatencySeries,
    MetricGroup,
    latency_table,
    markdown_tables,
    run_folder,
    write_report,
)

PNG = b"\x89PNG\r\n\x1a\n"
GROUP = MetricGroup(
    title="tiny: retrieval",
    values={"bm25": {"ndcg@10": 0.5, "mrr@10": 0.4}, "hybrid": {"ndcg@10": 0.75, "mrr@10": None}},
    errors={"bm25": {"ndcg@10": 0.1}},
    baselines={"BM25 (paper)": {"ndcg@10": 0.66}},
)
LATENCY = LatencySeries(
    "tiny: latency", {"bm25": [1.0, 2.0, 3.0, 4.0], "dense": [], "hybrid": [5.0]}
)


def test_run_folders_are_new_each_time(tmp_path: Path) -> None:
    first = run_folder(tmp_path, "qa", "My Set/1")
    second = run_folder(tmp_path, "qa", "My Set/1")
    assert first != second and first.is_dir() and second.is_dir()
    assert first.name.startswith("qa-my-set-1-")


def test_write_report_makes_json_markdown_and_plots(tmp_path: Path) -> None:
    summary = {"dataset": "tiny", "split": "test", "value": 1}
    written = write_report(
        tmp_path / "run", summary, groups=[GROUP], latencies=[LATENCY], notes=["a note"]
    )
    names = {path.name for path in written}
    assert names == {"summary.json", "summary.md", "metrics-1.png", "latency-1.png"}
    assert json.loads((tmp_path / "run" / "summary.json").read_text()) == summary
    for png in tmp_path.glob("run/*.png"):
        assert png.read_bytes().startswith(PNG) and png.stat().st_size > 5_000
    markdown = (tmp_path / "run" / "summary.md").read_text()
    assert markdown.startswith("# tiny test")
    assert "- a note" in markdown and "![metrics-1](metrics-1.png)" in markdown


def test_groups_without_values_draw_nothing(tmp_path: Path) -> None:
    empty = MetricGroup(title="nothing", values={"x": {"f1": None}})
    written = write_report(tmp_path, {}, groups=[empty], latencies=[LatencySeries("l", {})])
    assert not [path for path in written if path.suffix == ".png"]


def test_markdown_tables_show_spread_gaps_and_baselines() -> None:
    table = markdown_tables([GROUP])
    assert "| | ndcg@10 | mrr@10 |" in table
    assert "| bm25 | 0.500 ± 0.100 | 0.400 |" in table
    assert "| hybrid | 0.750 | – |" in table
    assert "| *BM25 (paper)* (published) | 0.660 | – |" in table


def test_latency_table_skips_empty_series() -> None:
    table = latency_table([LATENCY])
    assert "| tiny: latency | bm25 | 4 | 2.5 |" in table
    assert "dense" not in table
