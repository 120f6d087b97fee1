"""Fetch a web page (or a file linked directly) that the user asked to ingest, safely.

`fetch(url, settings)` returns the bytes and the server's content type; the pipeline parses
them like a file. Guards, each failing with one `FetchError` line that names the reason:

- only http and https; credentials written in the URL go only to that URL's own origin;
- a total deadline over name resolution, connecting, redirects and reading (`web.timeout_s`);
- a size cap on the decoded body (`web.max_bytes`): checked against Content-Length first, then
  while streaming, with gzip/deflate decoded here in bounded steps (no decompression bombs);
- redirects followed by hand, at most `web.max_redirects`, every hop checked again;
- server-side request forgery: the host name is resolved here (every A/AAAA record) and refused
  when any address is loopback, private, link-local, CGNAT, unspecified, multicast, reserved or
  a cloud metadata endpoint (also inside IPv4-mapped, 6to4 and NAT64 IPv6). Numeric spellings
  such as 2130706433 or 0x7f.1 are what the resolver turns them into, 127.0.0.1, and so are
  refused like it. `web.allow_private` lets loopback, private, link-local and CGNAT addresses
  through (a local server, an intranet wiki); `web.allowed_hosts` names hosts or networks that
  are always let through.

How the checked address is the one connected to (no DNS rebinding between check and connect):
each request goes to the literal IP that passed the check — the URL's host is replaced by that
address — with the `Host` header set to the real host name and httpcore's `sni_hostname`
request extension set to it too, so TLS sends the right SNI and verifies the certificate against
the host name, not the IP (httpcore passes `sni_hostname` as `server_hostname` to the TLS
wrap). Nothing resolves the name a second time. This uses only public API of httpx2 (the
maintained httpx fork that the openai SDK depends on); the other route, a custom httpcore
network backend, has no public hook in `HTTPTransport` (only its private `_pool`). Requests go
straight to `HTTPTransport`, not through a `Client`, so no environment proxy, .netrc, cookie jar
or automatic redirect can bypass these checks.
"""

from __future__ import annotations

import base64
import contextlib
import ipaddress
import re
import socket
import threading
import time
import zlib
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import unquote

from polyrag.errors import FetchError, MissingDependencyError
from polyrag.settings import WebSettings

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_ACCEPT = (
    "text/html,application/xhtml+xml,application/pdf;q=0.9,text/markdown;q=0.9,"
    "text/plain;q=0.8,*/*;q=0.5"
)
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_CONNECT_ATTEMPTS = 3  # addresses of one host tried in turn when connecting fails

_METADATA = frozenset(
    ipaddress.ip_address(address)
    for address in (
        "169.254.169.254",  # AWS, GCP, Azure, OpenStack, DigitalOcean ...
        "169.254.170.2",  # AWS ECS task metadata
        "fd00:ec2::254",  # AWS over IPv6
        "100.100.100.200",  # Alibaba Cloud
    )
)
_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")

_EXTENSIONS = {
    "text/html": ".html",
    "application/xhtml+xml": ".html",
    "application/pdf": ".pdf",
    "text/markdown": ".md",
    "text/plain": ".txt",
    "text/csv": ".csv",
    "application/json": ".json",
}


@dataclass(frozen=True)
class FetchedPage:
    """A fetched resource. `url` and `final_url` (after redirects) carry no credentials;
    `content_type` is the media type, lower-case and without parameters ("text/html")."""

    url: str
    final_url: str
    name: str
    data: bytes
    content_type: str


def is_url(text: str) -> bool:
    """Whether an ingest argument is meant as a URL (any `scheme://`), not a path."""
    return re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", text.strip()) is not None


