"""replyguard as the guardrail of a real LiteLLM proxy (docs/service.md, "LiteLLM"): the official
`openai` client talks to LiteLLM, LiteLLM to a scripted fake upstream on 127.0.0.1 and, before
and after the call, to replyguard's /beta/litellm_basic_guardrail_api, configured with the
documented config file itself.

LiteLLM is big (its proxy extra pulls ~750 MB and pins its own FastAPI, Starlette and openai),
so it lives in a virtual environment of its own and this module skips without it:

    python3 -m venv .litellm-venv && .litellm-venv/bin/pip install 'litellm[proxy]==1.108.7'
    REPLYGUARD_LITELLM=.litellm-venv/bin/litellm .venv/bin/pytest tests/test_litellm_gateway.py

With REPLYGUARD_LITELLM_RECORD=FILE the requests LiteLLM sent to replyguard (and the answers)
are written to FILE as JSON lines: tests/data/litellm/ holds such a recording, which
tests/test_serve_litellm.py replays without LiteLLM.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from replyguard.serve.config import ServeConfig
from replyguard.serve.local import serving
from replyguard.serve.scripted_upstream import MODEL, FakeUpstream, Reply, tool_call

LITELLM = os.environ.get("REPLYGUARD_LITELLM") or shutil.which("litellm")
pytestmark = pytest.mark.skipif(
    not LITELLM,
    reason="no LiteLLM: set REPLYGUARD_LITELLM to a litellm executable (see this module)",
)

DOCS = Path(__file__).resolve().parent.parent / "docs" / "service.md"
GUARD_KEY = "guard-key-3"
GATEWAY_KEY = "sk-gateway-3"
STARTUP_SECONDS = 240
# LiteLLM reads its model prices from the package, not from GitHub, and stays off the network.
OFFLINE = {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "LITELLM_TELEMETRY": "False"}

DATA = Path(__file__).resolve().parent / "data" / "litellm"
CLINIC_KB = DATA / "clinic_kb.json"  # what tests/test_serve_litellm.py replays against too
SYSTEM = "You answer questions about Fernhill Clinic."
PHONE_Q = "What is the phone number of Fernhill Clinic?"
RIGHT = "You can reach Fernhill Clinic on 555-0188."
HOURS_Q = "When does Fernhill Clinic open?"
WRONG_HOUR = "Fernhill Clinic opens at 7 am."
RIGHT_HOUR = "Fernhill Clinic opens at 8 am."
INVENTED = "Fernhill Clinic, Brackenside Surgery and Tarn Medical all open on Sunday."
STAFF_Q = "Who works at Fernhill Clinic?"
SLOT_Q = "Can I see a doctor at Fernhill Clinic tomorrow?"
SLOTS = {"slots": [{"doctor_name": "Owen Pike", "slot_time": "3 pm", "room": "4"}]}
SLOT_WRONG = "Yes, Owen Pike has a slot at 5 pm in room 4."
SLOT_RIGHT = "Yes, Owen Pike has a slot at 3 pm in room 4."
SWAPPED = (  # wrong in most of what it claims: four wrong values
    "Rosa Quill is the doctor, Owen Pike is the nurse, Fernhill Clinic opens at 7 am and its town "
    "is Keswick."
)


def documented_config() -> str:
    """The LiteLLM config file of docs/service.md's LiteLLM section, as written there."""
    section = DOCS.read_text(encoding="utf-8").split("## LiteLLM", 1)[1]
    blocks = re.findall(r"```yaml\n(.*?)```", section, flags=re.S)
    return next(b for b in blocks if "generic_guardrail_api" in b)


class Recorder:
    """ASGI layer keeping each guardrail request LiteLLM sent, its headers and the answer."""

    def __init__(self, app: Any, exchanges: list[dict[str, Any]]) -> None:
        self.app, self.exchanges = app, exchanges

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not scope["path"].startswith("/beta/"):
            await self.app(scope, receive, send)
            return
        body, more = b"", True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        answer = bytearray()

        async def replay() -> dict[str, Any]:
            return {"type": "http.request", "body": body, "more_body": False}

        async def keep(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.body":
                answer.extend(message.get("body", b""))
            await send(message)

        await self.app(scope, replay, keep)
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        self.exchanges.append(
            {"headers": headers, "request": json.loads(body), "response": json.loads(answer)}
        )


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeUpstream]:
    with FakeUpstream() as upstream:
        yield upstream


