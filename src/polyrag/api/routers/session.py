"""Signing the web app in with an access token (a server reachable from other machines)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from polyrag.api.access import COOKIE, TokenStore
from polyrag.errors import PolyragError

router = APIRouter(prefix="/api/v1/session", tags=["session"])


class InvalidTokenError(PolyragError):
    hint = "ask the server's operator for a token (`polyrag tokens add`)"


class SessionBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    token: str = Field(min_length=1, max_length=200)


@router.post("", summary="Sign in: the token is kept in a cookie for the web app")
def sign_in(body: SessionBody, request: Request, response: Response) -> dict[str, Any]:
    tokens: TokenStore = request.app.state.tokens
    grant = tokens.verify(body.token.strip())
    if grant is None:
        raise InvalidTokenError("that token is not valid")
    response.set_cookie(
        COOKIE,
        body.token.strip(),
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        max_age=30 * 24 * 3600,
    )
    return grant.to_dict()


@router.delete("", status_code=204, summary="Sign out")
def sign_out() -> Response:
    response = Response(status_code=204)
    response.delete_cookie(COOKIE)
    return response
