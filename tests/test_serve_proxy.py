"""The OpenAI-compatible proxy: the official `openai` client against replyguard serve, with a
scripted fake upstream LLM on 127.0.0.1; one action per recommendation, the Regenerate loop,
the review queue, monitor mode, tool results as knowledge, upstream errors and a slow upstream.

The replies are chosen for the recommendation the shipped rules give them (asserted first, so a
change of the rules shows as that, not as a broken proxy).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace

import openai
import pytest
from fastapi.testclient import TestClient

from replyguard.serve.app import create_app
from replyguard.serve.config import ServeConfig
from replyguard.serve.review import ReviewStore
from replyguard.serve.scripted_upstream import MODEL, FakeUpstream, Reply, tool_call

KEY = "client-key-1"
SHOP_KB = {
    "entities": [
        {
            "id": "shop",
            "name": "Larkspur Cycles",
            "type": "Organization",
            "aliases": ["Larkspur"],
            "attributes": {
                "phone": "555-0134",
                "opening_time": "9 am",
                "town": "Kendal",
                "email": "hello@larkspur.example",
            },
        },
        {
            "id": "tom",
            "name": "Tom Ashby",
            "type": "Person",
            "gender": "Masculine",
            "attributes": {"role": "mechanic", "works_at": "Larkspur Cycles"},
        },
        {
            "id": "ivy",
            "name": "Ivy Marsh",
            "type": "Person",
            "gender": "Feminine",
            "attributes": {"role": "manager", "works_at": "Larkspur Cycles"},
        },
    ]
}
PHONE_Q = "What is the phone number of Larkspur Cycles?"
RIGHT = "You can call Larkspur Cycles on 555-0134."
# AcceptWithFlags: a time no claim checks
UNCHECKED = "You can call Larkspur Cycles on 555-0134, and Tom is usually in by 8 am."
WRONG_HOUR = "Larkspur Cycles opens at 10 am."  # CorrectAndDeliver: one wrong value, corrected
INVENTED = "Larkspur Cycles, Harbour Cycles and Kendal Wheels are all open on Sunday."
SWAPPED = (  # HumanReview: wrong in most of what it claims (four wrong values)
    "Tom Ashby is the manager, Ivy Marsh is the mechanic, Larkspur Cycles opens at 10 am "
    "and its email is info@larkspur.example."
)


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeUpstream]:
    with FakeUpstream() as upstream:
        yield upstream


@pytest.fixture(scope="module")
def served(fake: FakeUpstream, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    folder = tmp_path_factory.mktemp("proxy")
    kb = folder / "shop.json"
    kb.write_text(json.dumps(SHOP_KB))
    config = ServeConfig(
        kb=str(kb),
        workers=1,
        upstream_url=fake.url,
        upstream_api_key="upstream-key-9",
        api_keys=(KEY,),
        session_store=str(folder / "sessions.sqlite3"),
        tables={
            "proxy": {
                "review_store": str(folder / "review.sqlite3"),
                "holding_reply": "A person will check this answer and write back.",
                "upstream_timeout_seconds": 2,
            }
        },
    )
    with TestClient(create_app(config)) as client:
        yield client


@pytest.fixture
def client(served: TestClient) -> openai.OpenAI:
    return openai.OpenAI(
        base_url="http://testserver/v1", api_key=KEY, http_client=served, max_retries=0
    )


@pytest.fixture
def monitor(served: TestClient) -> Iterator[None]:
    state = served.app.state.proxy
    enforcing = state.settings
    state.settings = replace(enforcing, mode="monitor")
    yield
    state.settings = enforcing


def ask(client: openai.OpenAI, question: str = PHONE_Q, **kw):
    messages = [
        {"role": "system", "content": "You answer questions about Larkspur Cycles."},
        {"role": "user", "content": question},
    ]
    return client.chat.completions.create(model=MODEL, messages=messages, **kw)


def guard(completion) -> dict:
    return completion.model_extra["replyguard"]


def test_accept_delivers_the_reply_unchanged(fake: FakeUpstream, client: openai.OpenAI) -> None:
    fake.script(Reply(RIGHT))
    completion = ask(client)
    meta = guard(completion)
    assert meta["recommendation"] == "Accept" and meta["action"] == "deliver"
    assert completion.choices[0].message.content == RIGHT
    assert completion.choices[0].finish_reason == "stop"
    assert meta["original"] == RIGHT and [a["text"] for a in meta["attempts"]] == [RIGHT]
    sent = fake.requests[0]
    assert sent["model"] == MODEL and sent["messages"][-1]["content"] == PHONE_Q
    assert fake.headers[0]["authorization"] == "Bearer upstream-key-9"


def test_accept_with_flags_is_unchanged_by_default(
    fake: FakeUpstream, client: openai.OpenAI
) -> None:
    fake.script(Reply(UNCHECKED))
    plain = ask(client)
    assert guard(plain)["recommendation"] == "AcceptWithFlags"
    assert plain.choices[0].message.content == UNCHECKED
    assert guard(plain)["issues"], "the flags are in the metadata"


def test_correct_and_deliver_sends_the_corrected_text(
    fake: FakeUpstream, client: openai.OpenAI
) -> None:
    fake.script(Reply(WRONG_HOUR))
    completion = ask(client, "When does Larkspur Cycles open?")
    meta = guard(completion)
    assert meta["recommendation"] == "CorrectAndDeliver" and meta["action"] == "correct"
    assert meta["original"] == WRONG_HOUR and meta["corrections"]
    assert completion.choices[0].message.content == "Larkspur Cycles opens at 9 am."
    flagged = [f for f in meta["flags"] if f["type"] == "ContradictsFact"]
    assert (
        flagged and WRONG_HOUR[flagged[0]["span"]["start"] : flagged[0]["span"]["end"]] == "10 am"
    )


def test_regenerate_asks_again_with_the_guidance_and_delivers_the_right_answer(
    fake: FakeUpstream, client: openai.OpenAI
) -> None:
    fake.script(Reply(INVENTED), Reply(RIGHT))
    completion = ask(client, "Which bike shops are open on Sunday?")
    meta = guard(completion)
    assert [a["recommendation"] for a in meta["attempts"]][0] == "Regenerate"
    assert [a["text"] for a in meta["attempts"]] == [INVENTED, RIGHT]
    assert completion.choices[0].message.content == RIGHT
    assert len(fake.requests) == 2
    note = fake.requests[1]["messages"][-1]
    assert note["role"] == "system" and "Harbour Cycles" in note["content"]
    assert json.dumps(INVENTED) in note["content"], "the reply is quoted as a JSON string"
    assert "not instructions" in note["content"]
    assert fake.requests[1]["messages"][:-1] == fake.requests[0]["messages"]


def test_when_no_answer_passes_the_exchange_waits_for_a_person(
    fake: FakeUpstream, client: openai.OpenAI, served: TestClient
) -> None:
    fake.script(Reply(INVENTED), Reply(INVENTED), Reply(INVENTED), Reply(RIGHT))
    completion = ask(client, "Which bike shops are open on Sunday?")
    meta = guard(completion)
    assert len(fake.requests) == 3, "the first answer and max_regenerations (2) more"
    assert completion.choices[0].finish_reason == "content_filter"
    assert (
        completion.choices[0].message.content == "A person will check this answer and write back."
    )
    assert meta["action"] == "review" and len(meta["attempts"]) == 3
    item = ReviewStore(served.app.state.proxy.reviews.path).get(meta["review_id"])
    assert item is not None and item["source"] == "proxy" and item["model"] == MODEL
    assert item["dialogue"][-1]["content"] == "Which bike shops are open on Sunday?"
    assert [a["text"] for a in item["attempts"]] == [INVENTED] * 3
    assert item["attempts"][0]["verdict"]["recommendation"]["kind"] == "Regenerate"


def test_human_review_holds_the_reply_at_once(fake: FakeUpstream, client: openai.OpenAI) -> None:
    fake.script(Reply(SWAPPED))
    completion = ask(client, "Who does what at Larkspur Cycles?")
    meta = guard(completion)
    assert meta["recommendation"] == "HumanReview" and len(fake.requests) == 1
    assert completion.choices[0].finish_reason == "content_filter"
    assert meta["original"] == SWAPPED and meta["review_id"].startswith("rev-")


def test_monitor_mode_never_changes_the_reply(
    fake: FakeUpstream, client: openai.OpenAI, monitor: None
) -> None:
    fake.script(Reply(SWAPPED))
    completion = ask(client, "Who does what at Larkspur Cycles?")
    meta = guard(completion)
    assert completion.choices[0].message.content == SWAPPED
    assert completion.choices[0].finish_reason == "stop"
    assert meta["mode"] == "monitor" and meta["recommendation"] == "HumanReview"
    assert len(fake.requests) == 1 and "review_id" not in meta


def test_tool_results_are_the_knowledge_of_a_tool_calling_conversation(
    fake: FakeUpstream, client: openai.OpenAI
) -> None:
    call = tool_call("call_1", "find_rentals", {"town": "Kendal"})
    fake.script(Reply(tool_calls=[call]))
    messages = [{"role": "user", "content": "Can I rent a bike in Kendal this weekend?"}]
    first = client.chat.completions.create(model=MODEL, messages=messages)
    assert first.choices[0].message.tool_calls[0].function.name == "find_rentals"
    assert guard(first)["action"] == "unchecked"
    rentals = {
        "rentals": [
            {"bike_name": "Fellrunner 29", "day_rate": "$35", "size": "large"},
            {"bike_name": "Tarn Tourer", "day_rate": "$28", "size": "medium"},
        ]
    }
    messages += [
        first.choices[0].message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": "call_1", "content": json.dumps(rentals)},
    ]
    fake.script(Reply("Yes, the Tarn Tourer costs $28 a day."))
    told = client.chat.completions.create(model=MODEL, messages=messages)
    assert guard(told)["recommendation"] in ("Accept", "AcceptWithFlags")
    assert not guard(told)["flags"]
    fake.script(Reply("Yes, the Tarn Tourer costs $40 a day."))
    corrected = client.chat.completions.create(model=MODEL, messages=messages)
    wrong = guard(corrected)
    assert "ContradictsFact" in wrong["attempts"][0]["flags"]
    assert wrong["recommendation"] == "CorrectAndDeliver"
    assert corrected.choices[0].message.content == "Yes, the Tarn Tourer costs $28 a day."
    nothing = json.dumps({"rentals": []})
    empty = [*messages[:2], {"role": "tool", "tool_call_id": "call_1", "content": nothing}]
    honest = "Sorry, I found no bike to rent in Kendal this weekend."
    fake.script(Reply("Try the Skiddaw Sprinter at Greenside Hire for $30 a day."), Reply(honest))
    offered = client.chat.completions.create(model=MODEL, messages=empty)
    assert "NonexistentEntity" in guard(offered)["attempts"][0]["flags"]
    assert offered.choices[0].message.content == honest


def test_models_are_the_upstreams(client: openai.OpenAI) -> None:
    assert [m.id for m in client.models.list()] == [MODEL]


def test_an_upstream_error_passes_through_with_its_retry_after(
    fake: FakeUpstream, served: TestClient, client: openai.OpenAI
) -> None:
    error = {"message": "too many requests", "type": "rate_limit_error", "code": "rate"}
    fake.script(Reply(status=429, headers={"Retry-After": "3"}, error=error))
    with pytest.raises(openai.RateLimitError) as caught:
        ask(client)
    assert caught.value.response.headers["retry-after"] == "3"
    assert caught.value.body == error


def test_a_slow_upstream_is_waited_for_and_one_too_slow_is_504(
    fake: FakeUpstream, client: openai.OpenAI
) -> None:
    fake.script(Reply(RIGHT, delay=0.5))
    assert ask(client).choices[0].message.content == RIGHT
    fake.script(Reply(RIGHT, delay=3.0))
    with pytest.raises(openai.APIStatusError) as caught:
        ask(client)
    assert caught.value.status_code == 504
    assert caught.value.body["code"] == "upstream_timeout"


def test_an_unreachable_upstream_is_502(served: TestClient, client: openai.OpenAI) -> None:
    import socket

    from replyguard.serve.upstream import Upstream

    with socket.socket() as free:  # a port nobody listens on
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    state = served.app.state.proxy
    working, state.upstream = state.upstream, Upstream(f"http://127.0.0.1:{port}/v1")
    try:
        with pytest.raises(openai.APIStatusError) as caught:
            ask(client)
    finally:
        served.portal.call(state.upstream.aclose)  # on the app's event loop, where it opened
        state.upstream = working
    assert caught.value.status_code == 502
    assert caught.value.body["code"] == "upstream_unreachable"


def test_the_proxy_needs_a_key_and_one_choice(served: TestClient) -> None:
    body = {"model": MODEL, "messages": [{"role": "user", "content": PHONE_Q}]}
    assert served.post("/v1/chat/completions", json=body).status_code == 401
    headers = {"Authorization": f"Bearer {KEY}"}
    many = served.post("/v1/chat/completions", json={**body, "n": 2}, headers=headers)
    assert many.status_code == 422 and many.json()["error"]["param"] == "n"
    bad = {"model": MODEL, "messages": [{"role": "wizard", "content": "hi"}]}
    wrong_role = served.post("/v1/chat/completions", json=bad, headers=headers)
    assert (
        wrong_role.status_code == 422 and "messages.0.role" in wrong_role.json()["error"]["param"]
    )


# --------------------------------------------------------------------------- streaming


def stream(client: openai.OpenAI, question: str = PHONE_Q) -> tuple[str, list]:
    chunks = list(ask(client, question, stream=True))
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    return text, chunks


def test_a_stream_releases_checked_sentences_and_ends_with_the_metadata(
    fake: FakeUpstream, client: openai.OpenAI
) -> None:
    reply = f"{RIGHT} Ask for Tom Ashby, the mechanic."
    fake.script(Reply(reply, chunk_chars=4))
    text, chunks = stream(client)
    assert text == reply
    last = chunks[-1]
    assert last.choices[0].finish_reason == "stop"
    meta = last.model_extra["replyguard"]
    assert meta["original"] == reply and meta["delivered"] == reply
    assert len(meta["attempts"]) == 2, "one check per sentence"
    assert [a["text"] for a in meta["attempts"]] == [RIGHT + " ", reply]
    assert fake.requests[0]["stream"] is True


def counters(served: TestClient) -> Counter:
    """The service's counters and histogram counts as {(metric, label value): value}."""
    from prometheus_client.parser import text_string_to_metric_families

    text = served.get("/metrics", headers={"Authorization": f"Bearer {KEY}"}).text
    found: Counter = Counter()
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name.endswith(("_total", "_count")):
                found[sample.name, next(iter(sample.labels.values()), "")] += sample.value
    return found