def fetch(url: str, settings: WebSettings) -> FetchedPage:
    """GET `url` within the limits of `settings`, following redirects; see the module's doc."""
    try:
        import httpx2 as httpx
    except ImportError:  # pragma: no cover - a declared dependency
        raise MissingDependencyError("fetching web pages needs httpx2") from None
    deadline = time.monotonic() + settings.timeout_s
    start = _parse(url.strip())
    current = start
    with httpx.HTTPTransport(retries=0) as transport:
        for hop in range(settings.max_redirects + 1):
            response = _open(transport, current, start, settings, deadline)
            try:
                status = response.status_code
                if status in _REDIRECTS and "location" in response.headers:
                    if hop == settings.max_redirects:
                        raise FetchError(
                            f"more than {settings.max_redirects} redirects (web.max_redirects)"
                        )
                    current = _redirect_target(current, response.headers["location"])
                    continue
                if not 200 <= status < 300:
                    raise FetchError(f"HTTP {status}" + _reason(response))
                data = _read_body(response, settings, deadline)
            finally:
                response.close()
            content_type = _media_type(response.headers.get("content-type", ""))
            return FetchedPage(
                url=_display(start),
                final_url=_display(current),
                name=page_name(current.path, content_type, current.host),
                data=data,
                content_type=content_type,
            )
    raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises


def page_name(path: str, content_type: str, host: str) -> str:
    """A file name for the source: the URL path's last segment, or index.html for a folder,
    given the extension its content type implies when it has none."""
    segment = unquote(path.rsplit("/", 1)[-1]).replace("\\", "_").strip()
    segment = re.sub(r"[\x00-\x1f/]", "_", segment)
    extension = _EXTENSIONS.get(content_type, "")
    if not segment or segment in {".", ".."}:
        return "index" + extension if extension else host
    if extension and not PurePosixPath(segment).suffix:
        return segment + extension
    return segment


# --- addresses ----------------------------------------------------------------------------


def address_problem(address: IPAddress) -> tuple[str, bool] | None:
    """What makes an address unsafe to fetch from, and whether `web.allow_private` permits it;
    None for a public address."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(address)
        if embedded is not None:
            return address_problem(embedded)
    if address in _METADATA:
        return "a cloud metadata address", False
    if address.is_unspecified:
        return "an unspecified address", False
    if address.is_loopback:
        return "a loopback address", True
    if address.is_link_local:
        return "a link-local address", True
    if address.is_multicast:
        return "a multicast address", False
    if address.is_reserved:
        return "a reserved address", False
    if address in _CGNAT:
        return "a shared (CGNAT) address", True
    if address.is_private:
        return "a private address", True
    if not address.is_global:
        return "not a public address", True
    return None


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one stands for (mapped, 6to4, NAT64, IPv4-compatible)."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _NAT64 or (address in _IPV4_COMPATIBLE and int(address) > 1):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def check_host(host: str, port: int, settings: WebSettings, deadline: float) -> list[IPAddress]:
    """Every address `host` resolves to, refusing them all when any one is unsafe."""
    addresses = resolve(host, port, deadline, settings.timeout_s)
    if _host_allowed(host, settings):
        return addresses
    for address in addresses:
        problem = address_problem(address)
        if problem is None or _network_allowed(address, settings):
            continue
        kind, overridable = problem
        if overridable and settings.allow_private:
            continue
        subject = f"{address} is" if host == str(address) else f"{host} is {address},"
        setting = "web.allow_private" if overridable else "web.allowed_hosts"
        raise FetchError(f"refused: {subject} {kind} ({setting})")
    return addresses


def resolve(host: str, port: int, deadline: float, timeout_s: float) -> list[IPAddress]:
    """The host's addresses, the literal one for an IP; within the deadline."""
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass
    result: list[Any] = []
    failure: list[BaseException] = []

    def lookup() -> None:
        try:
            result.extend(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM))
        except (OSError, UnicodeError) as error:
            failure.append(error)

    # getaddrinfo has no timeout of its own: wait for it on a daemon thread, at most until the
    # deadline (an abandoned lookup ends by itself when the resolver gives up).
    worker = threading.Thread(target=lookup, name="polyrag-resolve", daemon=True)
    worker.start()
    worker.join(max(0.0, deadline - time.monotonic()))
    if worker.is_alive():
        raise FetchError(f"timed out after {timeout_s:g} s resolving {host}")
    if failure or not result:
        raise FetchError(
            f"cannot resolve {host} (no network, or no such host)",
            hint="check the address and the network connection",
        )
    addresses: dict[IPAddress, None] = {}
    for _family, _type, _proto, _name, sockaddr in result:
        addresses[ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])] = None
    return list(addresses)


