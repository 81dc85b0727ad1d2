"""Claims about a table of rows: weekday columns, values said of days in a list, and values
with no subject of their own."""

from __future__ import annotations

import pytest
from conftest import check

from replyguard.engine import Engine
from replyguard.kb import kb_from_rows
from replyguard.models import Turn

WEATHER = [
    {
        "location": "Oakland",
        "monday": "rain",
        "monday_low": "60F",
        "monday_high": "70F",
        "tuesday": "snow",
        "tuesday_low": "30F",
        "tuesday_high": "50F",
        "wednesday": "dew",
        "wednesday_low": "40F",
        "wednesday_high": "60F",
    },
    {
        "location": "Durham",
        "monday": "windy",
        "monday_low": "50F",
        "monday_high": "70F",
        "tuesday": "hail",
        "tuesday_low": "20F",
        "tuesday_high": "40F",
        "wednesday": "rain",
        "wednesday_low": "30F",
        "wednesday_high": "60F",
    },
]
PLACES = [
    {"poi": "Pizza Hut", "distance": "5 miles", "traffic_info": "no traffic"},
    {"poi": "Round Table", "distance": "6 miles", "traffic_info": "heavy traffic"},
]


@pytest.fixture(scope="module")
def weather():
    return Engine(kb_from_rows(WEATHER, name_column="location", entity_type="Location"))


@pytest.fixture(scope="module")
def places():
    return Engine(kb_from_rows(PLACES, name_column="poi", entity_type="Location"))


def _claims(engine, text, turns=None):
    result = check(engine, text, "", turns)
    return {
        (c.subject, c.predicate, c.object): v.status.kind
        for c, v in zip(
            result.factual_validation.claims,
            result.factual_validation.claim_validations,
            strict=True,
        )
    }


def test_each_value_in_a_list_is_said_of_its_own_day(weather):
    claims = _claims(
        weather, "In Oakland there will be a low of 60F on Monday, a low of 20F on Tuesday."
    )
    assert claims == {
        ("Oakland", "monday_low", "60F"): "Verified",
        ("Oakland", "tuesday_low", "20F"): "Contradicted",
    }
    leading = _claims(weather, "On Monday Durham will be windy, on Tuesday it will rain.")
    assert leading[("Durham", "monday", "windy")] == "Verified"
    assert leading[("Durham", "tuesday", "rain")] == "Contradicted"


def test_a_value_said_of_several_days_is_not_checked_against_one(weather):
    assert _claims(weather, "Oakland will have rain on Monday and Wednesday.") == {}


def test_an_impersonal_sentence_is_about_the_place_in_focus(weather):
    claims = _claims(weather, "Durham is windy today. It will have a low of 50F and a high of 90F.")
    assert claims[("Durham", "monday_low", "50F")] == "Verified"
    assert claims[("Durham", "monday_high", "90F")] == "Contradicted"


def test_values_without_a_subject_belong_to_the_place_named_nearest(places):
    claims = _claims(places, "We're 5 miles away from Pizza Hut and 6 miles away from Round Table.")
    assert claims == {
        ("Pizza Hut", "distance", "5 miles"): "Verified",
        ("Round Table", "distance", "6 miles"): "Verified",
    }
    said = [Turn(speaker="user", text="How far is Round Table?")]
    assert _claims(places, "It is 4 miles away.", said) == {
        ("Round Table", "distance", "4 miles"): "Contradicted"
    }
    # the speaker is the subject and no place follows the value: nothing to check
    assert _claims(places, "We are 4 miles away.", said) == {}


def test_contracted_is_and_demonstrative_subjects(places):
    said = [Turn(speaker="user", text="How far is Round Table?")]
    # "it's" is "it is", not a possessive; "that's" is a thing already named, like "it"
    assert _claims(places, "It's 4 miles away.", said) == {
        ("Round Table", "distance", "4 miles"): "Contradicted"
    }
    assert _claims(places, "That's 6 miles away from here.", said) == {
        ("Round Table", "distance", "6 miles"): "Verified"
    }


def test_an_impersonal_it_is_with_a_time_is_about_the_event_in_focus():
    engine = Engine(
        kb_from_rows(
            [{"event": "dentist appointment", "time": "10am", "date": "monday"}],
            name_column="event",
            entity_type="Event",
        )
    )
    said = [Turn(speaker="user", text="When is my dentist appointment?")]
    claims = _claims(engine, "I have one dentist appointment. It is Monday at 1pm.", said)
    assert claims[("dentist appointment", "time", "1pm")] == "Contradicted"
    # a value before the verb qualifies the subject; it is not said of the event in focus
    before = _claims(engine, "Today's dentist appointment is at 10am.", said)
    assert before == {("dentist appointment", "time", "10am"): "Verified"}