def streamed_counts(fake: FakeUpstream, client: openai.OpenAI, served: TestClient, reply: str):
    """Stream `reply` through the proxy: its metadata and what the metrics counted for it."""
    fake.script(Reply(reply, chunk_chars=6))
    before = counters(served)
    _, chunks = stream(client)
    added = counters(served) - before
    kinds = {k: v for (name, k), v in added.items() if name == "replyguard_recommendations_total"}
    flags = {t: v for (name, t), v in added.items() if name == "replyguard_flags_total"}
    return chunks[-1].model_extra["replyguard"], kinds, flags, added


def test_a_streamed_reply_counts_one_recommendation_and_each_flag_once(
    fake: FakeUpstream, client: openai.OpenAI, served: TestClient
) -> None:
    # both rounds find the reply only partly answers the question and its "usually" claim
    # unchecked: one issue and one flag, each counted once
    meta, kinds, flags, added = streamed_counts(
        fake, client, served, f"{UNCHECKED} Ask for Tom Ashby, the mechanic."
    )
    assert [a["recommendation"] for a in meta["attempts"]] == ["AcceptWithFlags"] * 2
    assert [i["type"] for i in meta["issues"]] == ["QUDPartiallyAddressed"]
    assert [f["type"] for f in meta["flags"]] == ["UnsupportedClaim"]
    assert kinds == {"AcceptWithFlags": 1}
    assert flags == {"QUDPartiallyAddressed": 1, "UnsupportedClaim": 1}
    assert added["replyguard_stage_seconds_count", "total"] == 2  # each round is a check


