"""EnginePool: a bounded pool of worker processes, each holding its own Engine.

Hyperon engines are not thread-safe, so checks run in N spawned processes (replyguard.serve.
replica: one Engine each, built from the served KB, rules and engine settings), each reached
over its own socket by the event loop. The API is async, so the loop keeps answering (health
checks, metrics) while checks run:

    pool = EnginePool(spec, workers=2, max_pending=64, timeout=30)
    await pool.start()                        # builds every engine; raises the KB/rules error
    answer = await pool.check(case_dict)      # {"summary": {...}, "result": PostprocessedResponse}
    value = await pool.call(fn, *args)        # fn(worker, *args), a module-level function
    values = await pool.each(fn, *args)       # fn on every worker, in worker order
    pool.describe()                           # each worker's ping: pid, entities, KB atoms
    await pool.close()                        # lets the calls taken (waiting or running) finish

Bounds: more than `max_pending` calls waiting or running raise Busy (the routes answer 429 with
Retry-After). A call that waits `timeout` for a free worker, or runs longer than `timeout` on
one, raises Unavailable (503); the worker of a call past its time is killed and replaced, as is a
worker that died, so the next calls find a fresh process. A caller that gives up (a client that
went away) leaves its call to finish, and the worker serves on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from replyguard.errors import ReplyguardError
from replyguard.serve import worker as worker_module
from replyguard.serve.replica import Replica, WorkerDied
from replyguard.serve.worker import EngineSpec

log = logging.getLogger("replyguard.serve")

# How long to wait before building a replacement again when the last attempt failed.
RETRY_SECONDS = 5.0


class Busy(Exception):
    """More work is waiting than the pool takes (max_pending)."""


class Unavailable(Exception):
    """The pool cannot answer now: closed, a worker died, or the check timed out."""


class EnginePool:
    def __init__(self, spec: EngineSpec, workers: int, *, max_pending: int, timeout: float) -> None:
        self.spec = spec
        self.workers = workers
        self.max_pending = max_pending
        self.timeout = timeout
        self.pending = 0
        self.closed = False
        self.replicas: list[Replica] = []
        self._infos: dict[Replica, dict[str, Any]] = {}
        self._idle: asyncio.Queue[Replica] = asyncio.Queue()
        self._replacing: set[asyncio.Task[None]] = set()
        self._drained = asyncio.Event()  # set once closed with no call left

    async def start(self) -> list[dict[str, Any]]:
        """Build every worker's engine; the KB's or rules' load error is raised here."""
        started = await asyncio.gather(
            *(Replica.start(self.spec) for _ in range(self.workers)), return_exceptions=True
        )
        ready = [s for s in started if not isinstance(s, BaseException)]
        failures = [s for s in started if isinstance(s, BaseException)]
        if failures:
            self.closed = True
            for replica, _ in ready:
                replica.kill()
            own = [f for f in failures if isinstance(f, ReplyguardError)]
            if own:
                raise own[0]
            if isinstance(failures[0], WorkerDied):
                raise Unavailable("a worker process ended while building its engine") from None
            raise failures[0]
        for replica, info in ready:
            self._add(replica, info)
        return self.describe()

    def describe(self) -> list[dict[str, Any]]:
        """What each worker answered when it started (process id, entities, KB atoms)."""
        return [self._infos[r] for r in self.replicas]

    def _add(self, replica: Replica, info: dict[str, Any]) -> None:
        self.replicas.append(replica)
        self._infos[replica] = info
        self._idle.put_nowait(replica)

    async def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """fn(worker, *args) in a worker process, its return value or its exception."""
        if self.closed:
            raise Unavailable("the engine pool is closed")
        if self.pending >= self.max_pending:
            raise Busy(f"{self.pending} checks are waiting; the limit is {self.max_pending}")
        self.pending += 1
        try:
            try:
                replica = await asyncio.wait_for(self._idle.get(), self.timeout)
            except TimeoutError:
                raise Unavailable(f"no worker was free for {self.timeout:g} s") from None
            return await self._run(replica, fn, args)
        finally:
            self.pending -= 1
            if self.closed and not self.pending:
                self._drained.set()

    async def _run(self, replica: Replica, fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
        call = asyncio.ensure_future(replica.ask(fn, args))
        try:
            done, _ = await asyncio.wait({call}, timeout=self.timeout)
        except asyncio.CancelledError:  # the caller gave up (a client went): the call finishes
            call.add_done_callback(lambda _: self._release(replica, call))
            raise
        if not done:  # past its time: the worker is killed and replaced
            call.cancel()
            self._replace(replica)
            raise Unavailable(f"the check took longer than {self.timeout:g} s")
        self._release(replica, call)
        try:
            return call.result()
        except WorkerDied:
            raise Unavailable("a worker process ended while checking; try again") from None

    def _release(self, replica: Replica, call: asyncio.Future[Any]) -> None:
        """A worker whose call is over back among the free ones; one left half-way (died, or
        cancelled on its socket) replaced by a fresh process."""
        if not call.cancelled():
            call.exception()  # retrieved here; raised to the caller by call.result()
        if replica.in_step:
            self._idle.put_nowait(replica)
        else:
            self._replace(replica)

    async def each(self, fn: Callable[..., Any], *args: Any) -> list[Any]:
        """fn(worker, *args) on every worker of the pool (each after its call in flight)."""
        if self.closed:
            raise Unavailable("the engine pool is closed")
        return list(await asyncio.gather(*(r.ask(fn, args) for r in list(self.replicas))))

    def _replace(self, replica: Replica) -> None:
        replica.kill()
        if replica in self.replicas:
            self.replicas.remove(replica)
            del self._infos[replica]
        if self.closed:
            return
        log.warning("worker replaced", extra={"pid": replica.pid})
        task = asyncio.get_running_loop().create_task(self._add_worker())
        self._replacing.add(task)
        task.add_done_callback(self._replacing.discard)

    async def _add_worker(self) -> None:
        while not self.closed:
            try:
                replica, info = await Replica.start(self.spec)
            except Exception as exc:
                log.error("a replacement worker failed to start", extra={"error": str(exc)})
                await asyncio.sleep(RETRY_SECONDS)
                continue
            if self.closed:
                replica.kill()
                return
            self._add(replica, info)
            return

    async def check(self, case: dict[str, Any]) -> dict[str, Any]:
        """A case-file document (kb inline or absent) -> {"summary", "result"}."""
        return await self.call(worker_module.check_case, case)

    async def close(self) -> None:
        """Refuse new calls, let those taken finish (waiting for a worker or running: a reload
        drops none), then end the processes."""
        self.closed = True
        if self.pending:
            await self._drained.wait()
        for task in list(self._replacing):
            task.cancel()
        await asyncio.gather(*(r.close() for r in self.replicas))
        self.replicas.clear()
