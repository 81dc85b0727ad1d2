"""POST /beta/litellm_basic_guardrail_api: LiteLLM's Generic Guardrail API, so a LiteLLM gateway
uses replyguard as its guardrail by configuration alone (docs/service.md, "LiteLLM").

The contract, as LiteLLM 1.108.7 sends and reads it (checked against a running LiteLLM proxy:
tests/test_litellm_gateway.py; a recording in tests/data/litellm/): the request carries
`input_type` ("request" before the call, "response" after it), `texts`, `structured_messages`,
`litellm_call_id`, `model` and more (unset ones null), the key in `x-api-key`; the answer is
`action` (only BLOCKED is acted on: the client gets HTTP 400 with `blocked_reason`),
`blocked_reason`, `texts`, which replace the originals by position whatever the action, so
there is exactly one text per text sent, and `stream_holdback_chars`, one count per text.

With `mode: [pre_call, post_call]` the request's messages arrive first under the call's id:
they are remembered (ProxyState.calls) and the reply, which arrives alone, is checked in that
dialogue; without them it is checked against the KB alone. The verdict maps through the rules'
`guardrail-action` facts (metta/proxy.metta): NONE (texts as they are, or annotated where
configured), GUARDRAIL_INTERVENED (the corrected texts), BLOCKED (LiteLLM cannot ask again:
Regenerate and HumanReview block, with a reason a person can read, and the item is queued for
review). `monitor` mode answers NONE with the texts unchanged and records the verdicts.

Streaming (`streaming_transform_mode: incremental_diff`): LiteLLM sends the reply's text so far
every few chunks, under the same call id, and streams on whatever of the answer's text is past
what it sent already, less the last `stream_holdback_chars`; it cannot take back text it sent,
and it does not say which request is the last (there, it ignores the hold-back). So every text
is checked whole, as if it were the last, and the answer holds back its last sentence while that
sentence may still be unfinished: what goes out is only ever whole checked sentences, a corrected
one corrected. A block is deferred while what causes it lies only in the last, possibly cut,
word of an unfinished sentence (a name cut in two reads as an unknown one); a correction that
would change text already sent blocks (what was sent is remembered in ProxyState.streamed).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field

from replyguard.serve.actions import queue_review
from replyguard.serve.api_check import ERRORS, require_ready
from replyguard.serve.auth import require_key
from replyguard.serve.guard import Conversation, ProxyDep, Verdict, judge
from replyguard.serve.limits import check_reply_length
from replyguard.serve.service import Service, ServiceDep
from replyguard.serve.streaming import complete_sentences

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
    request_data: dict[str, Any] | None = None  # the caller's key metadata (user_api_key_*)
    request_headers: dict[str, Any] | None = None
    litellm_version: str | None = None
    additional_provider_specific_params: dict[str, Any] | None = None


class GuardrailResponse(BaseModel):
    action: Literal["NONE", "GUARDRAIL_INTERVENED", "BLOCKED"]
    blocked_reason: str | None = None
    texts: list[str] = Field(description="exactly one text per text sent, in order")
    stream_holdback_chars: list[int] | None = Field(
        default=None,
        description="while streaming: how many characters at the end of each text LiteLLM "
        "keeps back until the next request (the last sentence, while it may be unfinished)",
    )


@dataclass
class Reading:
    """One text's answer: what goes back, how much of its end to hold back while streaming,
    and the check it rests on (None for an empty text)."""

    text: str
    holdback: int = 0
    verdict: Verdict | None = None
    blocked: str = ""  # why it blocks ("" when it does not)


@router.post(
    "/beta/litellm_basic_guardrail_api", response_model=GuardrailResponse, responses=ERRORS
)
async def guardrail(
    body: GuardrailRequest, service: ServiceDep, state: ProxyDep
) -> GuardrailResponse:
    texts = list(body.texts or [])
    call = body.litellm_call_id
    if body.input_type == "request":
        if call and body.structured_messages:
            state.calls.remember(call, body.structured_messages)
        return GuardrailResponse(action="NONE", texts=texts)
    require_ready(service)
    messages = (state.calls.recall(call) if call else None) or body.structured_messages or []
    conversation = Conversation.from_messages(messages)
    streamed = (state.streamed.recall(call) if call else None) or []
    sent = [  # what a stream of each text already released
        streamed[i] if i < len(streamed) and text.startswith(streamed[i]) else ""
        for i, text in enumerate(texts)
    ]
    actions = (await state.actions(service))["guardrail-action"]
    texts_check = TextCheck(service, state.settings.annotate_flags, conversation, actions)
    readings = [await texts_check.read(i, text, sent[i]) for i, text in enumerate(texts)]
    if state.settings.mode == "monitor":
        return GuardrailResponse(action="NONE", texts=texts)
    held = [r for r in readings if r.blocked]
    if held:
        verdicts = [r.verdict for r in held if r.verdict is not None]
        review_id = await queue_review(
            state, "litellm", {"model": body.model, "messages": messages}, verdicts
        )
        reason = f"replyguard: {held[0].blocked}; review item {review_id}"
        return GuardrailResponse(action="BLOCKED", blocked_reason=reason, texts=texts)
    if call:
        released = [
            r.text[: max(len(s), len(r.text) - r.holdback)]
            for r, s in zip(readings, sent, strict=True)
        ]
        state.streamed.remember(call, released)
    changed = any(r.text != t for r, t in zip(readings, texts, strict=True))
    return GuardrailResponse(
        action="GUARDRAIL_INTERVENED" if changed else "NONE",
        texts=[r.text for r in readings],
        stream_holdback_chars=[r.holdback for r in readings],
    )


@dataclass
class TextCheck:
    """The checks of one request's texts: in its conversation, mapped by the rules' actions."""

    service: Service
    annotate: bool  # AcceptWithFlags delivers the annotated text
    conversation: Conversation
    actions: dict[str, str]

    async def verdict(self, text: str) -> tuple[Verdict, str]:
        verdict = await judge(self.service, self.conversation, text)
        return verdict, self.actions.get(verdict.kind, "BLOCKED")

    async def read(self, index: int, text: str, sent: str) -> Reading:
        """Text `index` checked whole; `sent` is what a stream of it already released."""
        if not text.strip():
            return Reading(text)
        check_reply_length(f"texts.{index}", text, self.service.config.max_reply_chars)
        verdict, action = await self.verdict(text)
        finished = _ends_sentence(text)
        if action == "BLOCKED" and (finished or await self.blocks_uncut(text)):
            return Reading(text, verdict=verdict, blocked=_needs(verdict))
        if action in ("GUARDRAIL_INTERVENED", "BLOCKED"):
            out = verdict.corrected
        else:
            out = verdict.annotated if self.annotate else text
        holdback = 0 if finished else len(out) - _last_sentence_start(out)
        if not out[: len(out) - holdback].startswith(sent):
            why = "a correction would change what was already streamed"
            return Reading(text, verdict=verdict, blocked=f"{why} ({_why(verdict)})")
        return Reading(out, holdback, verdict)

    async def blocks_uncut(self, text: str) -> bool:
        """Whether the text blocks without its last word, which, in an unfinished sentence,
        may be a word the stream cut in two (half a name reads as an unknown one)."""
        kept = text.rstrip()
        kept = kept[: len(kept) - len(kept.split()[-1])]
        if not kept.strip():
            return False
        return (await self.verdict(kept))[1] == "BLOCKED"


def _ends_sentence(text: str) -> bool:
    """Whether the text ends a sentence: a sentence would start right after it."""
    starts = complete_sentences(text + " Z", 0)
    return bool(starts) and starts[-1] >= len(text)


def _last_sentence_start(text: str) -> int:
    return (complete_sentences(text, 0) or [0])[-1]


def _why(verdict: Verdict) -> str:
    """The check's reason, else what its flags and issues say (the guidance is written for the
    model, with the reply's words quoted in tags)."""
    result = verdict.result
    found = [f["reason"] for f in result.get("hallucination_flags", []) if f.get("reason")]
    found += [i["description"] for i in result.get("coherence", {}).get("issues", [])]
    recommendation = result["recommendation"]
    said = "; ".join(dict.fromkeys(found))  # a span flagged twice says it once
    return recommendation.get("reason") or said or verdict.guidance or verdict.kind


def _needs(verdict: Verdict) -> str:
    """Why the reply was blocked, for the person who reads LiteLLM's 400."""
    needs = "a person's review" if verdict.kind == "HumanReview" else "to be written again"
    return f"the reply needs {needs} ({_why(verdict)})"