def _host_allowed(host: str, settings: WebSettings) -> bool:
    return host.lower().rstrip(".") in {h.lower().rstrip(".") for h in settings.allowed_hosts}


def _network_allowed(address: IPAddress, settings: WebSettings) -> bool:
    for entry in settings.allowed_hosts:
        try:
            if address in ipaddress.ip_network(entry, strict=False):
                return True
        except ValueError:  # a host name, matched by _host_allowed
            continue
    return False


# --- requests -----------------------------------------------------------------------------


def _parse(url: str) -> Any:
    import httpx2 as httpx

    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, ValueError, TypeError) as error:
        raise FetchError(f"not a valid URL: {_first_line(error)}") from None
    if parsed.scheme not in {"http", "https"}:
        raise FetchError(f"not an http(s) URL: {parsed.scheme or 'no'} scheme")
    if not parsed.host:
        raise FetchError("not a valid URL: no host")
    return parsed


def _redirect_target(current: Any, location: str) -> Any:
    import httpx2 as httpx

    try:
        target = current.join(location)
    except (httpx.InvalidURL, ValueError, TypeError) as error:
        raise FetchError(f"redirected to an invalid URL: {_first_line(error)}") from None
    if target.scheme not in {"http", "https"}:
        raise FetchError(f"redirected to a URL that is not http(s): {target.scheme} scheme")
    # Credentials written in a redirect target are never used.
    return target.copy_with(username=None, password=None).copy_with(fragment=None)


def _open(transport: Any, url: Any, start: Any, settings: WebSettings, deadline: float) -> Any:
    """Send one GET to a checked address of `url`'s host; the response's body is unread."""
    import httpx2 as httpx

    host = url.raw_host.decode("ascii")  # IDNA-encoded; an IPv6 literal without brackets
    port = url.port or (443 if url.scheme == "https" else 80)
    addresses = check_host(host, port, settings, deadline)
    headers = {
        "Host": url.netloc.decode("ascii"),
        "User-Agent": settings.user_agent,
        "Accept": _ACCEPT,
        "Accept-Encoding": "gzip, deflate",
    }
    if (start.username or start.password) and _origin(url) == _origin(start):
        token = base64.b64encode(f"{start.username}:{start.password}".encode()).decode("ascii")
        headers["Authorization"] = f"Basic {token}"
    last_error: Exception | None = None
    for address in addresses[:_CONNECT_ATTEMPTS]:
        remaining = _remaining(deadline, settings)
        timeouts = {"connect": remaining, "read": remaining, "write": remaining, "pool": remaining}
        pinned = url.copy_with(host=str(address), username=None, password=None, fragment=None)
        request = httpx.Request(
            "GET", pinned, headers=headers, extensions={"timeout": timeouts, "sni_hostname": host}
        )
        try:
            return transport.handle_request(request)
        except httpx.TimeoutException:
            raise FetchError(f"timed out after {settings.timeout_s:g} s") from None
        except httpx.ConnectError as error:
            last_error = error
        except httpx.HTTPError as error:
            raise FetchError(f"{host}: {_first_line(error)}") from None
    raise FetchError(f"cannot connect to {host}:{port}: {_first_line(last_error)}")