def test_a_code_that_names_a_row_and_cues_from_verb_column_names():
    trains = [
        {"trainID": "TR7075", "leaveAt": "05:00", "arriveBy": "05:51", "price": "23.60 pounds"},
        {"trainID": "TR5167", "leaveAt": "09:40", "arriveBy": "10:08", "price": "10.10 pounds"},
    ]
    engine = Engine(kb_from_rows(trains, name_column="trainID", entity_type="Object"))
    claims = _claims(engine, "TR7075 leaves at 07:00 and arrives by 05:51.")
    assert claims == {
        ("TR7075", "leaveAt", "07:00"): "Contradicted",
        ("TR7075", "arriveBy", "05:51"): "Verified",
    }
    assert _claims(engine, "The price of TR5167 is 23.60 pounds.") == {
        ("TR5167", "price", "23.60 pounds"): "Contradicted"
    }


def test_a_cue_after_its_value_does_not_carry_to_the_next():
    rows = [
        {"name": "the nirala", "food": "indian", "area": "north"},
        {"name": "golden wok", "food": "chinese", "area": "east"},
        {"name": "curry prince", "food": "indian", "area": "east"},
    ]
    engine = Engine(kb_from_rows(rows, name_column="name", entity_type="Organization"))
    # "food" names "indian"; "north" is the area, not a food
    assert _claims(engine, "The Nirala serves indian food in the north.") == {
        ("the nirala", "food", "indian"): "Verified",
        ("the nirala", "area", "north"): "Verified",
    }


def test_moderately_priced_states_a_moderate_price_range():
    rows = [
        {"name": "Acorn Guest House", "pricerange": "moderate"},
        {"name": "Alexander", "pricerange": "cheap"},
        {"name": "Ashley Hotel", "pricerange": "expensive"},
    ]
    engine = Engine(kb_from_rows(rows, name_column="name"))
    assert _claims(engine, "Acorn Guest House is moderately priced.") == {
        ("Acorn Guest House", "pricerange", "moderately"): "Verified"
    }
    assert _claims(engine, "Alexander is moderately priced.") == {
        ("Alexander", "pricerange", "moderately"): "Contradicted"
    }


def test_the_train_in_focus_is_what_a_noun_phrase_with_a_cue_speaks_of():
    rows = [
        {"trainID": "TR7075", "leaveAt": "05:00", "arriveBy": "05:51"},
        {"trainID": "TR5167", "leaveAt": "09:40", "arriveBy": "10:08"},
    ]
    engine = Engine(kb_from_rows(rows, name_column="trainID", entity_type="Object"))
    said = [
        Turn(speaker="user", text="Tell me about TR7075."),
        Turn(speaker="assistant", text="TR7075 is available."),
        Turn(speaker="user", text="When does it leave?"),
    ]
    assert _claims(engine, "The train leaves at 07:00.", said) == {
        ("TR7075", "leaveAt", "07:00"): "Contradicted"
    }
    # without a cue a time in such a clause could be anything's
    assert _claims(engine, "The station opens at 07:00.", said) == {}


def test_a_temperature_without_low_or_high_is_read_against_the_days_range(weather):
    # a range: each end against its own bound
    assert _claims(weather, "It will be 60-70F on Monday in Oakland.") == {
        ("Oakland", "monday_low", "60"): "Verified",
        ("Oakland", "monday_high", "70F"): "Verified",
    }
    assert _claims(weather, "It will be 80-100F on Monday in Oakland.") == {
        ("Oakland", "monday_low", "80"): "Contradicted",
        ("Oakland", "monday_high", "100F"): "Contradicted",
    }
    assert _claims(weather, "It will be between 60 to 50F on Monday in Oakland.") == {
        ("Oakland", "monday_low", "60"): "Verified",
        ("Oakland", "monday_high", "50F"): "Contradicted",
    }
    # one temperature: below the low, or inside the range (no claim on either bound)
    assert _claims(weather, "It will be 30F on Monday in Oakland.") == {
        ("Oakland", "monday_low", "30F"): "Contradicted"
    }
    assert _claims(weather, "It will be 65F on Monday in Oakland.") == {}
