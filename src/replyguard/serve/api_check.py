"""POST /v1/check: one case (kb inline or the served one) -> the full result and its summary."""

from __future__ import annotations

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse

from replyguard.serve.api_models import CheckRequest, CheckResponse
from replyguard.serve.auth import require_key
from replyguard.serve.errors import ApiError
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


def respond(service: Service, answer: dict[str, object]) -> JSONResponse:
    """The check answer as the response body, its result counted in the metrics."""
    service.metrics.observe_result(answer["result"])  # type: ignore[arg-type]
    return JSONResponse({**answer["summary"], "result": answer["result"]})  # type: ignore[dict-item]


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
