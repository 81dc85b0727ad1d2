"""Issue 11, how replies about a booking name what they price and date, on a van hire and a
diary of my own (verdicts written before the run):

- "It would cost you £240": "you" after the verb is its object, so the price is still the van's
  in focus, not a claim about the user;
- "Your booking is £240": "your" before a `booking-noun` (metta/lexicon.metta) is the thing
  being booked, the entity in focus, as "it" would be;
- "You have a 4 pm Dog Grooming appointment": a value between a determiner and a name modifies
  that name."""

from __future__ import annotations

from datetime import datetime

import pytest

from replyguard.engine import Engine
from replyguard.kb import kb_from_document
from replyguard.models import Turn

REFERENCE = datetime(2026, 12, 3, 10, 0)


def van(ident: str, name: str, total: str) -> dict:
    attributes = {"total_price": total, "pickup_time": "9:00 am", "seats": "3"}
    return {"id": ident, "name": name, "type": "Object", "attributes": attributes}


VANS = {"entities": [van("V1", "Transit", "£180"), van("V2", "Sprinter", "£240")]}
OFFERED = [
    Turn(id="T1", speaker="user", text="I need a van on Saturday."),
    Turn(id="T2", speaker="assistant", text="The Transit is free on Saturday from 9:00 am."),
    Turn(id="T3", speaker="user", text="How much will that be?"),
]
DIARY = {
    "entities": [
        {
            "id": "E1",
            "name": "Dog Grooming appointment",
            "type": "Event",
            "attributes": {"event_time": "2:30 pm", "event_location": "14 Mill Lane"},
        }
    ]
}


def said(engine: Engine, reply: str, turns: list[Turn]) -> set[tuple[str, str, str, str]]:
    query = turns[-1].text if turns else ""
    result = engine.postprocess(reply, query, turns, reference_time=REFERENCE)
    fv = result.factual_validation
    return {
        (c.subject, c.predicate, c.object, v.status.kind)
        for c, v in zip(fv.claims, fv.claim_validations, strict=True)
    }


@pytest.fixture(scope="module")
def vans() -> Engine:
    return Engine(kb_from_document(VANS))


@pytest.mark.parametrize(
    ("reply", "status"),
    [
        ("It would cost you £240.", "Contradicted"),
        ("It would cost you £180.", "Verified"),
        ("That will cost you £240 for the day.", "Contradicted"),
    ],
)
def test_you_after_the_verb_is_its_object(vans, reply, status):
    value = reply.split("£")[1].split()[0].rstrip(".")
    assert said(vans, reply, OFFERED) == {("Transit", "total_price", f"£{value}", status)}


@pytest.mark.parametrize(
    ("reply", "status"),
    [
        ("Your booking is £240.", "Contradicted"),
        ("Your rental is £180.", "Verified"),
        ("The total for your booking is £240.", "Contradicted"),
    ],
)
def test_your_booking_is_the_thing_in_focus(vans, reply, status):
    value = reply.split("£")[1].rstrip(".")
    assert said(vans, reply, OFFERED) == {("Transit", "total_price", f"£{value}", status)}


@pytest.mark.parametrize(
    ("reply", "status"),
    [
        ("You have a 4 pm Dog Grooming appointment.", "Contradicted"),
        ("You have a 2:30 pm Dog Grooming appointment.", "Verified"),
        ("Your 4 pm Dog Grooming appointment is at 14 Mill Lane.", "Contradicted"),
    ],
)
def test_a_value_before_a_name_modifies_it(reply, status):
    claims = said(Engine(kb_from_document(DIARY)), reply, [])
    time = reply.split(" pm")[0].split()[-1] + " pm"
    assert ("Dog Grooming appointment", "event_time", time, status) in claims
