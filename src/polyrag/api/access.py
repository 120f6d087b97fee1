"""Access tokens for a server reachable from other machines.

On a loopback address the server needs no credentials. On any other it starts only when tokens
exist, and then every request — the API, the evidence files, MCP, the web app — carries one: as
`Authorization: Bearer <token>`, or for the web app as a cookie set by signing in at `/login.html`.
A token may be limited to some workspaces and to reading (asking and searching, not adding or
deleting). Tokens are stored as SHA-256 hashes under the home and shown once, when made; they are
never logged, echoed or written anywhere else.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import re
import secrets
import socket
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from polyrag.errors import ConfigError, PolyragError

COOKIE = "polyrag_token"
_PREFIX = "prt_"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$")
# What a read-only token may still POST: ask, search and chat (deleting stays out of reach).
_READS = re.compile(
    r"^/api/v1/workspaces/[^/]+/(search|ask|ask/stream|chats(/.*)?)$|^/v1/chat/completions$"
    r"|^/api/v1/session$"
)
_OPEN = ("/login.html", "/app.css", "/api/v1/session", "/health")  # sign-in needs them

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


class TokenExistsError(PolyragError):
    hint = "remove it first, or choose another name"


@dataclass(frozen=True)
class Grant:
    """What one token allows."""

    name: str
    workspaces: frozenset[str] | None  # None: every workspace
    read_only: bool

    def allows(self, workspace: str) -> bool:
        return self.workspaces is None or workspace in self.workspaces

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "workspaces": sorted(self.workspaces) if self.workspaces is not None else None,
            "read_only": self.read_only,
        }


class TokenStore:
    """The home's tokens, by the hash of their secret."""

    def __init__(self, file: Path) -> None:
        file.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(file), isolation_level=None, check_same_thread=False)
        self._lock = threading.Lock()
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS tokens (name TEXT PRIMARY KEY, sha256 TEXT UNIQUE NOT "
            "NULL, workspaces TEXT, read_only INTEGER NOT NULL, created_at REAL NOT NULL)"
        )

    def add(
        self, name: str, *, workspaces: list[str] | None = None, read_only: bool = False
    ) -> str:
        """Make a token and return its secret (the only time it is shown)."""
        if not _NAME.match(name):
            raise ConfigError(
                f"invalid token name {name!r}",
                hint="use 1-63 letters, digits, '.', '-' or '_'",
            )
        secret = _PREFIX + secrets.token_urlsafe(32)
        scope = json.dumps(sorted(set(workspaces))) if workspaces else None
        with self._lock:
            try:
                self._db.execute(
                    "INSERT INTO tokens VALUES (?, ?, ?, ?, ?)",
                    (name, _hash(secret), scope, int(read_only), time.time()),
                )
            except sqlite3.IntegrityError:
                raise TokenExistsError(f"a token named {name!r} exists already") from None
        return secret

    def grants(self) -> list[Grant]:
        with self._lock:
            rows = self._db.execute(
                "SELECT name, workspaces, read_only FROM tokens ORDER BY name"
            ).fetchall()
        return [_grant(*row) for row in rows]

    def remove(self, name: str) -> None:
        with self._lock:
            gone = self._db.execute("DELETE FROM tokens WHERE name = ?", (name,)).rowcount
        if not gone:
            raise ConfigError(f"no token named {name!r}", hint="see `polyrag tokens list`")

    def verify(self, secret: str) -> Grant | None:
        """The grant of a presented token, or None."""
        if not secret.startswith(_PREFIX):
            return None
        digest = _hash(secret)
        with self._lock:
            row = self._db.execute(
                "SELECT name, workspaces, read_only, sha256 FROM tokens WHERE sha256 = ?",
                (digest,),
            ).fetchone()
        if row is None or not hmac.compare_digest(row[3], digest):
            return None
        return _grant(row[0], row[1], row[2])

    def __bool__(self) -> bool:
        with self._lock:
            return self._db.execute("SELECT 1 FROM tokens LIMIT 1").fetchone() is not None

    def close(self) -> None:
        with self._lock:
            self._db.close()


