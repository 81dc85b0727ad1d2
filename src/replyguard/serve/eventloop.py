"""The service's event loop: uvloop's when it is installed (the `serve` extra, not on Windows),
else asyncio's. Measured on the proxy path, uvloop with uvicorn's httptools parser cut the
service's own CPU per request by about a quarter (docs/service.md, "Latency").

    eventloop.run(main())     # as asyncio.run(main())
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any


def run(main: Coroutine[Any, Any, None]) -> None:
    try:
        import uvloop
    except ImportError:
        asyncio.run(main)
        return
    uvloop.run(main)
