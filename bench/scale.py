"""Scale figures: hybrid search on a large index on local disk and on S3-compatible storage,
the index's size and the memory of a process serving it; ingestion on a Ray cluster of one and
of two nodes on this machine.

    python -m bench.scale store --chunks 1000000
    python -m bench.scale cluster --pdfs 6
    python -m bench.scale cluster --pdfs 51 --nodes 2    # every filing: is the index the same?

Each measurement runs in a child process of its own (`serve-queries`), so its memory is the
serving process's alone, not the benchmark's.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "eval"
BUCKET = "polyrag-bench"
S3_QUERIES = 40


# -- hybrid search at scale -------------------------------------------------------------------


def bench_store(size: int, queries: int, s3_size: int = 20_000) -> dict[str, Any]:
    """Hybrid searches (query embedding included) on a synthetic index of `size` chunks on
    disk, and on one of `s3_size` chunks copied into a local S3 server.

    The S3 index is smaller because moto, the local server, reads a whole object to answer each
    range request (moto/s3/models.py, FakeKey.value): at 1M chunks one search took minutes, a
    figure of moto, not of object storage."""
    from bench.synthetic import build_index
    from polyrag.index.embed.onnx import OnnxMiniLM

    s3_size = min(s3_size, size)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "index"
        started = time.perf_counter()
        build_index(folder, size, OnnxMiniLM.dim, batch=max(10_000, size // 10)).close()
        build_s = time.perf_counter() - started
        disk_mb = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 2**20
        local = _serve_queries(str(folder), {}, queries)
        shutil.rmtree(folder)
        small = Path(tmp) / "small"
        build_index(small, s3_size, OnnxMiniLM.dim, batch=max(10_000, s3_size // 10)).close()
        small_local = _serve_queries(str(small), {}, min(queries, S3_QUERIES))
        with s3_server() as options:
            _upload(small, options, "scale")
            on_s3 = _serve_queries(f"s3://{BUCKET}/scale", options, min(queries, S3_QUERIES))
    return {
        "chunks": size,
        "queries": queries,
        "build_s": build_s,
        "disk_mb": disk_mb,
        "local": local,
        "s3_chunks": s3_size,
        "s3_queries": min(queries, S3_QUERIES),
        "s3_local": small_local,
        "s3": on_s3,
    }


@contextmanager
def s3_server() -> Iterator[dict[str, str]]:
    """moto's S3 server on 127.0.0.1 with one bucket; yields LanceDB storage options."""
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line per request otherwise
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        options = {
            "aws_endpoint": f"http://{host}:{port}",
            "allow_http": "true",
            "aws_region": "us-east-1",
            "aws_access_key_id": "bench",
            "aws_secret_access_key": "bench",
        }
        _client(options).create_bucket(Bucket=BUCKET)
        yield options
    finally:
        server.stop()


def _client(options: dict[str, str]) -> Any:
    import boto3

    return boto3.client(
        "s3",
        endpoint_url=options["aws_endpoint"],
        region_name=options["aws_region"],
        aws_access_key_id=options["aws_access_key_id"],
        aws_secret_access_key=options["aws_secret_access_key"],
    )


def _upload(folder: Path, options: dict[str, str], prefix: str) -> None:
    client = _client(options)
    for file in sorted(folder.rglob("*")):
        if file.is_file():
            client.upload_file(str(file), BUCKET, f"{prefix}/{file.relative_to(folder)}")


