"""The proxy's parts that need no app: the upstream client against the scripted fake upstream,
and the review store."""

from __future__ import annotations

import asyncio

import pytest

from replyguard.errors import InputError
from replyguard.serve.review import ReviewStore
from replyguard.serve.scripted_upstream import FakeUpstream, Reply, tool_call
from replyguard.serve.upstream import Unreachable, Upstream, UpstreamError

BODY = {"model": "fake-model-1", "messages": [{"role": "user", "content": "Where is Oban?"}]}


def run(coro):
    return asyncio.run(coro)


async def _chat(url: str, body: dict, **kw) -> dict:
    upstream = Upstream(url, **kw)
    try:
        return await upstream.chat(body)
    finally:
        await upstream.aclose()


def test_the_client_sends_the_key_and_reads_the_completion() -> None:
    calls = [tool_call("c1", "lookup", {"town": "Oban"})]
    with FakeUpstream([Reply("Oban is in Scotland."), Reply(tool_calls=calls)]) as fake:
        first = run(_chat(fake.url, BODY, api_key="k-up"))
        second = run(_chat(fake.url, BODY))
    assert first["choices"][0]["message"]["content"] == "Oban is in Scotland."
    assert second["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "lookup"
    assert fake.headers[0]["authorization"] == "Bearer k-up"
    assert "authorization" not in fake.headers[1]
    assert fake.requests[0]["stream"] is False and fake.requests[0]["messages"] == BODY["messages"]


def test_an_error_keeps_its_status_envelope_and_retry_after() -> None:
    error = {"message": "slow down", "type": "rate_limit_error", "code": "rate_limited"}
    plan = [Reply(status=429, headers={"Retry-After": "7"}, error=error)]
    with FakeUpstream(plan) as fake, pytest.raises(UpstreamError) as caught:
        run(_chat(fake.url, BODY))
    assert caught.value.status == 429 and caught.value.retry_after == "7"
    assert caught.value.body == {"error": error}


def test_a_slow_upstream_times_out_and_a_closed_port_is_unreachable() -> None:
    with FakeUpstream([Reply("late", delay=1.0)]) as fake, pytest.raises(Unreachable) as slow:
        run(_chat(fake.url, BODY, timeout=0.2))
    assert slow.value.timed_out
    with pytest.raises(Unreachable) as closed:
        run(_chat(fake.url, BODY))
    assert not closed.value.timed_out


def test_a_streamed_completion_arrives_in_chunks() -> None:
    async def collect(url: str) -> list[dict]:
        upstream = Upstream(url)
        try:
            return [chunk async for chunk in upstream.stream(BODY)]
        finally:
            await upstream.aclose()

    with FakeUpstream([Reply("Ferries leave Oban hourly.", chunk_chars=5)]) as fake:
        chunks = run(collect(fake.url))
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks)
    assert text == "Ferries leave Oban hourly." and len(chunks) > 3
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"


def test_the_review_store_keeps_items_until_resolved(tmp_path) -> None:
    path = tmp_path / "review.sqlite3"
    store = ReviewStore(path)
    attempts = [
        {"text": "Oban is in Wales.", "verdict": {"recommendation": {"kind": "Regenerate"}}}
    ]
    item_id = store.add(
        source="proxy", model="m", dialogue=BODY["messages"], attempts=attempts, reason="wrong"
    )
    store.close()
    again = ReviewStore(path)
    item = again.get(item_id)
    assert item is not None and item["attempts"] == attempts and item["status"] == "open"
    assert item["dialogue"] == BODY["messages"]
    assert [i["id"] for i in again.items()] == [item_id]
    assert again.resolve(item_id, "answered by hand") and again.items() == []
    assert again.get(item_id)["note"] == "answered by hand"
    assert again.get("rev-none") is None


def test_a_review_store_that_cannot_be_opened_is_an_input_error(tmp_path) -> None:
    with pytest.raises(InputError, match="cannot open the review store"):
        ReviewStore(tmp_path / "missing" / "dir" / "r.sqlite3")


def test_proxy_settings_are_read_and_a_wrong_one_is_named() -> None:
    from replyguard.serve.guard import ProxySettings

    settings = ProxySettings.from_table(
        {"mode": "monitor", "max-regenerations": 0, "upstream_timeout_seconds": 5}
    )
    assert (settings.mode, settings.max_regenerations, settings.upstream_timeout_seconds) == (
        "monitor",
        0,
        5,
    )
    for table, problem in [
        ({"mode": "shadow"}, "proxy.mode: expected one of enforce, monitor"),
        ({"max_regenerations": "two"}, "proxy.max_regenerations: expected a whole number"),
        ({"max_regenerations": 1.5}, "proxy.max_regenerations: expected a whole number"),
        ({"annotate_flags": 1}, "proxy.annotate_flags: expected true or false"),
        ({"retries": 3}, "proxy.retries: unknown setting"),
        ({"upstream_timeout_seconds": 0}, "proxy.upstream_timeout_seconds: must be a positive"),
    ]:
        with pytest.raises(InputError, match=f"^serve.toml: {problem}"):
            ProxySettings.from_table(table, "serve.toml")
