"""Request limits: the body's size (413, before the body is read past the limit) and a reply's
length (422 naming the field). The limit on concurrent work is the pool's (pool.Busy -> 429).
"""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from replyguard.serve.errors import ApiError, envelope


class BodyLimit:
    """ASGI middleware: a body over `max_bytes` is answered 413 without reaching the app."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._refuse(send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.max_bytes:
                await self._refuse(send)
                return
            if not message.get("more_body"):
                break
        await self.app(scope, replaying(b"".join(chunks), receive), send)

    async def _refuse(self, send: Send) -> None:
        error = ApiError(
            413,
            f"body: larger than the limit of {self.max_bytes:,} bytes",
            param="body",
            code="body_too_large",
        )
        payload = json.dumps(envelope(error)).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(payload)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": payload})


def replaying(body: bytes, receive: Receive) -> Receive:
    """A `receive` giving the body already read, in one message, then what `receive` gives."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def check_reply_length(field: str, text: object, limit: int) -> None:
    """A reply longer than `limit` characters is a 422 naming `field`."""
    if isinstance(text, str) and len(text) > limit:
        raise ApiError(
            422,
            f"{field}: {len(text):,} characters is more than the limit of {limit:,}",
            param=field,
            code="reply_too_long",
        )