def test_a_flag_corrected_in_a_streamed_sentence_is_counted_once(
    fake: FakeUpstream, client: openai.OpenAI, served: TestClient
) -> None:
    wrong = "Call Larkspur Cycles on 555-0134 or write to sales@larkspur.example."
    meta, kinds, flags, _ = streamed_counts(
        fake, client, served, f"{wrong} Ask for Tom Ashby, the mechanic."
    )
    first, second = meta["attempts"]
    assert first["recommendation"] == "CorrectAndDeliver" and first["flags"] == ["ContradictsFact"]
    assert "hello@larkspur.example" in meta["delivered"] and not second["flags"]
    # the wrong address counted in the round that found it; the recommendation the response
    # reports, once
    assert kinds == {meta["recommendation"]: 1}
    assert flags["ContradictsFact"] == 1 and flags["QUDPartiallyAddressed"] == 1


def test_a_sentence_needing_review_after_others_went_out_ends_the_stream(
    fake: FakeUpstream, client: openai.OpenAI, served: TestClient
) -> None:
    fake.script(Reply(f"{RIGHT} {SWAPPED} Anything else?"))
    received = []
    with pytest.raises(openai.APIError) as caught:
        for chunk in ask(client, "Who works at Larkspur Cycles?", stream=True):
            received.append(chunk.choices[0].delta.content or "")
    assert "".join(received) == RIGHT + " "
    assert "HumanReview" in caught.value.message
    error = caught.value.body
    assert error["type"] == "guardrails_violation"
    meta = error["replyguard"]
    assert meta["recommendation"] == "HumanReview" and meta["delivered"] == RIGHT + " "
    assert served.app.state.proxy.reviews.get(meta["review_id"])["source"] == "proxy-stream"


