"""A reply that asks back for a detail of a request ("Find me a bike to hire" - "which frame
size do you ride?") acts on it: the question it leaves open is the user's to answer, not one the
reply failed to address, even with no word in common and no question mark."""

from __future__ import annotations

from datetime import datetime

import pytest

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase, Turn

REFERENCE = datetime(2026, 5, 4, 10, 0)

# a bike shop's hire fleet
KB = {
    "entities": [
        {"id": "B1", "name": "Fell Runner", "attributes": {"frame": "54 cm", "day_rate": "£30"}},
        {"id": "B2", "name": "Towpath Tourer", "attributes": {"frame": "58 cm", "day_rate": "£22"}},
    ]
}


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(KnowledgeBase.model_validate(KB))


def _check(engine: Engine, query: str, reply: str):
    turns = [Turn(id="T1", speaker="user", text=query)]
    return engine.postprocess(reply, query, turns, reference_time=REFERENCE)


@pytest.mark.parametrize(
    ("query", "reply"),
    [
        ("Find me a bike to hire?", "which frame size do you ride"),
        ("Could you book me a service slot?", "What day suits you?"),
        ("Book me a bike for Saturday.", "How many riders are there?"),
    ],
)
def test_a_question_back_to_a_request_addresses_it(engine, query, reply):
    result = _check(engine, query, reply)
    assert result.coherence.qud_relevance.addresses_qud
    assert result.recommendation.kind.value in ("Accept", "AcceptWithFlags")


def test_a_question_back_to_a_question_it_shares_nothing_with_does_not(engine):
    result = _check(engine, "When does the shop open?", "What is your favourite colour?")
    assert not result.coherence.qud_relevance.addresses_qud


def test_a_wh_word_that_exclaims_asks_nothing_back(engine):
    result = _check(engine, "Find me a bike to hire?", "What a view!")
    assert not result.coherence.qud_relevance.addresses_qud
