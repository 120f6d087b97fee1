"""Address checks and guards of the web fetcher. Nothing here sends traffic anywhere: every
refusal must happen before a connection is opened, which the `no_connect` fixture enforces."""

from __future__ import annotations

import gzip
import ipaddress
import re
import socket
import time
import zlib
from typing import Any

import pytest

from polyrag.errors import FetchError
from polyrag.ingest.fetch import (
    _Decoder,
    address_problem,
    check_host,
    fetch,
    is_url,
    page_name,
)
from polyrag.settings import WebSettings, load_settings


@pytest.fixture(autouse=True)
def no_dns(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let only lookups answered on this machine through (numbers, /etc/hosts' localhost), so
    that no test ever sends a DNS query; tests that need a name answer it themselves."""
    real = socket.getaddrinfo

    def local_only(host: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else str(host)
        if name.lower() != "localhost" and not re.fullmatch(r"[0-9a-fA-FxX.:]+", name):
            raise AssertionError(f"a DNS lookup of {name} was attempted")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", local_only)


@pytest.fixture
def no_connect(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Fail the test if anything tries to open a TCP connection."""
    attempts: list[object] = []

    def refuse(address: object, *args: Any, **kwargs: Any) -> None:
        attempts.append(address)
        raise AssertionError(f"a connection to {address} was attempted")

    monkeypatch.setattr(socket, "create_connection", refuse)
    return attempts


@pytest.mark.parametrize(
    ("address", "kind", "overridable"),
    [
        ("127.0.0.1", "a loopback address", True),
        ("127.255.0.9", "a loopback address", True),
        ("::1", "a loopback address", True),
        ("10.1.2.3", "a private address", True),
        ("172.16.0.1", "a private address", True),
        ("172.31.255.254", "a private address", True),
        ("192.168.0.1", "a private address", True),
        ("fc00::1", "a private address", True),
        ("fd12:3456::1", "a private address", True),
        ("169.254.1.1", "a link-local address", True),
        ("fe80::1", "a link-local address", True),
        ("169.254.169.254", "a cloud metadata address", False),
        ("fd00:ec2::254", "a cloud metadata address", False),
        ("100.100.100.200", "a cloud metadata address", False),
        ("100.64.0.1", "a shared (CGNAT) address", True),
        ("100.127.255.254", "a shared (CGNAT) address", True),
        ("0.0.0.0", "an unspecified address", False),
        ("::", "an unspecified address", False),
        ("224.0.0.1", "a multicast address", False),
        ("ff02::1", "a multicast address", False),
        ("240.0.0.1", "a reserved address", False),
        ("255.255.255.255", "a reserved address", False),
        # IPv6 spellings of IPv4 addresses are judged as the IPv4 address they carry.
        ("::ffff:127.0.0.1", "a loopback address", True),
        ("::ffff:10.0.0.1", "a private address", True),
        ("::ffff:169.254.169.254", "a cloud metadata address", False),
        ("::127.0.0.1", "a loopback address", True),  # IPv4-compatible
        ("2002:7f00:1::", "a loopback address", True),  # 6to4 of 127.0.0.1
        ("2002:c0a8:101::1", "a private address", True),  # 6to4 of 192.168.1.1
        ("64:ff9b::a9fe:a9fe", "a cloud metadata address", False),  # NAT64 of 169.254.169.254
        ("64:ff9b::7f00:1", "a loopback address", True),
        ("192.0.2.10", "a private address", True),  # documentation range: never public
    ],
)
def test_unsafe_addresses_are_named(address: str, kind: str, overridable: bool) -> None:
    assert address_problem(ipaddress.ip_address(address)) == (kind, overridable)


@pytest.mark.parametrize(
    "address", ["8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700:4700::1111", "::ffff:8.8.8.8"]
)
def test_public_addresses_pass(address: str) -> None:
    assert address_problem(ipaddress.ip_address(address)) is None


def _deadline() -> float:
    return time.monotonic() + 5


def test_check_host_names_the_reason_and_the_setting() -> None:
    settings = WebSettings()
    with pytest.raises(FetchError) as refused:
        check_host("127.0.0.1", 80, settings, _deadline())
    assert str(refused.value) == "refused: 127.0.0.1 is a loopback address (web.allow_private)"
    with pytest.raises(FetchError) as metadata:
        check_host("169.254.169.254", 80, WebSettings(allow_private=True), _deadline())
    assert str(metadata.value) == (
        "refused: 169.254.169.254 is a cloud metadata address (web.allowed_hosts)"
    )


def test_allow_private_and_allowed_hosts_let_addresses_through() -> None:
    loopback = ipaddress.ip_address("127.0.0.1")
    assert check_host("127.0.0.1", 80, WebSettings(allow_private=True), _deadline()) == [loopback]
    metadata = WebSettings(allowed_hosts=["169.254.0.0/16"])
    assert check_host("169.254.169.254", 80, metadata, _deadline())
    by_name = WebSettings(allowed_hosts=["LOCALHOST"])
    assert loopback in check_host("localhost", 80, by_name, _deadline())
    with pytest.raises(FetchError, match="loopback"):
        check_host("localhost", 80, WebSettings(allowed_hosts=["10.0.0.0/8"]), _deadline())


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/",
        "http://127.1/",
        "http://2130706433/",  # decimal
        "http://0x7f000001/",  # hex
        "http://0x7f.1/",
        "http://0177.0.0.1/",  # octal
        "http://017700000001/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:7f00:1]/",
        "http://localhost/",
        "https://user:secret@127.0.0.1:8443/x",
        "http://0.0.0.0/",
        "http://0/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00:ec2::254]/",
        "http://10.0.0.1/",
        "http://192.168.1.1:8080/admin",
        "http://100.64.0.1/",
    ],
)
def test_unsafe_urls_are_refused_before_connecting(url: str, no_connect: list[object]) -> None:
    with pytest.raises(FetchError) as refused:
        fetch(url, WebSettings())
    message = str(refused.value)
    # httpx2 itself rejects a dotted quad with leading zeros as an invalid URL.
    assert message.startswith("refused: ") or message.startswith("not a valid URL: Invalid IPv4")
    assert "\n" not in message
    assert no_connect == []


