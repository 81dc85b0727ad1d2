"""The upstream client: the OpenAI-compatible endpoint the proxy forwards to (aiohttp, async).

    upstream = Upstream("http://llm:8000/v1", api_key="...", timeout=60)
    reply = await upstream.chat(body)             # a ChatCompletion as JSON
    async for chunk in upstream.stream(body): ... # the SSE chunks of a streamed completion
    models = await upstream.models()

The URL is the endpoint's base, as an OpenAI client's `base_url` (it ends in /v1); the key,
from REPLYGUARD_UPSTREAM_API_KEY, is sent as a bearer token. A non-2xx answer is an
UpstreamError holding the status, the error body (the upstream's own OpenAI envelope when it
sent one) and its Retry-After; an endpoint that cannot be reached, or that is silent for longer
than the timeout (connecting, or between two reads), is Unreachable.

aiohttp rather than httpx: its C HTTP parser makes a call cost ~0.25-0.5 ms of the proxy's CPU
where httpx's took ~1.5-2 ms (docs/service.md, "Latency"); connections are kept alive and
reused. The session is opened on the first call, on the event loop that serves it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp

_JSON = {"Content-Type": "application/json"}


class UpstreamError(Exception):
    """The upstream answered with an error status."""

    def __init__(self, status: int, body: dict[str, Any], retry_after: str | None) -> None:
        super().__init__(f"upstream answered {status}")
        self.status = status
        self.body = body
        self.retry_after = retry_after


class Unreachable(Exception):
    """The upstream could not be reached, or did not answer in time (`timed_out`)."""

    def __init__(self, message: str, *, timed_out: bool = False) -> None:
        super().__init__(message)
        self.timed_out = timed_out


class Upstream:
    def __init__(self, url: str, api_key: str | None = None, timeout: float = 60.0) -> None:
        self.url = url.rstrip("/")
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        # as an httpx timeout: connecting (a free connection included) and each read
        self._timeout = aiohttp.ClientTimeout(total=None, connect=timeout, sock_read=timeout)
        self._session: aiohttp.ClientSession | None = None

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None:
            self._session = aiohttp.ClientSession(headers=self._headers, timeout=self._timeout)
        return self._session

    async def chat(self, body: dict[str, Any]) -> dict[str, Any]:
        """A completion of `body` (sent with `stream` false): the upstream's ChatCompletion."""
        return await self._send("POST", "/chat/completions", {**body, "stream": False})

    async def models(self) -> dict[str, Any]:
        return await self._send("GET", "/models", None)

    async def stream(self, body: dict[str, Any]) -> AsyncIterator[dict[str, Any]]:
        """The chunks of a streamed completion of `body`, parsed, until `data: [DONE]`."""
        try:
            response = await self._client().post(
                self.url + "/chat/completions", data=_dumps({**body, "stream": True}), headers=_JSON
            )
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise _unreachable(exc) from None
        try:
            if response.status >= 400:
                raise _error(response, await response.read())
            async for line in _lines(response.content):
                data = line.removeprefix("data:").strip() if line.startswith("data:") else None
                if not data:
                    continue
                if data == "[DONE]":
                    return
                try:
                    chunk = json.loads(data)
                except ValueError:
                    raise Unreachable(
                        f"the upstream streamed a line that is not JSON: {data[:80]}"
                    ) from None
                if isinstance(chunk, dict):
                    yield chunk
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise _unreachable(exc) from None
        finally:
            response.release()  # back to the pool when read to its end, else closed

    async def _send(self, method: str, path: str, body: dict[str, Any] | None) -> dict[str, Any]:
        data, headers = (None, None) if body is None else (_dumps(body), _JSON)
        try:
            async with self._client().request(
                method, self.url + path, data=data, headers=headers
            ) as response:
                raw = await response.read()
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise _unreachable(exc) from None
        if response.status >= 400:
            raise _error(response, raw)
        return _json_body(raw)

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()


def _dumps(body: dict[str, Any]) -> bytes:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()


async def _lines(content: aiohttp.StreamReader) -> AsyncIterator[str]:
    """The lines of a streamed body, however long (aiohttp's own readline refuses a line
    longer than its buffer), each decoded whole so a character split between reads is kept."""
    pending = bytearray()
    async for data in content.iter_any():
        pending += data
        if b"\n" not in data:
            continue
        *lines, rest = pending.split(b"\n")
        pending = bytearray(rest)
        for line in lines:
            yield line.decode("utf-8", "replace").rstrip("\r")
    if pending:
        yield pending.decode("utf-8", "replace").rstrip("\r")


def _unreachable(exc: aiohttp.ClientError | TimeoutError) -> Unreachable:
    if isinstance(exc, TimeoutError):  # aiohttp's connect and read timeouts are TimeoutErrors
        return Unreachable(
            f"the upstream did not answer in time ({type(exc).__name__})", timed_out=True
        )
    return Unreachable(f"the upstream cannot be reached ({type(exc).__name__}: {exc})")


def _json_body(raw: bytes) -> dict[str, Any]:
    try:
        body = json.loads(raw)
    except ValueError:
        raise Unreachable("the upstream answered with a body that is not JSON") from None
    if not isinstance(body, dict):
        raise Unreachable("the upstream answered with JSON that is not an object")
    return body


def _error(response: aiohttp.ClientResponse, raw: bytes) -> UpstreamError:
    """The upstream's error: its OpenAI envelope as sent, or one made around its text."""
    try:
        body = json.loads(raw)
    except ValueError:
        body = None
    if not (isinstance(body, dict) and isinstance(body.get("error"), dict)):
        text = raw.decode("utf-8", "replace").strip()[:500] or (response.reason or "")
        body = {
            "error": {
                "message": f"upstream: {text}",
                "type": "upstream_error",
                "param": None,
                "code": str(response.status),
            }
        }
    return UpstreamError(response.status, body, response.headers.get("Retry-After"))
