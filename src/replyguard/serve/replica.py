"""Replica: one spawned worker process of the EnginePool and the socket the event loop talks
to it over, both ends.

The parent holds one end of a socket pair as asyncio streams; the child (`serve_forever`) builds
its Worker and answers one call at a time on the other end. No threads, no executor queues: a
call is one frame written by the event loop and one frame read back by it. A frame is a 4-byte
length and a pickle: `(fn, args)` going, `(True, value)` or `(False, exception)` coming back.

    replica = await Replica.start(spec)      # spawns the process; waits for its engine
    value = await replica.ask(fn, args)      # fn(worker, *args) in the process
    replica.kill()                           # SIGKILL (a check past its time), then reap
    await replica.close()                    # after the call in flight: EOF ends the process
"""

from __future__ import annotations

import asyncio
import gc
import os
import pickle
import socket
import struct
from collections.abc import Callable
from multiprocessing import get_context
from typing import Any

from replyguard.errors import ReplyguardError
from replyguard.serve import worker as worker_module
from replyguard.serve.worker import EngineSpec, Worker

_HEADER = struct.Struct("!I")
# How long a worker may take to build its engine (a loaded machine is slow).
START_SECONDS = 600
# How long a closing worker may take to end before it is killed.
END_SECONDS = 10


class WorkerDied(Exception):
    """The worker process ended (or its socket closed) before it answered."""


def _frame(value: object) -> bytes:
    body = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    return _HEADER.pack(len(body)) + body


class Replica:
    def __init__(self, process: Any, reader: asyncio.StreamReader, writer: Any) -> None:
        self.process = process
        self.pid: int = process.pid
        self._reader = reader
        self._writer = writer
        self._lock = asyncio.Lock()  # one call at a time on the socket
        self.in_step = True  # no call is half-way (sent and not answered)

    @classmethod
    async def start(cls, spec: EngineSpec) -> tuple[Replica, dict[str, Any]]:
        """A new worker process with its engine built: the replica and the worker's ping (the
        KB's or rules' load error is raised here, the process ended)."""
        # spawn: a forked hyperon runtime (or a forked event loop's threads) is not safe to reuse
        ours, theirs = socket.socketpair()
        process = get_context("spawn").Process(
            target=serve_forever, args=(spec, theirs, os.getpid()), daemon=True
        )
        try:
            await asyncio.to_thread(process.start)
        finally:
            theirs.close()
        reader, writer = await asyncio.open_connection(sock=ours)
        replica = cls(process, reader, writer)
        try:
            info = await asyncio.wait_for(replica.ask(worker_module.ping, ()), START_SECONDS)
        except BaseException:
            replica.kill()
            raise
        return replica, info

    async def ask(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
        """fn(worker, *args) in the process: its value, or its exception raised here. Cancelled
        half-way (a timeout), the socket is out of step (`in_step` false): kill the replica."""
        async with self._lock:
            if not self.in_step:
                raise WorkerDied(f"worker process {self.pid} was left half-way through a call")
            self.in_step = False
            try:
                self._writer.write(_frame((fn, args)))
                await self._writer.drain()
                size = _HEADER.unpack(await self._reader.readexactly(_HEADER.size))[0]
                ok, value = pickle.loads(await self._reader.readexactly(size))
            except (asyncio.IncompleteReadError, ConnectionError, OSError):
                raise WorkerDied(f"worker process {self.pid} ended") from None
            self.in_step = True
        if not ok:
            raise value
        return value

    def kill(self) -> None:
        """End the process now (SIGKILL), reaped in the background."""
        self._writer.close()
        if self.process.is_alive():
            self.process.kill()
        asyncio.get_running_loop().run_in_executor(None, self.process.join, END_SECONDS)

    async def close(self) -> None:
        """Once the call in flight is answered, close the socket: the worker ends on EOF."""
        async with self._lock:
            self._writer.close()
        await asyncio.to_thread(self.process.join, END_SECONDS)
        if self.process.is_alive():
            self.process.kill()
            await asyncio.to_thread(self.process.join, END_SECONDS)


# ------------------------------------------------------------------ inside the worker process


def serve_forever(spec: EngineSpec, sock: socket.socket, parent: int) -> None:
    """The worker process: build the Worker, then answer calls until the socket closes."""
    from replyguard.batch import _follow_parent  # a worker ends when the service does

    _follow_parent(parent)
    worker = Worker(spec)
    # The engine is hundreds of thousands of objects that live as long as the process: kept out
    # of the collector's sight, a full collection no longer walks them after a check (it did,
    # ~3-4 ms, in the hand-off of the answer)
    gc.freeze()
    with sock:
        try:
            while (header := _receive(sock, _HEADER.size)) is not None:
                body = _receive(sock, _HEADER.unpack(header)[0])
                if body is None:
                    return
                sock.sendall(_answer(worker, body))
        except ConnectionError:  # the service went without closing the socket first
            return


def _answer(worker: Worker, body: bytes) -> bytes:
    try:
        fn, args = pickle.loads(body)
        reply: tuple[bool, object] = (True, fn(worker, *args))
    except Exception as exc:  # the call's own error goes back to the caller
        reply = (False, exc)
    try:
        return _frame(reply)
    except Exception as exc:  # a value or exception that does not pickle
        return _frame((False, ReplyguardError(f"the worker's answer cannot be sent: {exc}")))


def _receive(sock: socket.socket, size: int) -> bytes | None:
    """Exactly `size` bytes, or None at end of stream."""
    data = bytearray(size)
    view = memoryview(data)
    got = 0
    while got < size:
        n = sock.recv_into(view[got:])
        if n == 0:
            return None
        got += n
    return bytes(data)
