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

from replyguard.serve import worker as worker_module
from replyguard.serve.worker import EngineSpec, Worker

# How long each start-up ping holds its worker, so that N pings go to N distinct processes.
_START_HOLD_SECONDS = 0.2


class Busy(Exception):
    """More work is waiting than the pool takes (max_pending)."""


class Unavailable(Exception):
    """The pool cannot answer now: closed, a worker died, or the check timed out."""


_worker: Worker | None = None


def _start_worker(spec: EngineSpec, parent: int) -> None:
    from replyguard.batch import _follow_parent  # a worker ends when the service does

    global _worker
    _follow_parent(parent)
    _worker = Worker(spec)


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
        return ProcessPoolExecutor(
            self.workers,
            get_context("spawn"),
            initializer=_start_worker,
            initargs=(self.spec, os.getpid()),
        )

    async def start(self) -> list[dict[str, Any]]:
        """Build every worker's engine; the KB's or rules' load error is raised here."""
        pings = [
            asyncio.wrap_future(
                self._executor.submit(_run, worker_module.ping, (_START_HOLD_SECONDS,))
            )
            for _ in range(self.workers)
        ]
        try:
            return list(await asyncio.gather(*pings))
        except BaseException:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self.closed = True
            raise

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
