"""Retrieval alone: the best passages with where they are."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from polyrag.api.deps import EngineDep
from polyrag.api.schemas import SearchBody

router = APIRouter(prefix="/api/v1/workspaces/{workspace}", tags=["search"])


@router.post("/search", summary="Search the workspace's sources")
def search(body: SearchBody, engine: EngineDep) -> dict[str, Any]:
    result = engine.search(body.query, k=body.k, where=body.where(), mode=body.mode)
    return {
        "query": body.query,
        "hits": [{"rank": rank, **hit.to_dict()} for rank, hit in enumerate(result.hits, 1)],
        "timings_ms": {key: round(value, 2) for key, value in result.timings_ms.items()},
    }
