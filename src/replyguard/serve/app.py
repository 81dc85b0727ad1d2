"""create_app(config) -> FastAPI: the service's routes, errors, limits, logs and metrics.

Route modules each define `router` (a fastapi.APIRouter, with `dependencies=[Depends(require_key)]`
unless the route is a health probe); ROUTER_MODULES lists them, so a new module is one line here.
A module's FAST_ROUTES, its hot routes, are served below FastAPI (replyguard.serve.fastpath).
The app's lifespan starts the Service (engine pool, session store) unless one is given already
built (the CLI builds it first, so a bad KB is a one-line error before the port opens), purges
expired sessions every minute, and closes everything on shutdown.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import logging
import time
from collections.abc import AsyncIterator

from fastapi import FastAPI
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from replyguard.serve import errors
from replyguard.serve.config import ServeConfig
from replyguard.serve.fastpath import FastRoutes, fast_routes
from replyguard.serve.limits import BodyLimit
from replyguard.serve.logs import new_request_id, request_id
from replyguard.serve.service import Service

ROUTER_MODULES: tuple[str, ...] = (
    "replyguard.serve.api_ops",
    "replyguard.serve.api_check",
    "replyguard.serve.api_sessions",
    "replyguard.serve.proxy",
    "replyguard.serve.litellm",
    "replyguard.serve.api_review",
)

PURGE_SECONDS = 60.0
log = logging.getLogger("replyguard.serve")


def create_app(config: ServeConfig, service: Service | None = None) -> FastAPI:
    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        running = service or await Service.start(config)
        app.state.service = running
        # What was built to start (the imported engine modules, grammars, the app) lives as long
        # as the process: kept out of the collector's sight, a full collection no longer walks
        # it between requests (it did: ~150 ms every few hundred requests)
        gc.collect()
        gc.freeze()
        purger = asyncio.create_task(_purge(running))
        try:
            yield
        finally:
            purger.cancel()
            await running.close()
            gc.unfreeze()

    app = FastAPI(
        title="replyguard",
        version="1",
        summary="Checks an LLM reply against a knowledge base and the dialogue.",
        lifespan=lifespan,
    )
    errors.install(app, config.retry_after_seconds)
    modules = [importlib.import_module(name) for name in ROUTER_MODULES]
    fast = {}
    for module in modules:
        app.include_router(module.router)
        fast.update(getattr(module, "FAST_ROUTES", {}))
    app.add_middleware(FastRoutes, routes=fast_routes([m.router for m in modules], fast))
    app.add_middleware(BodyLimit, max_bytes=config.max_body_bytes)
    app.add_middleware(RequestLog)
    return app


async def _purge(service: Service) -> None:
    while True:
        await asyncio.sleep(min(PURGE_SECONDS, service.config.session_ttl))
        gone = await asyncio.to_thread(service.store.purge)
        if gone:
            log.info("expired sessions removed", extra={"sessions": gone})


class RequestLog:
    """ASGI middleware (outermost): the request id, one log line and the metrics per request."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        given = headers.get(b"x-request-id")
        rid = new_request_id(given.decode("latin-1") if given is not None else None)
        token = request_id.set(rid)
        started = time.perf_counter()
        status = 500

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message = {
                    **message,
                    "headers": [*message["headers"], (b"x-request-id", rid.encode())],
                }
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            seconds = time.perf_counter() - started
            route = scope.get("route")
            template = getattr(route, "path", "unmatched")
            service = getattr(scope["app"].state, "service", None) if "app" in scope else None
            if service is not None:
                service.metrics.observe_request(template, scope["method"], status, seconds)
            log.info(
                "request",
                extra={
                    "method": scope["method"],
                    "path": scope["path"],
                    "status": status,
                    "ms": round(seconds * 1000, 2),
                },
            )
            request_id.reset(token)
