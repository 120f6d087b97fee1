"""`.ci/audit.py`, the dependency audit `make test` runs, against a registry served on 127.0.0.1.

The registry answers like PyPI's JSON API: a release's page lists the advisories that affect it;
some registries serve only a project's page (the advisories of its latest release)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

AUDIT = Path(__file__).resolve().parents[2] / ".ci" / "audit.py"


def _advisory(
    id_: str, *aliases: str, fixed: tuple[str, ...] = (), withdrawn: bool = False
) -> dict[str, object]:
    return {
        "id": id_,
        "aliases": list(aliases),
        "fixed_in": list(fixed),
        "details": f"{id_}: a flaw",
        "withdrawn": "2026-01-01" if withdrawn else None,
    }


PAGES: dict[str, dict[str, object]] = {
    # release pages
    "/pypi/safe/1.0/json": {"info": {"version": "1.0"}, "vulnerabilities": []},
    "/pypi/leaky/2.0/json": {
        "info": {"version": "2.0"},
        "vulnerabilities": [
            _advisory("GHSA-aaaa", "CVE-2026-1", "PYSEC-2026-1", fixed=("2.1",)),
            _advisory("PYSEC-2026-1", "GHSA-aaaa", "CVE-2026-1", fixed=("2.1",)),  # the same
            _advisory("GHSA-old", withdrawn=True),
        ],
    },
    "/pypi/pickly/5.6/json": {
        "info": {"version": "5.6"},
        "vulnerabilities": [_advisory("GHSA-pick", "CVE-2026-2")],
    },
    # a project whose release pages this registry does not serve
    "/pypi/only-latest/json": {"info": {"version": "3.0"}, "vulnerabilities": []},
    "/pypi/busy/1.0/json": {"info": {"version": "1.0"}, "vulnerabilities": []},
}


# Pages that first answer "too many requests" this many times.
BUSY = {"/pypi/busy/1.0/json": 1}


class _Registry(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if BUSY.get(self.path, 0) > 0:
            BUSY[self.path] -= 1
            self.send_response(429)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        page = PAGES.get(self.path)
        body = json.dumps(page or {"message": "Not Found"}).encode()
        self.send_response(200 if page else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def registry() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Registry)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/pypi"
    server.shutdown()
    server.server_close()


def _run(
    tmp_path: Path, index: str, requirements: str, accepted: str = "", tries: int = 1
) -> tuple[int, str, str]:
    (tmp_path / "req.txt").write_text(requirements)
    (tmp_path / "ignore.toml").write_text(accepted)
    run = subprocess.run(
        [
            sys.executable,
            str(AUDIT),
            "--requirements",
            str(tmp_path / "req.txt"),
            "--index-url",
            index,
            "--ignore-file",
            str(tmp_path / "ignore.toml"),
            "--timeout",
            "10",
            "--tries",
            str(tries),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return run.returncode, run.stdout, run.stderr


def test_a_vulnerable_release_fails_the_audit_once_per_advisory(
    tmp_path: Path, registry: str
) -> None:
    status, out, _ = _run(tmp_path, registry, "safe==1.0\nleaky==2.0  # comment\n-e .\n")
    assert status == 1
    flagged = [line for line in out.splitlines() if line.startswith("VULNERABLE")]
    # Listed under two of its ids, reported once; the withdrawn advisory is not reported.
    assert flagged == ["VULNERABLE leaky 2.0: GHSA-aaaa (fixed in 2.1) — GHSA-aaaa: a flaw"]
    assert out.splitlines()[-1] == f"audited 2 of 2 packages at {registry}: 1 known vulnerability"


def test_an_accepted_advisory_passes_with_its_reason_and_a_stale_one_is_named(
    tmp_path: Path, registry: str
) -> None:
    accepted = (
        '[[accepted]]\nid = "CVE-2026-2"\nreason = "the cache is never read"\n'
        '[[accepted]]\nid = "GHSA-gone"\nreason = "fixed long ago"\n'
    )
    status, out, _ = _run(tmp_path, registry, "pickly==5.6\n", accepted)
    assert status == 0, out
    assert "accepted   pickly 5.6: GHSA-pick (no fix) — the cache is never read" in out
    assert "stale      GHSA-gone is accepted but no longer found" in out
    assert out.splitlines()[-1].endswith("0 known vulnerabilities, 1 accepted")


def test_an_entry_without_a_reason_is_refused(tmp_path: Path, registry: str) -> None:
    status, _, err = _run(tmp_path, registry, "pickly==5.6\n", '[[accepted]]\nid = "GHSA-pick"\n')
    assert status == 1 and "needs an id and a reason" in err


def test_without_a_release_page_the_latest_release_is_checked_and_said_so(
    tmp_path: Path, registry: str
) -> None:
    status, out, _ = _run(tmp_path, registry, "only-latest==2.5\nnowhere==1.0\n")
    assert status == 0, out
    assert "checked against their latest release only" in out
    assert "only-latest 2.5 (latest 3.0)" in out
    assert "not on the registry, not audited: nowhere" in out
    assert out.splitlines()[-1].startswith("audited 1 of 2 packages")


def test_an_unreachable_registry_is_one_line_and_status_2(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    status, out, err = _run(tmp_path, f"http://127.0.0.1:{port}/pypi", "safe==1.0\n")
    assert status == 2 and out == ""
    assert err.startswith("audit: cannot read the package registry: ")
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_a_busy_registry_is_asked_again(tmp_path: Path, registry: str) -> None:
    status, out, err = _run(tmp_path, registry, "busy==1.0\n", tries=2)
    assert status == 0 and err == "", err
    assert out.splitlines()[-1].startswith("audited 1 of 1 packages")
