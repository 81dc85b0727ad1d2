"""The HTTP service on a real loopback server: each route, keys, limits, the error envelope,
sessions across a restart, 50 concurrent checks over 2 workers, reload during traffic."""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
from datetime import datetime
from pathlib import Path

import httpx
import pytest
import schemathesis
from conftest import REFERENCE, SEED_KB
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from serve_support import running, serving, write_kb

from replyguard.models import Case
from replyguard.serve import worker
from replyguard.serve.config import ServeConfig

KEY = "test-key-7f3a"
AUTH = {"Authorization": f"Bearer {KEY}"}

# (query, reply) pairs on the seed KB, right and wrong, known and unknown people.
REPLIES = [
    ("Which department is Sarah in?", "Sarah works in Marketing."),
    ("Which department is Sarah in?", "Sarah works in Legal."),
    ("When did John join?", "John joined the company in 2020."),
    ("When did John join?", "John joined the company in 2016."),
    ("What is Emily's email?", "You can write to Emily at emily.chen@company.com."),
    ("Who runs payroll?", "Payroll is run by Marcus Webb, who joined in 2012."),
    ("Where is Acme based?", "Acme has its headquarters in Boston."),
    (
        "What is Emily's email?",
        "Emily's email is emily.chen@company.com. Nora Vance in audit helps.",
    ),
    ("When is the budget review?", "The budget review is on 2026-12-01 at 14:00 in Room 4."),
    ("Which department is John in?", "John is part of the Finance team."),
]


def case(query: str, reply: str, **extra: object) -> dict[str, object]:
    return {"query": query, "response": reply, "reference_time": REFERENCE.isoformat(), **extra}


def without_timings(result: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in result.items() if k != "timings_ms"}


def expected(engine, document: dict[str, object]) -> dict[str, object]:
    """The library's result for the same case, checked in this process one at a time."""
    built = Case.model_validate({**document, "kb": SEED_KB})
    return without_timings(json.loads(engine.check_case(built).model_dump_json()))


@pytest.fixture(scope="module")
def kb_file(tmp_path_factory):
    return write_kb(tmp_path_factory.mktemp("kb") / "kb.json", SEED_KB)


@pytest.fixture(scope="module")
def config(kb_file, tmp_path_factory) -> ServeConfig:
    store = tmp_path_factory.mktemp("store") / "sessions.sqlite3"
    return ServeConfig(
        kb=kb_file,
        workers=2,
        api_keys=(KEY,),
        max_body_bytes=300_000,
        max_reply_chars=3_000,
        session_store=str(store),
    )


@pytest.fixture(scope="module")
def base(config):
    with serving(config) as url:
        yield url


@pytest.fixture
def client(base):
    with httpx.Client(base_url=base, headers=AUTH, timeout=120) as c:
        yield c


# ------------------------------------------------------------------ operations


def test_health_and_ready_answer_without_a_key(base, kb_file):
    with httpx.Client(base_url=base) as anonymous:
        assert anonymous.get("/v1/health").json() == {"status": "ok"}
        ready = anonymous.get("/v1/ready").json()
        assert anonymous.post("/v1/check", json=case(*REPLIES[0])).status_code == 401
    assert ready["status"] == "ready" and ready["kb"] == kb_file
    assert len({w["pid"] for w in ready["workers"]}) == 2
    assert all(w["entities"] == len(SEED_KB["entities"]) for w in ready["workers"])


def test_openapi_schema_lists_every_route(base):
    paths = httpx.get(f"{base}/openapi.json").json()["paths"]
    for path in (
        "/v1/check",
        "/v1/sessions/{session_id}/turns",
        "/v1/sessions/{session_id}/check",
        "/v1/sessions/{session_id}",
        "/v1/health",
        "/v1/ready",
        "/metrics",
        "/v1/admin/reload",
    ):
        assert path in paths
    assert set(paths["/v1/sessions/{session_id}"]) == {"get", "delete"}


