"""Evaluation reports: one folder per run with summary.json, summary.md and PNG plots.

A report is made of metric groups (bars per metric, one colour per series, error bars, and the
published baselines as dashed marks) and latency series (a histogram per stage or mode, with
its p50 and p95). matplotlib is imported only when a report is written, and draws off-screen.
"""

from __future__ import annotations

import json
import math
import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from polyrag.eval.answer_metrics import percentile

if TYPE_CHECKING:
    from matplotlib.figure import Figure

Values = Mapping[str, Mapping[str, float | None]]  # series → metric → value


@dataclass(frozen=True)
class MetricGroup:
    """Metrics of one or more series (e.g. bm25, dense, hybrid) drawn as one bar chart."""

    title: str
    values: Values
    errors: Values = field(default_factory=dict)  # same shape: the ± of each value
    baselines: Values = field(default_factory=dict)  # published figures, drawn as marks


@dataclass(frozen=True)
class LatencySeries:
    """Latency samples in milliseconds, one list per stage or mode, drawn as histograms."""

    title: str
    samples_ms: Mapping[str, Sequence[float]]


def run_folder(root: Path, kind: str, name: str) -> Path:
    """A new folder for one run: `<root>/<kind>-<name>-<YYYYmmdd-HHMMSS>[-n]`."""
    slug = _slug(f"{kind}-{name}")
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    for attempt in range(1000):
        folder = root / (f"{slug}-{stamp}" if attempt == 0 else f"{slug}-{stamp}-{attempt}")
        try:
            folder.mkdir(parents=True)
        except FileExistsError:
            continue
        return folder
    raise FileExistsError(f"{root}: no free name for a {kind} report")


def write_report(
    folder: Path,
    summary: Mapping[str, Any],
    *,
    groups: Sequence[MetricGroup] = (),
    latencies: Sequence[LatencySeries] = (),
    notes: Sequence[str] = (),
) -> list[Path]:
    """Write summary.json, summary.md and one PNG per group and latency series."""
    folder.mkdir(parents=True, exist_ok=True)
    written = [folder / "summary.json"]
    written[0].write_text(json.dumps(summary, indent=2, default=str) + "\n", encoding="utf-8")
    plots: list[Path] = []
    for index, group in enumerate(groups, start=1):
        if any(v is not None for metrics in group.values.values() for v in metrics.values()):
            plots.append(_save(metric_figure(group), folder / f"metrics-{index}.png"))
    for index, series in enumerate(latencies, start=1):
        if any(series.samples_ms.values()):
            plots.append(_save(latency_figure(series), folder / f"latency-{index}.png"))
    markdown = folder / "summary.md"
    markdown.write_text(_markdown(summary, groups, latencies, notes, plots), encoding="utf-8")
    return [*written, markdown, *plots]