def test_a_first_sentence_that_fails_is_answered_as_without_streaming(
    fake: FakeUpstream, client: openai.OpenAI
) -> None:
    fake.script(Reply(INVENTED), Reply(RIGHT))
    text, chunks = stream(client, "Which bike shops are open on Sunday?")
    assert text == RIGHT
    meta = chunks[-1].model_extra["replyguard"]
    assert meta["streamed"] == "buffered" and [a["text"] for a in meta["attempts"]] == [
        INVENTED,
        RIGHT,
    ]
    assert fake.requests[0]["stream"] is True and fake.requests[1]["stream"] is False


def test_a_monitored_stream_passes_the_reply_through(
    fake: FakeUpstream, client: openai.OpenAI, monitor: None
) -> None:
    fake.script(Reply(SWAPPED))
    text, chunks = stream(client, "Who does what at Larkspur Cycles?")
    assert text == SWAPPED
    meta = chunks[-1].model_extra["replyguard"]
    assert meta["mode"] == "monitor" and meta["recommendation"] == "HumanReview"


def test_a_streamed_tool_call_passes_through_unchecked(
    fake: FakeUpstream, client: openai.OpenAI
) -> None:
    fake.script(Reply(tool_calls=[tool_call("call_4", "find_rentals", {"town": "Kendal"})]))
    chunks = list(ask(client, "Can I rent a bike?", stream=True))
    calls = [
        c.choices[0].delta.tool_calls for c in chunks if c.choices and c.choices[0].delta.tool_calls
    ]
    assert calls and calls[0][0].function.name == "find_rentals"
    assert chunks[-1].choices[0].finish_reason == "tool_calls"
    assert chunks[-1].model_extra["replyguard"]["action"] == "unchecked"


