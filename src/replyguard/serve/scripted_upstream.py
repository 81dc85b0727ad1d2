"""A scripted stand-in for an upstream LLM, for the proxy's tests and `replyguard bench proxy`
(never a model: it says what it is told to): a real HTTP server on 127.0.0.1 speaking the
OpenAI chat completions API, answering each request with the next planned reply.

    with FakeUpstream([Reply("wrong"), Reply("right")]) as upstream:
        base_url = upstream.url           # http://127.0.0.1:PORT/v1
        ...
        upstream.requests                 # the bodies it received, in order
    with upstream_apart([Reply("a"), Reply("b")]) as url:   # the same in a process of its own
        ...

A Reply is text, tool calls, an error status with its headers and body, or a delay before the
answer. A streamed request gets the text in small chunks (a few characters each) and [DONE].
When the plan runs out the server answers 500, so a test that asks once too often fails
(or, given a `default` reply, answers with that).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from multiprocessing import get_context
from typing import Any

MODEL = "fake-model-1"


@dataclass
class Reply:
    text: str | None = None
    tool_calls: list[dict[str, Any]] | None = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    error: dict[str, Any] | None = None
    delay: float = 0.0
    chunk_chars: int = 7
    chunk_delay: float = 0.0  # seconds between streamed chunks (a model's token rate)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        """A client that hung up (the proxy gave up on a slow answer) is not an error."""


def tool_call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


class FakeUpstream:
    def __init__(self, plan: list[Reply] | None = None, *, default: Reply | None = None) -> None:
        self.plan = list(plan or [])
        self.default = default  # the answer once the plan has run out (None: answer 500)
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def script(self, *replies: Reply) -> None:
        """Plan the next replies (what was planned and not asked for is dropped)."""
        with self._lock:
            self.plan = list(replies)
            self.requests.clear()
            self.headers.clear()

    def __enter__(self) -> FakeUpstream:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _next(self, body: dict[str, Any], headers: dict[str, str]) -> Reply | None:
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            return self.plan.pop(0) if self.plan else self.default

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # TCP_NODELAY, as real servers set it: without it, a response written in two parts
            # (headers, body; or one SSE event after another) waits for the client's delayed
            # ACK, ~40 ms on Linux, and the measurements would be the kernel's
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                return

            def do_GET(self) -> None:
                if self.path.rstrip("/") != "/v1/models":
                    self._json(404, {"error": {"message": "no such route", "type": "x"}})
                    return
                self._json(
                    200,
                    {
                        "object": "list",
                        "data": [
                            {"id": MODEL, "object": "model", "created": 0, "owned_by": "fake"}
                        ],
                    },
                )

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                reply = fake._next(body, {k.lower(): v for k, v in self.headers.items()})
                if reply is None:
                    self._json(500, {"error": {"message": "no reply planned", "type": "fake"}})
                    return
                time.sleep(reply.delay)
                if reply.status != 200:
                    error = reply.error or {"message": "planned error", "type": "fake"}
                    self._json(reply.status, {"error": error}, reply.headers)
                elif body.get("stream"):
                    self._stream(body, reply)
                else:
                    self._json(200, completion(body, reply))

            def _json(
                self, status: int, doc: dict[str, Any], headers: dict[str, str] | None = None
            ) -> None:
                data = json.dumps(doc).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, body: dict[str, Any], reply: Reply) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("connection", "close")
                self.end_headers()
                base = {
                    "id": "chatcmpl-fake",
                    "object": "chat.completion.chunk",
                    "created": 1,
                    "model": body.get("model") or MODEL,
                }
                text = reply.text or ""
                pieces = [
                    text[i : i + reply.chunk_chars] for i in range(0, len(text), reply.chunk_chars)
                ]
                first = {"role": "assistant", "content": ""}
                events = [
                    {**base, "choices": [{"index": 0, "delta": first, "finish_reason": None}]}
                ]
                events += [
                    {
                        **base,
                        "choices": [{"index": 0, "delta": {"content": p}, "finish_reason": None}],
                    }
                    for p in pieces
                ]
                calls = [{"index": k, **call} for k, call in enumerate(reply.tool_calls or [])]
                if calls:
                    delta = {"tool_calls": calls}
                    events.append(
                        {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
                    )
                finish = "tool_calls" if calls else "stop"
                events.append(
                    {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}
                )
                for event in events:
                    self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                    self.wfile.flush()
                    time.sleep(reply.chunk_delay)
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
                self.close_connection = True

        return Handler


def completion(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text}
    if reply.tool_calls:
        message["tool_calls"] = reply.tool_calls
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1,
        "model": body.get("model") or MODEL,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if reply.tool_calls else "stop",
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


@contextmanager
def upstream_apart(plan: list[Reply]) -> Iterator[str]:
    """The base URL of a FakeUpstream answering `plan`, run in a spawned process (so that a
    benchmark's measuring process shares no GIL with it)."""
    ours, theirs = get_context("spawn").Pipe()
    process = get_context("spawn").Process(
        target=_serve_plan, args=(plan, theirs, os.getpid()), daemon=True
    )
    process.start()
    theirs.close()
    try:
        if not ours.poll(60):
            raise RuntimeError("the scripted upstream did not start")
        yield ours.recv()
    finally:
        ours.close()  # the process ends when it reads the end of the pipe
        process.join(10)
        if process.is_alive():
            process.kill()


def _serve_plan(plan: list[Reply], conn: Any, parent: int) -> None:
    from replyguard.batch import _follow_parent

    _follow_parent(parent)
    with FakeUpstream(plan) as fake:
        conn.send(fake.url)
        try:
            conn.recv()
        except EOFError:
            return
