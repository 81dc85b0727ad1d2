"""What the proxy, its streaming and the LiteLLM guardrail route share.

- ProxySettings: the [proxy] table of the config file (docs/service.md, "Configuration").
- ProxyState: the upstream client, the review store, LiteLLM's remembered requests, and the
  rules' actions per recommendation (metta/proxy.metta), made when the app starts and reached
  with `state: ProxyState = Depends(proxy_state)`.
- Conversation: the dialogue read off OpenAI chat `messages` (the last user message is the
  query; the JSON of tool messages becomes tool results, checked as knowledge).
- judge(): one reply checked in its conversation on the engine pool -> a Verdict.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import JSONResponse

from replyguard.errors import InputError
from replyguard.serve.config import ServeConfig
from replyguard.serve.errors import ApiError, error_response
from replyguard.serve.review import ReviewStore
from replyguard.serve.service import Service
from replyguard.serve.upstream import Unreachable, Upstream, UpstreamError
from replyguard.tool_knowledge import tool_results_from_messages

HOLDING_REPLY = (
    "Thank you for your patience. This answer needs a check by a member of our team, "
    "who will get back to you."
)
MODES = ("enforce", "monitor")
REVIEW_FILE = "replyguard-review.sqlite3"


_KIND_NAMES = {int: "a whole number", float: "a number", bool: "true or false", str: "text"}


@dataclass(frozen=True)
class ProxySettings:
    mode: str = "enforce"  # monitor: never change a reply, only record the verdicts
    max_regenerations: int = 2
    annotate_flags: bool = False  # AcceptWithFlags: deliver the annotated text
    holding_reply: str = HOLDING_REPLY
    review_store: str = ""  # a SQLite file; default: replyguard-review.sqlite3 by the sessions'
    upstream_timeout_seconds: float = 60.0
    call_memory_seconds: float = 600.0  # how long LiteLLM's pre_call messages are kept
    call_memory_size: int = 10_000

    @classmethod
    def from_table(cls, table: Mapping[str, Any], origin: str = "config") -> ProxySettings:
        """The [proxy] table; a wrong key, type or value is an InputError naming proxy.KEY."""
        kinds = {f.name: type(f.default) for f in fields(cls)}
        values: dict[str, Any] = {}
        for raw_key, value in table.items():
            key = raw_key.replace("-", "_")
            kind = kinds.get(key)
            if kind is None:
                raise InputError(f"{origin}: proxy.{raw_key}: unknown setting")
            numeric = kind is float and isinstance(value, int | float)
            if isinstance(value, bool) != (kind is bool) or not (
                isinstance(value, kind) or numeric
            ):
                raise InputError(f"{origin}: proxy.{raw_key}: expected {_KIND_NAMES[kind]}")
            values[key] = value
        settings = cls(**values)
        if settings.mode not in MODES:
            raise InputError(f"{origin}: proxy.mode: expected one of {', '.join(MODES)}")
        if settings.max_regenerations < 0:
            raise InputError(f"{origin}: proxy.max_regenerations: must be 0 or more")
        for name in ("upstream_timeout_seconds", "call_memory_seconds", "call_memory_size"):
            if getattr(settings, name) <= 0:
                raise InputError(f"{origin}: proxy.{name}: must be a positive number")
        return settings


class ProxyState:
    def __init__(self, config: ServeConfig) -> None:
        self.settings = ProxySettings.from_table(config.tables.get("proxy", {}))
        self.default_model = config.upstream_model
        self.upstream = (
            Upstream(
                config.upstream_url,
                config.upstream_api_key,
                timeout=self.settings.upstream_timeout_seconds,
            )
            if config.upstream_url
            else None
        )
        self.reviews = ReviewStore(self.settings.review_store or _beside(config.session_store))
        memory = (self.settings.call_memory_seconds, self.settings.call_memory_size)
        self.calls = CallMemory(*memory)
        self.streamed = CallMemory(*memory)
        self._actions: tuple[object, dict[str, dict[str, str]]] | None = None

    def require_upstream(self) -> Upstream:
        if self.upstream is None:
            raise ApiError(
                404,
                "this service proxies to no upstream: start it with --upstream URL "
                "(or [upstream] url) to use the OpenAI-compatible routes",
                code="no_upstream",
            )
        return self.upstream

    async def actions(self, service: Service) -> dict[str, dict[str, str]]:
        """The rules' `proxy-action` and `guardrail-action` facts by recommendation, read from
        the serving pool's rules (again after a reload, which replaces the pool)."""
        pool = service.pool
        if self._actions is None or self._actions[0] is not pool:
            facts = await pool.call(rule_facts, ("proxy-action", "guardrail-action"))
            self._actions = (pool, facts)
        return self._actions[1]

    async def aclose(self) -> None:
        if self.upstream is not None:
            await self.upstream.aclose()
        self.reviews.close()