@pytest.fixture(scope="module")
def exchanges() -> Iterator[list[dict[str, Any]]]:
    kept: list[dict[str, Any]] = []
    yield kept
    record = os.environ.get("REPLYGUARD_LITELLM_RECORD")
    if record:
        lines = "".join(json.dumps(e, sort_keys=True) + "\n" for e in kept)
        Path(record).write_text(lines, encoding="utf-8")


@pytest.fixture(scope="module")
def guard(
    exchanges: list[dict[str, Any]], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("guard")
    config = ServeConfig(
        kb=str(CLINIC_KB),
        workers=1,
        api_keys=(GUARD_KEY,),
        session_store=str(folder / "sessions.sqlite3"),
        tables={"proxy": {"review_store": str(folder / "review.sqlite3")}},
    )
    with serving(config, wrap=lambda app: Recorder(app, exchanges)) as url:
        yield url


@pytest.fixture(scope="module")
def gateway(
    fake: FakeUpstream, guard: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("litellm")
    config = folder / "litellm.yaml"
    config.write_text(documented_config(), encoding="utf-8")
    port = _free_port()
    env = {
        **os.environ,
        **OFFLINE,
        "UPSTREAM_URL": fake.url,
        "UPSTREAM_KEY": "upstream-key-3",
        "REPLYGUARD_URL": guard,
        "REPLYGUARD_KEY": GUARD_KEY,
        "LITELLM_MASTER_KEY": GATEWAY_KEY,
    }
    log = (folder / "litellm.log").open("wb")
    command = [str(LITELLM), "--config", str(config), "--host", "127.0.0.1", "--port", str(port)]
    process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=folder)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_live(url, process, folder / "litellm.log")
        yield url
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_until_live(url: str, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"LiteLLM exited: {log.read_text(errors='replace')[-3000:]}")
        try:
            if httpx.get(f"{url}/health/liveliness", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"LiteLLM did not start: {log.read_text(errors='replace')[-3000:]}")


@pytest.fixture(scope="module")
def client(gateway: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{gateway}/v1", api_key=GATEWAY_KEY, max_retries=0, timeout=120)


def ask(client: openai.OpenAI, question: str, **kw: Any) -> Any:
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}]
    return client.chat.completions.create(model="clinic-model", messages=messages, **kw)


def streamed(client: openai.OpenAI, question: str) -> str:
    chunks = ask(client, question, stream=True)
    return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)


def test_an_accepted_reply_passes_unchanged(
    fake: FakeUpstream, client: openai.OpenAI, exchanges: list[dict[str, Any]]
) -> None:
    fake.script(Reply(RIGHT))
    seen = len(exchanges)
    completion = ask(client, PHONE_Q)
    assert completion.choices[0].message.content == RIGHT
    assert fake.requests[0]["model"] == MODEL
    before, after = exchanges[seen:]
    assert before["request"]["input_type"] == "request"
    assert before["request"]["texts"] == [SYSTEM, PHONE_Q]
    assert after["request"]["input_type"] == "response"
    assert after["request"]["texts"] == [RIGHT]
    assert after["request"]["litellm_call_id"] == before["request"]["litellm_call_id"]
    assert {e["headers"]["x-api-key"] for e in exchanges[seen:]} == {GUARD_KEY}
    assert after["response"]["action"] == "NONE"


def test_a_wrong_kb_value_comes_back_corrected(fake: FakeUpstream, client: openai.OpenAI) -> None:
    fake.script(Reply(WRONG_HOUR))
    assert ask(client, HOURS_Q).choices[0].message.content == RIGHT_HOUR


