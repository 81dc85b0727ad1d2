"""API keys: `Authorization: Bearer KEY` (or `x-api-key: KEY`, as LiteLLM sends it) on every
route but /v1/health and /v1/ready. Keys come from REPLYGUARD_API_KEYS; with none configured the
routes are open (the service logs a warning at start).

Routers take it as `APIRouter(dependencies=[Depends(require_key)])`; the fast routes, served
below FastAPI (replyguard.serve.fastpath), call it through `check_key`.
"""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from replyguard.serve.errors import ApiError
from replyguard.serve.service import Service, ServiceDep

_bearer = HTTPBearer(auto_error=False, description="an API key from REPLYGUARD_API_KEYS")


async def require_key(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    service: ServiceDep,
) -> None:
    keys = service.config.api_keys
    if not keys:
        return
    given = credentials.credentials if credentials else request.headers.get("x-api-key")
    if given is None:
        raise ApiError(
            401,
            "no API key: send Authorization: Bearer KEY",
            code="missing_api_key",
            headers={"WWW-Authenticate": "Bearer"},
        )
    if not any(hmac.compare_digest(given.encode(), key.encode()) for key in keys):
        raise ApiError(
            401, "invalid API key", code="invalid_api_key", headers={"WWW-Authenticate": "Bearer"}
        )


async def check_key(request: Request, service: Service) -> None:
    """require_key with its dependencies given by hand (for a route served below FastAPI)."""
    await require_key(request, await _bearer(request), service)
