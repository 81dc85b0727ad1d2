"""Structured logs: one JSON object per line on stderr, each carrying the request id.

The id is the client's `X-Request-ID` when it sends a usable one (printable, at most 128
characters), else a new one; it is echoed in the response's `X-Request-ID` and held in the
`request_id` context variable, so any log line written while serving the request carries it.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time
import uuid
from contextvars import ContextVar

request_id: ContextVar[str | None] = ContextVar("replyguard_request_id", default=None)

_USABLE_ID = re.compile(r"[!-~]{1,128}")
# Attributes every LogRecord has; anything else was passed in `extra=` and is logged as a field.
_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "taskName"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        rid = request_id.get()
        if rid is not None:
            entry["request_id"] = rid
        entry.update({k: v for k, v in vars(record).items() if k not in _STANDARD})
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


def configure(level: str = "info") -> None:
    """JSON lines on stderr for replyguard's and uvicorn's loggers."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    for name in ("replyguard", "uvicorn", "uvicorn.error"):
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.setLevel(level.upper())
        logger.propagate = False
    logging.getLogger("uvicorn.access").disabled = True  # the service logs each request itself


def new_request_id(given: str | None) -> str:
    return given if given is not None and _USABLE_ID.fullmatch(given) else uuid.uuid4().hex
