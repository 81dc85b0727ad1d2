"""The service on a free loopback port, talked to over real HTTP exactly as clients talk to
`replyguard serve`: run inside this process in a thread (the tests, which look inside it), or
in a process of its own (the benchmarks: no thread of the measuring process shares its GIL).

    with serving(config) as url:               # "http://127.0.0.1:PORT", once engines are up
        running(url).service                   # the Service, e.g. to look at its pool
        running(url).loop                      # the server's event loop
    with serving_apart(config) as url:         # the same service in a spawned process
        process_id(url)                        # its process id (to read its CPU time)

`wrap` puts an ASGI layer around the app (a test recording what a client sent).
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing import get_context
from typing import Any

import uvicorn
from starlette.types import ASGIApp

from replyguard.serve import eventloop
from replyguard.serve.app import create_app
from replyguard.serve.config import ServeConfig
from replyguard.serve.service import Service

STARTUP_SECONDS = 600  # engines are built in spawned processes; a loaded machine is slow


@dataclass
class Running:
    service: Service
    loop: asyncio.AbstractEventLoop  # the server's: run the service's coroutines there


_running: dict[str, Running] = {}
_apart: dict[str, int] = {}


def running(url: str) -> Running:
    """The service (and its event loop) behind a URL `serving` gave."""
    return _running[url]


@contextmanager
def serving(config: ServeConfig, wrap: Callable[[ASGIApp], ASGIApp] | None = None) -> Iterator[str]:
    """The base URL of the service running `config`, until the block ends."""
    app = create_app(config)
    served = wrap(app) if wrap else app
    server = uvicorn.Server(
        uvicorn.Config(served, host="127.0.0.1", port=0, log_config=None, lifespan="on")
    )
    loops: list[asyncio.AbstractEventLoop] = []

    async def serve() -> None:
        loops.append(asyncio.get_running_loop())
        await server.serve()

    thread = threading.Thread(target=eventloop.run, args=(serve(),), daemon=True)
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


def process_id(url: str) -> int:
    """The process id of the service behind a URL `serving_apart` gave."""
    return _apart[url]


@contextmanager
def serving_apart(config: ServeConfig) -> Iterator[str]:
    """The base URL of the service running `config` in a spawned process of its own."""
    ours, theirs = get_context("spawn").Pipe()
    # not a daemon: the service spawns its own worker processes
    process = get_context("spawn").Process(target=_serve, args=(config, theirs, os.getpid()))
    process.start()
    theirs.close()
    url = ""
    try:
        if not ours.poll(STARTUP_SECONDS) or (port := ours.recv()) is None:
            raise RuntimeError("the service did not start")
        url = f"http://127.0.0.1:{port}"
        _apart[url] = process.pid
        yield url
    finally:
        _apart.pop(url, None)
        process.terminate()  # uvicorn shuts down on SIGTERM: the pool closes its workers
        process.join(120)
        if process.is_alive():
            process.kill()


def _serve(config: ServeConfig, conn: Any, parent: int) -> None:
    from replyguard.batch import _follow_parent

    _follow_parent(parent)
    server = uvicorn.Server(
        uvicorn.Config(create_app(config), host="127.0.0.1", port=0, log_config=None)
    )

    async def serve() -> None:
        task = asyncio.create_task(server.serve())
        while not server.started and not task.done():
            await asyncio.sleep(0.05)
        conn.send(server.servers[0].sockets[0].getsockname()[1] if server.started else None)
        await task

    eventloop.run(serve())
