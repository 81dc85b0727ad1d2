"""EnginePool: a bounded pool of worker processes, each holding its own Engine.

Hyperon engines are not thread-safe, so checks run in N spawned processes (one Engine each,
built from the served KB, rules and engine settings). The API is async, so the event loop keeps
answering (health checks, metrics) while checks run:

    pool = EnginePool(spec, workers=2, max_pending=64, timeout=30)
    await pool.start()                        # builds every engine; raises the KB/rules error
    answer = await pool.check(case_dict)      # {"summary": {...}, "result": PostprocessedResponse}
    value = await pool.call(fn, *args)        # fn(worker, *args), a module-level function
    await pool.close()                        # lets the checks in flight finish

Bounds: more than `max_pending` calls waiting or running raise Busy (the routes answer 429 with
Retry-After); a call longer than `timeout` or a worker that died raise Unavailable (503). A dead
worker's pool is replaced, so the next call gets fresh processes.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from typing import Any

from replyguard.errors import ReplyguardError
from replyguard.serve import worker as worker_module
from replyguard.serve.worker import EngineSpec, Worker

# How long start-up waits for every worker to have built its engine.
_START_SECONDS = 600


class Busy(Exception):
    """More work is waiting than the pool takes (max_pending)."""


class Unavailable(Exception):
    """The pool cannot answer now: closed, a worker died, or the check timed out."""


_worker: Worker | None = None
_started: Any = None  # a multiprocessing Barrier of all the pool's workers


def _start_worker(spec: EngineSpec, parent: int, started: Any) -> None:
    from replyguard.batch import _follow_parent  # a worker ends when the service does

    global _worker, _started
    _follow_parent(parent)
    _started = started
    _worker = Worker(spec)


def _started_ping(worker: Worker) -> dict[str, Any]:
    """Wait until every worker of the pool is here (so each builds its engine, and each answers
    one ping), then the worker's description; a worker whose engine failed breaks the wait."""
    try:
        info = worker_module.ping(worker)
    except BaseException:
        _started.abort()
        raise
    _started.wait(_START_SECONDS)
    return info


def _run(fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    assert _worker is not None, "the pool's initializer builds the worker"
    return fn(_worker, *args)


class EnginePool:
    def __init__(self, spec: EngineSpec, workers: int, *, max_pending: int, timeout: float) -> None:
        self.spec = spec
        self.workers = workers
        self.max_pending = max_pending
        self.timeout = timeout
        self.pending = 0
        self.closed = False
        self._executor = self._new_executor()

    def _new_executor(self) -> ProcessPoolExecutor:
        # spawn: a forked hyperon runtime (or a forked event loop's threads) is not safe to reuse
        context = get_context("spawn")
        return ProcessPoolExecutor(
            self.workers,
            context,
            initializer=_start_worker,
            initargs=(self.spec, os.getpid(), context.Barrier(self.workers)),
        )

    async def start(self) -> list[dict[str, Any]]:
        """Build every worker's engine; the KB's or rules' load error is raised here."""
        pings = [
            asyncio.wrap_future(self._executor.submit(_run, _started_ping, ()))
            for _ in range(self.workers)
        ]
        answers = await asyncio.gather(*pings, return_exceptions=True)
        failures = [a for a in answers if isinstance(a, BaseException)]
        if not failures:
            return answers  # type: ignore[return-value]
        self._executor.shutdown(wait=False, cancel_futures=True)
        self.closed = True
        # the worker whose engine failed says why; the others only saw the wait broken
        own = [f for f in failures if isinstance(f, ReplyguardError)]
        if own:
            raise own[0]
        if isinstance(failures[0], BrokenProcessPool):
            raise Unavailable("a worker process ended while building its engine") from None
        raise failures[0]

    async def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """fn(worker, *args) in a worker process, its return value or its exception."""
        if self.closed:
            raise Unavailable("the engine pool is closed")
        if self.pending >= self.max_pending:
            raise Busy(f"{self.pending} checks are waiting; the limit is {self.max_pending}")
        self.pending += 1
        executor = self._executor
        try:
            future = executor.submit(_run, fn, args)
            return await asyncio.wait_for(asyncio.wrap_future(future), self.timeout)
        except BrokenProcessPool:
            if executor is self._executor and not self.closed:
                self._executor = self._new_executor()
                executor.shutdown(wait=False, cancel_futures=True)
            raise Unavailable("a worker process ended while checking; try again") from None
        except TimeoutError:
            raise Unavailable(f"the check took longer than {self.timeout:g} s") from None
        finally:
            self.pending -= 1

    async def check(self, case: dict[str, Any]) -> dict[str, Any]:
        """A case-file document (kb inline or absent) -> {"summary", "result"}."""
        return await self.call(worker_module.check_case, case)

    async def close(self) -> None:
        """Refuse new calls, let those in flight finish, end the processes."""
        self.closed = True
        await asyncio.to_thread(self._executor.shutdown, True)