def test_numeric_spellings_say_which_address_they_are(no_connect: list[object]) -> None:
    with pytest.raises(FetchError) as refused:
        fetch("http://2130706433/", WebSettings())
    assert str(refused.value) == (
        "refused: 2130706433 is 127.0.0.1, a loopback address (web.allow_private)"
    )


def test_any_unsafe_address_of_a_name_refuses_it(
    monkeypatch: pytest.MonkeyPatch, no_connect: list[object]
) -> None:
    """A name with one public and one private record is refused (the connection could go to
    either); the lookup is answered locally, no DNS query is sent."""

    def answer(host: str, port: object, *args: Any, **kwargs: Any) -> list[Any]:
        assert host == "mixed.test"
        return [
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("8.8.8.8", 80)),
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.0.0.7", 80)),
        ]

    monkeypatch.setattr(socket, "getaddrinfo", answer)
    with pytest.raises(FetchError) as refused:
        fetch("http://mixed.test/page", WebSettings())
    assert str(refused.value) == (
        "refused: mixed.test is 10.0.0.7, a private address (web.allow_private)"
    )


def test_unresolvable_names_fail_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: Any, **kwargs: Any) -> list[Any]:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", fail)
    with pytest.raises(FetchError) as failed:
        fetch("https://no-such-host.test/", WebSettings())
    assert str(failed.value) == "cannot resolve no-such-host.test (no network, or no such host)"