def _serve_queries(
    location: str, options: dict[str, str], queries: int, staleness: float = 0.0
) -> dict[str, Any]:
    """Run `serve-queries` in a child: its latencies and its peak memory."""
    command = [sys.executable, "-m", "bench.scale", "serve-queries", location, str(queries)]
    command += ["--options", json.dumps(options), "--staleness", str(staleness)]
    done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=REPO)
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def serve_queries(location: str, queries: int, options: dict[str, str], staleness: float) -> None:
    """In the child: open the index as a server would, warm up, time hybrid searches."""
    from polyrag import build
    from polyrag.index.store.lancedb import LanceStore
    from polyrag.retrieve.hybrid import HybridRetriever
    from polyrag.settings import load_settings

    questions = [
        json.loads(line)["text"]
        for line in (SHARED / "scifact" / "queries.jsonl").open(encoding="utf-8")
    ][:queries]
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(Path(tmp) / "home")
        embedder = build.embedder(settings)
        started = time.perf_counter()
        store = LanceStore(
            location,
            embedder.dim,
            model="synthetic-random",
            storage_options=options,
            staleness=timedelta(seconds=staleness),
        )
        retriever = HybridRetriever(store, embedder, settings.retrieve)
        retriever.search(questions[0])
        first_s = time.perf_counter() - started
        for question in questions[1 : 1 + min(5, queries // 5)]:  # warm caches and ONNX
            retriever.search(question)
        totals = [retriever.search(q).timings_ms["total"] for q in questions]
        store.close()
    print(
        json.dumps(
            {
                "queries": len(totals),
                "p50_ms": float(np.percentile(totals, 50)),
                "p95_ms": float(np.percentile(totals, 95)),
                "open_and_first_search_s": first_s,
                "rss_mb": _peak_rss_mb(),
            }
        )
    )


def _peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


# -- ingestion on a Ray cluster ---------------------------------------------------------------


def bench_cluster(files: list[Path], nodes: tuple[int, ...] = (1, 2)) -> dict[str, Any]:
    """`polyrag ingest` of these files: here (one parse worker), and with --cluster on a Ray
    cluster of each number of `nodes`, one CPU each; then whether every cluster's index equals
    the local one."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "pdfs"
        folder.mkdir()
        for pdf in files:
            (folder / pdf.name).symlink_to(pdf)
        homes = {"local": Path(tmp) / "local"}
        runs = {"local": _ingest(folder, homes["local"], None)}
        for count in nodes:
            name = f"ray_{count}_node"
            homes[name] = Path(tmp) / name
            with ray_cluster(count, Path(tmp) / f"ray{count}") as address:
                runs[name] = _ingest(folder, homes[name], address)
        reference = _index(homes["local"])
        differences = {
            name: _differences(reference, _index(home))
            for name, home in homes.items()
            if name != "local"
        }
    folder_name = str(files[0].parent.relative_to(SHARED)) if files else ""
    return {
        "pdfs": len(files),
        "folder": folder_name,
        "same_chunk_ids": all(not d["chunk_ids"] for d in differences.values()),
        "same_index": all(not any(d.values()) for d in differences.values()),
        "differences": differences,
        **runs,
    }


def _index(home: Path) -> dict[str, Any]:
    """What a home holds: each chunk (by id) with its vector, and the manifest's rows."""
    from polyrag.index.embed.onnx import OnnxMiniLM
    from polyrag.index.store.lancedb import LanceStore
    from polyrag.ingest.manifest import SqliteManifest

    store = LanceStore(home / "index", OnnxMiniLM.dim, model=OnnxMiniLM.model_id)
    manifest = SqliteManifest(home / "manifest.sqlite")
    try:
        chunks = {c.chunk_id: c for sid in store.source_ids() for c in store.chunks_of(sid)}
        by_text = store.vectors_for(sorted({c.embedded_sha256 for c in chunks.values()}))
        rows = {
            Path(e.path).name: (e.source_id, e.chunks, e.pages, e.status) for e in manifest.all()
        }
        return {"chunks": chunks, "vectors": by_text, "rows": rows}
    finally:
        store.close()
        manifest.close()


def _differences(local: dict[str, Any], other: dict[str, Any]) -> dict[str, int]:
    """How many chunk ids, chunks (text, locator, everything), vectors (beyond 1e-5) and
    manifest rows differ between two indexes."""
    ids = local["chunks"].keys() ^ other["chunks"].keys()
    both = local["chunks"].keys() & other["chunks"].keys()
    chunks = sum(local["chunks"][i] != other["chunks"][i] for i in both)
    texts = local["vectors"].keys() ^ other["vectors"].keys()
    vectors = sum(
        float(np.max(np.abs(local["vectors"][h] - other["vectors"][h]))) > 1e-5
        for h in local["vectors"].keys() & other["vectors"].keys()
    )
    rows = local["rows"].items() ^ other["rows"].items()
    return {
        "chunk_ids": len(ids),
        "chunks": chunks,
        "vectors": vectors + len(texts),
        "manifest_rows": len(rows),
    }


def _ingest(folder: Path, home: Path, cluster: str | None) -> dict[str, Any]:
    command = [sys.executable, "-m", "polyrag.cli.app", "ingest", str(folder), "--json"]
    command += ["--home", str(home), *(["--cluster", cluster] if cluster else [])]
    # One embedding thread per worker: each Ray worker has one CPU of its own.
    env = {**os.environ, "POLYRAG_EMBED__THREADS": "1"} if cluster else dict(os.environ)
    from bench.run import peak_memory_mb

    started = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen(command, stdout=out, stderr=err, env=env, cwd=REPO)
        peak_mb, main_mb = peak_memory_mb(child)  # the ingest process and its parse workers
        seconds = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        if child.returncode not in (0, 1):
            raise RuntimeError(f"ingest failed: {err.read()[-1000:]}")
        report = json.loads(out.read())
    pages = sum(int(item.get("pages") or 0) for item in report["ingested"])
    chunks = sum(int(item.get("chunks") or 0) for item in report["ingested"])
    return {
        "seconds": seconds,
        "ingested": len(report["ingested"]),
        "failed": len(report["failed"]),
        "pages": pages,
        "chunks": chunks,
        "pages_per_s": pages / seconds,
        "peak_rss_mb": peak_mb,  # on Ray: this process and any local children, not the actors
        "ingest_process_rss_mb": main_mb,
    }


@contextmanager
def ray_cluster(nodes: int, temp: Path) -> Iterator[str]:
    """A Ray cluster on 127.0.0.1: a head and `nodes - 1` more nodes, one CPU each."""
    from polyrag.testing.ray import local_cluster

    try:
        with local_cluster(nodes, temp, object_store_bytes=200_000_000) as head:
            yield head
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    store = commands.add_parser("store", help="hybrid search at scale, on disk and on S3")
    store.add_argument("--chunks", type=int, default=1_000_000)
    store.add_argument("--queries", type=int, default=200)
    cluster = commands.add_parser("cluster", help="ingestion on one and two Ray nodes")
    cluster.add_argument("--pdfs", type=int, default=6, help="the first n FinanceBench filings")
    cluster.add_argument("--nodes", default="1,2", help="cluster sizes to measure, e.g. 2")
    cluster.add_argument("--save", type=Path, help="also write the figures (JSON) here")
    child = commands.add_parser("serve-queries")
    child.add_argument("location")
    child.add_argument("queries", type=int)
    child.add_argument("--options", default="{}")
    child.add_argument("--staleness", type=float, default=0.0)
    args = parser.parse_args()
    if args.command == "store":
        print(json.dumps(bench_store(args.chunks, args.queries), indent=1))
    elif args.command == "cluster":
        pdfs = sorted((SHARED / "financebench" / "pdfs").glob("*.pdf"))[: args.pdfs]
        from bench.run import commit

        nodes = tuple(int(n) for n in args.nodes.split(","))
        figures = {**bench_cluster(pdfs, nodes), "commit": commit()}
        print(json.dumps(figures, indent=1))
        if args.save:
            args.save.write_text(json.dumps(figures, indent=1) + "\n")
    else:
        serve_queries(args.location, args.queries, json.loads(args.options), args.staleness)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
