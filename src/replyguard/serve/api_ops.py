"""Operations: GET /v1/health (the process answers; no key), GET /v1/ready (engines built, KB
and rules loaded; no key), GET /metrics (Prometheus), POST /v1/admin/reload (re-read the rules
and the KB, then switch, without dropping requests)."""

from __future__ import annotations

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse, Response

from replyguard.serve.api_check import ERRORS
from replyguard.serve.auth import require_key
from replyguard.serve.service import ServiceDep

router = APIRouter(tags=["operations"])


@router.get("/v1/health")
async def health() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/v1/ready", responses={503: {"description": "engines not ready"}})
async def ready(service: ServiceDep) -> JSONResponse:
    body = {
        "status": "ready" if service.ready else "not_ready",
        "kb": service.config.kb,
        "rules": service.config.rules,
        "workers": service.engines,
        "pending": service.pool.pending,
    }
    if not service.ready:
        headers = {"Retry-After": str(service.config.retry_after_seconds)}
        return JSONResponse(body, status_code=503, headers=headers)
    return JSONResponse(body)


@router.get("/metrics", dependencies=[Depends(require_key)], responses=ERRORS)
async def metrics(service: ServiceDep) -> Response:
    return Response(service.metrics.render(), media_type=service.metrics.content_type)


@router.post("/v1/admin/reload", dependencies=[Depends(require_key)], responses=ERRORS)
async def reload(service: ServiceDep) -> dict[str, object]:
    return await service.reload()
