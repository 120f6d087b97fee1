"""`make bench`: measure polyrag on this machine and rewrite BENCHMARKS.md.

    python -m bench.run            # the full suite
    python -m bench.run --quick    # a few minutes: smaller index, fewer PDFs and questions
    python -m bench.run --tiny --scifact DIR --home DIR --out FILE   # the suite's own test

Measured: hybrid retrieval latency (query embedding included) on synthetic indexes of 10k, 100k
and 1M chunks; end-to-end ingestion of the FinanceBench filings (pages/s, chunks/s, peak memory
of the ingest process); local answer latency and correctness on the office-qa questions;
retrieval quality on SciFact (BM25, dense, hybrid; test and train queries) with `polyrag eval
retrieval`; the server under load (concurrent searches and streamed asks while it ingests);
and `polyrag eval qa` on a fixed sample of each shared question set.
Indexes of the evaluation data are kept in .polyrag/bench-home and reused by the next run. The
full suite's measurements are kept in bench/results/ and committed with BENCHMARKS.md: a run
interrupted after some question sets (the whole suite takes hours on two cores) is resumed by the
next session on any clone (`--resume`), and `--only` reruns one section beside the others.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, Literal

import numpy as np

from polyrag.settings import ASK_MODES
from polyrag.testing.ray import process_tree

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "eval"
OUT = REPO / "BENCHMARKS.md"
RESULTS = REPO / "bench" / "results"  # the full suite's measurements, committed


def machine() -> dict[str, str]:
    cpu = "unknown"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    versions = ", ".join(
        f"{name} {metadata.version(name)}"
        for name in ("lancedb", "onnxruntime", "llama_cpp_python", "pypdfium2")
    )
    return {
        "cpu": f"{cpu}, {os.cpu_count()} cores",
        "memory": f"{memory:.0f} GiB",
        "system": f"{platform.system()} {platform.release()}, Python {platform.python_version()}",
        "packages": versions,
    }


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values), q))


def bench_retrieval(size: int, queries: int) -> dict[str, Any]:
    """Hybrid search p50/p95 over `size` synthetic chunks, query embedding included."""
    from bench.synthetic import build_index
    from polyrag.engine import Engine
    from polyrag.retrieve.hybrid import HybridRetriever
    from polyrag.retrieve.variants import searched_form
    from polyrag.settings import load_settings

    questions = [
        json.loads(line)["text"]
        for line in (SHARED / "scifact" / "queries.jsonl").open(encoding="utf-8")
    ][:queries]
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(Path(tmp) / "home")
        engine = Engine(settings)
        started = time.perf_counter()
        store = build_index(
            Path(tmp) / "index", size, engine.embedder.dim, batch=max(10_000, size // 10)
        )
        build_s = time.perf_counter() - started
        retriever = HybridRetriever(store, engine.embedder, settings.retrieve)
        for question in questions[:5]:  # warm caches and the ONNX session
            retriever.search(question)
        totals, embeds, formed = [], [], []
        for question in questions:
            result = retriever.search(question)
            totals.append(result.timings_ms["total"])
            embeds.append(result.timings_ms.get("embed", 0.0))
            if searched_form(question, settings.retrieve):
                formed.append(result.timings_ms["total"])
    return {
        "chunks": size,
        "queries": len(questions),
        "build_s": build_s,
        "p50_ms": percentile(totals, 50),
        "p95_ms": percentile(totals, 95),
        "embed_p50_ms": percentile(embeds, 50),
        "form_queries": len(formed),
        "form_p50_ms": percentile(formed, 50) if formed else None,
    }


def peak_memory_mb(child: subprocess.Popen[Any]) -> tuple[float, float]:
    """Peak resident memory of the child and its parse workers together, and of the child
    alone, read until it exits.

    Each process's own high-water mark (VmHWM), summed over the process tree. Not
    getrusage(RUSAGE_CHILDREN): Linux carries the memory a forked child shared with its parent
    before exec into that figure, so after the 1M-chunk index it reported the benchmark's own
    size (3.4 GB) instead of the ingest's (1.1 GB).
    """
    peaks: dict[int, int] = {}
    while child.poll() is None:
        for pid in process_tree(child.pid):
            try:
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("VmHWM:"):
                        peaks[pid] = max(peaks.get(pid, 0), int(line.split()[1]))
            except (OSError, ValueError):
                pass
        time.sleep(0.1)
    return sum(peaks.values()) / 1024, peaks.get(child.pid, 0) / 1024


def bench_ingest(limit: int | None) -> dict[str, Any]:
    """`polyrag ingest` on the FinanceBench PDFs in a child process: pages/s and peak RSS.

    With a limit, the first PDFs by name; a limit of 1 takes the smallest file.
    """
    pdfs = sorted((SHARED / "financebench" / "pdfs").glob("*.pdf"))
    if limit == 1:
        pdfs = [min(pdfs, key=lambda pdf: pdf.stat().st_size)]
    elif limit:
        pdfs = pdfs[:limit]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "pdfs"
        folder.mkdir()
        for pdf in pdfs:
            (folder / pdf.name).symlink_to(pdf)
        home = Path(tmp) / "home"
        command = [sys.executable, "-m", "polyrag.cli.app", "ingest", str(folder)]
        output = Path(tmp) / "report.json"
        started = time.perf_counter()
        with output.open("w") as handle:
            child = subprocess.Popen(
                [*command, "--home", str(home), "--json"],
                stdout=handle,
                stderr=subprocess.DEVNULL,
            )
            peak_mb, main_mb = peak_memory_mb(child)
        seconds = time.perf_counter() - started
        report = json.loads(output.read_text())
        listed = subprocess.run(
            [
                sys.executable,
                "-m",
                "polyrag.cli.app",
                "sources",
                "list",
                "--home",
                str(home),
                "--json",
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        sources = json.loads(listed.stdout)["sources"]
    pages = sum(int(s["pages"]) for s in sources)
    chunks = sum(int(s["chunks"]) for s in sources)
    return {
        "files": len(pdfs),
        "ingested": len(report["ingested"]),
        "failed": len(report["failed"]),
        "pages": pages,
        "chunks": chunks,
        "seconds": seconds,
        "pages_per_s": pages / seconds,
        "chunks_per_s": chunks / seconds,
        "peak_rss_mb": peak_mb,
        "ingest_process_rss_mb": main_mb,
    }


def bench_answers(limit: int | None) -> dict[str, Any]:
    """office-qa through the Python API with the local model: latency and correctness."""
    import polyrag

    cases = [
        json.loads(line)
        for line in (SHARED / "office-qa" / "questions.jsonl").open(encoding="utf-8")
    ]
    if limit:
        cases = cases[:limit]
    folders = ["docx", "pptx", "xlsx", "text_md", "pdf_multicolumn"]
    with tempfile.TemporaryDirectory() as tmp:
        library = polyrag.open(Path(tmp) / "home", agent={"memory": False})
        library.ingest([SHARED / "corpus" / folder for folder in folders])
        library.ask("warm-up: what is in these documents?")  # loads the model once
        rows = []
        for case in cases:
            answer = library.ask(case["question"], mode="fast")
            if case.get("unanswerable"):
                correct = answer.refused
            else:
                cited = {Path(c.chunk.path).name for c in answer.citations}
                correct = (
                    not answer.refused
                    and any(a.lower() in answer.text.lower() for a in case["answer_any"])
                    and Path(case["source"]).name in cited
                )
            rows.append(
                {
                    "id": case["id"],
                    "correct": correct,
                    "refused": answer.refused,
                    "first_token_ms": answer.timings_ms.get("first_token"),
                    "total_ms": answer.timings_ms["total"],
                    "answer": answer.text,
                }
            )
        library.close()
        memory = _memory_speedup(Path(tmp) / "home", [c["question"] for c in cases])
    generated = [r for r in rows if r["first_token_ms"] is not None]
    return {
        "memory": memory,
        "questions": len(rows),
        "correct": sum(r["correct"] for r in rows),
        "first_token_p50_ms": percentile([r["first_token_ms"] for r in generated], 50)
        if generated
        else None,
        "total_p50_ms": percentile([r["total_ms"] for r in generated], 50) if generated else None,
        "total_max_ms": max((r["total_ms"] for r in generated), default=None),
        "rows": rows,
    }


def _memory_speedup(home: Path, questions: list[str]) -> dict[str, Any]:
    """The answer memory: each question asked once, then again as typed and again retyped
    (lower case, no question mark); the repeats should come back from memory at once."""
    import polyrag

    library = polyrag.open(home, agent={"memory": True})
    first, again, retyped, hits = [], [], [], 0
    for question in questions:
        first.append(library.ask(question, mode="auto").timings_ms["total"])
    for question in questions:
        answer = library.ask(question, mode="auto")
        again.append(answer.timings_ms["total"])
        hits += answer.mode == "memory"
        answer = library.ask(question.lower().rstrip("?"), mode="auto")
        retyped.append(answer.timings_ms["total"])
        hits += answer.mode == "memory"
    library.close()
    return {
        "questions": len(questions),
        "first_p50_ms": percentile(first, 50),
        "repeat_p50_ms": percentile(again, 50),
        "retyped_p50_ms": percentile(retyped, 50),
        "memory_hits": hits,
        "repeats": 2 * len(questions),
    }


BENCH_HOME = REPO / ".polyrag" / "bench-home"
MODES = ("fast", "agent", "auto")
# Question set → how many of its questions (None: all), each asked in every mode; the quicker
# sets first, so an interrupted run has measured most sets when `--resume` goes on.
QA_SAMPLES: dict[str, int | None] = {
    "table-qa": None,
    "office-qa": None,
    "hotpotqa": None,
    "squad2": 60,
    "mmlongbench": 40,  # at least 40 per set, so a figure means something
    "tatqa": 200,
    "financebench": None,
}


# Retrieval alone, every question of the sets with gold evidence pages.
EVIDENCE_SAMPLES: dict[str, int | None] = {"financebench": None, "mmlongbench": None}
EVIDENCE_SCOPES = {"financebench": ("document", "collection"), "mmlongbench": ("document",)}


@dataclass(frozen=True)
class Profile:
    """How much of each section a run measures."""

    name: str
    index_sizes: tuple[int, ...]  # synthetic chunks for the latency index
    latency_queries: int
    pdfs: int | None  # FinanceBench PDFs to ingest; None = all
    answers: int | None  # office-qa questions; None = all
    scifact_queries: int | None  # per split; None = all
    qa: dict[str, int | None]  # question set → sample size (None: all)
    scans: int | None  # scanned PDFs from the corpus to OCR; None = all
    recordings: int | None  # recordings with speech from the corpus to transcribe; None = all
    modes: tuple[str, ...] = MODES  # answering modes each question set is asked in
    # Sets measured by `eval qa --retrieval-only` (sample sizes) and the scopes each is asked in.
    evidence: dict[str, int | None] = field(default_factory=lambda: dict(EVIDENCE_SAMPLES))
    # The server under load: concurrent clients, searches per searching client, files ingested.
    server: tuple[int, int, int] = (20, 10, 7)
    # Scale: synthetic chunks searched on disk and on S3; PDFs ingested on Ray (folder, count).
    scale_chunks: int = 1_000_000
    cluster_pdfs: tuple[str, int] = ("financebench/pdfs", 6)


PROFILES = {
    "full": Profile(
        "full", (10_000, 100_000, 1_000_000), 200, None, None, None, QA_SAMPLES, None, None
    ),
    "quick": Profile(
        "quick",
        (10_000,),
        50,
        5,
        4,
        50,
        {name: 3 for name in QA_SAMPLES},
        3,
        1,
        MODES,
        {"financebench": 5},
        (6, 3, 2),
        100_000,
        ("financebench/pdfs", 2),
    ),
    # The suite's own test: every section runs, on the least data that exercises it.
    "tiny": Profile(
        "tiny",
        (1_000,),
        5,
        1,
        1,
        None,
        {"office-qa": 1, "squad2": 1},
        1,
        1,
        ("fast", "agent"),
        {"hotpotqa": 2},
        (2, 1, 1),
        2_000,
        ("corpus/pdf_tables", 2),
    ),
}


SCANS = SHARED / "corpus" / "pdf_scanned"
# The corpus recordings that hold speech (the others are silence and music).
RECORDINGS = ("whisper__jfk.flac", "docling__sample_10s.mp3", "docling__sample_10s_audio-wav.wav")


def bench_media(scans: int | None, recordings: int | None) -> dict[str, Any]:
    """Parsing alone, models loaded: OCR pages/s of the corpus' scanned PDFs (only pages without
    a text layer are OCR'd) and the real-time factor of speech-to-text on its recordings."""
    import av

    from polyrag.errors import PolyragError
    from polyrag.parse.router import ParserRouter, default_parsers
    from polyrag.settings import load_settings

    settings = load_settings(tempfile.mkdtemp(prefix="polyrag-bench-"))
    router = ParserRouter(default_parsers(settings.parse, settings.model_cache))
    pdfs = sorted(SCANS.glob("*.pdf"))[:scans]
    pages, started = 0, time.perf_counter()
    for pdf in pdfs:
        try:
            pages += router.parse(pdf.read_bytes(), pdf.name).pages
        except PolyragError:  # a scan with nothing legible still took its time
            pages += 1
    scan_seconds = time.perf_counter() - started
    audio = [SHARED / "corpus" / "audio" / name for name in RECORDINGS[:recordings]]
    router.parse(audio[0].read_bytes(), audio[0].name)  # load the speech model once
    spoken, started = 0.0, time.perf_counter()
    for path in audio:
        with av.open(str(path)) as container:
            spoken += float(container.duration or 0) / av.time_base
        router.parse(path.read_bytes(), path.name)
    audio_seconds = time.perf_counter() - started
    return {
        "scanned_pdfs": len(pdfs),
        "scanned_pages": pages,
        "scan_seconds": scan_seconds,
        "scan_pages_per_s": pages / scan_seconds,
        "recordings": len(audio),
        "audio_seconds": spoken,
        "transcribe_seconds": audio_seconds,
        "real_time_factor": audio_seconds / spoken if spoken else None,
    }


