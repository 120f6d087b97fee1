"""The command line: a thin layer over the Engine. `polyrag --help` is the reference."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from polyrag.cli.common import HomeOption, JsonOption, engine_for, err, out, print_json
from polyrag.cli.evaluate import eval_app
from polyrag.cli.mcp import mcp
from polyrag.cli.serve import serve
from polyrag.cli.tokens import tokens_app
from polyrag.ingest.manifest import Entry
from polyrag.ingest.pipeline import IngestReport
from polyrag.ingest.pipeline import Progress as IngestProgress
from polyrag.settings import ASK_MODES
from polyrag.types import (
    NOT_ANSWERED,
    NOT_SUPPORTED,
    REFUSAL_REASONS,
    UNSAFE,
    Answer,
    AnswerEvent,
    AskEvent,
    StepEvent,
    TokenEvent,
)

app = typer.Typer(
    help="Answers from your own documents, with citations. Offline by default.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
sources_app = typer.Typer(help="List or remove indexed sources.", no_args_is_help=True)
app.add_typer(sources_app, name="sources")
app.add_typer(eval_app, name="eval")
app.command()(serve)
app.command()(mcp)
app.add_typer(tokens_app, name="tokens")


PasswordOption = Annotated[
    str | None,
    typer.Option("--password", help="Opens password-protected files (PDF, Office, ZIP)."),
]
ClusterOption = Annotated[
    str | None,
    typer.Option(
        "--cluster",
        help="Read, parse and embed on this Ray cluster (host:6379, ray://host:10001, auto).",
    ),
]


def _cluster(address: str | None) -> dict[str, Any]:
    return {"ingest": {"cluster": address}} if address else {}


@app.command()
def ingest(
    paths: Annotated[list[str], typer.Argument(help="Files, folders (recursive) and URLs.")],
    password: PasswordOption = None,
    watch: Annotated[
        bool,
        typer.Option("--watch", help="Keep syncing the folders as files change, until Ctrl-C."),
    ] = False,
    force: Annotated[
        bool,
        typer.Option("--force", help="Read unchanged files again (after changing parse settings)."),
    ] = False,
    cluster: ClusterOption = None,
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Index files, folders and web pages. Exit 1 when any failed, 130 on Ctrl-C.

    Unchanged sources are skipped (unless --force); an interrupted run is finished by the next
    one."""
    with engine_for(home, **_cluster(cluster)) as engine:
        if watch:
            engine.watch(
                paths,
                on_report=lambda report: _print_report(report, as_json, lines=True),
                on_progress=_progress_line(as_json),
                password=password,
            )
            return
        with _progress(not as_json and err.is_terminal) as on_progress:
            report = engine.ingest(paths, on_progress=on_progress, password=password, force=force)
    _print_report(report, as_json)
    raise typer.Exit(0 if report.ok else 1)


