"""The per-deployment AcceptWithFlags choice, end to end: a deployment configured with
`[proxy] annotate_flags = true` delivers the annotated reply to the official `openai` client
(the upstream's own text and the flags in the `replyguard` metadata)."""

from __future__ import annotations

from collections.abc import Iterator

import openai
import pytest
from fastapi.testclient import TestClient
from serve_support import one_worker
from test_serve_proxy import SHOP_KB

from replyguard.serve.app import create_app
from replyguard.serve.scripted_upstream import MODEL, FakeUpstream, Reply

KEY = "annotating-key-3"
QUESTION = "When does Larkspur Cycles open?"
# the KB knows the opening time, not the year it was founded: an unverified claim
UNVERIFIED = "Larkspur Cycles opens at 9 am and it was founded in 1998."
MARKED = "Larkspur Cycles opens at 9 am and it was founded in **1998** _[unverified]_."


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeUpstream]:
    with FakeUpstream() as upstream:
        yield upstream


@pytest.fixture(scope="module")
def client(fake: FakeUpstream, tmp_path_factory: pytest.TempPathFactory) -> Iterator[openai.OpenAI]:
    folder = tmp_path_factory.mktemp("annotate")
    config = one_worker(
        folder,
        SHOP_KB,
        upstream_url=fake.url,
        api_keys=(KEY,),
        annotation_style="markdown",
        # this deployment delivers a reply with unverified claims (flagged) instead of asking
        # again: the flag band starts lower than the shipped 0.75
        engine={"flag-threshold": 0.6},
        tables={"proxy": {"annotate_flags": True, "review_store": str(folder / "review.db")}},
    )
    with TestClient(create_app(config)) as served:
        yield openai.OpenAI(
            base_url="http://testserver/v1", api_key=KEY, http_client=served, max_retries=0
        )


def ask(client: openai.OpenAI, **kw):
    messages = [{"role": "user", "content": QUESTION}]
    return client.chat.completions.create(model=MODEL, messages=messages, **kw)


def test_an_annotating_deployment_delivers_the_flags_marked_in_the_reply(
    fake: FakeUpstream, client: openai.OpenAI
) -> None:
    fake.script(Reply(UNVERIFIED))
    completion = ask(client)
    meta = completion.model_extra["replyguard"]
    assert meta["recommendation"] == "AcceptWithFlags" and meta["action"] == "deliver-flagged"
    assert completion.choices[0].message.content == MARKED
    assert completion.choices[0].finish_reason == "stop"
    assert meta["original"] == UNVERIFIED and len(fake.requests) == 1
    (flag,) = meta["flags"]
    assert flag["type"] == "FabricatedFact" and "1998" in flag["content"]
    assert UNVERIFIED[flag["span"]["start"] : flag["span"]["end"]].endswith("founded in 1998")


def test_a_reply_without_flags_goes_out_unmarked(fake: FakeUpstream, client: openai.OpenAI) -> None:
    fake.script(Reply("Larkspur Cycles opens at 9 am."))
    completion = ask(client)
    assert completion.model_extra["replyguard"]["recommendation"] == "Accept"
    assert completion.choices[0].message.content == "Larkspur Cycles opens at 9 am."