def bench_scifact(
    limit: int | None, folder: Path = SHARED / "scifact", home: Path = BENCH_HOME
) -> dict[str, Any]:
    """`polyrag eval retrieval` on SciFact (or another BEIR folder), test and train splits."""
    from polyrag.eval.beir import BeirDataset
    from polyrag.eval.retrieval import evaluate_retrieval
    from polyrag.index.embed.onnx import OnnxMiniLM
    from polyrag.models.files import model_path
    from polyrag.models.registry import MINILM_ONNX, MINILM_TOKENIZER
    from polyrag.settings import load_settings

    settings = load_settings(home)
    embedder = OnnxMiniLM(
        model_path(MINILM_ONNX, settings.model_cache),
        model_path(MINILM_TOKENIZER, settings.model_cache),
        batch_size=settings.embed.batch_size,
    )
    dataset = BeirDataset(folder)
    out = {}
    for split in dataset.splits():
        result = evaluate_retrieval(dataset, split, settings, embedder, limit=limit)
        result.pop("latencies_ms")
        out[split] = result
        print(json.dumps({split: result["results"]}), flush=True)
    return out


def bench_evidence(samples: dict[str, int | None], home: Path = BENCH_HOME) -> dict[str, Any]:
    """`polyrag eval qa --retrieval-only`: does the evidence reach the model? Per set and scope,
    evidence-page recall@k, MRR and the share of questions whose gold passages are in the top
    chunks, overall and per question kind."""
    from polyrag.eval.datasets import load_dataset
    from polyrag.eval.qa_retrieval import evaluate_qa_retrieval
    from polyrag.settings import load_settings

    settings = load_settings(home)
    out: dict[str, Any] = {}
    for name, size in samples.items():
        dataset = load_dataset(name, SHARED, limit=size)
        for scope in EVIDENCE_SCOPES.get(name, ("collection",)):
            summary = evaluate_qa_retrieval(dataset, settings, scope=scope)  # type: ignore[arg-type]
            summary.pop("cases")
            summary["commit"] = commit()
            out.setdefault(name, {})[scope] = summary
            print(json.dumps({name: {scope: summary["overall"]}}), flush=True)
    return out


