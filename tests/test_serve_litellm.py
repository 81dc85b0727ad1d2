"""The Generic Guardrail route fed what a real LiteLLM 1.108.7 proxy sent it: the requests
recorded by tests/test_litellm_gateway.py (tests/data/litellm/litellm-1.108.7.jsonl: the
openai client's plain, tool-calling and streamed chats through LiteLLM, with
`mode: [pre_call, post_call]` and `streaming_transform_mode: incremental_diff`), replayed in
their order, with LiteLLM's own streaming arithmetic applied to the answers (what it streams is
the answer's text past what it sent already, less `stream_holdback_chars`, all of it on the
last request; text it sent cannot change).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from replyguard.serve.app import create_app
from replyguard.serve.config import ServeConfig

DATA = Path(__file__).resolve().parent / "data" / "litellm"
RECORDED = [
    json.loads(line)
    for line in (DATA / "litellm-1.108.7.jsonl").read_text(encoding="utf-8").splitlines()
]
ROUTE = "/beta/litellm_basic_guardrail_api"
KEY = RECORDED[0]["headers"]["x-api-key"]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    folder = tmp_path_factory.mktemp("litellm-replay")
    config = ServeConfig(
        kb=str(DATA / "clinic_kb.json"),
        workers=1,
        api_keys=(KEY,),
        session_store=str(folder / "sessions.sqlite3"),
        tables={"proxy": {"review_store": str(folder / "review.sqlite3")}},
    )
    with TestClient(create_app(config)) as client:
        yield client


@pytest.fixture(scope="module")
def replayed(served: TestClient) -> list[dict[str, Any]]:
    """Replyguard's answers now to the recorded requests, sent in their order."""
    answers = []
    for exchange in RECORDED:
        headers = {"x-api-key": exchange["headers"]["x-api-key"]}
        response = served.post(ROUTE, json=exchange["request"], headers=headers)
        assert response.status_code == 200, response.text
        answers.append(response.json())
    return answers


def calls(answers: list[dict[str, Any]]) -> dict[str, list[tuple[dict, dict]]]:
    """The (request, answer) pairs of each LiteLLM call, in order."""
    by_call: dict[str, list[tuple[dict, dict]]] = {}
    for exchange, answer in zip(RECORDED, answers, strict=True):
        request = exchange["request"]
        by_call.setdefault(request["litellm_call_id"], []).append((request, answer))
    return by_call


def streamed_by_litellm(rounds: list[dict[str, Any]]) -> tuple[list[str], str | None]:
    """What LiteLLM's incremental_diff has sent the client after each of these answers to one
    stream's requests, and the reason when a block ended the stream."""
    sent = [""]
    for i, answer in enumerate(rounds):
        if answer["action"] == "BLOCKED":
            return sent[1:], answer["blocked_reason"]
        text = answer["texts"][0]
        assert text.startswith(sent[-1]), "LiteLLM would fail the stream: sent text rewritten"
        holdback = 0 if i == len(rounds) - 1 else answer["stream_holdback_chars"][0]
        sent.append(text[: max(len(sent[-1]), len(text) - holdback)])
    return sent[1:], None


def test_every_recorded_request_gets_one_text_per_text(replayed: list[dict[str, Any]]) -> None:
    for exchange, answer in zip(RECORDED, replayed, strict=True):
        request = exchange["request"]
        assert len(answer["texts"]) == len(request["texts"])
        if request["input_type"] == "request":
            assert answer == {**answer, "action": "NONE", "texts": request["texts"]}


def test_the_recording_is_what_litellm_sends() -> None:
    """The fields read off LiteLLM's requests are where the route expects them."""
    first, second = RECORDED[0], RECORDED[1]
    assert first["headers"]["user-agent"] == "litellm/1.108.7"
    assert first["request"]["input_type"] == "request" and first["request"]["structured_messages"]
    assert second["request"]["input_type"] == "response"
    assert second["request"]["structured_messages"] is None
    assert second["request"]["litellm_call_id"] == first["request"]["litellm_call_id"]