def _beside(session_store: str) -> str:
    """The default review store: a file in the session store's folder (the working folder when
    the sessions are in PostgreSQL)."""
    folder = Path(".") if "://" in session_store else Path(session_store).parent
    return str(folder / REVIEW_FILE)


def rule_facts(worker: Any, heads: Sequence[str]) -> dict[str, dict[str, str]]:
    """(HEAD KIND VALUE) facts of the worker's rules as {HEAD: {KIND: VALUE}} (sent with
    pool.call, so it runs in a worker process)."""
    host = worker.served().host
    return {head: {str(k): str(v) for k, v in host.facts(head)} for head in heads}


@contextlib.asynccontextmanager
async def proxy_lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Make the ProxyState once the service runs (the app's own lifespan starts it first)."""
    state = ProxyState(app.state.service.config)
    app.state.proxy = state
    try:
        yield
    finally:
        await state.aclose()


async def proxy_state(request: Request) -> ProxyState:
    return request.app.state.proxy


ProxyDep = Annotated[ProxyState, Depends(proxy_state)]


class CallMemory:
    """LiteLLM's pre_call messages by litellm_call_id, kept `seconds` (at most `size` calls),
    so its post_call reply is checked in its dialogue (and, in `streamed`, the texts a stream
    of the call already released)."""

    def __init__(self, seconds: float, size: int) -> None:
        self.seconds = seconds
        self.size = size
        self._calls: dict[str, tuple[float, list[Any]]] = {}

    def remember(self, call_id: str, messages: list[Any]) -> None:
        now = time.monotonic()
        self._calls = {k: v for k, v in self._calls.items() if now - v[0] < self.seconds}
        self._calls.pop(call_id, None)
        self._calls[call_id] = (now, messages)
        while len(self._calls) > self.size:
            self._calls.pop(next(iter(self._calls)))

    def recall(self, call_id: str) -> list[Any] | None:
        found = self._calls.get(call_id)
        if found is None or time.monotonic() - found[0] >= self.seconds:
            return None
        return found[1]


# --------------------------------------------------------------------------- conversations


@dataclass
class Conversation:
    """What a reply is checked against: the turns up to the last user message (its text the
    query) and what the tools returned."""

    dialogue: list[dict[str, Any]]
    query: str
    tool_results: list[object] = field(default_factory=list)

    @classmethod
    def from_messages(cls, messages: Sequence[object]) -> Conversation:
        """The conversation of chat messages (entries that are not messages are left out)."""
        chat = [m for m in messages if isinstance(m, Mapping) and isinstance(m.get("role"), str)]
        turns = [_turn(m) for m in chat]
        users = [i for i, t in enumerate(turns) if t["role"] == "user"]
        last = users[-1] if users else len(turns) - 1
        query = turns[last]["content"] if users else ""
        return cls(turns[: last + 1], query, tool_results_from_messages(chat))

    def case(self, response: str) -> dict[str, Any]:
        """The case-file document checking `response` in this conversation."""
        case: dict[str, Any] = {
            "dialogue": self.dialogue,
            "query": self.query,
            "response": response,
        }
        if self.tool_results:
            case["tool_results"] = self.tool_results
        return case


def _turn(message: Mapping[str, Any]) -> dict[str, Any]:
    """A chat message as a turn: its text parts joined (images and audio are not read)."""
    turn = {"role": message["role"], "content": text_of(message.get("content"))}
    return turn


def text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(p.get("text", ""))
            for p in content
            if isinstance(p, Mapping) and p.get("type") == "text"
        )
    return ""