def bench_qa(
    samples: dict[str, int | None],
    modes: tuple[str, ...],
    home: Path = BENCH_HOME,
    *,
    earlier: dict[str, Any] | None = None,
    on_done: Callable[[str, str, dict[str, Any]], None] | None = None,
    cases: Path | None = None,
) -> dict[str, Any]:
    """`polyrag eval qa` on the first N questions of each set, in each answering mode.

    HotpotQA is asked of its whole collection (its paragraphs in one index), every other set
    of each question's own documents. With `cases`, each question's answer, refusal, citations
    and scores go to `<cases>/<set>-<mode>.jsonl`, so a later session can see which questions
    failed without asking them again."""
    from polyrag.eval.datasets import load_dataset
    from polyrag.eval.qa import evaluate_qa
    from polyrag.settings import load_settings

    settings = load_settings(home)
    out: dict[str, Any] = {name: dict(by) for name, by in (earlier or {}).items()}
    for name, size in samples.items():
        dataset = load_dataset(name, SHARED, limit=size)
        scope: Literal["document", "collection"] = (
            "collection" if name == "hotpotqa" else "document"
        )
        out.setdefault(name, {})
        for mode in modes:
            if mode in out[name]:  # measured by the run this one resumes
                continue
            summary = evaluate_qa(dataset, settings, mode=mode, scope=scope)
            summary.pop("latencies_ms")
            asked = summary.pop("cases")
            summary["commit"] = commit()
            if cases is not None:
                cases.mkdir(parents=True, exist_ok=True)
                lines = (json.dumps({**case, "commit": summary["commit"]}) for case in asked)
                (cases / f"{name}-{mode}.jsonl").write_text("\n".join(lines) + "\n")
            out[name][mode] = summary
            print(json.dumps({name: {mode: summary["answers"]["correct"]}}), flush=True)
            if on_done is not None:
                on_done(name, mode, summary)
    return out


