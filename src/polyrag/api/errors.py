"""Errors as JSON: `{"error": one line, "hint": what to do, "retryable": bool}`, never a
traceback. The status says whose the fault is: the request's (4xx) or a part's (5xx). Under the
OpenAI-compatible `/v1/` the body takes OpenAI's shape, `{"error": {"message", "type", ...}}`,
which its clients read."""

from __future__ import annotations

import logging
from collections.abc import Mapping

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from polyrag import errors
from polyrag.api.deps import ForbiddenError
from polyrag.api.jobs import JobNotFoundError
from polyrag.api.routers.session import InvalidTokenError
from polyrag.api.workspaces import (
    WorkspaceBusyError,
    WorkspaceExistsError,
    WorkspaceNotFoundError,
)
from polyrag.chats import ChatNotFoundError, MessageNotFoundError
from polyrag.view import PageNotFoundError, TableNotFoundError

log = logging.getLogger("polyrag.api")

_STATUS: tuple[tuple[type[errors.PolyragError], int], ...] = (
    (InvalidTokenError, 401),
    (ForbiddenError, 403),
    (WorkspaceNotFoundError, 404),
    (JobNotFoundError, 404),
    (ChatNotFoundError, 404),
    (MessageNotFoundError, 404),
    (PageNotFoundError, 404),
    (TableNotFoundError, 404),
    (errors.SourceNotFoundError, 404),
    (WorkspaceExistsError, 409),
    (WorkspaceBusyError, 409),
    (errors.UploadTooLargeError, 413),
    (errors.UploadError, 400),
    (errors.ConfigError, 400),
    (errors.FetchError, 400),
    (errors.ParseError, 422),
    (errors.ProviderRejectedError, 502),
    (errors.LLMError, 503),
    (errors.ModelFileError, 503),
    (errors.MissingDependencyError, 503),
)


def status_of(error: errors.PolyragError) -> int:
    for kind, status in _STATUS:
        if isinstance(error, kind):
            return status
    return 500


def body(message: str, hint: str = "", retryable: bool = False) -> dict[str, object]:
    return {"error": " ".join(message.split()), "hint": hint, "retryable": retryable}


def respond(
    request: Request,
    status: int,
    message: str,
    hint: str = "",
    retryable: bool = False,
    headers: Mapping[str, str] | None = None,
) -> JSONResponse:
    shown = body(message, hint, retryable)
    if request.url.path.startswith("/v1/"):  # OpenAI's clients read {"error": {"message"}}
        kind = "invalid_request_error" if status < 500 else "server_error"
        detail = {"message": shown.pop("error"), "type": kind, "code": status, **shown}
        shown = {"error": detail}
    return JSONResponse(shown, status_code=status, headers=headers)


def install(app: FastAPI) -> None:
    """Register the handlers that turn every error into one JSON line."""

    @app.exception_handler(errors.PolyragError)
    async def polyrag_error(request: Request, error: errors.PolyragError) -> JSONResponse:
        return respond(request, status_of(error), str(error), error.hint, error.retryable)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, error: RequestValidationError) -> JSONResponse:
        first = error.errors()[0] if error.errors() else {}
        where = ".".join(str(part) for part in first.get("loc", ()) if part != "body")
        message = f"invalid request: {where + ': ' if where else ''}{first.get('msg', 'malformed')}"
        return respond(request, 422, message, "see the API reference at /docs")

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> JSONResponse:
        return respond(request, error.status_code, str(error.detail), headers=error.headers)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, error: Exception) -> JSONResponse:
        log.exception("unexpected error")  # the log keeps the traceback; the caller gets a line
        message = f"internal error: {type(error).__name__}"
        return respond(request, 500, message, "the server log has the details")
