"""The hot routes served below FastAPI: `POST /v1/chat/completions` and `POST /v1/check`
answered without FastAPI's routing, dependency solving and body handling (half the Python calls
of a proxied request, a tenth to a quarter of the service's CPU for it: docs/service.md,
"Latency").

FastRoutes is the innermost of the app's middleware: the request id, the log line, the metrics
(RequestLog) and the body limit (BodyLimit) are theirs as for every route. A request whose
method and path are a fast route's, whose body is JSON (or declares no type) and validates
against the route's pydantic model (`model_validate_json`, straight from the bytes), is answered
here: the API key checked by `require_key` itself, the route's endpoint function called with the
validated body and the app's state (the very function the FastAPI route calls: the route modules
declare it in FAST_ROUTES beside the route), its Response sent, an exception it raises answered by
the app's own exception handlers (an unexpected one goes up to the 500 handler, as from a route).
Every other request goes on to FastAPI, and so does a body that is not JSON or does not
validate (the body replayed), which FastAPI answers as it always did (400 or 422 naming the
field): the routes stay declared there, so /openapi.json documents them.

    FAST_ROUTES = {("POST", "/v1/check"): FastRoute(CheckRequest, lambda body, shared: ...)}
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter
from fastapi.routing import APIRoute
from pydantic import BaseModel, ValidationError
from starlette.datastructures import State
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from replyguard.serve.auth import check_key
from replyguard.serve.limits import replaying


@dataclass(frozen=True)
class FastRoute:
    """A route's body model, and its endpoint called with the validated body and app.state."""

    body: type[BaseModel]
    call: Callable[[Any, State], Awaitable[Response]]
    route: APIRoute | None = None  # the FastAPI route (its path template names it in metrics)


def fast_routes(
    routers: Iterable[APIRouter], declared: Mapping[tuple[str, str], FastRoute]
) -> dict[tuple[str, str], FastRoute]:
    """The declared fast routes, each with the routers' route of its method and path (a fast
    route that no router serves too is a mistake: ValueError)."""
    routes = {}
    for (method, path), fast in declared.items():
        found = [
            r
            for router in routers
            for r in router.routes
            if isinstance(r, APIRoute) and r.path == path and method in r.methods
        ]
        if not found:
            raise ValueError(f"fast route {method} {path}: no router serves it")
        routes[method, path] = FastRoute(fast.body, fast.call, found[0])
    return routes


class FastRoutes:
    """ASGI middleware (innermost): the fast routes answered here, the rest passed on."""

    def __init__(self, app: ASGIApp, routes: Mapping[tuple[str, str], FastRoute]) -> None:
        self.app = app
        self.routes = dict(routes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        fast = (
            self.routes.get((scope["method"], scope["path"])) if scope["type"] == "http" else None
        )
        if fast is None:
            await self.app(scope, receive, send)
            return
        body = await _body(receive)
        parsed = _parsed(fast.body, body) if _is_json(scope) else None
        if parsed is None:
            await self.app(scope, replaying(body, receive), send)
            return
        scope["route"] = fast.route
        app = scope["app"]
        request = Request(scope, receive)
        try:
            await check_key(request, app.state.service)
            response = await fast.call(parsed, app.state)
        except Exception as exc:
            handler = _handler(app.exception_handlers, exc)
            if handler is None:
                raise
            response = await handler(request, exc)
        await response(scope, receive, send)


async def _body(receive: Receive) -> bytes:
    chunks = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    return b"".join(chunks)


def _parsed(model: type[BaseModel], body: bytes) -> BaseModel | None:
    if not body:
        return None
    try:
        return model.model_validate_json(body)
    except ValidationError:
        return None


def _is_json(scope: Scope) -> bool:
    """A body FastAPI reads as JSON: no content type, or application/json or /...+json."""
    declared = next((v for k, v in scope["headers"] if k == b"content-type"), None)
    if declared is None:
        return True
    kind = declared.split(b";", 1)[0].strip().lower()
    return kind == b"application/json" or (
        kind.startswith(b"application/") and kind.endswith(b"+json")
    )


def _handler(handlers: Mapping[Any, Any], exc: Exception) -> Any:
    """The app's handler of `exc` (its class or the nearest base), as FastAPI's exception
    middleware finds it; None for those only the 500 handler takes."""
    for cls in type(exc).__mro__:
        if cls is Exception:
            return None
        if cls in handlers:
            return handlers[cls]
    return None
