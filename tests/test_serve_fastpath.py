"""The fast routes (replyguard.serve.fastpath): `POST /v1/chat/completions` and `POST /v1/check`
served below FastAPI answer exactly as the FastAPI routes do, the same requests sent to an app
with the fast path and to one without it (status, body, the headers that matter, metrics); a
body that is not JSON or does not validate, and every other route, reach FastAPI.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import REFERENCE, SEED_KB
from fastapi import APIRouter
from fastapi.testclient import TestClient
from serve_support import write_kb

from replyguard.serve.app import create_app
from replyguard.serve.config import ServeConfig
from replyguard.serve.fastpath import FastRoute, FastRoutes, fast_routes
from replyguard.serve.proxy import ChatRequest
from replyguard.serve.scripted_upstream import FakeUpstream, Reply

KEY = "fast-key-2"
AUTH = {"Authorization": f"Bearer {KEY}"}
QUERY = "Which department is Sarah in?"
REPLY = "Sarah works in Legal."  # wrong: corrected, so the answer carries a verdict
CHECK = {"query": QUERY, "response": REPLY, "reference_time": REFERENCE.isoformat()}
CHAT = {"model": "m", "messages": [{"role": "user", "content": QUERY}]}


class Recorder:
    """The app, each HTTP request's scope kept once answered: FastAPI's routing leaves its
    `endpoint` there, the fast path does not."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.scopes: list[dict[str, Any]] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.app(scope, receive, send)
        if scope["type"] == "http":
            self.scopes.append(scope)

    def routed_by_fastapi(self) -> bool:
        return "endpoint" in self.scopes[-1]


def without_fast_path(app: Any) -> Any:
    app.user_middleware = [m for m in app.user_middleware if m.cls is not FastRoutes]
    return app


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeUpstream]:
    with FakeUpstream(default=Reply(REPLY)) as upstream:
        yield upstream


@pytest.fixture(scope="module")
def config(fake: FakeUpstream, tmp_path_factory: pytest.TempPathFactory) -> ServeConfig:
    folder: Path = tmp_path_factory.mktemp("fast")
    return ServeConfig(
        kb=write_kb(folder / "kb.json", SEED_KB),
        workers=1,
        upstream_url=fake.url,
        api_keys=(KEY,),
        max_body_bytes=20_000,
        max_reply_chars=1_000,
        session_store=str(folder / "sessions.sqlite3"),
        tables={"proxy": {"review_store": str(folder / "review.sqlite3")}},
    )


@pytest.fixture(scope="module")
def apps(config: ServeConfig) -> Iterator[tuple[TestClient, TestClient]]:
    fast, plain = Recorder(create_app(config)), Recorder(without_fast_path(create_app(config)))
    with TestClient(fast) as f, TestClient(plain) as p:
        yield f, p


def same_answer(apps: tuple[TestClient, TestClient], method: str, path: str, **kw: Any):
    """The answers of both apps to one request, asserted equal but for the times measured."""
    fast, plain = (c.request(method, path, **kw) for c in apps)
    assert fast.status_code == plain.status_code
    assert comparable(fast.content) == comparable(plain.content)
    for header in ("content-type", "retry-after", "www-authenticate", "connection"):
        assert fast.headers.get(header) == plain.headers.get(header), header
    assert ("server-timing" in fast.headers) == ("server-timing" in plain.headers)
    return fast


def comparable(content: bytes) -> object:
    """A JSON body without what is timed or made anew per request."""

    def strip(value: object) -> object:
        if isinstance(value, dict):
            return {
                k: strip(v)
                for k, v in value.items()
                if k not in ("timings_ms", "check_ms", "worker_ms", "id", "created")
            }
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return strip(json.loads(content))


def fast_app(apps: tuple[TestClient, TestClient]) -> Recorder:
    return apps[0].app  # type: ignore[return-value]


def test_good_requests_are_answered_by_the_fast_path_as_by_fastapi(apps):
    check = same_answer(apps, "POST", "/v1/check", json=CHECK, headers=AUTH)
    assert not fast_app(apps).routed_by_fastapi()
    assert check.status_code == 200 and check.json()["status"] == "modified"
    chat = same_answer(apps, "POST", "/v1/chat/completions", json=CHAT, headers=AUTH)
    assert not fast_app(apps).routed_by_fastapi()
    assert chat.json()["replyguard"]["action"] == "correct"
    assert chat.json()["choices"][0]["message"]["content"] != REPLY


def test_a_streamed_completion_is_served_by_the_fast_path(apps):
    fast, plain = (
        c.post("/v1/chat/completions", json={**CHAT, "stream": True}, headers=AUTH) for c in apps
    )
    assert not fast_app(apps).routed_by_fastapi()
    assert fast.status_code == plain.status_code == 200
    assert fast.headers["content-type"] == plain.headers["content-type"]
    assert fast.text.endswith("data: [DONE]\n\n") and plain.text.endswith("data: [DONE]\n\n")