def test_a_reply_without_end_punctuation_is_delivered_whole(
    fake: FakeUpstream, client: openai.OpenAI
) -> None:
    """Its last sentence is held back for a stream; a plain reply comes whole all the same."""
    fake.script(Reply(WRONG_HOUR.rstrip(".")))
    assert ask(client, HOURS_Q).choices[0].message.content == RIGHT_HOUR.rstrip(".")


def test_an_invented_entity_is_blocked_with_a_readable_reason(
    fake: FakeUpstream, client: openai.OpenAI
) -> None:
    fake.script(Reply(INVENTED))
    with pytest.raises(openai.BadRequestError) as blocked:
        ask(client, "Which clinics open on Sunday?")
    assert blocked.value.status_code == 400
    assert "replyguard: the reply needs to be written again" in blocked.value.message
    assert "'Brackenside Surgery' is neither in the knowledge base" in blocked.value.message


def test_a_reply_is_checked_in_the_dialogue_litellm_sent_first(
    fake: FakeUpstream, client: openai.OpenAI, guard: str
) -> None:
    fake.script(Reply(SWAPPED))
    with pytest.raises(openai.BadRequestError) as blocked:
        ask(client, STAFF_Q)
    assert "replyguard: the reply needs a person's review" in blocked.value.message
    review_id = re.search(r"review item (rev-[0-9a-f]+)", blocked.value.message)[1]
    item = httpx.get(f"{guard}/v1/review/{review_id}", headers={"x-api-key": GUARD_KEY}).json()
    assert item["source"] == "litellm"
    assert item["dialogue"] == [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": STAFF_Q},
    ]


def test_tool_results_litellm_forwards_are_the_knowledge(
    fake: FakeUpstream, client: openai.OpenAI, exchanges: list[dict[str, Any]]
) -> None:
    call = tool_call("call_8", "find_slots", {"clinic": "Fernhill Clinic"})
    fake.script(Reply(tool_calls=[call]))
    messages: list[dict[str, Any]] = [{"role": "user", "content": SLOT_Q}]
    first = client.chat.completions.create(model="clinic-model", messages=messages)
    assert first.choices[0].message.tool_calls[0].function.name == "find_slots"
    messages += [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_8", "content": json.dumps(SLOTS)},
    ]
    fake.script(Reply(SLOT_WRONG))
    seen = len(exchanges)
    told = client.chat.completions.create(model="clinic-model", messages=messages)
    assert told.choices[0].message.content == SLOT_RIGHT
    asked = [e["request"] for e in exchanges[seen:] if e["request"]["input_type"] == "request"]
    assert [m["role"] for m in asked[0]["structured_messages"]] == ["user", "assistant", "tool"]


def test_a_streamed_reply_comes_out_corrected(fake: FakeUpstream, client: openai.OpenAI) -> None:
    fake.script(Reply(WRONG_HOUR + " " + RIGHT, chunk_chars=4))
    assert streamed(client, HOURS_Q) == RIGHT_HOUR + " " + RIGHT


def test_a_streamed_invented_entity_is_blocked_before_anything_went_out(
    fake: FakeUpstream, client: openai.OpenAI
) -> None:
    fake.script(Reply(INVENTED, chunk_chars=4))
    with pytest.raises(openai.BadRequestError) as blocked:
        streamed(client, "Which clinics open on Sunday?")
    assert blocked.value.status_code == 400
    assert "replyguard: the reply needs to be written again" in blocked.value.message


def test_a_stream_stops_after_the_checked_sentences_that_went_out(
    fake: FakeUpstream, client: openai.OpenAI
) -> None:
    fake.script(Reply(RIGHT_HOUR + " " + INVENTED, chunk_chars=4))
    received: list[str] = []
    with pytest.raises(openai.APIError) as stopped:
        for chunk in ask(client, HOURS_Q, stream=True):
            if chunk.choices:
                received.append(chunk.choices[0].delta.content or "")
    assert "replyguard: the reply needs to be written again" in stopped.value.message
    assert "".join(received) == RIGHT_HOUR + " "
