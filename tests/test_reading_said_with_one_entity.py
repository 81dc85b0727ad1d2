"""Values a sentence says beside one entity it names, compounds said apart, and cues that stop
at a new subject:

- a typed value with no subject of its own, in a clause that names one KB entity, is that
  entity's ("How about Harbour Lights at the Corn Exchange on 14 May?"), but not across a
  clause break, nor when the name is shared by several rows;
- "check in" says the column word "checkin", "dropped off" "dropoff": the words pick the column
  and the value each goes with;
- a cue said before one value does not carry past a new subject ("... for pickup at 9am, and
  you return it on 7 May");
- an attribute whose values are names is one even when a value runs to seven words.
"""

from __future__ import annotations

from datetime import datetime

import pytest

from replyguard.engine import Engine
from replyguard.kb import kb_from_document

REFERENCE = datetime(2026, 5, 2, 8, 0)

GIGS = {
    "entities": [
        {
            "id": "lights",
            "name": "Harbour Lights",
            "type": "Event",
            "attributes": {"date": "2026-05-14", "venue": "Corn Exchange", "doors": "7:30 pm"},
        },
        {
            "id": "owls",
            "name": "The Paper Owls",
            "type": "Event",
            "attributes": {
                "date": "2026-05-16",
                "venue": "Riverside Hall at the Old Granary Wharf",
                "doors": "8:00 pm",
            },
        },
        {
            "id": "tour",
            "name": "Backstage Tour",
            "type": "Event",
            "attributes": {"duration": "45 minutes", "date": "2026-05-15"},
        },
    ]
}

COTTAGE = {
    "entities": [
        {
            "id": "byre",
            "name": "The Old Byre",
            "type": "Object",
            "attributes": {
                "checkin_date": "2026-05-08",
                "checkout_date": "2026-05-11",
                "checkin_time": "4:00 pm",
                "nightly_rate": "£95",
            },
        }
    ]
}

VANS = {
    "entities": [
        {
            "id": "van",
            "name": "Transit Van",
            "type": "Object",
            "attributes": {
                "pickup_date": "2026-05-04",
                "pickup_time": "9:00 am",
                "dropoff_date": "2026-05-06",
                "pickup_location": "Mill Road Depot",
            },
        }
    ]
}


@pytest.fixture(scope="module")
def gigs() -> Engine:
    return Engine(kb_from_document(GIGS))


def _claims(engine: Engine, reply: str) -> list[tuple[str, str, str, str]]:
    result = engine.postprocess(reply, "What's on?", reference_time=REFERENCE)
    fv = result.factual_validation
    return [
        (c.subject, c.predicate, c.object, v.status.kind)
        for c, v in zip(fv.claims, fv.claim_validations, strict=True)
    ]


def test_a_date_beside_the_one_entity_named_is_that_entitys(gigs: Engine) -> None:
    claims = _claims(gigs, "How about Harbour Lights at the Corn Exchange on 15 May?")
    assert ("Harbour Lights", "date", "15 May", "Contradicted") in claims
    right = _claims(gigs, "How about Harbour Lights at the Corn Exchange on 14 May?")
    assert ("Harbour Lights", "date", "14 May", "Verified") in right


def test_a_value_before_the_name_in_the_same_clause_is_its_too(gigs: Engine) -> None:
    claims = _claims(gigs, "On 14 May at 8 pm there is Harbour Lights.")
    assert ("Harbour Lights", "date", "14 May", "Verified") in claims


def test_a_value_in_another_clause_is_not_the_named_entitys(gigs: Engine) -> None:
    claims = _claims(
        gigs, "Most people stay about two hours, though the Backstage Tour is shorter."
    )
    assert not any(value == "two hours" for _, _, value, _ in claims)


def test_a_value_opening_its_clause_qualifies_it(gigs: Engine) -> None:
    claims = _claims(gigs, "Today's Backstage Tour is a short one.")
    assert not any(attribute == "date" for _, attribute, _, _ in claims)


def test_an_unknown_name_where_a_long_named_venue_stands_is_a_wrong_venue(gigs: Engine) -> None:
    claims = _claims(gigs, "The Paper Owls play at Cedar Lodge on 16 May.")
    assert ("The Paper Owls", "venue", "Cedar Lodge", "Contradicted") in claims


def test_check_in_and_check_out_said_apart_pick_their_columns() -> None:
    engine = Engine(kb_from_document(COTTAGE))
    claims = _claims(engine, "At The Old Byre you check in on 8 May and check out on 12 May.")
    assert ("The Old Byre", "checkin_date", "8 May", "Verified") in claims
    assert ("The Old Byre", "checkout_date", "12 May", "Contradicted") in claims


def test_a_cue_does_not_carry_past_a_new_subject() -> None:
    engine = Engine(kb_from_document(VANS))
    claims = _claims(
        engine,
        "So that's the Transit Van for pickup at Mill Road Depot on 4 May at 9am, "
        "and you bring it back on 6 May.",
    )
    assert ("Transit Van", "pickup_date", "4 May", "Verified") in claims
    assert ("Transit Van", "dropoff_date", "6 May", "Verified") in claims
    assert not any(
        attribute == "pickup_date" and value == "6 May" for _, attribute, value, _ in claims
    )


HALLS = {
    "entities": [
        {
            "id": "quiz",
            "name": "Pub Quiz Night",
            "type": "Event",
            "attributes": {"address": "14 Tanner Street, Leith", "start": "8:00 pm"},
        },
        {
            "id": "ceilidh",
            "name": "Spring Ceilidh",
            "type": "Event",
            "attributes": {"address": "3 Ferry Road Northwest, Granton", "start": "7:00 pm"},
        },
    ]
}


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        ("The Pub Quiz Night is at 52 Bernard Street, Leith.", "52 Bernard Street, Leith"),
        ("The Pub Quiz Night is at 52-54 Bernard Street.", "52-54 Bernard Street"),
        ("The Spring Ceilidh is at 9 Ferry Road Northwest.", "9 Ferry Road Northwest"),
    ],
)
def test_a_street_address_is_read_whole_with_its_number_compass_and_town(
    reply: str, said: str
) -> None:
    engine = Engine(kb_from_document(HALLS))
    claims = _claims(engine, reply)
    assert [(attribute, value, status) for _, attribute, value, status in claims] == [
        ("address", said, "Contradicted")
    ]


def test_a_town_is_part_of_the_address_only_where_the_kb_writes_towns() -> None:
    plain = {
        "entities": [
            {
                "id": "quiz",
                "name": "Pub Quiz Night",
                "type": "Event",
                "attributes": {"address": "14 Tanner Street", "start": "8:00 pm"},
            }
        ]
    }
    claims = _claims(
        Engine(kb_from_document(plain)), "The Pub Quiz Night is at 14 Tanner Street, Leith."
    )
    assert ("Pub Quiz Night", "address", "14 Tanner Street", "Verified") in claims


def test_words_after_an_address_that_go_on_are_no_town() -> None:
    claims = _claims(
        Engine(kb_from_document(HALLS)),
        "The Pub Quiz Night is at 14 Tanner Street, Leith, Tuesday to Saturday.",
    )
    assert ("Pub Quiz Night", "address", "14 Tanner Street, Leith", "Verified") in claims
