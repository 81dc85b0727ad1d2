"""One mechanism for things the KB lacks of a kind it has (stages/unknown_things.py): whichever
place the phrase stands in, what its sentence offers counts alike, and how firmly it is said
sets the confidence (`UnknownThing STANDING SIMILAR`). A community hall with two rooms."""

from __future__ import annotations

from datetime import datetime

import pytest

from replyguard.engine import Engine
from replyguard.kb import kb_from_document
from replyguard.models import HallucinationType

REFERENCE = datetime(2026, 12, 2, 9, 0)

HALL = {
    "entities": [
        {
            "id": "hall",
            "name": "Elm Street Community Hall",
            "type": "Organization",
            "attributes": {"phone": "01800 200 300", "opening_hours": "8:00 am - 10:00 pm"},
        },
        {
            "id": "garden",
            "name": "Garden Room",
            "type": "Location",
            "attributes": {"hire_price": "£25", "capacity": 30},
        },
        {
            "id": "studio",
            "name": "Studio Room",
            "type": "Location",
            "attributes": {"hire_price": "£18", "capacity": 12},
        },
        {
            "id": "chess",
            "name": "Chess Club",
            "type": "Event",
            "attributes": {"day": "Thursday", "starts": "7:00 pm"},
        },
        {
            "id": "craft",
            "name": "Craft Club",
            "type": "Event",
            "attributes": {"day": "Saturday", "starts": "10:00 am"},
        },
    ]
}


@pytest.fixture(scope="module")
def hall() -> Engine:
    return Engine(kb_from_document(HALL))


def invented(engine: Engine, text: str) -> dict[str, float]:
    result = engine.postprocess(text, "", [], reference_time=REFERENCE)
    return {
        f.content: f.confidence
        for f in result.hallucination_flags
        if f.hallucination_type == HallucinationType.NonexistentEntity
    }


def test_a_share_off_is_an_offer_of_a_new_one_of_a_kind(hall):
    # a percentage offers as a price does, wherever the thing is named
    assert "drama club" in invented(hall, "Members of the drama club get 10% off room hire.")


def test_said_as_our_own_is_firmer_than_after_the(hall):
    own = invented(hall, "Our pottery room takes 8 people.")
    definite = invented(hall, "Book the pottery room, which takes 8 people.")
    assert own["pottery room"] > definite["pottery room"]


def test_a_room_the_kb_lists_offered_with_a_share_is_not_invented(hall):
    assert invented(hall, "Regulars get 10% off the studio room.") == {}
