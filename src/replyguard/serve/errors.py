"""Every failure answered in the OpenAI error envelope:
{"error": {"message": ..., "type": ..., "param": ..., "code": ...}}.

Raise ApiError(status, message, ...) in a route; `install(app)` maps the rest: request
validation (422, `param` naming the field), the engine's InputError (422), pool Busy (429) and
Unavailable (503) with Retry-After, unknown routes (404/405), and anything unexpected (500,
logged with its traceback, the client told only the request id).
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from replyguard.errors import ReplyguardError, _is_union_tag
from replyguard.serve.logs import request_id
from replyguard.serve.pool import Busy, Unavailable

log = logging.getLogger("replyguard.serve")

_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    404: "not_found_error",
    405: "invalid_request_error",
    413: "invalid_request_error",
    422: "invalid_request_error",
    429: "rate_limit_error",
    500: "server_error",
    502: "upstream_error",
    503: "service_unavailable",
}


class ApiError(Exception):
    def __init__(
        self,
        status: int,
        message: str,
        *,
        param: str | None = None,
        code: str | None = None,
        type: str | None = None,  # noqa: A002 - the envelope's field name
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.param = param
        self.code = code
        self.type = type or _TYPES.get(status, "invalid_request_error")
        self.headers = headers or {}


def envelope(error: ApiError) -> dict[str, Any]:
    return {
        "error": {
            "message": error.message,
            "type": error.type,
            "param": error.param,
            "code": error.code,
        }
    }


def error_response(error: ApiError) -> JSONResponse:
    return JSONResponse(envelope(error), status_code=error.status, headers=error.headers)


def input_error(exc: ReplyguardError) -> ApiError:
    """An engine's one-line error "field.path: problem" as a 422 naming the field."""
    message = str(exc)
    field, sep, _ = message.partition(": ")
    param = field if sep and " " not in field else None
    return ApiError(422, message, param=param, code="invalid_input")


def validation_error(exc: RequestValidationError) -> ApiError:
    errors = exc.errors()
    first = errors[0]
    loc = list(first.get("loc", ()))
    where = loc[0] if loc else "body"
    parts = [str(p) for p in loc[1:] if not _is_union_tag(p)]
    param = ".".join(parts) or str(where)
    if first.get("type") == "json_invalid":
        return ApiError(400, "body: invalid JSON", param="body", code="invalid_json")
    message = "unknown field" if first.get("type") == "extra_forbidden" else first["msg"]
    more = f" (and {len(errors) - 1} more problems)" if len(errors) > 1 else ""
    return ApiError(422, f"{param}: {message}{more}", param=param, code="invalid_input")


def install(app: FastAPI, retry_after: int) -> None:
    retry = {"Retry-After": str(retry_after)}

    async def api_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ApiError)
        return error_response(exc)

    async def invalid(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        return error_response(validation_error(exc))

    async def replyguard(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ReplyguardError)
        return error_response(input_error(exc))

    async def busy(request: Request, exc: Exception) -> JSONResponse:
        return error_response(ApiError(429, str(exc), code="busy", headers=retry))

    async def unavailable(request: Request, exc: Exception) -> JSONResponse:
        return error_response(ApiError(503, str(exc), code="unavailable", headers=retry))

    async def http(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, HTTPException)
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code)
        return error_response(
            ApiError(exc.status_code, str(exc.detail), code=code, headers=exc.headers)
        )

    async def internal(request: Request, exc: Exception) -> JSONResponse:
        log.error("internal error", exc_info=exc)
        message = f"internal error ({type(exc).__name__}); request id {request_id.get()}"
        return error_response(ApiError(500, message, code="internal_error"))

    app.add_exception_handler(ApiError, api_error)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(ReplyguardError, replyguard)
    app.add_exception_handler(Busy, busy)
    app.add_exception_handler(Unavailable, unavailable)
    app.add_exception_handler(HTTPException, http)
    app.add_exception_handler(Exception, internal)