def test_a_stream_error_before_any_chunk_keeps_its_status(
    fake: FakeUpstream, client: openai.OpenAI
) -> None:
    fake.script(Reply(status=503, headers={"Retry-After": "9"}))
    with pytest.raises(openai.APIStatusError) as caught:
        stream(client)
    assert caught.value.status_code == 503
    assert caught.value.response.headers["retry-after"] == "9"


def test_a_corrected_sentence_goes_out_corrected() -> None:
    from replyguard.serve.guard import Verdict
    from replyguard.serve.streaming import _corrected_after, complete_sentences

    sent = "Tom Ashby is the mechanik. "
    checked = sent + "Ivy Marsh is the mechanic."
    corrected = "Tom Ashby is the mechanic. Ivy Marsh is the manager."
    corrections = [
        {"span": {"start": 17, "end": 25}, "replacement": "mechanic", "original": "mechanik"},
        {"span": {"start": 44, "end": 52}, "replacement": "manager", "original": "mechanic"},
    ]
    verdict = Verdict(checked, {"corrected": {"corrected": corrected, "corrections": corrections}})
    assert _corrected_after(verdict, len(sent)) == "Ivy Marsh is the manager."
    assert complete_sentences(checked, 0) == [len(sent)]
    assert complete_sentences("Call Dr. Lee on 555-0134. Then", 0) == [26]


