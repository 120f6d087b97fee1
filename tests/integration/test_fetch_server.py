"""The web fetcher against real HTTP servers on 127.0.0.1 (the only address tests may reach):
pages, redirect chains re-checked at every hop, size caps, stalling servers, refusals that
happen before any connection, and HTTPS to a pinned address with SNI and certificate checks."""

from __future__ import annotations

import contextlib
import gzip
import http.server
import shutil
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from polyrag.errors import FetchError
from polyrag.ingest.fetch import fetch
from polyrag.settings import WebSettings

PAGE = b"<!doctype html><html><head><title>Tides</title></head><body><h1>Tides</h1><p>The tide at Brest rises 7 metres.</p></body></html>"  # noqa: E501
STALL_S = 5.0  # longest a stalling handler waits; released early when the server stops


@dataclass
class Seen:
    """What one test server received."""

    paths: list[str] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)


@dataclass
class Server:
    port: int
    seen: Seen
    release: threading.Event

    def url(self, path: str = "/", host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Any

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        # The client may stop reading at its cap or deadline.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self._route()

    def _route(self) -> None:
        seen: Seen = self.server.seen
        seen.paths.append(self.path)
        seen.headers.append({k.lower(): v for k, v in self.headers.items()})
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        route = url.path
        if route == "/page.html":
            self._send(200, PAGE, "text/html; charset=utf-8")
        elif route == "/report":
            self._send(200, b"%PDF-1.4\n% not really a PDF\n", "application/pdf")
        elif route.startswith("/hop/"):
            left = int(route.rsplit("/", 1)[1])
            target = f"/hop/{left - 1}" if left > 1 else "/page.html"
            self._redirect(302 if left % 2 else 301, target)
        elif route == "/loop":
            self._redirect(302, "/loop")
        elif route == "/to":
            self._redirect(int(query.get("status", "302")), query["target"])
        elif route == "/big":
            self._send(200, b"x" * int(query["size"]), "text/plain")
        elif route == "/big-chunked":
            self._chunked(b"y" * 4096, int(query["chunks"]))
        elif route == "/gzip":
            body = gzip.compress(b"z" * int(query["size"]))
            self._send(200, body, "text/plain", {"Content-Encoding": "gzip"})
        elif route == "/stall-headers":
            self.server.release.wait(STALL_S)
        elif route == "/stall-body":
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", "100000")
            self.end_headers()
            self.wfile.write(b"<html>")
            for _ in range(6):  # a little for 0.6 s, then nothing
                if self.server.release.wait(0.1):
                    return
                self.wfile.write(b"a" * 100)
                self.wfile.flush()
            self.server.release.wait(STALL_S)
        elif route == "/drip":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", "1000")
            self.end_headers()
            for _ in range(1000):
                if self.server.release.wait(0.05):
                    break
                self.wfile.write(b".")
                self.wfile.flush()
        else:
            self._send(404, b"not here", "text/plain")

    def _send(
        self, status: int, body: bytes, content_type: str, extra: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in (extra or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def _redirect(self, status: int, location: str) -> None:
        self.send_response(status)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _chunked(self, piece: bytes, count: int) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for _ in range(count):
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
        self.wfile.write(b"0\r\n\r\n")


@dataclass
class _Running:
    httpd: http.server.ThreadingHTTPServer
    thread: threading.Thread


def _start(tls: ssl.SSLContext | None = None) -> tuple[Server, _Running]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    if tls is not None:
        httpd.socket = tls.wrap_socket(httpd.socket, server_side=True)
    seen, release = Seen(), threading.Event()
    httpd.seen = seen  # type: ignore[attr-defined]
    httpd.release = release  # type: ignore[attr-defined]
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    return Server(httpd.server_address[1], seen, release), _Running(httpd, thread)


def _stop(running: _Running, server: Server) -> None:
    server.release.set()
    running.httpd.shutdown()
    running.httpd.server_close()
    running.thread.join(5)


@pytest.fixture
def server() -> Iterator[Server]:
    started, running = _start()
    yield started
    _stop(running, started)


@pytest.fixture
def other_server() -> Iterator[Server]:
    started, running = _start()
    yield started
    _stop(running, started)


LOCAL = WebSettings(allow_private=True, timeout_s=5)


def test_a_page_is_fetched(server: Server) -> None:
    page = fetch(server.url("/page.html"), LOCAL)
    assert page.data == PAGE
    assert page.content_type == "text/html"
    assert page.name == "page.html"
    assert page.url == page.final_url == server.url("/page.html")
    headers = server.seen.headers[0]
    assert headers["host"] == f"127.0.0.1:{server.port}"
    assert "text/html" in headers["accept"]
    assert headers["user-agent"] == "polyrag/0.1"


def test_a_linked_file_is_fetched_and_named_by_its_type(server: Server) -> None:
    page = fetch(server.url("/report"), LOCAL)
    assert page.data.startswith(b"%PDF")
    assert (page.content_type, page.name) == ("application/pdf", "report.pdf")


def test_a_redirect_chain_is_followed(server: Server) -> None:
    page = fetch(server.url("/hop/4"), LOCAL)
    assert page.data == PAGE
    assert page.final_url == server.url("/page.html")
    assert page.url == server.url("/hop/4")
    assert server.seen.paths == ["/hop/4", "/hop/3", "/hop/2", "/hop/1", "/page.html"]


def test_too_many_redirects_fail(server: Server) -> None:
    with pytest.raises(FetchError) as failed:
        fetch(server.url("/loop"), WebSettings(allow_private=True, max_redirects=3))
    assert str(failed.value) == "more than 3 redirects (web.max_redirects)"
    assert len(server.seen.paths) == 4


def test_a_redirect_to_loopback_is_refused_unless_private_is_allowed(
    server: Server, other_server: Server
) -> None:
    """The first server is allowed by name; its redirect to another loopback port is checked
    again and refused, and the other server never hears from us."""
    only_localhost = WebSettings(allowed_hosts=["localhost"], timeout_s=5)
    start = server.url("/to?target=" + other_server.url("/page.html"), host="localhost")
    with pytest.raises(FetchError) as refused:
        fetch(start, only_localhost)
    assert str(refused.value) == "refused: 127.0.0.1 is a loopback address (web.allow_private)"
    assert server.seen.paths and other_server.seen.paths == []

    page = fetch(start, WebSettings(allowed_hosts=["localhost"], allow_private=True))
    assert page.data == PAGE
    assert page.final_url == other_server.url("/page.html")
    assert other_server.seen.paths == ["/page.html"]


def test_a_loopback_url_is_refused_without_any_connection(server: Server) -> None:
    for url in (server.url("/page.html"), server.url("/page.html", host="localhost")):
        with pytest.raises(FetchError, match=r"^refused: .*a loopback address"):
            fetch(url, WebSettings())
    assert server.seen.paths == []
    # Nothing was left half-open either: the server accepted no connection at all.
    assert fetch(server.url("/page.html"), LOCAL).data == PAGE
    assert server.seen.paths == ["/page.html"]


def test_redirects_to_other_schemes_are_refused(server: Server) -> None:
    with pytest.raises(FetchError) as refused:
        fetch(server.url("/to?target=file:///etc/passwd"), LOCAL)
    assert str(refused.value) == "redirected to a URL that is not http(s): file scheme"


def test_credentials_go_only_to_their_own_origin(server: Server, other_server: Server) -> None:
    target = other_server.url("/page.html")
    start = f"http://reader:s3cret@127.0.0.1:{server.port}/to?target={target}"
    page = fetch(start, LOCAL)
    assert server.seen.headers[0]["authorization"].startswith("Basic ")
    assert "authorization" not in other_server.seen.headers[0]
    assert "s3cret" not in page.url + page.final_url

    # A redirect within the same origin keeps them.
    same = fetch(f"http://reader:s3cret@127.0.0.1:{server.port}/hop/1", LOCAL)
    assert same.final_url == server.url("/page.html")
    assert server.seen.headers[-1]["authorization"] == server.seen.headers[0]["authorization"]


def test_http_errors_name_the_status(server: Server) -> None:
    with pytest.raises(FetchError) as failed:
        fetch(server.url("/missing"), LOCAL)
    assert str(failed.value) == "HTTP 404 Not Found"


def test_a_declared_size_over_the_cap_is_refused_before_reading(server: Server) -> None:
    with pytest.raises(FetchError) as refused:
        fetch(server.url("/big?size=3000000"), WebSettings(allow_private=True, max_bytes=2**20))
    assert str(refused.value) == "larger than 1 MB (web.max_bytes)"
    small = fetch(server.url("/big?size=1000"), WebSettings(allow_private=True, max_bytes=1000))
    assert len(small.data) == 1000


def test_an_undeclared_size_over_the_cap_is_cut_while_reading(server: Server) -> None:
    settings = WebSettings(allow_private=True, max_bytes=100_000)
    with pytest.raises(FetchError, match=r"^larger than 97.7 KB \(web.max_bytes\)$"):
        fetch(server.url("/big-chunked?chunks=1000"), settings)  # 4 MB announced by nobody
    assert len(fetch(server.url("/big-chunked?chunks=20"), settings).data) == 20 * 4096


def test_a_compressed_body_is_capped_after_decoding(server: Server) -> None:
    settings = WebSettings(allow_private=True, max_bytes=2**20)
    assert fetch(server.url("/gzip?size=5000"), settings).data == b"z" * 5000
    with pytest.raises(FetchError, match=r"^larger than 1 MB"):
        fetch(server.url("/gzip?size=50000000"), settings)  # 50 MB in about 50 KB


@pytest.mark.parametrize("route", ["/stall-headers", "/stall-body", "/drip"])
def test_a_stalling_server_times_out_at_the_deadline(server: Server, route: str) -> None:
    started = time.monotonic()
    with pytest.raises(FetchError) as failed:
        fetch(server.url(route), WebSettings(allow_private=True, timeout_s=1))
    elapsed = time.monotonic() - started
    assert str(failed.value) == "timed out after 1 s"
    assert 0.9 < elapsed < 1.3


def test_a_closed_port_fails_in_one_line() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(FetchError) as failed:
        fetch(f"http://127.0.0.1:{port}/", LOCAL)
    assert str(failed.value).startswith(f"cannot connect to 127.0.0.1:{port}: ")
    assert "\n" not in str(failed.value)


def test_the_checked_address_is_the_one_connected_to(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rebinding name answers 127.0.0.1 once, then 10.0.0.1: the fetch asks once and connects
    to the address it checked, with the real name in the Host header."""
    real = socket.getaddrinfo
    asked: list[str] = []

    def rebinding(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host != "rebind.test":
            return real(host, port, *args, **kwargs)
        asked.append(host)
        address = "127.0.0.1" if len(asked) == 1 else "10.0.0.1"
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    page = fetch(server.url("/page.html", host="rebind.test"), LOCAL)
    assert page.data == PAGE
    assert asked == ["rebind.test"]
    assert server.seen.headers[0]["host"] == f"rebind.test:{server.port}"


# --- HTTPS to a pinned address --------------------------------------------------------------


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A test CA and a server certificate for pinned.test, made with openssl."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    folder = tmp_path_factory.mktemp("tls")

    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
        "-subj", "/CN=polyrag test CA", "-keyout", "ca.key", "-out", "ca.pem")  # fmt: skip
    run("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=pinned.test",
        "-keyout", "server.key", "-out", "server.csr")  # fmt: skip
    (folder / "ext.cnf").write_text("subjectAltName=DNS:pinned.test\n")
    run("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
        "-CAcreateserial", "-days", "2", "-extfile", "ext.cnf", "-out", "server.pem")  # fmt: skip
    return folder


@pytest.fixture
def https_server(certificates: Path) -> Iterator[tuple[Server, list[str | None]]]:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificates / "server.pem", certificates / "server.key")
    names: list[str | None] = []
    context.sni_callback = lambda _sock, name, _ctx: names.append(name)  # type: ignore[assignment,misc]
    started, running = _start(context)
    yield started, names
    _stop(running, started)


@pytest.fixture
def names_for_tests(monkeypatch: pytest.MonkeyPatch) -> None:
    """pinned.test and wrong.test answer 127.0.0.1 here; no DNS query is sent."""
    real = socket.getaddrinfo

    def answer(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host in {"pinned.test", "wrong.test"}:
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", answer)


@pytest.mark.usefixtures("names_for_tests")
def test_https_to_the_pinned_address_checks_the_certificate_against_the_name(
    https_server: tuple[Server, list[str | None]],
    certificates: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server, sni_names = https_server
    monkeypatch.setenv("SSL_CERT_FILE", str(certificates / "ca.pem"))  # trust the test CA
    page = fetch(f"https://pinned.test:{server.port}/page.html", LOCAL)
    assert page.data == PAGE
    assert sni_names == ["pinned.test"]
    assert server.seen.headers[0]["host"] == f"pinned.test:{server.port}"

    # Same address, another name: the certificate does not match it, and the fetch says so.
    with pytest.raises(FetchError, match=r"^cannot connect to wrong.test:\d+: .*CERTIFICATE"):
        fetch(f"https://wrong.test:{server.port}/page.html", LOCAL)
    assert sni_names[-1] == "wrong.test"
    assert len(server.seen.paths) == 1