def tokens_of(home: Path) -> TokenStore:
    return TokenStore(home / "tokens.sqlite")


def require_tokens_off_loopback(host: str, tokens: TokenStore) -> bool:
    """Whether requests must carry tokens: on an address other machines reach. Such a server
    refuses to start without tokens."""
    if is_loopback(host):
        return False
    if not tokens:
        raise ConfigError(
            f"refusing to listen on {host}: it is reachable from other machines and no access "
            "tokens are configured",
            hint="make one with `polyrag tokens add NAME`, or listen on 127.0.0.1 (the default)",
        )
    return True


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1 or a name that resolves to loopback addresses only ("localhost")."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        pass
    try:
        found = {str(info[4][0]) for info in socket.getaddrinfo(host, None)}
    except OSError:
        return False
    return bool(found) and all(ipaddress.ip_address(a.split("%")[0]).is_loopback for a in found)


class RequireTokens:
    """ASGI middleware: every request carries a valid token (a bearer header or the sign-in
    cookie); the grant is left in `scope["state"]["grant"]` for the routes that check a
    workspace named in the body, and for the MCP tools. A workspace outside the grant and a write
    by a read-only token are refused."""

    def __init__(self, app: App, tokens: TokenStore) -> None:
        self.app = app
        self.tokens = tokens

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        path: str = scope.get("path", "")
        if path in _OPEN:
            await self.app(scope, receive, send)
            return
        grant = self.tokens.verify(_presented(scope))
        if grant is None and scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        if grant is None:
            if scope["type"] == "http" and scope.get("method") == "GET" and _wants_page(scope):
                await _respond(send, 303, None, {"location": "/login.html"})
            else:
                await _respond(
                    send,
                    401,
                    "a valid access token is required",
                    {"www-authenticate": "Bearer"},
                    hint="send 'Authorization: Bearer <token>'; `polyrag tokens add` makes one",
                )
            return
        refusal = _refusal(grant, scope)
        if refusal is not None:
            await _respond(send, 403, refusal, hint="ask for a token that allows it")
            return
        scope.setdefault("state", {})["grant"] = grant
        await self.app(scope, receive, send)


def _refusal(grant: Grant, scope: Scope) -> str | None:
    path: str = scope.get("path", "")
    method = scope.get("method", "GET")
    found = re.match(r"^/api/v1/workspaces/([^/]+)", path)
    if found and not grant.allows(found.group(1)):
        return f"this token does not open workspace {found.group(1)!r}"
    if path.startswith("/mcp"):  # each tool checks the workspace it is called for
        return None
    reading = method in ("GET", "HEAD", "OPTIONS") or (method == "POST" and _READS.match(path))
    if grant.read_only and not reading:
        return "this token may read and ask, not change the sources, chats or workspaces"
    return None


def _presented(scope: Scope) -> str:
    headers = {key.decode("latin-1").lower(): value for key, value in scope.get("headers", [])}
    authorization = headers.get("authorization", b"").decode("latin-1")
    if authorization.lower().startswith("bearer "):
        return authorization[7:].strip()
    for part in headers.get("cookie", b"").decode("latin-1").split(";"):
        key, _, value = part.strip().partition("=")
        if key == COOKIE:
            return value
    return ""


def _wants_page(scope: Scope) -> bool:
    path: str = scope.get("path", "")
    return not path.startswith(("/api/", "/v1/", "/mcp"))


async def _respond(
    send: Send,
    status: int,
    message: str | None,
    headers: dict[str, str] | None = None,
    *,
    hint: str = "",
) -> None:
    body = b""
    fields = [(k.encode(), v.encode()) for k, v in (headers or {}).items()]
    if message is not None:
        body = json.dumps({"error": message, "hint": hint, "retryable": False}).encode()
        fields.append((b"content-type", b"application/json"))
    fields.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": fields})
    await send({"type": "http.response.body", "body": body})


def _grant(name: str, workspaces: str | None, read_only: int) -> Grant:
    scope = frozenset(json.loads(workspaces)) if workspaces else None
    return Grant(name, scope, bool(read_only))


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()
