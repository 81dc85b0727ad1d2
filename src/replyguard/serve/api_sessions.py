"""Sessions kept server-side: POST /v1/sessions/{id}/turns, POST /v1/sessions/{id}/check,
GET and DELETE /v1/sessions/{id}. Turns live in the SessionStore; a worker keeps each session's
tracker between checks and rebuilds it from the stored turns when it has none (another worker,
a restart, a reload), with the same result. The JSON of the session's tool turns (and a check's
`tool_results`) is checked as knowledge over the served KB (replyguard.tool_knowledge)."""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Depends, Path
from fastapi.responses import JSONResponse

from replyguard.serve import worker
from replyguard.serve.api_check import ERRORS, require_ready, respond
from replyguard.serve.api_models import (
    CheckResponse,
    SessionCheckRequest,
    SessionInfo,
    TurnsRequest,
    TurnsResponse,
)
from replyguard.serve.auth import require_key
from replyguard.serve.errors import ApiError
from replyguard.serve.limits import check_reply_length
from replyguard.serve.service import ServiceDep
from replyguard.tool_knowledge import tool_results_from_messages

router = APIRouter(dependencies=[Depends(require_key)], tags=["sessions"])

SessionId = Annotated[
    str,
    Path(
        pattern=r"^[A-Za-z0-9._:-]{1,128}$",
        description="letters, digits and . _ : - (at most 128)",
    ),
]


def _missing(session_id: str) -> ApiError:
    return ApiError(
        404,
        f"session {session_id!r} not found (never started, deleted, or expired)",
        param="session_id",
        code="session_not_found",
    )


@router.post("/v1/sessions/{session_id}/turns", response_model=TurnsResponse, responses=ERRORS)
async def add_turns(
    session_id: SessionId, body: TurnsRequest, service: ServiceDep
) -> TurnsResponse:
    given = [t.model_dump(mode="json", exclude_none=True) for t in body.turns]
    turns = await asyncio.to_thread(service.store.append, session_id, given)
    return TurnsResponse(id=session_id, turns=len(turns), added=turns[len(turns) - len(given) :])


@router.post("/v1/sessions/{session_id}/check", response_model=CheckResponse, responses=ERRORS)
async def check_in_session(
    session_id: SessionId, body: SessionCheckRequest, service: ServiceDep
) -> JSONResponse:
    check_reply_length("response", body.response, service.config.max_reply_chars)
    require_ready(service)
    stored = await asyncio.to_thread(service.store.get, session_id)
    if stored is None:
        raise _missing(session_id)
    request = body.model_dump(exclude_unset=True)
    # the session's tool turns are knowledge, as tool messages are on the other routes
    told = tool_results_from_messages(
        [{"role": t["speaker"], "content": t["text"]} for t in stored["turns"]]
    )
    request["tool_results"] = [*told, *body.tool_results]
    answer = await service.pool.call(worker.check_session, session_id, stored["turns"], request)
    return respond(service, answer)


@router.get("/v1/sessions/{session_id}", response_model=SessionInfo, responses=ERRORS)
async def get_session(session_id: SessionId, service: ServiceDep) -> JSONResponse:
    require_ready(service)
    stored = await asyncio.to_thread(service.store.get, session_id)
    if stored is None:
        raise _missing(session_id)
    state = await service.pool.call(worker.session_state, session_id, stored["turns"])
    return JSONResponse({**stored, "state": state})


@router.delete("/v1/sessions/{session_id}", responses=ERRORS)
async def delete_session(session_id: SessionId, service: ServiceDep) -> dict[str, object]:
    if not await asyncio.to_thread(service.store.delete, session_id):
        raise _missing(session_id)
    return {"id": session_id, "deleted": True}
