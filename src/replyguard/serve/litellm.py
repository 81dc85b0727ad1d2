"""POST /beta/litellm_basic_guardrail_api: LiteLLM's Generic Guardrail API, so a LiteLLM gateway
uses replyguard as its guardrail by configuration alone (docs/service.md, "LiteLLM").

The contract, as LiteLLM's own code sends and reads it: the request carries `input_type`
("request" before the call, "response" after it), `texts`, `structured_messages`,
`litellm_call_id`, `model` and more (unset ones null), the key in `x-api-key`; the answer is
`action` (only BLOCKED is acted on: the client gets HTTP 400 with `blocked_reason`),
`blocked_reason`, and `texts`, which replace the originals by position whatever the action, so
there is exactly one text per text sent.

With `mode: [pre_call, post_call]` the request's messages arrive first under the call's id:
they are remembered (ProxyState.calls) and the reply, which arrives alone, is checked in that
dialogue; without them it is checked against the KB alone. The verdict maps through the rules'
`guardrail-action` facts (metta/proxy.metta): NONE (texts as they are, or annotated where
configured), GUARDRAIL_INTERVENED (the corrected texts), BLOCKED (LiteLLM cannot ask again:
Regenerate and HumanReview block, with a reason a person can read, and the item is queued for
review). `monitor` mode answers NONE with the texts unchanged and records the verdicts.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field

from replyguard.serve.actions import queue_review
from replyguard.serve.api_check import ERRORS, require_ready
from replyguard.serve.auth import require_key
from replyguard.serve.guard import Conversation, ProxyDep, Verdict, judge
from replyguard.serve.limits import check_reply_length
from replyguard.serve.service import ServiceDep

router = APIRouter(dependencies=[Depends(require_key)], tags=["litellm"])


class GuardrailRequest(BaseModel):
    """What LiteLLM's generic_guardrail_api hook sends; fields it adds later are accepted."""

    model_config = ConfigDict(extra="allow")
    input_type: Literal["request", "response"]
    texts: list[str] | None = None
    structured_messages: list[dict[str, Any]] | None = None
    litellm_call_id: str | None = None
    litellm_trace_id: str | None = None
    model: str | None = None
    images: list[Any] | None = None
    tools: list[Any] | None = None
    tool_calls: list[Any] | None = None
    request_data: dict[str, Any] | None = None
    request_headers: dict[str, Any] | None = None
    litellm_version: str | None = None
    additional_provider_specific_params: dict[str, Any] | None = None


class GuardrailResponse(BaseModel):
    action: Literal["NONE", "GUARDRAIL_INTERVENED", "BLOCKED"]
    blocked_reason: str | None = None
    texts: list[str] = Field(description="exactly one text per text sent, in order")


@router.post(
    "/beta/litellm_basic_guardrail_api", response_model=GuardrailResponse, responses=ERRORS
)
async def guardrail(
    body: GuardrailRequest, service: ServiceDep, state: ProxyDep
) -> GuardrailResponse:
    texts = list(body.texts or [])
    if body.input_type == "request":
        if body.litellm_call_id and body.structured_messages:
            state.calls.remember(body.litellm_call_id, body.structured_messages)
        return GuardrailResponse(action="NONE", texts=texts)
    require_ready(service)
    remembered = state.calls.recall(body.litellm_call_id) if body.litellm_call_id else None
    messages = remembered or body.structured_messages or []
    conversation = Conversation.from_messages(messages)
    actions = (await state.actions(service))["guardrail-action"]
    out: list[str] = []
    held: list[Verdict] = []
    intervened = False
    for i, text in enumerate(texts):
        if not text.strip():
            out.append(text)
            continue
        check_reply_length(f"texts.{i}", text, service.config.max_reply_chars)
        verdict = await judge(service, conversation, text)
        action = actions.get(verdict.kind, "BLOCKED")
        if action == "BLOCKED":
            held.append(verdict)
        if action == "GUARDRAIL_INTERVENED":
            intervened = True
            out.append(verdict.corrected)
        elif action == "NONE" and state.settings.annotate_flags:
            out.append(verdict.annotated)
        else:
            out.append(text)
    if state.settings.mode == "monitor":
        return GuardrailResponse(action="NONE", texts=texts)
    if held:
        request = {"model": body.model, "messages": messages}
        review_id = queue_review(state, "litellm", request, held)
        return GuardrailResponse(
            action="BLOCKED", blocked_reason=_reason(held[0], review_id), texts=texts
        )
    return GuardrailResponse(action="GUARDRAIL_INTERVENED" if intervened else "NONE", texts=out)


def _reason(verdict: Verdict, review_id: str) -> str:
    """Why the reply was blocked, for the person who reads LiteLLM's 400."""
    recommendation = verdict.result["recommendation"]
    why = recommendation.get("reason") or recommendation.get("guidance") or verdict.kind
    needs = "a person's review" if verdict.kind == "HumanReview" else "to be written again"
    return f"replyguard: the reply needs {needs} ({why}); review item {review_id}"
