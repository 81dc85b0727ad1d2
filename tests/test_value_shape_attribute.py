"""A value read under an attribute whose values never have its shape is of the sibling attribute
that has it (issue 11, class 2): "the venue is at 22 Bridge Street" is about the venue's
address, not its name, and is corrected with the address (stages/facts.py `fitting_sibling`)."""

from __future__ import annotations

from datetime import datetime

import pytest

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase, Turn

REFERENCE = datetime(2026, 4, 1, 10, 0)
QUESTION = "Where is Strings at Dusk on?"
KB = {
    "entities": [
        {
            "id": "gig",
            "name": "Strings at Dusk",
            "type": "Event",
            "attributes": {
                "venue": "Corn Exchange",
                "venue_address": "14 Tanner Street",
                "starts": "19:30",
            },
        }
    ],
    "schema": {"starts": {"value_type": "time"}},
}


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(KnowledgeBase.model_validate(KB))


def _check(engine: Engine, reply: str):
    turns = [Turn(id="T1", speaker="user", text=QUESTION)]
    result = engine.postprocess(reply, QUESTION, turns, reference_time=REFERENCE)
    fv = result.factual_validation
    status = {v.claim_id: v.status for v in fv.claim_validations}
    return result, {(c.predicate, c.object): status[c.id] for c in fv.claims}


def test_a_street_address_said_of_the_venue_is_checked_against_its_address(engine):
    result, claims = _check(engine, "The venue is at 22 Bridge Street.")
    status = claims[("venue_address", "22 Bridge Street")]
    assert status.kind == "Contradicted" and status.kb_value == "14 Tanner Street"
    assert result.corrected is not None
    assert result.corrected.corrected == "The venue is at 14 Tanner Street."


def test_the_right_address_and_the_venues_name_keep_their_own_attributes(engine):
    _, claims = _check(engine, "The venue is at 14 Tanner Street.")
    assert claims[("venue_address", "14 Tanner Street")].kind == "Verified"
    _, claims = _check(engine, "It is at the Guildhall.")
    status = claims[("venue", "Guildhall")]
    assert status.kind == "Contradicted" and status.kb_value == "Corn Exchange"
