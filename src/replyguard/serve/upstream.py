"""The upstream client: the OpenAI-compatible endpoint the proxy forwards to (httpx, async).

    upstream = Upstream("http://llm:8000/v1", api_key="...", timeout=60)
    reply = await upstream.chat(body)             # a ChatCompletion as JSON
    async for chunk in upstream.stream(body): ... # the SSE chunks of a streamed completion
    models = await upstream.models()

The URL is the endpoint's base, as an OpenAI client's `base_url` (it ends in /v1); the key,
from REPLYGUARD_UPSTREAM_API_KEY, is sent as a bearer token. A non-2xx answer is an
UpstreamError holding the status, the error body (the upstream's own OpenAI envelope when it
sent one) and its Retry-After; an endpoint that cannot be reached, or answers later than the
timeout, is Unreachable.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx


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
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.client = httpx.AsyncClient(
            base_url=self.url, headers=headers, timeout=httpx.Timeout(timeout)
        )

    async def chat(self, body: dict[str, Any]) -> dict[str, Any]:
        """A completion of `body` (sent with `stream` false): the upstream's ChatCompletion."""
        response = await self._send("POST", "/chat/completions", {**body, "stream": False})
        return _json_body(response)

    async def models(self) -> dict[str, Any]:
        return _json_body(await self._send("GET", "/models", None))

    async def stream(self, body: dict[str, Any]) -> AsyncIterator[dict[str, Any]]:
        """The chunks of a streamed completion of `body`, parsed, until `data: [DONE]`."""
        request = self.client.build_request(
            "POST", "/chat/completions", json={**body, "stream": True}
        )
        try:
            response = await self.client.send(request, stream=True)
        except httpx.HTTPError as exc:
            raise _unreachable(exc) from None
        try:
            if response.status_code >= 400:
                await response.aread()
                raise _error(response)
            async for line in response.aiter_lines():
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
        except httpx.HTTPError as exc:
            raise _unreachable(exc) from None
        finally:
            await response.aclose()

    async def _send(self, method: str, path: str, body: dict[str, Any] | None) -> httpx.Response:
        try:
            response = await self.client.request(method, path, json=body)
        except httpx.HTTPError as exc:
            raise _unreachable(exc) from None
        if response.status_code >= 400:
            raise _error(response)
        return response

    async def aclose(self) -> None:
        await self.client.aclose()


def _unreachable(exc: httpx.HTTPError) -> Unreachable:
    if isinstance(exc, httpx.TimeoutException):
        return Unreachable(
            f"the upstream did not answer in time ({type(exc).__name__})", timed_out=True
        )
    return Unreachable(f"the upstream cannot be reached ({type(exc).__name__}: {exc})")


def _json_body(response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        raise Unreachable("the upstream answered with a body that is not JSON") from None
    if not isinstance(body, dict):
        raise Unreachable("the upstream answered with JSON that is not an object")
    return body


def _error(response: httpx.Response) -> UpstreamError:
    """The upstream's error: its OpenAI envelope as sent, or one made around its text."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if not (isinstance(body, dict) and isinstance(body.get("error"), dict)):
        text = response.text.strip()[:500] or response.reason_phrase
        body = {
            "error": {
                "message": f"upstream: {text}",
                "type": "upstream_error",
                "param": None,
                "code": str(response.status_code),
            }
        }
    return UpstreamError(response.status_code, body, response.headers.get("retry-after"))