def test_a_slow_lookup_ends_at_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    def slow(*args: Any, **kwargs: Any) -> list[Any]:
        time.sleep(3)
        return []

    monkeypatch.setattr(socket, "getaddrinfo", slow)
    started = time.monotonic()
    with pytest.raises(FetchError, match=r"^timed out after 0.5 s resolving slow.test$"):
        fetch("http://slow.test/", WebSettings(timeout_s=0.5))
    assert time.monotonic() - started < 1.5


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ftp://example.com/file.pdf", "not an http(s) URL: ftp scheme"),
        ("file:///etc/passwd", "not an http(s) URL: file scheme"),
        ("gopher://127.0.0.1:6379/_INFO", "not an http(s) URL: gopher scheme"),
        ("http:///nohost", "not a valid URL: no host"),
    ],
)
def test_other_schemes_are_refused(url: str, message: str, no_connect: list[object]) -> None:
    with pytest.raises(FetchError) as refused:
        fetch(url, WebSettings())
    assert str(refused.value) == message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("https://example.com/a.html", True),
        ("http://127.0.0.1:8000/", True),
        ("  HTTPS://EXAMPLE.COM  ", True),
        ("ftp://example.com/x", True),  # a URL, refused by fetch with a clear reason
        ("docs/report.pdf", False),
        ("/home/me/page.html", False),
        ("C:\\Users\\me\\file.docx", False),
        ("example.com/page", False),
        ("notes:draft.txt", False),
    ],
)
def test_is_url(text: str, expected: bool) -> None:
    assert is_url(text) is expected


@pytest.mark.parametrize(
    ("path", "content_type", "name"),
    [
        ("/docs/index.html", "text/html", "index.html"),
        ("/", "text/html", "index.html"),
        ("", "text/html", "index.html"),
        ("/wiki/Main_Page", "text/html", "Main_Page.html"),
        ("/files/report%20Q3.pdf", "application/pdf", "report Q3.pdf"),
        ("/files/report", "application/pdf", "report.pdf"),
        ("/notes/readme.md", "text/plain", "readme.md"),
        ("/api/data", "application/octet-stream", "data"),
        ("/", "image/png", "example.com"),
        ("/a/..%2F..%2Fetc%2Fpasswd", "text/plain", ".._.._etc_passwd"),
    ],
)
def test_page_name(path: str, content_type: str, name: str) -> None:
    assert page_name(path, content_type, "example.com") == name


@pytest.mark.parametrize(
    ("encoding", "compress"),
    [
        ("gzip", gzip.compress),
        ("deflate", zlib.compress),
        ("deflate", lambda data: zlib.compress(data)[2:-4]),  # raw deflate, as some servers send
    ],
)
def test_compressed_bodies_are_decoded(encoding: str, compress: Any) -> None:
    body = b"<html><body>" + b"polyrag " * 5000 + b"</body></html>"
    packed = compress(body)
    decoder = _Decoder(encoding, limit=len(body))
    for start in range(0, len(packed), 1000):
        decoder.feed(packed[start : start + 1000])
    assert decoder.finish() == body


def test_a_compression_bomb_stops_at_the_cap() -> None:
    bomb = gzip.compress(b"\0" * (64 * 2**20))  # 64 MB of zeros in about 64 KB
    decoder = _Decoder("gzip", limit=2**20)
    with pytest.raises(FetchError) as refused:
        decoder.feed(bomb)
    assert str(refused.value) == "larger than 1 MB (web.max_bytes)"
    assert sum(len(part) for part in decoder._parts) <= 2**20


def test_unknown_encodings_and_corrupt_bodies_fail_clearly() -> None:
    with pytest.raises(FetchError, match=r"^unsupported content encoding 'br'$"):
        _Decoder("br", limit=100)
    with pytest.raises(FetchError, match=r"^the gzip body is corrupt$"):
        _Decoder("gzip", limit=100).feed(b"not gzip at all")


def test_web_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    monkeypatch.setenv("POLYRAG_WEB__ALLOW_PRIVATE", "true")
    monkeypatch.setenv("POLYRAG_WEB__TIMEOUT_S", "5")
    web = load_settings(tmp_path).web
    assert web.allow_private is True
    assert web.timeout_s == 5
    assert WebSettings().allow_private is False
    assert WebSettings().max_bytes == 10 * 2**20