@pytest.mark.parametrize(
    "text",
    [
        "The kiln is fired on Mondays. Ask St. Clair's desk about it! Glazes cost $4. Then",
        "Dr. Ruiz throws pots at 9 a.m. daily.\n\nBook a wheel by phone? Sure. We",
        "no mark at all in this unfinished sentence, only commas, and words",
    ],
)
def test_sentences_read_from_where_the_last_one_ended(text: str) -> None:
    from replyguard.serve.streaming import complete_sentences
    from replyguard.text.tokens import may_end_sentence

    ends = complete_sentences(text, 0)
    for k, end in enumerate(ends):  # a stream asks again from each end it was given
        assert complete_sentences(text, end) == ends[k + 1 :]
    assert ends or not may_end_sentence(text)


# --------------------------------------------------------------------------- LiteLLM


def litellm_call(input_type: str, texts: list[str], call_id: str | None, messages=None) -> dict:
    """A request as LiteLLM's generic_guardrail_api hook sends it: every field, unset ones null."""
    return {
        "input_type": input_type,
        "litellm_call_id": call_id,
        "litellm_trace_id": None,
        "structured_messages": messages,
        "images": None,
        "tools": None,
        "texts": texts,
        "request_data": {"user_api_key_alias": "team-a"},
        "request_headers": None,
        "litellm_version": "1.108.7",
        "additional_provider_specific_params": {},
        "tool_calls": None,
        "model": MODEL,
    }


def guardrail(served: TestClient, body: dict) -> dict:
    response = served.post(
        "/beta/litellm_basic_guardrail_api", json=body, headers={"x-api-key": KEY}
    )
    assert response.status_code == 200, response.text
    return response.json()


def test_litellm_pre_call_passes_and_its_dialogue_is_joined_to_the_reply(
    served: TestClient,
) -> None:
    messages = [
        {"role": "system", "content": "You answer questions about Larkspur Cycles."},
        {"role": "user", "content": "Who does what at Larkspur Cycles?"},
    ]
    texts = [m["content"] for m in messages]
    before = guardrail(served, litellm_call("request", texts, "call-7", messages))
    assert before["action"] == "NONE" and before["texts"] == texts
    after = guardrail(served, litellm_call("response", [SWAPPED], "call-7"))
    assert after["action"] == "BLOCKED" and after["texts"] == [SWAPPED]
    assert after["blocked_reason"].startswith("replyguard: the reply needs a person's review")
    review_id = after["blocked_reason"].rsplit(" ", 1)[-1]
    item = served.app.state.proxy.reviews.get(review_id)
    assert item["source"] == "litellm" and item["dialogue"] == messages


def test_litellm_gets_one_text_per_text_and_the_verdicts_mapped(served: TestClient) -> None:
    right = guardrail(served, litellm_call("response", [RIGHT, ""], "call-8"))
    assert right["action"] == "NONE" and right["texts"] == [RIGHT, ""]
    regenerate = guardrail(served, litellm_call("response", [INVENTED], None))
    assert regenerate["action"] == "BLOCKED" and "written again" in regenerate["blocked_reason"]
    question = [{"role": "user", "content": "When does Larkspur Cycles open?"}]
    guardrail(served, litellm_call("request", [question[0]["content"]], "call-9", question))
    corrected = guardrail(served, litellm_call("response", [WRONG_HOUR], "call-9"))
    assert corrected["action"] == "GUARDRAIL_INTERVENED" and len(corrected["texts"]) == 1


def test_litellm_in_monitor_mode_never_blocks(served: TestClient, monitor: None) -> None:
    answer = guardrail(served, litellm_call("response", [SWAPPED], None))
    assert answer["action"] == "NONE" and answer["texts"] == [SWAPPED]


def test_litellm_route_needs_the_key(served: TestClient) -> None:
    body = litellm_call("response", [RIGHT], None)
    assert served.post("/beta/litellm_basic_guardrail_api", json=body).status_code == 401
    wrong = {**body, "input_type": "midway"}
    answer = served.post(
        "/beta/litellm_basic_guardrail_api", json=wrong, headers={"x-api-key": KEY}
    )
    assert answer.status_code == 422 and answer.json()["error"]["param"] == "input_type"


