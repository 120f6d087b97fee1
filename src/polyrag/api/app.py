"""The REST API: `create_app(settings)` builds it, with no module-level state.

    uvicorn --factory 'polyrag.api.app:app_from_environment'   # or: polyrag serve

Every resource is a router under `/api/v1` (workspaces, sources and ingest jobs, search, ask,
chats) plus `/health`, the provider list and the OpenAI-compatible `/v1/chat/completions`;
errors are JSON with a hint, never a traceback; MCP over streamable HTTP is at `/mcp` and the
web app at `/`. The OpenAPI
description is at `/openapi.json` and readable at `/docs`. Endpoints that call the engine are
plain functions, run in the server's thread pool, so a slow answer never blocks the others.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from polyrag import __version__
from polyrag.api import errors
from polyrag.api.access import RequireTokens, require_tokens_off_loopback, tokens_of
from polyrag.api.jobs import Jobs
from polyrag.api.routers import (
    ask,
    chats,
    completions,
    health,
    jobs,
    search,
    session,
    sources,
    workspaces,
)
from polyrag.api.routers.sources import resume_uploads
from polyrag.api.workspaces import Workspaces
from polyrag.mcp.server import build_server
from polyrag.settings import Settings, load_settings
from polyrag.web import STATIC


def create_app(settings: Settings) -> FastAPI:
    """The API over the workspaces of `settings.home`; engines open on first use and close
    when the app shuts down. Listening (`server.host`) on an address other machines reach, it
    requires access tokens on every request, and refuses to start without any."""
    registry = Workspaces(settings)
    tokens = tokens_of(Path(settings.home))
    guarded = require_tokens_off_loopback(settings.server.host, tokens)
    mcp = build_server(registry, allow_ingest=settings.server.mcp_ingest)
    mcp_http = mcp.streamable_http_app(streamable_http_path="/mcp", host=settings.server.host)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        resume_uploads(registry, app.state.jobs)  # what a stopped server left unindexed
        try:
            async with mcp.session_manager.run():  # the MCP sessions live as long as the app
                yield
        finally:
            registry.close()
            tokens.close()

    app = FastAPI(
        title="polyrag",
        version=__version__,
        summary="Answers from your own documents, with citations.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.workspaces = registry
    app.state.jobs = Jobs()
    app.state.tokens = tokens
    errors.install(app)
    if guarded:
        app.add_middleware(RequireTokens, tokens=tokens)
    for module in (health, session, workspaces, sources, jobs, search, ask, chats, completions):
        app.include_router(module.router)
    app.router.routes.extend(mcp_http.routes)  # MCP over streamable HTTP at /mcp
    app.mount("/", StaticFiles(directory=STATIC, html=True), name="web")  # after the API's routes
    return app


def app_from_environment() -> FastAPI:
    """The app for the home in POLYRAG_HOME (or ./.polyrag), for an ASGI server's --factory."""
    return create_app(load_settings())
