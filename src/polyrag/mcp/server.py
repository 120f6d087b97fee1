"""The MCP server: the engine's operations as tools an assistant can call.

Tools: `search` (passages with where they are), `ask` (an answer with its citations and their
locators), `list_sources`, `get_passage` (a passage, and the ones around it, by its chunk id),
and `ingest` (only with `server.mcp_ingest`: it reads files on the server's machine). Every
tool takes the workspace (`default`: the home). Over HTTP, the caller's token decides which
workspaces it opens and whether it may ingest, as for the REST API. A failure comes back as an
MCP tool error whose text names the problem and the hint.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, Literal, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from polyrag import __version__
from polyrag.api.access import Grant
from polyrag.api.deps import ForbiddenError
from polyrag.api.workspaces import DEFAULT, Workspaces
from polyrag.engine import Engine
from polyrag.errors import PolyragError, SourceNotFoundError
from polyrag.settings import AskMode
from polyrag.types import Filter, Modality

_F = TypeVar("_F", bound=Callable[..., Any])

INSTRUCTIONS = (
    "polyrag answers questions from the user's own documents (PDFs, scans, Office files, "
    "spreadsheets, web pages, e-mail, pictures, recordings) and cites the exact place: page "
    "and region, slide, sheet and rows, or the moment in a recording. Use `ask` for an answer "
    "with citations, `search` for passages, `get_passage` to read around a passage. When the "
    "sources do not hold the answer, `ask` says so: do not answer from elsewhere."
)


def build_server(workspaces: Workspaces, *, allow_ingest: bool = False) -> MCPServer:
    """An MCP server over the workspaces' engines (the same engines the API serves)."""
    server = MCPServer("polyrag", title="polyrag", version=__version__, instructions=INSTRUCTIONS)

    @server.tool()
    @_as_tool_errors
    def search(
        query: str,
        k: int = 8,
        modalities: list[Literal["text", "table", "picture", "audio"]] | None = None,
        workspace: str = DEFAULT,
        ctx: Context | None = None,
    ) -> dict[str, Any]:
        """The passages that best match `query`, each with its source, its place (page and
        region, slide, sheet and rows, time in a recording) and its text."""
        where = Filter(modalities=tuple(Modality(m) for m in modalities)) if modalities else None
        engine = _engine(workspaces, ctx, workspace)
        result = engine.search(query, k=max(1, min(k, 50)), where=where)
        return {"hits": [{"rank": n, **hit.to_dict()} for n, hit in enumerate(result.hits, 1)]}

    @server.tool()
    @_as_tool_errors
    def ask(
        question: str,
        mode: AskMode | None = None,
        workspace: str = DEFAULT,
        ctx: Context | None = None,
    ) -> dict[str, Any]:
        """Answer `question` only from the workspace's sources, citing them as [n]; each
        citation names its source and place. A refusal ("I cannot find this…") says why in
        `refusal_explained`. `mode`: fast (one search), agent (plans, computes with SQL and a
        calculator, checks itself), auto (the agent when the question needs it) or fixed (the
        agent's steps in a set order, no model decision)."""
        answer = _engine(workspaces, ctx, workspace).ask(question, mode=mode)
        shown = answer.to_dict()
        shown.pop("steps", None)  # the trace is long; the steps' count says what it took
        shown["steps_taken"] = len(answer.steps)
        return shown

    @server.tool()
    @_as_tool_errors
    def list_sources(workspace: str = DEFAULT, ctx: Context | None = None) -> dict[str, Any]:
        """Every source indexed in the workspace, with its status, chunks, pages and error."""
        engine = _engine(workspaces, ctx, workspace)
        return {"sources": [entry.to_dict() for entry in engine.sources()]}

    @server.tool()
    @_as_tool_errors
    def get_passage(
        source_id: str,
        chunk_id: str,
        around: int = 0,
        workspace: str = DEFAULT,
        ctx: Context | None = None,
    ) -> dict[str, Any]:
        """The passage `chunk_id` of `source_id` (as `search` and `ask` give them) with its
        place, and `around` passages before and after it, in the order of the source."""
        chunks = _engine(workspaces, ctx, workspace).store.chunks_of(source_id)
        chunks.sort(key=lambda chunk: chunk.ordinal)
        index = next((i for i, c in enumerate(chunks) if c.chunk_id == chunk_id), None)
        if index is None:
            raise SourceNotFoundError(
                f"source {source_id!r} has no passage {chunk_id!r}",
                hint="take the ids from a search hit or a citation",
            )
        wanted = max(0, min(around, 5))
        shown = chunks[max(0, index - wanted) : index + wanted + 1]
        return {
            "passages": [
                {
                    "chunk_id": chunk.chunk_id,
                    "cited": chunk.chunk_id == chunk_id,
                    "path": chunk.path,
                    "modality": chunk.modality.value,
                    "locator": chunk.locator.to_dict(),
                    "where": chunk.locator.describe(),
                    "text": chunk.text,
                }
                for chunk in shown
            ]
        }

    if allow_ingest:

        @server.tool()
        @_as_tool_errors
        def ingest(
            paths: list[str], workspace: str = DEFAULT, ctx: Context | None = None
        ) -> dict[str, Any]:
            """Index files, folders and URLs (paths on the server's machine); unchanged files
            are skipped, each failure is reported in one line."""
            report = _engine(workspaces, ctx, workspace, writes=True).ingest(paths)
            return {"summary": report.summary(), **report.to_dict()}

    return server


def _engine(
    workspaces: Workspaces, ctx: Context | None, workspace: str, *, writes: bool = False
) -> Engine:
    """The workspace's engine, if the token of the HTTP request that called the tool opens it
    (and, for a write, is not read-only); over stdio or in memory there is no token to check."""
    grant = _grant(ctx)
    if grant is not None and not grant.allows(workspace):
        raise ForbiddenError(f"this token does not open workspace {workspace!r}")
    if grant is not None and writes and grant.read_only:
        raise ForbiddenError("this token may read and ask, not add sources")
    return workspaces.engine(workspace)


def _grant(ctx: Context | None) -> Grant | None:
    """What the calling request's token allows, as the access middleware left it."""
    if ctx is None:
        return None
    try:
        request = ctx.request_context.request
    except ValueError:  # not called within a request
        return None
    scope = getattr(request, "scope", None) or {}
    grant = (scope.get("state") or {}).get("grant")
    return grant if isinstance(grant, Grant) else None


def _as_tool_errors(function: _F) -> _F:
    """polyrag's errors as MCP tool errors: the problem and what to do, in one line."""

    @wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except PolyragError as error:
            raise ToolError(error.one_line()) from None

    return call  # type: ignore[return-value]