# --------------------------------------------------------------------------- check and metrics


def test_a_case_sent_to_v1_check_carries_tool_results(served: TestClient) -> None:
    rows = [{"bike_name": "Tarn Tourer", "day_rate": "$28"}]
    case = {
        "dialogue": [{"role": "user", "content": "How much is the Tarn Tourer a day?"}],
        "query": "How much is the Tarn Tourer a day?",
        "response": "The Tarn Tourer costs $31 a day.",
        "tool_results": [rows],
    }
    headers = {"Authorization": f"Bearer {KEY}"}
    told = served.post("/v1/check", json=case, headers=headers).json()
    kinds = {f["hallucination_type"] for f in told["result"]["hallucination_flags"]}
    assert "ContradictsFact" in kinds and "$28" in told["result"]["corrected"]["corrected"]
    alone = served.post("/v1/check", json={**case, "tool_results": []}, headers=headers).json()
    assert "ContradictsFact" not in {
        f["hallucination_type"] for f in alone["result"]["hallucination_flags"]
    }


def test_the_upstream_time_is_a_stage_of_the_metrics(
    fake: FakeUpstream, client: openai.OpenAI, served: TestClient
) -> None:
    fake.script(Reply(RIGHT))
    ask(client)
    text = served.get("/metrics", headers={"Authorization": f"Bearer {KEY}"}).text
    assert 'replyguard_stage_seconds_count{stage="upstream"}' in text


def test_a_person_reads_and_resolves_the_review_queue(
    fake: FakeUpstream, client: openai.OpenAI, served: TestClient
) -> None:
    fake.script(Reply(SWAPPED))
    review_id = guard(ask(client, "Who runs Larkspur Cycles?"))["review_id"]
    headers = {"Authorization": f"Bearer {KEY}"}
    listed = served.get("/v1/review", headers=headers).json()["items"]
    assert listed[0]["id"] == review_id and "attempts" not in listed[0]
    item = served.get(f"/v1/review/{review_id}", headers=headers).json()
    assert item["attempts"][0]["text"] == SWAPPED
    done = served.post(
        f"/v1/review/{review_id}/resolve", json={"note": "rang them"}, headers=headers
    )
    assert done.json() == {"id": review_id, "status": "resolved"}
    assert review_id not in [
        i["id"] for i in served.get("/v1/review", headers=headers).json()["items"]
    ]
    assert served.get("/v1/review/rev-missing", headers=headers).status_code == 404
    assert served.get("/v1/review").status_code == 401


def test_no_generated_request_to_the_proxy_routes_is_a_server_error(
    fake: FakeUpstream, served: TestClient
) -> None:
    """Requests generated from the OpenAPI schema (valid and not) for the proxy's routes, the
    upstream answering every one."""
    import itertools

    import schemathesis
    from hypothesis import HealthCheck, given, settings
    from hypothesis.errors import Unsatisfiable
    from schemathesis import GenerationMode

    schema = schemathesis.openapi.from_dict(served.get("/openapi.json").json())
    mine = ("/v1/chat/completions", "/v1/models", "/beta/litellm_basic_guardrail_api", "/v1/review")
    operations = [r.ok() for r in schema.get_all_operations() if r.ok().path.startswith(mine)]
    assert len(operations) >= 6
    fake.script()
    fake.default = Reply(RIGHT)
    try:
        for operation, mode in itertools.product(operations, GenerationMode):

            @given(case=operation.as_strategy(generation_mode=mode))
            @settings(
                max_examples=6,
                deadline=None,
                suppress_health_check=list(HealthCheck),
                derandomize=True,
                database=None,
            )
            def call(case) -> None:
                kwargs = case.as_transport_kwargs(headers={"Authorization": f"Bearer {KEY}"})
                for unused in ("base_url", "cookies"):
                    kwargs.pop(unused, None)
                if isinstance(kwargs.get("data"), bytes | str):
                    kwargs["content"] = kwargs.pop("data")
                response = served.request(**{k: v for k, v in kwargs.items() if v is not None})
                assert response.status_code < 500, (case.path, response.text)

            try:
                call()
            except Unsatisfiable:
                assert mode is GenerationMode.NEGATIVE
    finally:
        fake.default = None