def test_request_id_is_echoed_or_made(client):
    given = client.get("/v1/health", headers={"X-Request-ID": "trace-41"})
    assert given.headers["x-request-id"] == "trace-41"
    made = client.get("/v1/health", headers={"X-Request-ID": "bad id with spaces"})
    assert made.headers["x-request-id"] not in ("", "bad id with spaces")


# ------------------------------------------------------------------ /v1/check


def test_check_against_the_served_kb_is_the_library_result(client, engine):
    document = case("Which department is Sarah in?", "Sarah works in Legal.")
    answer = client.post("/v1/check", json=document).json()
    assert without_timings(answer["result"]) == expected(engine, document)
    assert answer["recommendation"] == answer["result"]["recommendation"]["kind"]
    assert answer["result"]["timings_ms"]["total"] > 0


@pytest.mark.parametrize(
    ("query", "reply", "status"),
    [
        ("Where is Acme based?", "Acme has its headquarters in Boston.", "passed"),
        ("Which department is Sarah in?", "Sarah works in Legal.", "modified"),
        ("Who runs payroll?", "Payroll is run by Marcus Webb, who joined in 2012.", "blocked"),
    ],
)
def test_summary_says_what_is_delivered(client, query, reply, status):
    answer = client.post("/v1/check", json=case(query, reply)).json()
    assert answer["status"] == status
    result = answer["result"]
    delivered = {
        "passed": result["original"],
        "modified": (result["corrected"] or {}).get("corrected"),
        "blocked": None,
    }[status]
    assert answer["text"] == delivered


def test_check_with_an_inline_kb_uses_that_kb(client):
    kb = {
        "entities": [
            {
                "id": "P1",
                "name": "Ingrid Holm",
                "type": "Person",
                "attributes": {"department": "Logistics"},
            }
        ],
        "schema": {"department": {"value_type": "enum", "cues": ["works in"]}},
    }
    reply = "Ingrid Holm works in Logistics."
    inline = client.post("/v1/check", json=case("Where is Ingrid?", reply, kb=kb)).json()
    served = client.post("/v1/check", json=case("Where is Ingrid?", reply)).json()
    inline_entities = {c["subject_id"] for c in inline["result"]["factual_validation"]["claims"]}
    assert "P1" in inline_entities
    assert inline["result"]["new_entities"] == []
    assert served["result"]["new_entities"]  # the served KB does not know her


def test_check_refuses_a_kb_path(client):
    response = client.post("/v1/check", json=case(*REPLIES[0], kb="/etc/passwd"))
    assert response.status_code == 422
    assert response.json()["error"]["param"] == "kb"


# ------------------------------------------------------------------ errors, keys and limits


def assert_envelope(response: httpx.Response, status: int, param: str | None = None) -> dict:
    assert response.status_code == status
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert isinstance(error["message"], str) and error["message"]
    if param is not None:
        assert error["param"] == param
    return error


def test_keys_bearer_or_x_api_key(base):
    document = case(*REPLIES[2])
    with httpx.Client(base_url=base, timeout=120) as c:
        missing = c.post("/v1/check", json=document)
        wrong = c.post("/v1/check", json=document, headers={"Authorization": "Bearer nope"})
        header = c.post("/v1/check", json=document, headers={"x-api-key": KEY})
        metrics = c.get("/metrics")
    assert assert_envelope(missing, 401)["code"] == "missing_api_key"
    assert assert_envelope(wrong, 401)["code"] == "invalid_api_key"
    assert missing.headers["www-authenticate"] == "Bearer"
    assert header.status_code == 200
    assert metrics.status_code == 401


def test_a_field_of_the_wrong_type_is_named(client):
    document = case(*REPLIES[0], dialogue={"turns": [{"speaker": 3, "text": "hello"}]})
    error = assert_envelope(client.post("/v1/check", json=document), 422)
    assert error["param"] == "dialogue.turns.0.speaker"
    assert error["message"].startswith("dialogue.turns.0.speaker: ")
    unknown = client.post("/v1/check", json=case(*REPLIES[0], colour="blue"))
    assert assert_envelope(unknown, 422, "colour")["message"] == "colour: unknown field"


