"""A name after a cue and a copula is that cue's value (issue 11, class 3): "the publisher is
Harrow Press" says a publisher the KB does not list, it names no new entity."""

from __future__ import annotations

from datetime import datetime

import pytest
from row_verdicts import claim_verdicts

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase, Turn

REFERENCE = datetime(2026, 3, 2, 12, 0)

BOOKS = {
    "entities": [
        {
            "id": "salt",
            "name": "The Salt Road",
            "type": "Object",
            "attributes": {"publisher": "Tinder Books", "binding": "Paperback"},
        }
    ]
}
TURNS = [
    Turn(speaker="user", text="I'm thinking of buying The Salt Road."),
    Turn(speaker="assistant", text="Good choice, it's a gripping read."),
    Turn(speaker="user", text="Who publishes it?"),
]


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(KnowledgeBase.model_validate(BOOKS))


def test_an_unlisted_name_after_cue_and_copula_is_the_cues_value(engine: Engine) -> None:
    reply = "The publisher is Harrow Press, and it comes in paperback."
    verdicts = claim_verdicts(engine, reply, REFERENCE, TURNS)
    assert verdicts[("salt", "publisher", "Harrow Press")].kind == "Contradicted"
    result = engine.postprocess(reply, "", TURNS, reference_time=REFERENCE)
    assert not any(f.hallucination_type == "NonexistentEntity" for f in result.hallucination_flags)


def test_the_listed_value_after_cue_and_copula_is_verified(engine: Engine) -> None:
    verdicts = claim_verdicts(engine, "The publisher is Tinder Books.", REFERENCE, TURNS)
    assert verdicts[("salt", "publisher", "Tinder Books")].kind == "Verified"