@app.command()
def sync(
    paths: Annotated[list[str], typer.Argument(help="Folders (or files) to keep in step.")],
    password: PasswordOption = None,
    cluster: ClusterOption = None,
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Add new files, re-index changed ones and drop sources whose files are gone from these
    folders. Exit 1 when any file failed, 130 on Ctrl-C."""
    show_bar = not as_json and err.is_terminal
    with engine_for(home, **_cluster(cluster)) as engine, _progress(show_bar) as on_progress:
        report = engine.sync(paths, on_progress=on_progress, password=password)
    _print_report(report, as_json)
    raise typer.Exit(0 if report.ok else 1)


def _print_report(report: IngestReport, as_json: bool, *, lines: bool = False) -> None:
    """The report: JSON (one line per sync when watching), or failures and a summary line."""
    if as_json:
        if lines:
            sys.stdout.write(json.dumps(report.to_dict(), ensure_ascii=False) + "\n")
            sys.stdout.flush()
        else:
            print_json(report.to_dict())
        return
    for item in report.failed:
        err.print(f"failed: {item['path']}: {item['error']}", markup=False)
    out.print(report.summary(), markup=False)


def _progress_line(as_json: bool) -> Callable[[IngestProgress], None] | None:
    """While watching: one line per source that changed, on stderr."""
    if as_json:
        return None

    def show(step: IngestProgress) -> None:
        if step.outcome != "skipped":
            err.print(f"{step.outcome}: {step.path} ({step.detail})", markup=False)

    return show


@contextmanager
def _progress(enabled: bool) -> Iterator[Callable[[IngestProgress], None] | None]:
    if not enabled:
        yield None
        return
    bar = Progress(
        TextColumn("[bold]ingesting"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        TextColumn("{task.description}"),
        console=err,
        transient=True,
    )
    task = bar.add_task("", total=None)

    def update(step: IngestProgress) -> None:
        bar.update(task, completed=step.done, total=step.total, description=Path(step.path).name)

    with bar:
        yield update


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="What to look for.")],
    k: Annotated[int | None, typer.Option("--k", help="How many hits.")] = None,
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Retrieval only: the best matching passages with where they are."""
    with engine_for(home) as engine:
        result = engine.search(query, k=k)
    hits = [{"rank": rank, **hit.to_dict()} for rank, hit in enumerate(result.hits, start=1)]
    if as_json:
        timings = {key: round(value, 2) for key, value in result.timings_ms.items()}
        print_json({"query": query, "hits": hits, "timings_ms": timings})
        return
    for rank, found in enumerate(result.hits, start=1):
        where = found.chunk.locator.describe()
        out.print(f"[bold]{rank}.[/bold] {found.chunk.path} [dim]{where}[/dim]")
        out.print("   " + _short(found.chunk.text, 300), markup=False)
    out.print(f"[dim]{result.timings_ms['total']:.1f} ms[/dim]")


ModeOption = Annotated[
    str | None,
    typer.Option(
        "--mode",
        help="fast (one retrieval, one answer), agent (plan, retrieve in rounds, use tools), "
        "auto (the agent when the question needs it) or fixed (the agent's steps and code's "
        "tools in a set order, no model decision). Default: agent.mode in the settings.",
    ),
]
TraceOption = Annotated[
    bool, typer.Option("--trace", help="Show every step: retrieval, decisions, tools, checks.")
]


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="A question in plain language.")],
    mode: ModeOption = None,
    trace: TraceOption = False,
    thread: Annotated[
        str | None,
        typer.Option("--thread", help="Continue an agent conversation: answer its question back."),
    ] = None,
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Answer from the indexed sources, citing them, or say the answer is not there."""
    _check_mode(mode)
    with engine_for(home) as engine:
        if as_json:
            print_json(engine.ask(question, mode=mode, thread=thread).to_dict())
            return
        answer, streamed = _stream(engine.ask_events(question, mode=mode, thread=thread), trace)
        _print_answer(answer, streamed)


@app.command()
def chat(
    mode: ModeOption = None,
    trace: TraceOption = False,
    home: HomeOption = None,
) -> None:
    """Ask questions one after another; follow-ups may refer to earlier turns."""
    _check_mode(mode)
    history: list[tuple[str, str]] = []
    answers: list[Answer] = []  # with their citations: a follow-up reads their passages again
    thread: str | None = None
    with engine_for(home) as engine:
        out.print(
            "Ask a question (empty line or Ctrl-D to quit; /not-helpful [what you wanted] "
            "after an answer that missed).",
            markup=False,
            style="dim",
        )
        last: Answer | None = None
        while True:
            try:
                question = input("> ").strip()
            except EOFError:
                break
            if not question:
                break
            if question.startswith("/not-helpful"):
                if last is None:
                    err.print("nothing to judge yet: ask a question first", markup=False)
                    continue
                comment = question.removeprefix("/not-helpful").strip() or None
                answer = engine.not_helpful(last, comment)
                _print_answer(answer, "")
            else:
                events = engine.ask_events(
                    question, history=history, mode=mode, thread=thread, earlier=answers
                )
                answer, streamed = _stream(events, trace)
                _print_answer(answer, streamed)
            thread = answer.thread if answer.clarify else None
            if not answer.clarify:
                history.append((answer.question, answer.text))
                answers.append(answer)
                last = answer


def _check_mode(mode: str | None) -> None:
    if mode is not None and mode not in ASK_MODES:
        err.print(
            f"error: --mode must be one of {', '.join(ASK_MODES)}, not {mode!r}", markup=False
        )
        raise typer.Exit(2)


def _stream(events: Iterator[AskEvent], trace: bool) -> tuple[Answer, str]:
    """Print the reply as it is written (and each step, with --trace); return the answer and
    the text that was printed."""
    answer: Answer | None = None
    pieces: list[str] = []
    for event in events:
        if isinstance(event, StepEvent) and trace:
            if pieces and not pieces[-1].endswith("\n"):
                pieces.append("\n")
                sys.stdout.write("\n")
            err.print(f"· {event.step.name}: {event.step.summary}", markup=False, style="dim")
        elif isinstance(event, TokenEvent):
            pieces.append(event.text)
            sys.stdout.write(event.text)
            sys.stdout.flush()
        elif isinstance(event, AnswerEvent):
            answer = event.answer
    streamed = "".join(pieces)
    if streamed and not streamed.endswith("\n"):
        sys.stdout.write("\n")
    assert answer is not None
    return answer, streamed


def _print_answer(answer: Answer, streamed: str) -> None:
    """Finish a streamed reply. Whether it stands is the answer's decision, not re-judged."""
    if answer.clarify:
        out.print(f"? {answer.clarify}", markup=False, style="bold")
        out.print(f"(reply with: polyrag ask --thread {answer.thread} ...)", style="dim")
        return
    withdrawn = answer.refused and answer.refusal_reason in (NOT_SUPPORTED, NOT_ANSWERED, UNSAFE)
    if streamed.strip() and withdrawn:
        why = REFUSAL_REASONS[answer.refusal_reason or NOT_SUPPORTED]
        out.print(f"(withdrawn: {why})", markup=False, style="dim")
        out.print(answer.text, markup=False)
    elif answer.refused:
        if streamed.strip() != answer.text:
            out.print(answer.text, markup=False)
        reason = REFUSAL_REASONS.get(answer.refusal_reason or "")
        if reason:
            out.print(f"(why: {reason})", markup=False, style="dim")
    elif not streamed.strip():
        out.print(answer.text, markup=False)
    elif answer.partial:
        out.print("(kept what the sources support:)", markup=False, style="dim")
        out.print(answer.text, markup=False)
    elif " ".join(streamed.split()) != " ".join(answer.text.split()):
        # Code wrote the answer after the model's reply had streamed (a result it computed,
        # the rows a query picked, a yes or no it decided): the reply shown is not the answer.
        out.print("(the answer, written by code:)", markup=False, style="dim")
        out.print(answer.text, markup=False)
    if answer.standalone_question:
        out.print(f"(understood as: {answer.standalone_question})", markup=False, style="dim")
    for citation in answer.citations:
        where = citation.chunk.locator.describe()
        suffix = f", {where}" if where else ""
        out.print(f"  [{citation.n}] {citation.chunk.path}{suffix}", markup=False)
    calls = f"{answer.model_calls} model call{'s' if answer.model_calls != 1 else ''}"
    seconds = answer.timings_ms.get("total", 0) / 1000
    out.print(
        f"{answer.provider or 'no model needed'} · {answer.mode} · {calls} · {seconds:.1f} s",
        markup=False,
        style="dim",
    )