def test_invalid_json_and_unknown_routes(client):
    bad = client.post(
        "/v1/check", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert_envelope(bad, 400, "body")
    assert_envelope(client.get("/v1/nothing-here"), 404)
    assert_envelope(client.put("/v1/check", json={}), 405)


def test_body_over_the_limit_is_413(client, config):
    padding = "x" * (config.max_body_bytes + 10)
    response = client.post("/v1/check", json=case("q", "r", metadata={"pad": padding}))
    assert assert_envelope(response, 413, "body")["code"] == "body_too_large"


def test_reply_over_the_limit_is_422_naming_it(client, config):
    reply = "Sarah works in Marketing. " * (config.max_reply_chars // 20)
    for path, body in (
        ("/v1/check", case("Where is Sarah?", reply)),
        ("/v1/sessions/limit-1/check", {"response": reply}),
    ):
        error = assert_envelope(client.post(path, json=body), 422, "response")
        assert error["code"] == "reply_too_long"


def test_no_room_in_the_pool_is_429_with_retry_after(client, base):
    service = running(base).service
    limit, service.pool.max_pending = service.pool.max_pending, 0
    try:
        response = client.post("/v1/check", json=case(*REPLIES[0]))
    finally:
        service.pool.max_pending = limit
    assert assert_envelope(response, 429)["type"] == "rate_limit_error"
    assert response.headers["retry-after"] == "1"


def test_a_check_past_its_time_is_503_with_retry_after(client, base):
    service = running(base).service
    timeout, service.pool.timeout = service.pool.timeout, 1e-6
    try:
        response = client.post("/v1/check", json=case(*REPLIES[1]))
    finally:
        service.pool.timeout = timeout
    assert_envelope(response, 503)
    assert int(response.headers["retry-after"]) >= 1


def test_busy_workers_do_not_hold_up_health(base):
    service, loop = running(base).service, running(base).loop
    holds = [
        asyncio.run_coroutine_threadsafe(service.pool.call(worker.ping, 3.0), loop)
        for _ in range(service.pool.workers)
    ]
    try:
        assert httpx.get(f"{base}/v1/health", timeout=2.5).json() == {"status": "ok"}
        assert not any(h.done() for h in holds)  # answered while every worker was busy
    finally:
        for hold in holds:
            hold.result(60)


# ------------------------------------------------------------------ sessions


def test_session_turns_check_get_delete(client, engine):
    sid = "chat-71"
    client.delete(f"/v1/sessions/{sid}")
    first = client.post(
        f"/v1/sessions/{sid}/turns",
        json={"turns": [{"speaker": "user", "text": "Emily started with us in 2021."}]},
    ).json()
    assert first["turns"] == 1 and first["added"][0]["id"] == "T1"
    second = client.post(
        f"/v1/sessions/{sid}/turns",
        json={
            "turns": [
                {"role": "assistant", "content": "Noted."},
                {"role": "user", "content": "When did Emily join?"},
            ]
        },
    ).json()
    assert [t["id"] for t in second["added"]] == ["T2", "T3"]
    answer = client.post(
        f"/v1/sessions/{sid}/check",
        json={"response": "Emily joined in 2015.", "reference_time": REFERENCE.isoformat()},
    ).json()
    # the same turns in a library session give the same result
    library = engine.session(sid)
    stored = client.get(f"/v1/sessions/{sid}").json()
    for turn in stored["turns"]:
        library.add_turn(
            turn["speaker"],
            turn["text"],
            id=turn["id"],
            timestamp=datetime.fromisoformat(turn["timestamp"]),
        )
    mine = library.check("Emily joined in 2015.", reference_time=REFERENCE)
    assert without_timings(answer["result"]) == without_timings(json.loads(mine.model_dump_json()))
    history = [
        e["turn_id"]
        for v in answer["result"]["factual_validation"]["claim_validations"]
        for e in v["history_evidence"]
    ]
    assert "T1" in history
    assert [t["id"] for t in stored["turns"]] == ["T1", "T2", "T3"]
    assert stored["state"]["turns"][0]["text"] == "Emily started with us in 2021."
    assert client.delete(f"/v1/sessions/{sid}").json() == {"id": sid, "deleted": True}
    assert_envelope(client.get(f"/v1/sessions/{sid}"), 404, "session_id")
    assert_envelope(client.delete(f"/v1/sessions/{sid}"), 404, "session_id")


def test_session_errors_name_the_field(client):
    sid = "chat-dup"
    client.delete(f"/v1/sessions/{sid}")
    client.post(
        f"/v1/sessions/{sid}/turns", json={"turns": [{"id": "a", "speaker": "user", "text": "Hi."}]}
    )
    dup = client.post(
        f"/v1/sessions/{sid}/turns",
        json={
            "turns": [
                {"id": "b", "speaker": "user", "text": "One."},
                {"id": "a", "speaker": "user", "text": "Two."},
            ]
        },
    )
    assert_envelope(dup, 422, "turns.1.id")
    assert len(client.get(f"/v1/sessions/{sid}").json()["turns"]) == 1  # nothing was added
    assert_envelope(client.post(f"/v1/sessions/{sid}/turns", json={"turns": []}), 422, "turns")
    assert_envelope(client.post("/v1/sessions/no-such/check", json={"response": "Hi."}), 404)
    assert_envelope(client.get("/v1/sessions/bad%20id"), 422, "session_id")


def test_a_restarted_service_continues_the_conversation(client, config):
    sid = "chat-restart"
    client.delete(f"/v1/sessions/{sid}")
    turns = [
        {"speaker": "user", "text": "John told me he works in Engineering."},
        {"speaker": "user", "text": "Which department is John in?"},
    ]
    client.post(f"/v1/sessions/{sid}/turns", json={"turns": turns})
    body = {"response": "John is in the Legal department.", "reference_time": REFERENCE.isoformat()}
    before = client.post(f"/v1/sessions/{sid}/check", json=body).json()
    # a second service (another process would do the same) on the same store
    with (
        serving(config.with_overrides(workers=1)) as other,
        httpx.Client(base_url=other, headers=AUTH, timeout=120) as c,
    ):
        after = c.post(f"/v1/sessions/{sid}/check", json=body).json()
        c.post(
            f"/v1/sessions/{sid}/turns",
            json={"turns": [{"speaker": "assistant", "text": "Right."}]},
        )
    assert without_timings(after["result"]) == without_timings(before["result"])
    assert [t["text"] for t in client.get(f"/v1/sessions/{sid}").json()["turns"]][-1] == "Right."


# ------------------------------------------------------------------ concurrency and reload


def test_50_concurrent_checks_equal_the_one_by_one_results(base, engine):
    documents = [case(*REPLIES[k % len(REPLIES)]) for k in range(50)]

    async def send_all() -> list[httpx.Response]:
        async with httpx.AsyncClient(base_url=base, headers=AUTH, timeout=300) as c:
            return await asyncio.gather(*(c.post("/v1/check", json=d) for d in documents))

    responses = asyncio.run(send_all())
    assert [r.status_code for r in responses] == [200] * 50
    one_by_one = {}
    for k, document in enumerate(documents):
        key = k % len(REPLIES)
        if key not in one_by_one:
            one_by_one[key] = expected(engine, document)
        assert without_timings(responses[k].json()["result"]) == one_by_one[key]


def test_metrics_count_requests_stages_recommendations_and_flags(client):
    client.post("/v1/check", json=case("Who runs payroll?", "Payroll is run by Marcus Webb."))
    text = client.get("/metrics").text
    assert 'replyguard_requests_total{method="POST",route="/v1/check",status="200"}' in text
    assert 'replyguard_stage_seconds_bucket{le="0.1",stage="total"}' in text
    assert "replyguard_recommendations_total{kind=" in text
    assert 'replyguard_flags_total{type="NonexistentEntity"}' in text
    assert "replyguard_pending_checks 0.0" in text


def test_reload_during_traffic_drops_nothing_and_swaps_the_kb(client, base, kb_file, engine):
    steady = case("Which department is Sarah in?", "Sarah works in Legal.")
    want = expected(engine, steady)
    seen: list[tuple[int, dict]] = []
    stop = threading.Event()

    def traffic() -> None:
        with httpx.Client(base_url=base, headers=AUTH, timeout=300) as c:
            while not stop.is_set():
                r = c.post("/v1/check", json=steady)
                seen.append((r.status_code, r.json()))

    moved = json.loads(json.dumps(SEED_KB))
    moved["entities"][0]["attributes"]["department"] = {"value": "Legal", "confidence": 1.0}
    probe = case("Which department is John in?", "John works in Legal.")
    before = client.post("/v1/check", json=probe).json()["result"]
    thread = threading.Thread(target=traffic)
    thread.start()
    try:
        write_kb(Path(kb_file), moved)
        reloaded = client.post("/v1/admin/reload")
    finally:
        stop.set()
        thread.join(300)
        write_kb(Path(kb_file), SEED_KB)
    assert reloaded.status_code == 200 and reloaded.json()["status"] == "reloaded"
    after = client.post("/v1/check", json=probe).json()["result"]
    assert seen and all(status == 200 for status, _ in seen)
    # each answer is the old engines' or the new ones', and once new, never old again
    then = without_timings(client.post("/v1/check", json=steady).json()["result"])
    answers = ["old" if without_timings(b["result"]) == want else "new" for _, b in seen]
    assert all(without_timings(b["result"]) in (want, then) for _, b in seen)
    assert answers == sorted(answers, key=["old", "new"].index)
    verdicts = {v["status"]["kind"] for v in after["factual_validation"]["claim_validations"]}
    assert verdicts == {"Verified"}
    assert "Contradicted" in {
        v["status"]["kind"] for v in before["factual_validation"]["claim_validations"]
    }
    assert client.post("/v1/admin/reload").status_code == 200  # the seed KB again


# ------------------------------------------------------------------ generated requests


def test_no_generated_request_is_a_server_error(base):
    """Requests generated from the OpenAPI schema (valid and not), a few per operation."""
    schema = schemathesis.openapi.from_url(f"{base}/openapi.json")
    # reload rebuilds every engine: it is exercised above, not dozens of times here
    operations = [r.ok() for r in schema.exclude(path="/v1/admin/reload").get_all_operations()]
    assert len(operations) >= 7

    for operation, mode in itertools.product(operations, GenerationMode):

        @given(case=operation.as_strategy(generation_mode=mode))
        @settings(
            max_examples=8,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            derandomize=True,
            database=None,
        )
        def call(case) -> None:
            response = case.call(base_url=base, headers=AUTH, timeout=120)
            assert response.status_code < 500, (case.path, response.text)
            if response.status_code >= 400:
                assert set(response.json()["error"]) == {"message", "type", "param", "code"}

        try:
            call()
        except Unsatisfiable:  # nothing to get wrong in a request without inputs
            assert mode is GenerationMode.NEGATIVE


def test_a_kb_that_fails_at_reload_leaves_the_old_engines_serving(client, kb_file):
    document = case("Which department is Sarah in?", "Sarah works in Marketing.")
    before = client.post("/v1/check", json=document).json()
    Path(kb_file).write_text('{"entities": [{"id": "bad id"}]}', encoding="utf-8")
    try:
        failed = client.post("/v1/admin/reload")
    finally:
        write_kb(Path(kb_file), SEED_KB)
    error = assert_envelope(failed, 422)
    assert error["message"].startswith(f"{kb_file}: ")
    after = client.post("/v1/check", json=document).json()
    assert without_timings(after["result"]) == without_timings(before["result"])