def commit() -> str:
    """The repository's commit (with `+` when files differ from it), or `unknown`."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True
        )
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=REPO,
            capture_output=True,
            text=True,
        )
    except OSError:
        return "unknown"
    if head.returncode != 0:
        return "unknown"
    return head.stdout.strip() + ("+" if dirty.stdout.strip() else "")


def _ms(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}"


def _cell(stat: dict[str, float] | None) -> str:
    return "–" if not stat else f"{stat['mean']:.2f}"


def render(results: dict[str, Any], profile: str, pending: Sequence[str] = ()) -> str:
    """The Markdown of a run; `pending`: question sets (with their modes) it has not measured
    yet, when an interrupted run is written out as it stands."""
    m = results["machine"]
    flag = "" if profile == "full" else f" (--{profile})"
    lines = [
        "# Benchmarks",
        "",
        f"Written by `make bench`{flag} on "
        f"{time.strftime('%Y-%m-%d')}. Numbers are from this machine; no test asserts a timing.",
        "",
        f"- CPU: {m['cpu']}; memory: {m['memory']}",
        f"- {m['system']}; {m['packages']}",
        "",
        "## Retrieval latency (hybrid: query embedding + BM25 + vector + fusion)",
        "",
        "Synthetic chunks (random vocabulary text, random unit vectors); queries are SciFact",
        "questions embedded with the real MiniLM model. Target: p50 ≤ 25 ms at 100k chunks.",
        "A question is also searched by its keyword form when that leaves out a third of its",
        "words or more (`retrieve.keyword_variant_share`): few of SciFact's claims do, most",
        "longer questions do; the last columns are those questions alone.",
        "",
        "| chunks | queries | p50 ms | p95 ms | embedding p50 ms | index build s "
        "| with keyword form | their p50 ms |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results["retrieval"]:
        formed = r.get("form_queries")
        lines.append(
            f"| {r['chunks']:,} | {r['queries']} | {r['p50_ms']:.1f} | {r['p95_ms']:.1f} | "
            f"{r['embed_p50_ms']:.1f} | {r['build_s']:.0f} | "
            f"{'–' if formed is None else formed} | {_ms(r.get('form_p50_ms'))} |"
        )
    i = results["ingest"]
    lines += [
        "",
        "## Ingestion (FinanceBench filings, `polyrag ingest` end to end)",
        "",
        "Target: ≥ 5 pages/s with peak memory ≤ 1.5 GB. Peak RSS is the high-water mark",
        "(VmHWM) of the ingest process plus its parse workers, read while they run.",
        "",
        "| files | pages | chunks | seconds | pages/s | chunks/s | peak RSS MB "
        "| of which ingest process | failed |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        f"| {i['files']} | {i['pages']:,} | {i['chunks']:,} | {i['seconds']:.0f} | "
        f"{i['pages_per_s']:.1f} | {i['chunks_per_s']:.1f} | {i['peak_rss_mb']:.0f} | "
        f"{i.get('ingest_process_rss_mb', 0):.0f} | {i['failed']} |",
        "",
        "## Answers with the local model (office-qa, Qwen2.5-Coder-1.5B Q4_K_M)",
        "",
        "Target: first token ≤ 5 s and complete ≤ 10 s for a typical answer.",
        "",
    ]
    a = results["answers"]
    if a["first_token_p50_ms"] is not None:
        lines.append(
            f"{a['correct']}/{a['questions']} correct (answer text and cited source, or a "
            f"refusal where the answer is absent); first token p50 "
            f"{a['first_token_p50_ms'] / 1000:.1f} s, complete p50 "
            f"{a['total_p50_ms'] / 1000:.1f} s, slowest {a['total_max_ms'] / 1000:.1f} s."
        )
    memory = a.get("memory")
    if memory:
        lines += [
            "",
            f"Answer memory: {memory['questions']} questions asked once, then again as typed and "
            f"retyped in lower case: {memory['memory_hits']} of {memory['repeats']} repeats "
            f"answered from memory; total p50 {memory['first_p50_ms'] / 1000:.1f} s the first "
            f"time, {memory['repeat_p50_ms']:.0f} ms repeated, {memory['retyped_p50_ms']:.0f} ms "
            "retyped (an edited or removed source makes it answer anew).",
        ]
    lines += ["", "| id | correct | first token s | total s | answer |", "|---|---|---:|---:|---|"]
    for row in a["rows"]:
        first = row["first_token_ms"]
        answer = " ".join(str(row["answer"]).split())[:90].replace("|", "/")
        lines.append(
            f"| {row['id']} | {'yes' if row['correct'] else 'no'} | "
            f"{'' if first is None else f'{first / 1000:.1f}'} | {row['total_ms'] / 1000:.1f} | "
            f"{answer} |"
        )
    media = results["media"]
    lines += [
        "",
        "## Scans and recordings (parsing only, models loaded)",
        "",
        "OCR of the corpus' scanned PDFs (tesseract; only pages without a text layer are OCR'd)",
        "and speech-to-text of its recordings (faster-whisper base, int8). Real-time factor is",
        "processing seconds per second of audio (below 1 is faster than real time).",
        "",
        "| scanned PDFs | pages | seconds | pages/s | recordings | audio s | seconds | RTF |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
        f"| {media['scanned_pdfs']} | {media['scanned_pages']} | {media['scan_seconds']:.1f} | "
        f"{media['scan_pages_per_s']:.2f} | {media['recordings']} | "
        f"{media['audio_seconds']:.1f} | {media['transcribe_seconds']:.1f} | "
        f"{media['real_time_factor']:.2f} |",
    ]
    lines += render_server(results.get("server"))
    lines += render_scale(results.get("scale"))
    lines += render_scifact(results["scifact"]) + render_evidence(results.get("evidence", {}))
    lines += render_qa(results["qa"], pending)
    lines.append("")
    return "\n".join(lines)


CLUSTER_ALL = "cluster-financebench.json"  # the whole-set Ray comparison, run on its own


def _load_json(path: Path) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    loaded: dict[str, Any] = json.loads(path.read_text())
    return loaded


def _sameness(cluster: dict[str, Any]) -> str:
    """Whether the cluster's indexes equal the local one, in words."""
    if cluster.get("same_index"):
        return (
            "indexes are the same: chunk ids, texts and locators, vectors (within 1e-5) and "
            "manifest rows."
        )
    if "same_index" in cluster:
        return f"indexes DIFFER: {cluster.get('differences')}."
    if cluster.get("same_chunk_ids"):
        return "indexes hold the same chunk ids."
    return "indexes DIFFER in their chunk ids."


