"""Service: what every route shares, kept on `app.state.service` and reached with
`service: Service = Depends(get_service)`.

    service.config    ServeConfig
    service.pool      EnginePool (replaced whole by `reload`; take it once per request)
    service.store     SessionStore
    service.metrics   Metrics

`reload()` builds a new pool from the configured KB and rules (re-read from disk): every
worker a new process with its new engine. Only once all of them are built does it switch;
calls already taken (waiting for a worker or running) finish on the old pool, which then
closes. A KB or rules that fail to load leave the old pool serving.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Annotated, Any

from fastapi import Depends, Request

from replyguard.errors import InputError
from replyguard.serve.config import ServeConfig
from replyguard.serve.metrics import Metrics
from replyguard.serve.pool import EnginePool
from replyguard.serve.sessions import SessionStore
from replyguard.serve.worker import EngineSpec

log = logging.getLogger("replyguard.serve")


class Service:
    def __init__(self, config: ServeConfig, pool: EnginePool, store: SessionStore) -> None:
        self.config = config
        self.pool = pool
        self.store = store
        self.metrics = Metrics(lambda: self.pool.pending)
        self.loaded_at = time.time()
        self._reload_lock = asyncio.Lock()
        self._closing: set[asyncio.Task[None]] = set()

    @classmethod
    async def start(cls, config: ServeConfig) -> Service:
        """Open the session store and build every worker's engine (InputError/RuleError on a
        KB, rules or store that cannot be used)."""
        pool = _pool(config)
        engines = await pool.start()
        try:
            store = SessionStore(config.session_store, config.session_ttl)
        except BaseException:
            await pool.close()
            raise
        service = cls(config, pool, store)
        if not config.api_keys:
            log.warning("no API keys configured (REPLYGUARD_API_KEYS): every route is open")
        log.info("engines ready", extra={"workers": len(engines), "kb": config.kb})
        return service

    @property
    def ready(self) -> bool:
        return not self.pool.closed

    @property
    def engines(self) -> list[dict[str, Any]]:
        """Each serving worker's process id, entities and KB atoms."""
        return self.pool.describe()

    async def reload(self) -> dict[str, Any]:
        async with self._reload_lock:
            started = time.perf_counter()
            new = _pool(self.config)
            engines = await new.start()
            old, self.pool = self.pool, new
            self.loaded_at = time.time()
            task = asyncio.create_task(old.close())
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)
            seconds = round(time.perf_counter() - started, 3)
            log.info("reloaded", extra={"seconds": seconds, "kb": self.config.kb})
            return {"status": "reloaded", "seconds": seconds, "workers": len(engines)}

    async def close(self) -> None:
        await self.pool.close()
        await asyncio.gather(*self._closing)
        self.store.close()


def _pool(config: ServeConfig) -> EnginePool:
    if config.kb is None:
        raise InputError("kb: no KB to serve; give --kb or [serve] kb in the config file")
    spec = EngineSpec(
        kb=config.kb,
        rules=config.rules,
        config=tuple(sorted(config.engine.items())),
        annotation_style=config.annotation_style,
    )
    return EnginePool(
        spec,
        config.workers,
        max_pending=config.max_pending,
        timeout=config.check_timeout_seconds,
    )


async def get_service(request: Request) -> Service:
    return request.app.state.service


ServiceDep = Annotated[Service, Depends(get_service)]