def _read_body(response: Any, settings: WebSettings, deadline: float) -> bytes:
    """The decoded body, refused past `max_bytes` or the deadline."""
    import httpx2 as httpx

    limit = settings.max_bytes
    declared = response.headers.get("content-length", "")
    encoding = response.headers.get("content-encoding", "identity").strip().lower()
    if declared.isdigit() and encoding in {"", "identity"} and int(declared) > limit:
        raise FetchError(f"larger than {_size(limit)} (web.max_bytes)")
    decoder = _Decoder(encoding, limit)
    # httpcore takes the read timeout once per body, not per read, so a server that sends a
    # little and then stalls could outlast the deadline: a watchdog shuts the socket down when
    # the deadline passes, which ends the blocked read at once.
    stream = response.extensions.get("network_stream")
    sock = stream.get_extra_info("socket") if stream is not None else None
    watchdog = threading.Timer(_remaining(deadline, settings), _shut_down, args=(sock,))
    watchdog.daemon = True
    watchdog.start()
    try:
        for raw in response.iter_raw():  # each piece as it arrives: no waiting to fill a buffer
            decoder.feed(raw)
            _remaining(deadline, settings)
        return decoder.finish()
    except httpx.TimeoutException:
        raise FetchError(f"timed out after {settings.timeout_s:g} s") from None
    except httpx.HTTPError as error:
        _remaining(deadline, settings)  # a read ended by the watchdog is a timeout
        raise FetchError(f"the download broke off: {_first_line(error)}") from None
    finally:
        watchdog.cancel()


def _shut_down(sock: socket.socket | None) -> None:
    if sock is not None:
        with contextlib.suppress(OSError):
            # The plain socket's shutdown, also under TLS: it wakes a thread blocked in recv.
            socket.socket.shutdown(sock, socket.SHUT_RDWR)


class _Decoder:
    """Content-Encoding undone in bounded steps, stopping as soon as the output passes the cap."""

    def __init__(self, encoding: str, limit: int) -> None:
        if encoding in {"", "identity"}:
            self._inflater = None
        elif encoding in {"gzip", "x-gzip"}:
            self._inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            self._inflater = zlib.decompressobj(zlib.MAX_WBITS)
        else:
            raise FetchError(f"unsupported content encoding {encoding!r}")
        self._encoding = encoding
        self._limit = limit
        self._parts: list[bytes] = []
        self._size = 0
        self._first = True

    def feed(self, raw: bytes) -> None:
        if self._inflater is None:
            self._add(raw)
            return
        if self._first and self._encoding == "deflate" and raw and (raw[0] & 0x0F) != 8:
            self._inflater = zlib.decompressobj(-zlib.MAX_WBITS)  # raw deflate, no zlib header
        self._first = False
        data = raw
        try:
            while data:
                out = self._inflater.decompress(data, self._limit - self._size + 1)
                self._add(out)
                data = self._inflater.unconsumed_tail
        except zlib.error:
            raise FetchError(f"the {self._encoding} body is corrupt") from None

    def finish(self) -> bytes:
        if self._inflater is not None:
            self._add(self._inflater.flush())
        return b"".join(self._parts)

    def _add(self, part: bytes) -> None:
        self._size += len(part)
        if self._size > self._limit:
            raise FetchError(f"larger than {_size(self._limit)} (web.max_bytes)")
        self._parts.append(part)


# --- small helpers ------------------------------------------------------------------------


def _remaining(deadline: float, settings: WebSettings) -> float:
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise FetchError(f"timed out after {settings.timeout_s:g} s")
    return remaining


def _origin(url: Any) -> tuple[str, str, int | None]:
    return url.scheme, url.host, url.port


def _display(url: Any) -> str:
    return str(url.copy_with(username=None, password=None, fragment=None))


def _media_type(header: str) -> str:
    return header.split(";", 1)[0].strip().lower()


def _reason(response: Any) -> str:
    phrase = response.reason_phrase
    return f" {phrase}" if phrase else ""


def _size(count: int) -> str:
    if count >= 2**20:
        return f"{count / 2**20:.3g} MB"
    if count >= 2**10:
        return f"{count / 2**10:.3g} KB"
    return f"{count} bytes"


def _first_line(error: object) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__