def _cluster_rows(cluster: dict[str, Any]) -> list[str]:
    lines = []
    for label, key in (
        ("local (1 parse worker)", "local"),
        ("Ray, 1 node", "ray_1_node"),
        ("Ray, 2 nodes", "ray_2_node"),
    ):
        if key not in cluster:
            continue
        row = cluster[key]
        lines.append(
            f"| {label} | {row['pages']:,} | {row['chunks']:,} | {row['seconds']:.0f} | "
            f"{row['pages_per_s']:.2f} | {row['failed']} |"
        )
    return lines


def render_scale(scale: dict[str, Any] | None) -> list[str]:
    """Hybrid search at scale on disk and on S3; ingestion on one and two Ray nodes."""
    if not scale:
        return []
    store, cluster = scale["store"], scale["cluster"]
    lines = [
        "",
        "## Scale: the index on object storage, ingestion on a cluster",
        "",
        f"Hybrid search (SciFact questions, query embedding included), each set in a fresh "
        "process that opens the index as a server would: "
        f"{store['chunks']:,} synthetic chunks on local disk ({store['disk_mb']:,.0f} MB), and "
        f"{store.get('s3_chunks', store['chunks']):,} chunks on local disk and on a local S3 "
        "server (moto, on 127.0.0.1). A search there makes about 40 small range reads, and "
        "moto reads a whole object to answer each, so the S3 figure says more about moto than "
        "about object storage (measured on the smaller index because at 1M chunks one search "
        "on moto took minutes).",
        "",
        "| index | where | questions | p50 ms | p95 ms | open + first search s "
        "| serving process RSS MB |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    for label, key, chunks in (
        ("local disk", "local", store["chunks"]),
        ("local disk", "s3_local", store.get("s3_chunks")),
        ("S3 (moto), staleness 0", "s3", store.get("s3_chunks")),
    ):
        if key not in store:
            continue
        row = store[key]
        lines.append(
            f"| {chunks:,} | {label} | {row.get('queries', '')} | {row['p50_ms']:.1f} | "
            f"{row['p95_ms']:.1f} | {row['open_and_first_search_s']:.2f} | {row['rss_mb']:.0f} |"
        )
    lines += [
        "",
        f"`polyrag ingest` of {cluster['pdfs']} PDFs ({cluster['folder']}): here, and with "
        "`--cluster` on a Ray cluster on this machine of one node and of two nodes (one CPU and "
        "one embedding thread each; the commits stay in the ingesting process). The three "
        + _sameness(cluster),
        "",
        "| run | pages | chunks | seconds | pages/s | failed |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    lines += _cluster_rows(cluster)
    whole = _load_json(RESULTS / CLUSTER_ALL)
    if whole:
        lines += [
            "",
            f"Every filing ({whole['pdfs']} PDFs), measured separately with "
            f"`python -m bench.scale cluster --pdfs {whole['pdfs']} --nodes 2 --save "
            f"bench/results/{CLUSTER_ALL}` at {whole.get('commit', '?')}: the local and the "
            f"two-node indexes {_sameness(whole).removeprefix('indexes ')}"
            + (
                f" The local ingest's peak RSS: {whole['local']['peak_rss_mb']:,.0f} MB, of which "
                f"the ingest process {whole['local']['ingest_process_rss_mb']:,.0f} MB."
                if "peak_rss_mb" in whole.get("local", {})
                else ""
            ),
            "",
            "| run | pages | chunks | seconds | pages/s | failed |",
            "|---|---:|---:|---:|---:|---:|",
            *_cluster_rows(whole),
        ]
    return lines


def render_server(server: dict[str, Any] | None) -> list[str]:
    """The server under load: search and streamed asks from concurrent clients."""
    if not server:
        return []

    def ms(value: float | None) -> str:
        return "–" if value is None else f"{value:.0f}"

    def s(value: float | None) -> str:
        return "–" if value is None else f"{value / 1000:.1f}"

    return [
        "",
        "## The server under load (`polyrag serve`, over loopback)",
        "",
        f"{server['clients']} concurrent clients (half searching, half asking with streamed "
        f"answers from the local model) while an ingest job reads {server['ingest_files']} "
        "PDFs. The first event of an ask is the first step the server reports; the answers "
        "wait their turn for the one local model.",
        "",
        "| searches | search p50 ms | search p95 ms | asks | first event p50 ms | "
        "first event p95 ms | answer p50 s | slowest answer s | errors |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        f"| {server['searches']} | {ms(server['search_p50_ms'])} | "
        f"{ms(server['search_p95_ms'])} | {server['asks']} | "
        f"{ms(server['first_event_p50_ms'])} | {ms(server['first_event_p95_ms'])} | "
        f"{s(server['answer_p50_ms'])} | {s(server['answer_max_ms'])} | {server['errors']} |",
    ]


EVIDENCE_METRICS = ("page_recall@1", "page_recall@3", "page_recall@5", "page_recall@10", "mrr")


def render_evidence(evidence: dict[str, Any]) -> list[str]:
    """Retrieval alone on the sets with gold evidence, overall then per question kind."""
    if not evidence:
        return []
    lines = [
        "",
        "## Finding the evidence (`polyrag eval qa --retrieval-only`, no model)",
        "",
        "Evidence-page recall@k: the share of a question's gold pages among the first k pages",
        "retrieved (pages ranked by their first chunk); MRR of the first gold page; ev@k: the",
        "share of questions whose gold passages are all in the first k chunks; docs@10: whose",
        "gold documents all have a chunk among the first 10 (HotpotQA). Scope document:",
        "each question against its own filing; collection: all the set's documents in one index.",
        "Targets (FinanceBench): recall@5 ≥ 0.80 by document, ≥ 0.60 by collection; MMLongBench",
        "recall@5 ≥ 0.70.",
        "",
        "| set | scope | questions | p@1 | p@3 | p@5 | p@10 | MRR | ev@5 | ev@10 | docs@10 "
        "| search p50 ms |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, by_scope in evidence.items():
        for scope, summary in by_scope.items():
            rows = {"all": summary["overall"], **summary["by_kind"]}
            for kind, row in rows.items():
                label = f"{row['n']}" if kind == "all" else f"{kind} ({row['n']})"
                metrics = (*EVIDENCE_METRICS, "evidence@5", "evidence@10", "documents@10")
                cells = [_cell(row.get(m)) for m in metrics]
                search = summary["search_ms"]["p50"] if kind == "all" else None
                lines.append(
                    f"| {name} | {scope} | {label} | {' | '.join(cells)} | "
                    f"{'' if search is None else f'{search:.0f}'} |"
                )
    commits = sorted({s["commit"] for by in evidence.values() for s in by.values()})
    lines += ["", f"Measured at {', '.join(commits)}."]
    return lines


def render_scifact(scifact: dict[str, Any]) -> list[str]:
    first = next(iter(scifact.values()))
    lines = ["", f"## Retrieval quality ({first['dataset']}, `polyrag eval retrieval`)", ""]
    for split, run in scifact.items():
        for name, metrics in run["baselines"].items():
            published = ", ".join(f"{metric} {value:.3f}" for metric, value in metrics.items())
            lines.append(f"Published on the {split} split: {name}: {published}.  ")
    lines += [
        "Documents are ranked by their best chunk. Fusion weights were tuned on train only.",
        "",
        "| split | queries | mode | nDCG@10 | Recall@10 | Recall@100 | MRR@10 | p50 ms |",
        "|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for split, run in scifact.items():
        for mode, metrics in run["results"].items():
            p50 = run["timings"]["search_ms"][mode]["p50"]
            lines.append(
                f"| {split} | {run['queries']} | {mode} | {metrics['ndcg@10']:.3f} | "
                f"{metrics['recall@10']:.3f} | {metrics['recall@100']:.3f} | "
                f"{metrics['mrr@10']:.3f} | {p50:.0f} |"
            )
    settings = next(iter(scifact.values()))["settings"]
    lines += [
        "",
        f"Fusion {settings['fusion']}, BM25 weight {settings['keyword_weight']}, vector weight "
        f"{settings['vector_weight']}; {settings['candidates']} candidate chunks per retriever.",
    ]
    return lines


def render_qa(qa: dict[str, Any], pending: Sequence[str] = ()) -> list[str]:
    lines = [
        "",
        "## Question answering (`polyrag eval qa --mode fast|agent|auto`, local model)",
        "",
        "Every set in the three answering modes, side by side: fast (one retrieval, one",
        "reply), agent (the graph: plans, retrieves in rounds, computes with SQL and the",
        "calculator, checks itself) and auto (the agent only for questions that need it);",
        "where measured, fixed: the agent's steps and code's tools in their set order with no",
        "model decision, the model writing only the reply (the baseline beside the agent).",
        "Correct: for a numeric gold answer a number within 1% (years aside), otherwise 80% of",
        "its tokens. Grounded: correct and both gold paragraphs cited (HotpotQA), or correct",
        "and the spreadsheet's cells cited (table-qa; office-qa's spreadsheet questions). Refusal",
        "accuracy is on unanswerable questions, false refusals on answerable ones. Calls: chat",
        "model calls per question (mean).",
        "",
        "| set | questions | mode | correct | numeric | grounded | refusal acc. | "
        "false refusals | page recall@k | calls | first token p50 s | total p50 s |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    if pending:
        lines[-2:-2] = [
            f"This run was interrupted before it measured {', '.join(pending)};",
            "`python -m bench.run --resume` goes on from here and rewrites this file.",
            "",
        ]
    for name, by_mode in qa.items():
        for mode, run in by_mode.items():
            answers = run["answers"]
            latency = run["latency_ms"]
            total = latency.get("total", {}).get("p50")
            first = latency.get("first_token", {}).get("p50")
            calls = (run.get("model_calls") or {}).get("mean")
            grounded = (run.get("grounding") or {}).get("right_and_grounded")
            lines.append(
                f"| {name} | {run['questions']} ({run['unanswerable']} unanswerable) | {mode} | "
                f"{_cell(answers.get('correct'))} | {_cell(answers['numeric_match'])} | "
                f"{_cell(grounded)} | "
                f"{_cell(run['refusals']['refusal_accuracy'])} | "
                f"{_cell(run['refusals']['false_refusal_rate'])} | "
                f"{_cell(run['retrieval']['page_recall@k'])} | "
                f"{'–' if calls is None else f'{calls:.1f}'} | "
                f"{'–' if first is None else f'{first / 1000:.1f}'} | "
                f"{'–' if total is None else f'{total / 1000:.1f}'} |"
            )
    kinds = [
        f"{name} ({mode}): "
        + ", ".join(f"{kind} {stat['correct']:.2f} (n={stat['n']})" for kind, stat in by.items())
        for name, by_mode in qa.items()
        for mode, run in by_mode.items()
        if (by := run.get("by_kind"))
    ]
    if kinds:
        lines += ["", "Correct by question kind: " + "; ".join(kinds) + "."]
    by_commit: dict[str, list[str]] = {}
    for name, by_mode in qa.items():
        for mode, run in by_mode.items():
            by_commit.setdefault(run.get("commit") or "unrecorded", []).append(f"{name} {mode}")
    if len(by_commit) > 1:  # a resumed run, or sets measured again after a change
        lines += [
            "",
            "Measured at more than one commit: "
            + "; ".join(f"{c}: {', '.join(sets)}" for c, sets in by_commit.items())
            + (
                " (unrecorded: before commits were recorded)." if "unrecorded" in by_commit else "."
            ),
        ]
    from polyrag.eval.qa import refusal_reasons_line

    reasons = [
        f"{name} ({mode}): {refusal_reasons_line(run['refusal_reasons'])}"
        for name, by_mode in qa.items()
        for mode, run in by_mode.items()
        if run.get("refusal_reasons")
    ]
    if reasons:
        lines += [
            "",
            "Why questions were refused (weak evidence: nothing retrieved is close enough; "
            "answer not supported: the model's reply was withdrawn because its numbers or words "
            "are not in the evidence): " + "; ".join(reasons) + ".",
        ]
    return lines


SECTIONS = (
    "retrieval",
    "ingest",
    "media",
    "answers",
    "server",
    "scale",
    "scifact",
    "evidence",
    "qa",
)
# Sections added after runs began; a run without them leaves them off the page.
LATER_SECTIONS = ("server", "scale")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="a few minutes instead of ~45")
    size.add_argument("--tiny", action="store_true", help="the least data per section (tests)")
    parser.add_argument(
        "--only",
        choices=SECTIONS,
        action="append",
        help="rerun only this section, keeping the others from the last run on this machine",
    )
    parser.add_argument("--scifact", type=Path, default=SHARED / "scifact", help="a BEIR folder")
    parser.add_argument(
        "--home", type=Path, default=BENCH_HOME, help="keeps the evaluation indexes"
    )
    parser.add_argument("--out", type=Path, default=OUT, help="the Markdown to write")
    parser.add_argument(
        "--results",
        type=Path,
        help="where the measurements are kept (default: bench/results for the full suite, "
        "committed so that any clone resumes it; the home for --quick and --tiny)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="go on from where an interrupted run stopped (sections, and question sets by mode, "
        "already measured are kept; with --only, the sections named are measured again)",
    )
    parser.add_argument(
        "--sets",
        help="with the qa section: measure only these question sets again (comma-separated, "
        "e.g. squad2,hotpotqa), keeping the others' results",
    )
    parser.add_argument(
        "--modes",
        help="with the qa section: ask in these answering modes only (comma-separated, e.g. "
        "fast); the others are left for a later --resume. fixed (the agent's steps without "
        "model decisions, a baseline) is measured only when named here",
    )
    parser.add_argument(
        "--write-partial",
        action="store_true",
        help="write the Markdown from what an interrupted run has measured so far, naming the "
        "question sets it has not reached, and stop",
    )
    args = parser.parse_args()
    profile = PROFILES["quick" if args.quick else "tiny" if args.tiny else "full"]
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    sections = args.only or list(SECTIONS)
    kept = args.results or (RESULTS if profile.name == "full" else args.home)
    results_file = kept / "bench-results.json"
    partial_file = kept / "bench-results.partial.json"  # saved after every question set
    results: dict[str, Any] = {}
    if args.only and not args.resume and not results_file.is_file() and partial_file.is_file():
        print(  # measuring into nothing would overwrite the interrupted run's figures
            f"an interrupted run is kept in {partial_file}: add --resume to measure into it",
            file=sys.stderr,
        )
        return 2
    if args.only and results_file.is_file():
        results = json.loads(results_file.read_text())
    done: dict[str, Any] = {}
    if args.resume and partial_file.is_file():
        done = json.loads(partial_file.read_text())
        results.update({k: v for k, v in done.items() if k in SECTIONS})
        if not args.only:  # with --only, the sections named are measured again
            sections = [name for name in sections if name == "qa" or name not in done]
    results_before = dict(results)
    results["machine"] = machine()
    if args.write_partial:
        return write_partial(partial_file, args.out, profile)

    def save() -> None:
        partial_file.parent.mkdir(parents=True, exist_ok=True)
        partial_file.write_text(json.dumps(results, indent=1))

    if "retrieval" in sections:
        results["retrieval"] = [
            bench_retrieval(size, profile.latency_queries) for size in profile.index_sizes
        ]
        print(json.dumps(results["retrieval"], indent=1), flush=True)
        save()
    if "ingest" in sections:
        results["ingest"] = bench_ingest(profile.pdfs)
        print(json.dumps(results["ingest"], indent=1), flush=True)
        save()
    if "media" in sections:
        results["media"] = bench_media(profile.scans, profile.recordings)
        print(json.dumps(results["media"], indent=1), flush=True)
        save()
    if "answers" in sections:
        results["answers"] = bench_answers(profile.answers)
        summary = {k: v for k, v in results["answers"].items() if k != "rows"}
        print(json.dumps(summary), flush=True)
        save()
    if "server" in sections:
        from bench.server_load import bench_server

        clients, searches, files = profile.server
        pdfs = sorted((SHARED / "corpus" / "pdf_tables").glob("*.pdf"))[:files]
        results["server"] = bench_server(clients, searches, pdfs, REPO / "examples" / "sample")
        print(json.dumps(results["server"]), flush=True)
        save()
    if "scale" in sections:
        from bench.scale import bench_cluster, bench_store

        folder, count = profile.cluster_pdfs
        results["scale"] = {
            "store": bench_store(profile.scale_chunks, profile.latency_queries),
            "cluster": bench_cluster(sorted((SHARED / folder).glob("*.pdf"))[:count]),
        }
        print(json.dumps(results["scale"], indent=1), flush=True)
        save()
    if "scifact" in sections:
        results["scifact"] = bench_scifact(profile.scifact_queries, args.scifact, args.home)
        save()
    if "evidence" in sections:
        results["evidence"] = bench_evidence(profile.evidence, args.home)
        save()
    if "qa" in sections:
        results["qa"] = done.get("qa", {})
        samples = dict(profile.qa)
        modes = profile.modes
        if args.modes:
            modes = tuple(mode.strip() for mode in args.modes.split(",") if mode.strip())
            unknown = [mode for mode in modes if mode not in ASK_MODES]
            if unknown:
                print(f"unknown mode {unknown[0]!r}: {', '.join(ASK_MODES)}", file=sys.stderr)
                return 2
        if args.sets:  # these sets anew, the others' results kept
            chosen = [name.strip() for name in args.sets.split(",") if name.strip()]
            unknown = [name for name in chosen if name not in samples]
            if unknown:
                print(f"unknown question set {unknown[0]!r}: {', '.join(samples)}", file=sys.stderr)
                return 2
            earlier = done.get("qa") or results_before.get("qa", {})
            results["qa"] = {  # the chosen sets' runs in the chosen modes are measured anew
                name: {m: run for m, run in by.items() if name not in chosen or m not in modes}
                for name, by in earlier.items()
            }
            samples = {name: samples[name] for name in chosen}

        def measured(name: str, mode: str, summary: dict[str, Any]) -> None:
            results["qa"].setdefault(name, {})[mode] = summary
            save()

        bench_qa(
            samples, modes, args.home, earlier=results["qa"], on_done=measured, cases=kept / "cases"
        )
    missing = [name for name in SECTIONS if name not in results]
    if missing:
        print(f"no earlier results for {', '.join(missing)}: run without --only", file=sys.stderr)
        return 1
    pending = pending_sets(results["qa"], profile)
    if pending:  # some question sets not yet asked in some modes: the run stays open
        print(
            f"not yet measured: {', '.join(pending)}; --write-partial writes the page, "
            "--resume goes on",
            file=sys.stderr,
        )
        return 0
    results_file.parent.mkdir(parents=True, exist_ok=True)
    results_file.write_text(json.dumps(results, indent=1))
    partial_file.unlink(missing_ok=True)
    args.out.write_text(render(results, profile.name), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


def write_partial(partial_file: Path, out: Path, profile: Profile) -> int:
    """BENCHMARKS.md from an interrupted run's saved results, with what it has not measured."""
    if not partial_file.is_file():
        print(f"no interrupted run to write out: {partial_file} is missing", file=sys.stderr)
        return 1
    results = json.loads(partial_file.read_text())
    # A run begun before a later section existed has none: it is left out of the page.
    missing = [name for name in SECTIONS if name not in results and name not in LATER_SECTIONS]
    if missing:
        print(f"the interrupted run has not measured {', '.join(missing)} yet", file=sys.stderr)
        return 1
    pending = pending_sets(results["qa"], profile)
    out.write_text(render(results, profile.name, pending), encoding="utf-8")
    print(f"wrote {out} ({len(pending)} question set(s) pending)")
    return 0


def pending_sets(qa: dict[str, Any], profile: Profile) -> list[str]:
    """The question sets not yet asked in every mode, each with the modes missing."""
    return [
        f"{name} ({', '.join(m for m in profile.modes if m not in qa.get(name, {}))})"
        for name in profile.qa
        if any(m not in qa.get(name, {}) for m in profile.modes)
    ]


if __name__ == "__main__":
    sys.exit(main())