def test_each_reply_gets_the_action_it_got_through_litellm(
    replayed: list[dict[str, Any]],
) -> None:
    for exchange, answer in zip(RECORDED, replayed, strict=True):
        recorded = exchange["response"]
        assert answer["action"] == recorded["action"]
        if answer["action"] == "BLOCKED":
            assert _without_id(answer["blocked_reason"]) == _without_id(recorded["blocked_reason"])
        else:
            assert answer["texts"] == recorded["texts"]
            assert answer["stream_holdback_chars"] == recorded["stream_holdback_chars"]


def test_a_reply_is_checked_in_the_dialogue_of_its_pre_call(
    served: TestClient, replayed: list[dict[str, Any]]
) -> None:
    for pairs in calls(replayed).values():
        (asked, _), *answered = pairs
        for _, answer in answered:
            if answer["action"] != "BLOCKED":
                continue
            review_id = re.search(r"review item (rev-[0-9a-f]+)", answer["blocked_reason"])[1]
            item = served.app.state.proxy.reviews.get(review_id)
            assert item["source"] == "litellm"
            assert item["dialogue"] == asked["structured_messages"]


def test_streams_go_out_as_whole_checked_sentences(replayed: list[dict[str, Any]]) -> None:
    streams = [p for p in calls(replayed).values() if len(p) > 2]
    assert len(streams) == 3
    outcomes = []
    for pairs in streams:
        sent, blocked = streamed_by_litellm([answer for _, answer in pairs[1:]])
        for part in sent[:-1] if blocked is None else sent:
            assert part == "" or part.rstrip()[-1] in ".!?"  # whole sentences only
        outcomes.append((pairs[-1][0]["texts"][0], sent[-1] if sent else "", blocked))
    (raw, corrected, none), (_, nothing, blocked), (later, before, stopped) = outcomes
    assert corrected == raw.replace("7 am", "8 am") and none is None
    assert nothing == "" and "written again" in blocked
    assert before and later.startswith(before) and "written again" in stopped


def _without_id(reason: str) -> str:
    """The reason without its review id and its counts (how many flags the engine of the day
    raises is not the route's business: the action and the reasons given are)."""
    return re.sub(r"\d+", "N", re.sub(r"rev-[0-9a-f]+", "rev-ID", reason))


def reply(served: TestClient, call_id: str, text: str) -> dict[str, Any]:
    """A response request as LiteLLM sends it while streaming (the reply so far, alone)."""
    request = {**RECORDED[1]["request"], "litellm_call_id": call_id, "texts": [text]}
    response = served.post(ROUTE, json=request, headers={"x-api-key": KEY})
    assert response.status_code == 200, response.text
    return response.json()


def test_the_last_sentence_is_held_back_until_it_is_finished(served: TestClient) -> None:
    done = "Rosa Quill is the nurse at Fernhill Clinic."
    assert reply(served, "held-1", done)["stream_holdback_chars"] == [0]
    more = reply(served, "held-1", done + " Owen Pike is the")
    assert more["texts"] == [done + " Owen Pike is the"]
    assert more["stream_holdback_chars"] == [len(" Owen Pike is the") - 1]
    title = reply(served, "held-2", "Please ask for Dr.")  # not the end of a sentence
    assert title["stream_holdback_chars"] == [len("Please ask for Dr.")]


def test_a_name_the_stream_cut_waits_and_a_whole_unknown_name_blocks(served: TestClient) -> None:
    cut = reply(served, "cut-1", "The doctor at Fernhill Clinic is Owen Pi")
    assert cut["action"] != "BLOCKED"
    assert cut["stream_holdback_chars"] == [len(cut["texts"][0])]
    whole = reply(served, "cut-1", "The doctor at Fernhill Clinic is Owen Pike.")
    assert whole["action"] == "NONE" and whole["stream_holdback_chars"] == [0]
    unknown = reply(served, "cut-2", "The doctor at Fernhill Clinic is Hilda Barrow, who")
    assert unknown["action"] == "BLOCKED"


def test_a_correction_of_text_already_streamed_blocks(served: TestClient) -> None:
    served.app.state.proxy.streamed.remember("sent-1", ["Fernhill Clinic opens at 7 am. "])
    late = reply(served, "sent-1", "Fernhill Clinic opens at 7 am. Its phone")
    assert late["action"] == "BLOCKED"
    assert "a correction would change what was already streamed" in late["blocked_reason"]
