"""`polyrag eval ...`: measure retrieval and answers on public sets or on your own documents."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from polyrag.cli.common import HomeOption, JsonOption, engine_for, err, out, print_json
from polyrag.settings import ASK_MODES

if TYPE_CHECKING:
    from polyrag.eval.qa import Scope

eval_app = typer.Typer(
    help="Measure retrieval and answer quality on public datasets or your own documents.",
    no_args_is_help=True,
)

OutOption = Annotated[
    Path | None,
    typer.Option("--out", help="Where the report folder goes (default: <home>/results)."),
]


@eval_app.command("retrieval")
def eval_retrieval(
    dataset: Annotated[
        Path, typer.Option("--dataset", help="A BEIR folder: corpus.jsonl, queries.jsonl, qrels/.")
    ],
    split: Annotated[str, typer.Option("--split", help="Which qrels/<split>.tsv.")] = "test",
    limit: Annotated[
        int | None, typer.Option("--limit", help="Only the first N judged queries.")
    ] = None,
    home: HomeOption = None,
    results: OutOption = None,
    as_json: JsonOption = False,
) -> None:
    """nDCG@10, Recall@10/100 and MRR@10 for BM25, dense and hybrid retrieval."""
    from polyrag.eval.beir import BeirDataset
    from polyrag.eval.retrieval import evaluate_retrieval

    with engine_for(home) as engine, _steps(not as_json and err.is_terminal) as on_step:
        summary = evaluate_retrieval(
            BeirDataset(dataset),
            split,
            engine.settings,
            engine.embedder,
            limit=limit,
            on_step=on_step,
        )
        folder = _write_retrieval_report(summary, results or Path(engine.settings.home) / "results")
    summary = {key: value for key, value in summary.items() if key != "latencies_ms"}
    summary["report"] = str(folder)
    if as_json:
        print_json(summary)
        return
    out.print(f"[bold]{summary['dataset']} {summary['split']}[/bold], {summary['queries']} queries")
    header = ["mode", *next(iter(summary["results"].values()))]
    out.print("  ".join(f"{h:>10}" for h in header), markup=False)
    for mode, metrics in summary["results"].items():
        cells = [f"{mode:>10}", *(f"{value:>10.4f}" for value in metrics.values())]
        out.print("  ".join(cells), markup=False)
    for name, metrics in summary["baselines"].items():
        published = ", ".join(f"{k} {v:.3f}" for k, v in metrics.items())
        out.print(f"[dim]published: {name}: {published}[/dim]")
    out.print(f"[dim]report: {folder}[/dim]")


def _write_retrieval_report(summary: dict[str, Any], root: Path) -> Path:
    from polyrag.eval.report import LatencySeries, MetricGroup, run_folder, write_report

    folder = run_folder(root, "retrieval", f"{summary['dataset']}-{summary['split']}")
    title = f"{summary['dataset']} {summary['split']}"
    write_report(
        folder,
        {key: value for key, value in summary.items() if key != "latencies_ms"},
        groups=[
            MetricGroup(
                title=f"{title}: retrieval quality",
                values=summary["results"],
                errors=summary["std"],
                baselines=summary["baselines"],
            )
        ],
        latencies=[LatencySeries(f"{title}: search latency", summary["latencies_ms"])],
        notes=[
            f"{summary['queries']} queries; documents ranked by their best chunk, "
            f"{summary['settings']['candidates']} candidate chunks per retriever.",
            "Error bars and ± are the standard deviation over queries.",
        ],
    )
    return folder


@contextmanager
def _steps(enabled: bool) -> Iterator[Callable[[Any], None] | None]:
    """A progress bar per stage (indexing, then querying) on a terminal."""
    if not enabled:
        yield None
        return
    bar = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=True,
    )
    tasks: dict[str, Any] = {}

    def update(step: Any) -> None:
        if step.stage not in tasks:
            tasks[step.stage] = bar.add_task(step.stage, total=step.total)
        bar.update(tasks[step.stage], completed=step.done, total=step.total)

    with bar:
        yield update


@eval_app.command("qa")
def eval_qa(
    dataset: Annotated[
        str,
        typer.Option(
            "--dataset",
            help="financebench, mmlongbench, tatqa, squad2, hotpotqa, office-qa, table-qa, "
            'or a .jsonl of {"question", "answer", "source"?, "evidence_pages"?}.',
        ),
    ],
    limit: Annotated[
        int | None, typer.Option("--limit", help="Only the first N questions.")
    ] = None,
    runs: Annotated[
        int, typer.Option("--runs", min=1, help="Ask each question N times (latency spread).")
    ] = 1,
    scope: Annotated[
        str,
        typer.Option(
            "--scope",
            help="document: ask each question of its own documents; collection: of all of them.",
        ),
    ] = "document",
    mode: Annotated[
        str | None,
        typer.Option(
            "--mode",
            help="fast, agent, auto or fixed (default: agent.mode in the settings).",
        ),
    ] = None,
    retrieval_only: Annotated[
        bool,
        typer.Option(
            "--retrieval-only",
            help="Search only, no model: evidence-page recall@1/3/5/10, MRR and the share of "
            "questions whose gold evidence is in the top chunks.",
        ),
    ] = False,
    home: HomeOption = None,
    results: OutOption = None,
    as_json: JsonOption = False,
) -> None:
    """Answer quality, refusals, citations and latency on a question set."""
    from polyrag.eval.datasets import load_dataset
    from polyrag.eval.judge import FactJudge
    from polyrag.eval.qa import evaluate_qa

    if scope not in ("document", "collection"):
        err.print(f"error: --scope must be document or collection, not {scope!r}", markup=False)
        raise typer.Exit(2)
    if mode is not None and mode not in ASK_MODES:
        err.print(
            f"error: --mode must be one of {', '.join(ASK_MODES)}, not {mode!r}", markup=False
        )
        raise typer.Exit(2)
    if retrieval_only and (mode is not None or runs > 1):
        err.print("error: --retrieval-only asks no model: drop --mode and --runs", markup=False)
        raise typer.Exit(2)
    chosen: Scope = "document" if scope == "document" else "collection"
    if retrieval_only:
        _eval_qa_retrieval(dataset, limit, chosen, home, results, as_json)
        return
    with engine_for(home) as engine, _steps(not as_json and err.is_terminal) as on_step:
        loaded = load_dataset(dataset, limit=limit)
        judge = FactJudge.from_settings(engine.settings)
        if judge is None and not as_json:
            err.print("LLM judge skipped: no judge model configured (eval.judge)", markup=False)
        summary = evaluate_qa(
            loaded,
            engine.settings,
            runs=runs,
            scope=chosen,
            judge=judge,
            on_step=on_step,
            mode=mode,
        )
        folder = _write_qa_report(summary, results or Path(engine.settings.home) / "results")
    summary = {key: value for key, value in summary.items() if key != "latencies_ms"}
    summary["report"] = str(folder)
    if as_json:
        print_json({key: value for key, value in summary.items() if key != "cases"})
        return
    _print_qa(summary)


def _eval_qa_retrieval(
    dataset: str,
    limit: int | None,
    scope: Scope,
    home: Path | None,
    results: Path | None,
    as_json: bool,
) -> None:
    from polyrag.eval.datasets import load_dataset
    from polyrag.eval.qa_retrieval import evaluate_qa_retrieval

    with engine_for(home) as engine, _steps(not as_json and err.is_terminal) as on_step:
        loaded = load_dataset(dataset, limit=limit)
        summary = evaluate_qa_retrieval(loaded, engine.settings, scope=scope, on_step=on_step)
        folder = _write_qa_retrieval_report(
            summary, results or Path(engine.settings.home) / "results"
        )
    summary["report"] = str(folder)
    if as_json:
        print_json({key: value for key, value in summary.items() if key != "cases"})
        return
    out.print(
        f"[bold]{summary['dataset']}[/bold]: {summary['questions']} answerable questions, "
        f"scope {summary['scope']}, retrieval only (search p50 {summary['search_ms']['p50']} ms)"
    )
    rows = {"all": summary["overall"], **summary["by_kind"]}
    names = [n for n in RETRIEVAL_ONLY_METRICS if any(n in row for row in rows.values())]
    table = Table(box=None)
    table.add_column("questions")
    table.add_column("n", justify="right")
    for name in names:
        table.add_column(RETRIEVAL_ONLY_METRICS[name], justify="right")
    for label, row in rows.items():
        cells = [f"{row[n]['mean']:.3f}" if n in row else "–" for n in names]
        table.add_row(label, str(row["n"]), *cells)
    out.print(table)
    out.print(
        "  p@k: share of the gold pages among the first k pages retrieved; MRR: of the first "
        "gold page; ev@k: questions whose gold passages are all in the first k chunks; "
        "docs@k: questions whose gold documents all have a chunk among the first k",
        markup=False,
    )
    out.print(f"[dim]report: {summary['report']}[/dim]")


# Each metric of `eval qa --retrieval-only` with its short column name.
RETRIEVAL_ONLY_METRICS = {
    "page_recall@1": "p@1",
    "page_recall@3": "p@3",
    "page_recall@5": "p@5",
    "page_recall@10": "p@10",
    "mrr": "MRR",
    "evidence@5": "ev@5",
    "evidence@10": "ev@10",
    "documents@5": "docs@5",
    "documents@10": "docs@10",
}


def _write_qa_retrieval_report(summary: dict[str, Any], root: Path) -> Path:
    from polyrag.eval.report import MetricGroup, run_folder, write_report

    folder = run_folder(root, "qa-retrieval", summary["dataset"])
    rows = {"all": summary["overall"], **summary["by_kind"]}
    values = {
        label: {n: row[n]["mean"] for n in RETRIEVAL_ONLY_METRICS if n in row}
        for label, row in rows.items()
    }
    notes = [
        f"{summary['questions']} answerable questions, scope {summary['scope']}; "
        f"{summary['fetched']} chunks fetched per question; search p50 "
        f"{summary['search_ms']['p50']} ms. Pages are ranked by their first chunk; "
        "evidence@k: every gold passage in the top k chunks.",
    ]
    write_report(
        folder,
        summary,
        groups=[MetricGroup(title=f"{summary['dataset']}: retrieval only", values=values)],
        notes=notes,
    )
    return folder


def _metric_means(section: dict[str, Any]) -> dict[str, float]:
    return {name: stat["mean"] for name, stat in section.items() if isinstance(stat, dict)}


def _metric_stds(section: dict[str, Any]) -> dict[str, float]:
    return {name: stat["std"] for name, stat in section.items() if isinstance(stat, dict)}


def _qa_groups(summary: dict[str, Any]) -> list[Any]:
    from polyrag.eval.report import MetricGroup

    name = summary["dataset"]
    quality = {
        **summary["answers"],
        **summary["refusals"],
        **summary["citations"],
        **summary.get("grounding", {}),
        **{k: v for k, v in summary["retrieval"].items() if k != "k"},
    }
    groups = [
        MetricGroup(
            title=f"{name}: answers, refusals, citations, retrieval",
            values={"polyrag": _metric_means(quality)},
            errors={"polyrag": _metric_stds(quality)},
        )
    ]
    if "skipped" not in summary["judge"]:
        groups.append(
            MetricGroup(
                title=f"{name}: LLM judge (atomic facts)",
                values={"polyrag": _metric_means(summary["judge"])},
                errors={"polyrag": _metric_stds(summary["judge"])},
            )
        )
    return groups


def _write_qa_report(summary: dict[str, Any], root: Path) -> Path:
    from polyrag.eval.qa import refusal_reasons_line
    from polyrag.eval.report import LatencySeries, run_folder, write_report

    folder = run_folder(root, "qa", summary["dataset"])
    notes = [
        f"{summary['questions']} questions ({summary['unanswerable']} unanswerable), "
        f"scope {summary['scope']}, mode {summary['mode']}, {summary['runs']} run(s) each; "
        f"providers: {', '.join(summary['providers']) or 'none needed'}.",
        "Answer metrics count a refused answerable question as an empty answer. "
        "± is the standard deviation over questions.",
    ]
    if summary.get("refusal_reasons"):
        notes.append(f"Refusals by reason: {refusal_reasons_line(summary['refusal_reasons'])}.")
    if "skipped" in summary["judge"]:
        notes.append(f"LLM judge: {summary['judge']['skipped']}.")
    write_report(
        folder,
        {key: value for key, value in summary.items() if key != "latencies_ms"},
        groups=_qa_groups(summary),
        latencies=[
            LatencySeries(f"{summary['dataset']}: latency per stage", summary["latencies_ms"])
        ],
        notes=notes,
    )
    return folder


def _print_qa(summary: dict[str, Any]) -> None:
    from polyrag.eval.qa import refusal_reasons_line

    out.print(
        f"[bold]{summary['dataset']}[/bold]: {summary['questions']} questions "
        f"({summary['unanswerable']} unanswerable), scope {summary['scope']}, "
        f"mode {summary['mode']}"
    )
    sections = ("answers", "grounding", "refusals", "citations", "retrieval", "judge")
    for section in sections:
        values = summary[section]
        if "skipped" in values:
            out.print(f"  {section}: skipped ({values['skipped']})", markup=False)
            continue
        cells = [
            f"{name} {stat['mean']:.3f}±{stat['std']:.3f} (n={stat['n']})"
            for name, stat in values.items()
            if isinstance(stat, dict)
        ]
        if cells:
            out.print(f"  {section}: " + ", ".join(cells), markup=False)
        if section == "refusals" and summary.get("refusal_reasons"):
            reasons = refusal_reasons_line(summary["refusal_reasons"])
            out.print(f"  refused because: {reasons}", markup=False)
    for kind, stat in summary.get("by_kind", {}).items():
        out.print(f"  correct, {kind}: {stat['correct']:.3f} (n={stat['n']})", markup=False)
    calls = summary.get("model_calls")
    if calls:
        modes = ", ".join(f"{m} {n}" for m, n in summary["modes"].items())
        out.print(
            f"  model calls per question: mean {calls['mean']:.2f}, max {calls['max']} "
            f"(answered by: {modes})",
            markup=False,
        )
    for stage, stat in summary["latency_ms"].items():
        out.print(
            f"  latency {stage}: mean {stat['mean']:.0f}±{stat['std']:.0f} ms, "
            f"p50 {stat['p50']:.0f}, p95 {stat['p95']:.0f}",
            markup=False,
        )
    out.print(f"[dim]report: {summary['report']}[/dim]")


@eval_app.command("generate")
def eval_generate(
    source: Annotated[
        list[Path],
        typer.Option(
            "--from",
            help="A polyrag home, or files and folders to ingest (into --home) first.",
        ),
    ],
    more: Annotated[
        list[Path] | None,
        typer.Argument(
            help="More files and folders (so `--from a.pdf b.docx` works).", show_default=False
        ),
    ] = None,
    n: Annotated[int, typer.Option("--n", min=1, help="How many questions.")] = 50,
    output: Annotated[
        Path | None,
        typer.Option("--out", help="The JSONL to write (default: <home>/results/generated.jsonl)."),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Which chunks are sampled.")] = 0,
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Write questions generated from your own documents, for `polyrag eval qa --dataset FILE`.

    Each question comes from one chunk (its gold evidence) and is kept only when its answer is
    in that chunk; chunks are sampled in turn from every document, up to 3×N are tried.
    """
    from polyrag.eval.generate import generate_cases, sample_chunks, write_jsonl

    source = [*source, *(more or [])]
    homes = [p for p in source if (p / "manifest.sqlite").is_file()]
    if homes and len(source) > 1:
        err.print("error: --from takes one polyrag home, or files and folders", markup=False)
        raise typer.Exit(2)
    tried = 0

    def count(done: int, total: int) -> None:
        nonlocal tried
        tried = done

    with engine_for(homes[0] if homes else home) as engine:
        if not homes:
            report = engine.ingest(source)
            for item in report.failed:
                err.print(f"failed: {item['path']}: {item['error']}", markup=False)
        candidates = sample_chunks(engine.store, 3 * n, seed=seed)
        if not candidates:
            err.print("error: no chunk with enough text to ask about", markup=False)
            raise typer.Exit(2)
        target = output or Path(engine.settings.home) / "results" / "generated.jsonl"
        target.parent.mkdir(parents=True, exist_ok=True)
        cases = generate_cases(candidates, engine.chat, on_chunk=count)
        with _steps(not as_json and err.is_terminal) as on_step:
            written = write_jsonl(_first(cases, n, on_step), target)
    if as_json:
        print_json({"path": str(target), "questions": written, "chunks_tried": tried})
        return
    out.print(f"wrote {written} questions (from {tried} chunks tried) to {target}")
    if written < n:
        out.print(f"[dim]fewer than {n}: the other chunks gave no grounded question[/dim]")
    out.print(f"[dim]measure them: polyrag eval qa --dataset {target}[/dim]")


def _first(items: Iterator[Any], n: int, on_step: Callable[[Any], None] | None) -> Iterator[Any]:
    """The first n items, with a progress step per item."""
    from polyrag.eval.retrieval import Step

    if on_step:
        on_step(Step("generating", 0, n))
    for done, item in enumerate(items, start=1):
        yield item
        if on_step:
            on_step(Step("generating", done, n))
        if done == n:
            return
