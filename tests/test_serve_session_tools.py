"""Sessions take tool results: the JSON of a session's tool turns, and a check's `tool_results`,
are knowledge over the served KB, as tool messages are for /v1/check and the proxy."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from serve_support import one_worker
from test_serve_proxy import SHOP_KB

from replyguard.serve.app import create_app

QUESTION = "Which helmets do you have in medium?"
HELMETS = {
    "helmets": [
        {"model_name": "Ridgeback Aero", "size": "medium", "price": "$64"},
        {"model_name": "Scafell Shell", "size": "medium", "price": "$49"},
    ]
}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    config = one_worker(tmp_path_factory.mktemp("session-tools"), SHOP_KB)
    with TestClient(create_app(config)) as client:
        yield client


def start(served: TestClient, session_id: str, found: object) -> None:
    """A session where the agent called its helmet search and the tool answered `found`."""
    served.delete(f"/v1/sessions/{session_id}")
    call = {
        "id": "call_h1",
        "type": "function",
        "function": {"name": "search_helmets", "arguments": '{"size": "medium"}'},
    }
    turns = [
        {"role": "user", "content": QUESTION},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_h1", "content": json.dumps(found)},
    ]
    added = served.post(f"/v1/sessions/{session_id}/turns", json={"turns": turns})
    assert added.status_code == 200, added.text


def check(served: TestClient, session_id: str, reply: str, **extra: object) -> dict:
    answer = served.post(f"/v1/sessions/{session_id}/check", json={"response": reply, **extra})
    assert answer.status_code == 200, answer.text
    return answer.json()


def flag_types(answer: dict) -> set[str]:
    return {f["hallucination_type"] for f in answer["result"]["hallucination_flags"]}


def test_a_session_checks_its_reply_against_its_tool_turns(served: TestClient) -> None:
    start(served, "helmets-1", HELMETS)
    right = check(served, "helmets-1", "The Scafell Shell is $49.")
    assert not flag_types(right)
    wrong = check(served, "helmets-1", "The Scafell Shell is $58.")
    assert "ContradictsFact" in flag_types(wrong)
    assert wrong["status"] == "modified" and "$49" in wrong["text"]


def test_offering_what_the_tool_did_not_return_is_an_invented_entity(served: TestClient) -> None:
    start(served, "helmets-2", {"helmets": []})
    offered = check(served, "helmets-2", "The Ridgeback Aero comes in medium for $64.")
    assert "NonexistentEntity" in flag_types(offered)


def test_a_session_check_takes_tool_results_of_its_own(served: TestClient) -> None:
    served.delete("/v1/sessions/helmets-3")
    served.post(
        "/v1/sessions/helmets-3/turns", json={"turns": [{"role": "user", "content": QUESTION}]}
    )
    reply = "The Scafell Shell is $58."
    alone = check(served, "helmets-3", reply)
    assert "ContradictsFact" not in flag_types(alone)
    told = check(served, "helmets-3", reply, tool_results=[HELMETS])
    assert "ContradictsFact" in flag_types(told)
    again = check(served, "helmets-3", reply)  # the knowledge was that check's only
    assert flag_types(again) == flag_types(alone)