@pytest.mark.parametrize(
    ("path", "body", "status", "param"),
    [
        ("/v1/check", b"{not json", 400, "body"),
        ("/v1/chat/completions", b"{not json", 400, "body"),
        ("/v1/check", json.dumps({"query": QUERY}).encode(), 422, "response"),
        ("/v1/chat/completions", json.dumps({"model": "m"}).encode(), 422, "messages"),
        ("/v1/chat/completions", json.dumps({**CHAT, "messages": []}).encode(), 422, "messages"),
        ("/v1/check", b"", 422, "body"),
    ],
)
def test_bodies_that_do_not_validate_reach_fastapi(apps, path, body, status, param):
    headers = {**AUTH, "content-type": "application/json"}
    answer = same_answer(apps, "POST", path, content=body, headers=headers)
    assert fast_app(apps).routed_by_fastapi()
    assert answer.status_code == status
    assert answer.json()["error"]["param"] == param


def test_a_body_that_is_not_declared_json_reaches_fastapi(apps):
    headers = {**AUTH, "content-type": "text/plain"}
    same_answer(apps, "POST", "/v1/check", content=json.dumps(CHECK).encode(), headers=headers)
    assert fast_app(apps).routed_by_fastapi()


def test_errors_of_the_handler_are_the_app_handlers_answers(apps):
    two = same_answer(apps, "POST", "/v1/chat/completions", json={**CHAT, "n": 2}, headers=AUTH)
    assert not fast_app(apps).routed_by_fastapi()
    assert (two.status_code, two.json()["error"]["param"]) == (422, "n")
    long = {**CHECK, "response": "Sarah works in Legal. " * 60}
    too_long = same_answer(apps, "POST", "/v1/check", json=long, headers=AUTH)
    assert not fast_app(apps).routed_by_fastapi()
    assert (too_long.status_code, too_long.json()["error"]["code"]) == (422, "reply_too_long")


def test_a_body_over_the_limit_is_413(apps):
    padded = {**CHECK, "passages": ["x" * 30_000]}
    for path in ("/v1/check", "/v1/chat/completions"):
        answer = same_answer(apps, "POST", path, json=padded, headers=AUTH)
        assert (answer.status_code, answer.json()["error"]["param"]) == (413, "body")


def test_keys_are_checked_as_by_fastapi(apps):
    for headers in ({}, {"Authorization": "Bearer nope"}, {"Authorization": "Basic " + KEY}):
        for path, body in (("/v1/check", CHECK), ("/v1/chat/completions", CHAT)):
            answer = same_answer(apps, "POST", path, json=body, headers=headers)
            assert answer.status_code == 401
            assert answer.headers["www-authenticate"] == "Bearer"
    assert same_answer(apps, "POST", "/v1/check", json=CHECK, headers={"x-api-key": KEY}).is_success


@pytest.mark.parametrize(
    ("setting", "value", "status"), [("max_pending", 0, 429), ("timeout", 1e-6, 503)]
)
def test_a_busy_pool_is_answered_with_retry_after(apps, setting, value, status):
    pools = [c.app.app.state.service.pool for c in apps]
    kept = [getattr(p, setting) for p in pools]
    for pool in pools:
        setattr(pool, setting, value)
    try:
        for path, body in (("/v1/check", CHECK), ("/v1/chat/completions", CHAT)):
            answer = same_answer(apps, "POST", path, json=body, headers=AUTH)
            assert not fast_app(apps).routed_by_fastapi()
            assert answer.status_code == status
            assert int(answer.headers["retry-after"]) >= 1
    finally:
        for pool, value in zip(pools, kept, strict=True):
            setattr(pool, setting, value)


def test_other_routes_reach_fastapi(apps):
    for method, path in (("GET", "/v1/health"), ("GET", "/v1/models"), ("PUT", "/v1/check")):
        same_answer(apps, method, path, headers=AUTH)
        assert fast_app(apps).routed_by_fastapi(), path
    assert same_answer(apps, "GET", "/openapi.json").json()["paths"]["/v1/chat/completions"]


def test_request_ids_logs_and_metrics_are_kept(apps, caplog):
    fast = apps[0]
    with caplog.at_level("INFO", logger="replyguard.serve"):
        answer = fast.post("/v1/check", json=CHECK, headers={**AUTH, "X-Request-ID": "rid-42"})
    assert answer.headers["x-request-id"] == "rid-42"
    logged = [r for r in caplog.records if r.getMessage() == "request"]
    assert [(r.path, r.status) for r in logged] == [("/v1/check", 200)]  # type: ignore[attr-defined]
    metrics = fast.get("/metrics", headers=AUTH).text
    assert 'replyguard_requests_total{method="POST",route="/v1/check",status="200"}' in metrics
    assert 'replyguard_requests_total{method="POST",route="/v1/chat/completions"' in metrics


def test_a_fast_route_no_router_serves_is_refused():
    router = APIRouter()
    declared = {("POST", "/v1/elsewhere"): FastRoute(ChatRequest, lambda body, shared: None)}
    with pytest.raises(ValueError, match="POST /v1/elsewhere"):
        fast_routes([router], declared)
