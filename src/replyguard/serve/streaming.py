"""`stream: true` on /v1/chat/completions: OpenAI SSE chunks, ending in `data: [DONE]`.

The upstream's reply is read as it streams and released sentence by sentence (the engine's
sentence splitter; a sentence is complete once the next one starts, the last at the end of the
stream). Each sentence is checked in the context of the reply so far (what went out, then the
sentence) and goes out as the rules' `proxy-action` says:

- deliver, deliver-flagged: as written; correct: corrected;
- regenerate or review, caused by the new sentence (a flag or issue in it) or on the last one:
  when nothing went out yet, the proxy reads the whole reply and acts as it does without
  streaming (asks again, or holds the reply for review) and sends the result; when earlier
  sentences went out, the stream ends with an error frame of type `guardrails_violation`
  (NeMo Guardrails' convention), the exchange queued for review.

The `replyguard` metadata comes in the last chunk (or the error frame). The trade-off: nothing
goes out before a whole sentence has arrived and been checked, so the first text comes one
sentence plus one check later than the upstream's first token (docs/service.md, "Streaming").
In `monitor` mode the upstream's chunks pass through as they come and the whole reply is
checked at the end.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from typing import Any

from fastapi.responses import StreamingResponse

from replyguard.serve.actions import act, queue_review
from replyguard.serve.guard import Conversation, ProxyState, Verdict, judge, metadata
from replyguard.serve.service import Service
from replyguard.serve.upstream import Unreachable, UpstreamError
from replyguard.text.tokens import may_end_sentence, split_sentences, tokenize

STOPPING = ("regenerate", "review")


async def stream_completion(
    service: Service, state: ProxyState, request: dict[str, Any], conversation: Conversation
) -> StreamingResponse:
    """The streamed answer; an upstream error before its first chunk is raised (and answered
    with its status), a later one ends the stream with an error frame."""
    chunks = state.require_upstream().stream(request)
    try:
        first = await anext(chunks)
    except StopAsyncIteration:
        first = None
    relay = Relay(service, state, request, conversation, first, chunks)
    return StreamingResponse(relay.events(), media_type="text/event-stream")


def sse(payload: dict[str, Any] | str) -> str:
    return f"data: {payload if isinstance(payload, str) else json.dumps(payload)}\n\n"


def complete_sentences(text: str, start: int) -> list[int]:
    """Where each complete sentence after `start` ends (where the next one starts). `start` is
    where a sentence starts (0, or an end this gave): only the text from there is read, and
    only once it holds a mark that can end a sentence (a stream asks at every chunk)."""
    tail = text[start:]
    if not may_end_sentence(tail):
        return []
    sentences = split_sentences(tail, tokenize(tail))
    return [start + s.start for s in sentences[1:] if s.start > 0]


class Relay:
    """One streamed answer: the upstream's chunks in, checked sentences out."""

    def __init__(
        self,
        service: Service,
        state: ProxyState,
        request: dict[str, Any],
        conversation: Conversation,
        first: dict[str, Any] | None,
        rest: AsyncIterator[dict[str, Any]],
    ) -> None:
        self.service, self.state, self.request = service, state, request
        self.conversation = conversation
        self.first, self.rest = first, rest
        self.template = {
            "id": (first or {}).get("id", "chatcmpl-replyguard"),
            "object": "chat.completion.chunk",
            "created": (first or {}).get("created", int(time.time())),
            "model": (first or {}).get("model", request.get("model")),
        }
        self.monitor = state.settings.mode == "monitor"
        self.raw = ""  # the upstream's text so far
        self.done = 0  # how much of it has been checked and released
        self.released = ""  # what went out (corrected where it was)
        self.finish: str | None = None
        self.tail: list[dict[str, Any]] = []  # chunks without choices (usage), sent last
        self.verdicts: list[Verdict] = []
        self.counted: set[tuple] = set()  # the flags and issues counted in the metrics
        self.stopped = False

    def chunk(self, delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return sse({**self.template, "choices": [choice], **extra})

    async def upstream(self) -> AsyncIterator[dict[str, Any]]:
        first, self.first = self.first, None
        if first is not None:
            yield first
        async for chunk in self.rest:
            yield chunk

    async def events(self) -> AsyncIterator[str]:
        yield self.chunk({"role": "assistant", "content": ""})
        actions = (await self.state.actions(self.service))["proxy-action"]
        try:
            async for chunk in self.upstream():
                passed = self._read(chunk)
                if passed is not None:
                    yield sse(passed)
                if self.monitor:
                    continue
                for end in complete_sentences(self.raw, self.done):
                    async for event in self._sentence(end, actions, last=False):
                        yield event
                    if self.stopped:
                        return
        except (UpstreamError, Unreachable) as exc:
            yield _error_frame(str(exc), "upstream_error", getattr(exc, "status", None))
            return
        if self.monitor:
            verdict = await judge(self.service, self.conversation, self.raw)
            self.verdicts.append(verdict)
            self.released = self.raw
            async for event in self._finished(verdict, "monitored"):
                yield event
            return
        async for event in self._sentence(len(self.raw), actions, last=True):
            yield event
        if not self.stopped:
            last = self.verdicts[-1] if self.verdicts else None
            if last is not None:  # the check of the whole reply, as released
                self.service.metrics.observe_recommendation(last.result)
            async for event in self._finished(last, "stream"):
                yield event

    def _read(self, chunk: dict[str, Any]) -> dict[str, Any] | None:
        """Take the text of an upstream chunk; a chunk to pass on as it is (a tool call, or
        any text in monitor mode) is returned."""
        choices = chunk.get("choices") or []
        if not choices:
            self.tail.append(chunk)
            return None
        choice = choices[0]
        delta = choice.get("delta") or {}
        self.finish = choice.get("finish_reason") or self.finish
        if delta.get("tool_calls") or delta.get("function_call"):
            return {**chunk, "choices": [{**choice, "finish_reason": None}]}
        piece = delta.get("content") or ""
        self.raw += piece
        if self.monitor and piece:
            return {
                **chunk,
                "choices": [{**choice, "delta": {"content": piece}, "finish_reason": None}],
            }
        return None

    async def _sentence(
        self, end: int, actions: dict[str, str], *, last: bool
    ) -> AsyncIterator[str]:
        """Check raw[done:end] after what went out, and release it, or end the stream."""
        piece = self.raw[self.done : end]
        if not piece.strip():
            if piece:
                self.released += piece
                yield self.chunk({"content": piece})
            self.done = end
            return
        start = len(self.released)
        verdict = await judge(
            self.service, self.conversation, self.released + piece, round_of_stream=True
        )
        self.verdicts.append(verdict)
        action = actions.get(verdict.kind, "review")
        if action in STOPPING and (last or _caused_after(verdict.result, start)):
            self.stopped = True
            stop = self._buffered() if not self.released.strip() else self._violation(verdict)
            async for event in stop:
                yield event
            return
        self.service.metrics.observe_flags(verdict.result, self.counted)
        out = _corrected_after(verdict, start) if action == "correct" else piece
        self.released += out
        self.done = end
        yield self.chunk({"content": out})

    async def _buffered(self) -> AsyncIterator[str]:
        """Nothing went out yet: read the whole reply, act as without streaming, send that."""
        async for chunk in self.upstream():
            self._read(chunk)
        completion = {
            **{k: v for k, v in self.template.items() if k != "object"},
            "object": "chat.completion",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": self.raw},
                    "finish_reason": self.finish or "stop",
                }
            ],
        }
        answer = await act(self.service, self.state, self.request, self.conversation, completion)
        choice = answer["choices"][0]
        yield self.chunk({"content": (choice.get("message") or {}).get("content") or ""})
        for extra in self.tail:
            yield sse(extra)
        yield self.chunk(
            {},
            choice.get("finish_reason") or "stop",
            replyguard={**answer["replyguard"], "streamed": "buffered"},
        )
        yield sse("[DONE]")

    async def _violation(self, verdict: Verdict) -> AsyncIterator[str]:
        """Earlier sentences went out: end with a guardrails_violation error frame."""
        self.service.metrics.observe_flags(verdict.result, self.counted)
        self.service.metrics.observe_recommendation(verdict.result)
        review_id = await queue_review(self.state, "proxy-stream", self.request, [verdict])
        meta = metadata(
            verdict,
            self.verdicts,
            mode="enforce",
            action="stopped",
            review_id=review_id,
            delivered=self.released,
        )
        reason = verdict.result["recommendation"].get("reason") or verdict.kind
        message = f"the reply was stopped after what was sent: {verdict.kind} ({reason})"
        yield _error_frame(message, "guardrails_violation", verdict.kind, replyguard=meta)

    async def _finished(self, verdict: Verdict | None, action: str) -> AsyncIterator[str]:
        for extra in self.tail:
            yield sse(extra)
        meta = (
            {
                **metadata(verdict, self.verdicts, mode=self.state.settings.mode, action=action),
                "original": self.raw,
                "delivered": self.released,
            }
            if verdict is not None
            else {"mode": self.state.settings.mode, "action": "unchecked"}
        )
        yield self.chunk({}, self.finish or "stop", replyguard=meta)
        yield sse("[DONE]")


def _error_frame(message: str, kind: str, code: object, **extra: Any) -> str:
    error = {"message": message, "type": kind, "param": None, "code": code, **extra}
    return sse({"error": error}) + sse("[DONE]")


def _caused_after(result: dict[str, Any], start: int) -> bool:
    """Whether a flag or an issue of the check lies in the text after `start` (the sentence
    just checked) rather than in what went out already."""
    spans = [f["span"] for f in result.get("hallucination_flags", [])]
    spans += [i["span"] for i in result.get("coherence", {}).get("issues", []) if i.get("span")]
    spans += result["recommendation"].get("flags", [])
    return any(span["end"] > start for span in spans)


def _corrected_after(verdict: Verdict, start: int) -> str:
    """The corrected text of what follows `start` in the checked text (corrections before it,
    in text that already went out, shift where it begins)."""
    shift = 0
    for correction in (verdict.result.get("corrected") or {}).get("corrections", []):
        span, replacement = correction["span"], correction.get("replacement")
        if span["end"] <= start and replacement is not None:
            shift += len(replacement) - (span["end"] - span["start"])
    return verdict.corrected[start + shift :]
