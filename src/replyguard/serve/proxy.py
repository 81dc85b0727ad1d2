"""POST /v1/chat/completions and GET /v1/models: an OpenAI-compatible proxy in front of the
configured upstream. It forwards the request, checks the upstream's reply in the dialogue of
`messages` and acts on the recommendation (replyguard.serve.actions); `stream: true` is answered
sentence by sentence (replyguard.serve.streaming). Upstream errors pass through with their
status and envelope; an unreachable upstream is 502, one that does not answer in time 504.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from replyguard.serve.actions import act
from replyguard.serve.api_check import ERRORS, require_ready
from replyguard.serve.auth import require_key
from replyguard.serve.errors import ApiError
from replyguard.serve.fastpath import FastRoute
from replyguard.serve.guard import (
    Conversation,
    ProxyDep,
    ask_upstream,
    proxy_lifespan,
    upstream_failure,
)
from replyguard.serve.service import ServiceDep
from replyguard.serve.streaming import stream_completion
from replyguard.serve.upstream import Unreachable, UpstreamError

router = APIRouter(dependencies=[Depends(require_key)], tags=["proxy"], lifespan=proxy_lifespan)

PROXY_ERRORS = {
    **ERRORS,
    404: {"description": "no upstream is configured"},
    502: {"description": "the upstream cannot be reached"},
    504: {"description": "the upstream did not answer in time"},
}


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[dict[str, Any]] | None = None


class ChatRequest(BaseModel):
    """An OpenAI chat completion request; fields beyond these are forwarded as they are."""

    model_config = ConfigDict(extra="allow")
    model: str | None = None
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False
    n: int | None = Field(default=None, description="the proxy checks one choice: 1 or unset")


@router.get("/v1/models", responses=PROXY_ERRORS)
async def models(state: ProxyDep) -> Response:
    try:
        return JSONResponse(await state.require_upstream().models())
    except (UpstreamError, Unreachable) as exc:
        return upstream_failure(exc)


@router.post("/v1/chat/completions", responses=PROXY_ERRORS)
async def chat_completions(body: ChatRequest, service: ServiceDep, state: ProxyDep) -> Response:
    if body.n not in (None, 1):
        raise ApiError(422, "n: the proxy checks one choice; send n = 1", param="n")
    require_ready(service)
    state.require_upstream()
    request = body.model_dump(mode="json", exclude_unset=True)
    if not request.get("model") and state.default_model:
        request["model"] = state.default_model
    conversation = Conversation.from_messages(request["messages"])
    try:
        if body.stream:
            return await stream_completion(service, state, request, conversation)
        completion = await ask_upstream(service, state, request)
        return JSONResponse(await act(service, state, request, conversation, completion))
    except (UpstreamError, Unreachable) as exc:
        return upstream_failure(exc)


# served below FastAPI (replyguard.serve.fastpath), by the function above
FAST_ROUTES = {
    ("POST", "/v1/chat/completions"): FastRoute(
        ChatRequest, lambda body, shared: chat_completions(body, shared.service, shared.proxy)
    )
}
