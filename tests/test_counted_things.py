"""Issue 11, decisions and class 2: a bare number right before a noun no KB column is named for
counts those things ("I found 2 flights", "over 40 machines"): it is no column's value by its
type alone and no unread value, while "3 bedrooms" may still be number_of_beds.

A flight search and a gym of our own; the verdicts were written before the code was run.
"""

from __future__ import annotations

from datetime import datetime

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase, Turn

REFERENCE = datetime(2026, 12, 2, 12, 0)
FLIGHTS = {
    "entities": [
        {
            "id": "f1",
            "type": "Object",
            "attributes": {
                "airline": "Skyward Air",
                "departure_time": "07:40",
                "price": "$212",
                "number_stops": 0,
            },
        },
        {
            "id": "f2",
            "type": "Object",
            "attributes": {
                "airline": "Blue Heron",
                "departure_time": "13:05",
                "price": "$189",
                "number_stops": 1,
            },
        },
    ]
}
ASKED = [Turn(id="T1", speaker="user", text="Find me a flight from Leeds to Dublin on Friday.")]


def _check(kb: dict, reply: str, turns: list[Turn]):  # noqa: ANN202
    engine = Engine(KnowledgeBase.model_validate(kb))
    return engine.postprocess(reply, turns[-1].text, turns, reference_time=REFERENCE)


def test_a_count_of_results_is_no_unread_value() -> None:
    result = _check(FLIGHTS, "I found 2 flights. Skyward Air leaves at 7:40 am for $212.", ASKED)
    assert [u.text for u in result.unread_values] == []
    assert result.recommendation.kind == "Accept"


def test_a_count_of_what_a_column_names_is_still_read() -> None:
    result = _check(FLIGHTS, "Blue Heron leaves at 1:05 pm with 2 stops.", ASKED)
    claims = {(c.predicate, c.object) for c in result.factual_validation.claims}
    assert ("number_stops", "2 stops") in claims


def test_a_count_of_things_is_no_column_by_type() -> None:
    gym = {
        "entities": [
            {
                "id": "gym",
                "name": "Riverside Gym",
                "type": "Location",
                "attributes": {"min_age": 16, "monthly_price": "£30"},
            }
        ]
    }
    turns = [Turn(id="T1", speaker="user", text="Tell me about Riverside Gym.")]
    result = _check(gym, "Riverside Gym has over 40 machines and a free-weights area.", turns)
    assert [c.predicate for c in result.factual_validation.claims] == []


def test_a_year_before_a_noun_is_no_count() -> None:
    songs = {
        "entities": [
            {"id": "s1", "name": "Lantern", "type": "Object", "attributes": {"year": 2019}},
            {"id": "s2", "name": "Harbour", "type": "Object", "attributes": {"year": 2016}},
        ]
    }
    turns = [Turn(id="T1", speaker="user", text="How old is Lantern?")]
    result = _check(songs, "Lantern is a 2021 song.", turns)
    assert [(c.predicate, c.object) for c in result.factual_validation.claims] == [("year", "2021")]


def test_a_number_of_people_is_the_party_column() -> None:
    rides = {
        "entities": [
            {
                "id": "r1",
                "name": "Airport Run",
                "type": "Object",
                "attributes": {"number_of_seats": 3, "fare": "$42"},
            }
        ]
    }
    turns = [Turn(id="T1", speaker="user", text="Book the Airport Run for me.")]
    result = _check(rides, "The Airport Run is booked for 4 people.", turns)
    assert [(c.predicate, c.object) for c in result.factual_validation.claims] == [
        ("number_of_seats", "4 people")
    ]