# --------------------------------------------------------------------------- verdicts


@dataclass
class Verdict:
    """The check of one reply: its text and the PostprocessedResponse as JSON."""

    text: str
    result: dict[str, Any]
    worker_ms: float = 0.0  # the check's whole time in the worker process

    @property
    def kind(self) -> str:
        return self.result["recommendation"]["kind"]

    @property
    def corrected(self) -> str:
        return (self.result.get("corrected") or {}).get("corrected") or self.text

    @property
    def annotated(self) -> str:
        return (self.result.get("corrected") or {}).get("annotated") or self.text

    @property
    def guidance(self) -> str:
        recommendation = self.result["recommendation"]
        return recommendation.get("guidance") or recommendation.get("reason") or ""

    def summary(self) -> dict[str, Any]:
        """The attempt as the metadata lists it."""
        return {
            "text": self.text,
            "recommendation": self.kind,
            "confidence": self.result["confidence"],
            "guidance": self.result["recommendation"].get("guidance"),
            "flags": [f["hallucination_type"] for f in self.result.get("hallucination_flags", [])],
        }


async def ask_upstream(
    service: Service, state: ProxyState, request: dict[str, Any]
) -> dict[str, Any]:
    """The upstream's completion of `request`, its time in the `upstream` stage histogram."""
    started = time.perf_counter()
    try:
        return await state.require_upstream().chat(request)
    finally:
        service.metrics.observe_stage("upstream", time.perf_counter() - started)


async def judge(
    service: Service, conversation: Conversation, text: str, *, round_of_stream: bool = False
) -> Verdict:
    """`text` checked in `conversation` on the engine pool, counted in the metrics (a stream's
    round only by its stages: the stream counts its flags and recommendation itself)."""
    answer = await service.pool.check(conversation.case(text))
    if round_of_stream:
        service.metrics.observe_stages(answer["result"])
    else:
        service.metrics.observe_result(answer["result"])
    return Verdict(text, answer["result"], answer["worker_ms"])


def metadata(
    verdict: Verdict, attempts: Sequence[Verdict], *, mode: str, action: str, **extra: Any
) -> dict[str, Any]:
    """The `replyguard` object of a response: the verdict on the delivered (or held) reply,
    its flags with spans, the corrections, every attempt and the upstream's raw text."""
    result = verdict.result
    recommendation = result["recommendation"]
    flags = [
        {
            "type": f["hallucination_type"],
            "span": f["span"],
            "content": f["content"],
            "confidence": f["confidence"],
            "reason": f.get("reason"),
            "suggestion": f.get("suggestion"),
        }
        for f in result.get("hallucination_flags", [])
    ]
    issues = [
        {
            "type": i["issue_type"],
            "span": i.get("span"),
            "description": i["description"],
            "severity": i["severity"],
        }
        for i in result.get("coherence", {}).get("issues", [])
    ]
    return {
        "mode": mode,
        "action": action,
        "recommendation": recommendation["kind"],
        "confidence": result["confidence"],
        "reason": recommendation.get("reason"),
        "flags": flags,
        "issues": issues,
        "corrections": (result.get("corrected") or {}).get("corrections", []),
        "original": verdict.text,
        "attempts": [a.summary() for a in attempts],
        "check_ms": round(
            sum(a.result.get("timings_ms", {}).get("total", 0.0) for a in attempts), 3
        ),
        "worker_ms": round(sum(a.worker_ms for a in attempts), 3),
        **extra,
    }


def upstream_failure(exc: UpstreamError | Unreachable) -> JSONResponse:
    """An upstream error passed through as it came (status, envelope, Retry-After), or an
    unreachable upstream as 502 (504 when it did not answer in time)."""
    if isinstance(exc, UpstreamError):
        headers = {"Retry-After": exc.retry_after} if exc.retry_after else None
        return JSONResponse(exc.body, status_code=exc.status, headers=headers)
    code = "upstream_timeout" if exc.timed_out else "upstream_unreachable"
    return error_response(
        ApiError(504 if exc.timed_out else 502, str(exc), code=code, type="upstream_error")
    )