@sources_app.command("list")
def sources_list(home: HomeOption = None, as_json: JsonOption = False) -> None:
    """Every indexed file with its id, chunks and status."""
    with engine_for(home) as engine:
        entries = engine.sources()
    if as_json:
        print_json({"sources": [entry.to_dict() for entry in entries]})
        return
    if not entries:
        out.print("no sources yet: polyrag ingest PATH")
    children: dict[str, list[Entry]] = {}
    for entry in entries:
        if entry.parent is not None:
            children.setdefault(entry.parent, []).append(entry)
    known = {entry.path for entry in entries}

    def show(entry: Entry, depth: int) -> None:
        status = "" if entry.status == "indexed" else f" [{entry.status}]"
        inside = children.get(entry.path, [])
        count = f"  ({len(inside)} file{'s' if len(inside) > 1 else ''} inside)" if inside else ""
        name = entry.path if depth == 0 else "  " * depth + "└ " + entry.path.rsplit("#", 1)[-1]
        out.print(
            f"{entry.source_id[:12]}  {entry.chunks:5d} chunks  {name}{count}{status}",
            markup=False,
        )
        for child in inside:
            show(child, depth + 1)

    for entry in entries:
        if entry.parent is None or entry.parent not in known:
            show(entry, 0)


@sources_app.command("remove")
def sources_remove(
    id_or_path: Annotated[str, typer.Argument(help="A source id (or its start) or a path.")],
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Remove a source and every chunk of it from the index."""
    with engine_for(home) as engine:
        removed = engine.remove(id_or_path)
    if as_json:
        print_json({"removed": [entry.to_dict() for entry in removed]})
        return
    for entry in removed:
        out.print(f"removed {entry.path}", markup=False)


def _short(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def main() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    app()


if __name__ == "__main__":
    main()
