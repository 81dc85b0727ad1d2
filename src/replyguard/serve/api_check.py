"""POST /v1/check: one case (kb inline or the served one) -> the full result and its summary."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse

from replyguard.serve.api_models import CheckRequest, CheckResponse
from replyguard.serve.auth import require_key
from replyguard.serve.errors import ApiError
from replyguard.serve.fastpath import FastRoute
from replyguard.serve.limits import check_reply_length
from replyguard.serve.service import Service, ServiceDep

router = APIRouter(dependencies=[Depends(require_key)], tags=["check"])

ERRORS = {
    401: {"description": "missing or invalid API key"},
    413: {"description": "body too large"},
    422: {"description": "a field is invalid (named in error.param)"},
    429: {"description": "too much work waiting; retry after Retry-After seconds"},
    503: {"description": "engines not ready or a check failed to finish; retry"},
}


def respond(service: Service, answer: dict[str, Any]) -> JSONResponse:
    """The check answer as the response body, its result counted in the metrics; the check's
    stages and its whole time in the worker in a Server-Timing header."""
    result = answer["result"]
    service.metrics.observe_result(result)
    stages = result.get("timings_ms", {}).get("total", 0.0)
    timing = f"check;dur={stages}, worker;dur={answer['worker_ms']}"
    return JSONResponse({**answer["summary"], "result": result}, headers={"Server-Timing": timing})


def require_ready(service: Service) -> None:
    if not service.ready:
        raise ApiError(
            503,
            "the engines are not ready",
            code="not_ready",
            headers={"Retry-After": str(service.config.retry_after_seconds)},
        )


@router.post("/v1/check", response_model=CheckResponse, responses=ERRORS)
async def check(body: CheckRequest, service: ServiceDep) -> JSONResponse:
    check_reply_length("response", body.response, service.config.max_reply_chars)
    require_ready(service)
    document = body.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return respond(service, await service.pool.check(document))


# served below FastAPI (replyguard.serve.fastpath), by the function above
FAST_ROUTES = {
    ("POST", "/v1/check"): FastRoute(CheckRequest, lambda body, shared: check(body, shared.service))
}
