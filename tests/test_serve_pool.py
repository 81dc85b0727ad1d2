"""The engine pool inside a running service: a call past its time kills and replaces its worker,
and a reload reaches every worker (a rule changed on disk is seen by both of two)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import httpx
import pytest
from conftest import SEED_KB
from serve_support import running, serving, setting, write_kb

from replyguard.serve import worker
from replyguard.serve.config import ServeConfig
from replyguard.serve.pool import Unavailable

THRESHOLD = "accept-threshold"
REBUILD_SECONDS = 300  # a replacement worker builds its engine; a loaded machine is slow


def threshold_rule(value: float) -> str:
    return f"(= (config {THRESHOLD}) {value})\n"


@pytest.fixture(scope="module")
def rules(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("rules")
    (folder / "threshold.metta").write_text(threshold_rule(0.81), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def base(rules, tmp_path_factory):
    folder = tmp_path_factory.mktemp("pool")
    config = ServeConfig(
        kb=write_kb(folder / "kb.json", SEED_KB),
        rules=str(rules),
        workers=2,
        session_store=str(folder / "sessions.sqlite3"),
    )
    with serving(config) as url:
        yield url


def on_loop(base: str, coroutine, timeout: float = REBUILD_SECONDS):  # noqa: ANN001, ANN201
    """Run one of the service's coroutines on its own event loop; its result."""
    return asyncio.run_coroutine_threadsafe(coroutine, running(base).loop).result(timeout)


def wait_for(condition, what: str) -> None:  # noqa: ANN001
    deadline = time.monotonic() + REBUILD_SECONDS
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def test_a_call_past_its_time_kills_its_worker_and_a_fresh_one_takes_its_place(base):
    pool = running(base).service.pool
    before = list(pool.replicas)
    timeout, pool.timeout = pool.timeout, 0.5
    try:
        with pytest.raises(Unavailable, match="longer than 0.5 s"):
            on_loop(base, pool.call(worker.ping, 20.0))  # holds its worker for 20 s
    finally:
        pool.timeout = timeout
    (stuck,) = [r for r in before if r not in pool.replicas]
    wait_for(lambda: stuck.process.exitcode is not None, "the stuck worker to end")
    assert stuck.process.exitcode == -9  # killed, not left to finish its 20 s
    wait_for(lambda: len(pool.replicas) == 2, "a replacement worker")
    pids = {answer["pid"] for answer in on_loop(base, pool.each(worker.ping))}
    assert len(pids) == 2 and stuck.pid not in pids
    assert {w["pid"] for w in httpx.get(f"{base}/v1/ready").json()["workers"]} == pids


def test_reload_reaches_every_worker(base, rules):
    service = running(base).service
    seen = on_loop(base, service.pool.each(setting, THRESHOLD))
    assert [s[THRESHOLD] for s in seen] == [0.81, 0.81]
    (rules / "threshold.metta").write_text(threshold_rule(0.93), encoding="utf-8")
    try:
        reloaded = httpx.post(f"{base}/v1/admin/reload", timeout=REBUILD_SECONDS)
        assert reloaded.status_code == 200 and reloaded.json()["workers"] == 2
        after = on_loop(base, service.pool.each(setting, THRESHOLD))
    finally:
        (rules / "threshold.metta").write_text(threshold_rule(0.81), encoding="utf-8")
    assert [s[THRESHOLD] for s in after] == [0.93, 0.93]
    assert len({s["pid"] for s in after}) == 2
    assert not {s["pid"] for s in after} & {s["pid"] for s in seen}  # new processes


def test_a_caller_that_gives_up_leaves_its_worker_serving(base):
    pool = running(base).service.pool
    wait_for(lambda: len(pool.replicas) == 2, "both workers")
    pids = sorted(r.pid for r in pool.replicas)
    gone = asyncio.run_coroutine_threadsafe(pool.call(worker.ping, 1.0), running(base).loop)
    time.sleep(0.3)  # the call is on a worker now
    gone.cancel()  # as when a streaming client goes away mid-check

    async def two_at_once() -> list[dict]:
        return await asyncio.gather(*(pool.call(worker.ping, 2.0) for _ in range(2)))

    # two calls side by side: the first holds the free worker longer than the left call has to
    # run, so the second is answered by the worker whose caller left, once that call finished
    # (a worker left taken would answer neither; a replaced one has another process id)
    assert sorted(a["pid"] for a in on_loop(base, two_at_once())) == pids
    assert sorted(a["pid"] for a in on_loop(base, pool.each(worker.ping))) == pids
