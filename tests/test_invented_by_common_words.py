"""Invented things named by common words (issue 11, class 3): a new one of a kind the KB lists
("the orchard pitch" beside the Riverside Pitch), a part of the organisation said as "our X" or
"we offer a X" when the business has two sites that both speak, and ordinary plural words that
open a sentence are no names. A leisure trust with two sports centres."""

from __future__ import annotations

from datetime import datetime

import pytest

from replyguard.engine import Engine
from replyguard.kb import kb_from_document
from replyguard.models import HallucinationType

REFERENCE = datetime(2026, 11, 30, 9, 0)

TRUST = {
    "entities": [
        {
            "id": "north",
            "name": "Northgate Leisure Centre",
            "type": "Organization",
            "attributes": {
                "address": "5 Tanner Row, Ashby",
                "phone": "01700 300 100",
                "opening_hours": "6:30 am - 10:00 pm",
            },
        },
        {
            "id": "south",
            "name": "Southmead Sports Hall",
            "type": "Organization",
            "attributes": {
                "address": "40 Kiln Lane, Ashby",
                "phone": "01700 300 200",
                "opening_hours": "8:00 am - 9:00 pm",
            },
        },
        {
            "id": "riverside",
            "name": "Riverside Pitch",
            "type": "Location",
            "attributes": {"hire_price": "£45", "players": 14},
        },
        {
            "id": "clay",
            "name": "Clay Court Pitch",
            "type": "Location",
            "attributes": {"hire_price": "£30", "players": 4, "session": "40 minutes"},
        },
        {
            "id": "netball",
            "name": "Junior Netball Club",
            "type": "Event",
            "attributes": {"day": "Wednesday", "starts": "5:00 pm"},
        },
        {
            "id": "walking",
            "name": "Walking Football Club",
            "type": "Event",
            "attributes": {"day": "Friday", "starts": "10:00 am"},
        },
    ]
}


@pytest.fixture(scope="module")
def trust() -> Engine:
    return Engine(kb_from_document(TRUST))


def invented(engine: Engine, text: str) -> list[str]:
    result = engine.postprocess(text, "", [], reference_time=REFERENCE)
    return [
        f.content
        for f in result.hallucination_flags
        if f.hallucination_type == HallucinationType.NonexistentEntity
    ]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("You can hire the orchard pitch for £40, and it takes 10 players.", "orchard pitch"),
        ("Our badminton club meets on Tuesdays at 7pm.", "badminton club"),
        ("The toddler club runs every Monday at 9:30am.", "toddler club"),
        # one word of a KB name ("riverside" of the Riverside Pitch) before others is no KB name
        ("Our Riverside floodlit pitch takes 10 players.", "Riverside floodlit pitch"),
    ],
)
def test_a_new_one_of_a_kind_the_kb_lists_is_invented(trust, text, name):
    assert name in invented(trust, text)


@pytest.mark.parametrize(
    "text",
    [
        "The riverside pitch costs £45 and takes 14 players.",
        "The netball club meets on Wednesdays at 5pm.",
        "The walking football club starts at 10am on Fridays.",
        "The clay court pitch is £30 for up to 4 players.",
    ],
)
def test_a_kb_entity_named_by_words_of_its_name_is_not_invented(trust, text):
    assert invented(trust, text) == []


def test_a_kind_without_an_offer_in_its_sentence_is_no_invented_name(trust):
    # nothing is said of it: a description, not a thing the reply offers
    assert invented(trust, "The main pitch is lovely in summer.") == []


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Yes, our climbing wall is open from 9am until 8pm.", "climbing wall"),
        ("We offer a deep tissue massage for £35.", "deep tissue massage"),
        ("Our spin studio has 20 bikes.", "spin studio"),
        ("Our reward card gives you 15% off.", "reward card"),
    ],
)
def test_a_part_of_a_business_with_two_sites_is_invented(trust, text, name):
    assert any(f.startswith(name) for f in invented(trust, text))


def test_a_kb_part_named_after_our_is_not_invented(trust):
    assert invented(trust, "Our riverside pitch costs £45 to hire.") == []


def test_the_plural_of_a_common_word_opening_a_sentence_is_no_name(trust):
    assert "Players" not in invented(trust, "Players can book the riverside pitch for £45.")


