"""Running the service for tests: a real uvicorn server on 127.0.0.1 (a free port) in a thread,
its lifespan building the engines, as `replyguard serve` does."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import uvicorn

from replyguard.serve.app import create_app
from replyguard.serve.config import ServeConfig
from replyguard.serve.service import Service

STARTUP_SECONDS = 300  # engines are built in spawned processes; a loaded machine is slow


@dataclass
class Running:
    service: Service
    loop: asyncio.AbstractEventLoop  # the server's: run the service's coroutines there


_running: dict[str, Running] = {}


def running(url: str) -> Running:
    """The service (and its event loop) behind a URL `serving` gave."""
    return _running[url]


@contextmanager
def serving(config: ServeConfig) -> Iterator[str]:
    """The base URL of the service running `config`, until the block ends."""
    app = create_app(config)
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=0, log_config=None, lifespan="on")
    )
    loops: list[asyncio.AbstractEventLoop] = []

    async def serve() -> None:
        loops.append(asyncio.get_running_loop())
        await server.serve()

    thread = threading.Thread(target=asyncio.run, args=(serve(),), daemon=True)
    thread.start()
    deadline = time.monotonic() + STARTUP_SECONDS
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the service did not start")
        time.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    _running[url] = Running(app.state.service, loops[0])
    try:
        yield url
    finally:
        del _running[url]
        server.should_exit = True
        thread.join(120)


def write_kb(path: Path, kb: dict[str, object]) -> str:
    path.write_text(json.dumps(kb), encoding="utf-8")
    return str(path)