def markdown_tables(groups: Sequence[MetricGroup]) -> str:
    """Each group as a Markdown table: a row per series (and baseline), a column per metric."""
    parts = []
    for group in groups:
        metrics = _metric_names(group)
        if not metrics:
            continue
        lines = [f"### {group.title}", "", "| | " + " | ".join(metrics) + " |"]
        lines.append("|---|" + "---:|" * len(metrics))
        for series, values in group.values.items():
            errors = group.errors.get(series, {})
            cells = [_cell(values.get(m), errors.get(m)) for m in metrics]
            lines.append(f"| {series} | " + " | ".join(cells) + " |")
        for name, values in group.baselines.items():
            cells = [_cell(values.get(m), None) for m in metrics]
            lines.append(f"| *{name}* (published) | " + " | ".join(cells) + " |")
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def latency_table(series: Sequence[LatencySeries]) -> str:
    lines = [
        "| | stage | n | mean ms | p50 ms | p95 ms | max ms |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for item in series:
        for stage, samples in item.samples_ms.items():
            if not samples:
                continue
            values = [float(s) for s in samples]
            lines.append(
                f"| {item.title} | {stage} | {len(values)} | {sum(values) / len(values):.1f} | "
                f"{percentile(values, 50):.1f} | {percentile(values, 95):.1f} | "
                f"{max(values):.1f} |"
            )
    return "\n".join(lines) if len(lines) > 2 else ""


def metric_figure(group: MetricGroup) -> Figure:
    """Grouped bars: metrics along x, a bar per series with its error bar, baselines dashed."""
    figure = _figure()
    metrics = _metric_names(group)
    series = list(group.values)
    axes = figure.add_subplot()
    width = 0.8 / max(len(series), 1)
    for position, name in enumerate(series):
        offsets = [i - 0.4 + width * (position + 0.5) for i in range(len(metrics))]
        heights = [_number(group.values[name].get(m)) for m in metrics]
        errors = [_number(group.errors.get(name, {}).get(m)) for m in metrics]
        below = [min(e, h) if h >= 0 else e for e, h in zip(errors, heights, strict=True)]
        axes.bar(offsets, heights, width, yerr=[below, errors], capsize=3, label=name)
    styles: tuple[Literal["--", ":", "-."], ...] = ("--", ":", "-.")
    for index, (name, values) in enumerate(group.baselines.items()):
        marks = [(i, values.get(m)) for i, m in enumerate(metrics) if values.get(m) is not None]
        for number, (i, value) in enumerate(marks):
            axes.hlines(
                _number(value),
                i - 0.45,
                i + 0.45,
                colors="black",
                linestyles=styles[index % len(styles)],
                label=f"{name} (published)" if number == 0 else "_nolegend_",
            )
    axes.set_xticks(range(len(metrics)), metrics, rotation=20, ha="right")
    top = max([1.0, *(_number(v) for m in group.values.values() for v in m.values())])
    axes.set_ylim(0, top * 1.05)
    axes.set_title(group.title)
    axes.grid(axis="y", alpha=0.3)
    axes.legend(fontsize="small", loc="best")
    figure.tight_layout()
    return figure


def latency_figure(series: LatencySeries) -> Figure:
    """A histogram per stage (side by side: their scales differ), p50 and p95 marked."""
    stages = [(name, [float(s) for s in samples]) for name, samples in series.samples_ms.items()]
    stages = [(name, samples) for name, samples in stages if samples]
    figure = _figure(width=max(4.0 * len(stages), 6.0))
    for index, (name, samples) in enumerate(stages, start=1):
        axes = figure.add_subplot(1, len(stages), index)
        axes.hist(samples, bins=min(30, max(5, int(math.sqrt(len(samples))) * 2)))
        for q, style in ((50, "--"), (95, ":")):
            value = percentile(samples, q)
            axes.axvline(value, color="black", linestyle=style, label=f"p{q} {value:.0f} ms")
        axes.set_title(f"{name} (n={len(samples)})", fontsize="medium")
        axes.set_xlabel("ms")
        axes.legend(fontsize="small")
    figure.suptitle(series.title)
    figure.tight_layout()
    return figure


def _figure(width: float = 8.0) -> Figure:
    os.environ.setdefault("MPLCONFIGDIR", _writable_config_dir())
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, 4.5), dpi=100)
    FigureCanvasAgg(figure)
    return figure


def _writable_config_dir() -> str:
    """matplotlib's cache folder; a temporary one where the user's is read-only."""
    default = Path.home() / ".config" / "matplotlib"
    try:
        default.mkdir(parents=True, exist_ok=True)
        if os.access(default, os.W_OK):
            return str(default)
    except OSError:
        pass
    return tempfile.mkdtemp(prefix="polyrag-mpl-")


def _save(figure: Figure, path: Path) -> Path:
    figure.savefig(path)
    return path


def _markdown(
    summary: Mapping[str, Any],
    groups: Sequence[MetricGroup],
    latencies: Sequence[LatencySeries],
    notes: Sequence[str],
    plots: Sequence[Path],
) -> str:
    title = " ".join(str(summary[k]) for k in ("dataset", "split") if k in summary) or "evaluation"
    lines = [f"# {title}", "", f"Written {datetime.now():%Y-%m-%d %H:%M}.", ""]
    lines += [f"- {note}" for note in notes]
    tables = markdown_tables(groups)
    if tables:
        lines += ["", tables]
    timing = latency_table(latencies)
    if timing:
        lines += ["", "### Latency", "", timing]
    if plots:
        lines += ["", "### Plots", ""] + [f"![{p.stem}]({p.name})" for p in plots]
    lines += ["", "Every figure is in `summary.json` beside this file.", ""]
    return "\n".join(lines)


def _metric_names(group: MetricGroup) -> list[str]:
    names: dict[str, None] = {}
    for values in group.values.values():
        names.update(dict.fromkeys(values))
    return list(names)


def _cell(value: float | None, error: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:.3f} ± {error:.3f}" if error else f"{value:.3f}"


def _number(value: float | None) -> float:
    return 0.0 if value is None else float(value)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._]+", "-", text).strip("-").lower() or "run"
