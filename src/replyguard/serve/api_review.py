"""The review queue for a person: GET /v1/review (the open items, newest first), GET
/v1/review/{item_id} (one item with its dialogue, every attempt and every verdict) and POST
/v1/review/{item_id}/resolve (close it, with a note)."""

from __future__ import annotations

import asyncio
from typing import Any, Literal

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, Field

from replyguard.serve.api_check import ERRORS
from replyguard.serve.auth import require_key
from replyguard.serve.errors import ApiError
from replyguard.serve.guard import ProxyDep

router = APIRouter(dependencies=[Depends(require_key)], tags=["review"])


class Resolution(BaseModel):
    model_config = {"extra": "forbid"}
    note: str | None = Field(default=None, max_length=10_000)


@router.get("/v1/review", responses=ERRORS)
async def items(
    state: ProxyDep,
    status: Literal["open", "resolved", "all"] = "open",
    limit: int = Query(default=100, ge=1, le=1000),
) -> dict[str, Any]:
    found = await asyncio.to_thread(state.reviews.items, None if status == "all" else status, limit)
    summaries = [{k: v for k, v in item.items() if k != "attempts"} for item in found]
    return {"items": summaries}


@router.get("/v1/review/{item_id}", responses={**ERRORS, 404: {"description": "no such item"}})
async def item(item_id: str, state: ProxyDep) -> dict[str, Any]:
    found = await asyncio.to_thread(state.reviews.get, item_id)
    if found is None:
        raise ApiError(404, f"item_id: no review item {item_id!r}", param="item_id")
    return found


@router.post(
    "/v1/review/{item_id}/resolve", responses={**ERRORS, 404: {"description": "no such item"}}
)
async def resolve(item_id: str, body: Resolution, state: ProxyDep) -> dict[str, str]:
    if not await asyncio.to_thread(state.reviews.resolve, item_id, body.note):
        raise ApiError(404, f"item_id: no review item {item_id!r}", param="item_id")
    return {"id": item_id, "status": "resolved"}