# ---------------------------------------------------------------- a diary of untyped rows

DIARY = {
    "entities": [
        {
            "id": "D1",
            "name": "Piano lesson with Mr Okoro",
            "attributes": {"on": "2026-12-02", "at": "16:00"},
        },
        {
            "id": "D2",
            "name": "Boiler service",
            "attributes": {"on": "2026-12-03", "at": "09:30"},
        },
    ],
    "attribute_schema": {
        "on": {"value_type": "date"},
        "at": {"value_type": "time"},
    },
}


@pytest.fixture(scope="module")
def diary() -> Engine:
    return Engine(kb_from_document(DIARY))


def test_an_entry_a_diary_of_untyped_rows_lacks_is_invented(diary):
    assert "dentist check" in invented(diary, "You have a dentist check at 4 pm.")


@pytest.mark.parametrize(
    "text",
    ["You have a piano lesson at 4 pm.", "You have a boiler service at 9:30 am."],
)
def test_an_entry_of_the_diary_is_not_invented(diary, text):
    assert invented(diary, text) == []


# ---------------------------------------------------------------- values that are no names


def test_a_street_address_without_a_street_word_is_no_name(trust):
    assert invented(trust, "Shall I send the taxi to 118 Villa Del Mar?") == []


def test_a_price_per_unit_states_no_length_of_time(trust):
    result = trust.postprocess(
        "The riverside pitch costs £45 an hour.", "", [], reference_time=REFERENCE
    )
    assert [v.text for v in result.unread_values] == []


@pytest.mark.parametrize(
    "text",
    ["The nearest pitch is the riverside pitch, £45 an hour.", "The main pitch costs £45."],
)
def test_which_one_of_a_kind_is_no_new_one(trust, text):
    assert invented(trust, text) == []


# ---------------------------------------------------------------- a record shop's search

RECORDS = {
    "entities": [
        {"id": "S1", "name": "Paper Boats", "attributes": {"artist": "Ivy Marlowe", "year": 2021}},
        {"id": "S2", "name": "Lanterns", "attributes": {"artist": "The Quays", "year": 2019}},
    ]
}


@pytest.fixture(scope="module")
def records() -> Engine:
    return Engine(kb_from_document(RECORDS))


def test_a_common_word_offered_after_about_is_a_title_the_kb_lacks(records):
    assert "Daylight" in invented(records, "How about Daylight from 2021?")


def test_a_kb_title_offered_after_about_is_not_invented(records):
    assert invented(records, "How about Lanterns by The Quays?") == []


# ---------------------------------------------------------------- the dialogue's own words

HOTEL = {
    "entities": [
        {"id": "G", "name": "Garden Suite", "attributes": {"rate": "£180"}},
        {"id": "L", "name": "Loft Suite", "attributes": {"rate": "£150"}},
    ]
}
ASKED = [
    {"speaker": "user", "text": "Can you order me a taxi? An executive one if possible."},
    {"speaker": "assistant", "text": "Of course. Do you want a suite with a harbour view too?"},
]


@pytest.fixture(scope="module")
def hotel() -> Engine:
    return Engine(kb_from_document(HOTEL))


def test_a_name_made_of_words_the_dialogue_said_is_what_was_asked_for(hotel):
    result = hotel.postprocess(
        "I have booked an Executive Taxi for you.", "", ASKED, reference_time=REFERENCE
    )
    assert not [
        f for f in result.hallucination_flags if f.hallucination_type.value == "NonexistentEntity"
    ]


def test_words_the_dialogue_said_ending_in_a_kind_of_the_kb_still_name_a_new_one(hotel):
    result = hotel.postprocess(
        "The Harbour Suite is £200 a night.", "", ASKED, reference_time=REFERENCE
    )
    assert "Harbour Suite" in [
        f.content
        for f in result.hallucination_flags
        if f.hallucination_type.value == "NonexistentEntity"
    ]


@pytest.mark.parametrize(
    "text",
    [
        "You have a free slot from 11 am to 2 pm.",
        "You have an empty slot starting at 3 pm and ending at 6 pm.",
        "Please confirm your booking for 2 tickets on December 2nd.",
    ],
)
def test_a_free_time_or_the_request_confirmed_is_no_diary_entry(diary, text):
    assert invented(diary, text) == []
