"""Class 2 of issue 11: a value whose type or known values do not fit an attribute is never that
attribute's value, and one value is claimed by one attribute."""

from __future__ import annotations

import pytest
from reading_domain import read  # noqa: I001

from replyguard.engine import Engine
from replyguard.kb import kb_from_document, kb_from_rows

# A guest house whose phone is written the way its country writes it (no 3-3-4 groups).
HOUSE = [
    {
        "name": "Braeside Guest House",
        "address": "22 Kirk Wynd",
        "phone": "01592 611347",
        "area": "north",
        "price_range": "budget",
    },
    {
        "name": "Harbour View Rooms",
        "address": "9 Shore Street",
        "phone": "01592 774210",
        "area": "east",
        "price_range": "premium",
    },
]


@pytest.fixture(scope="module")
def house() -> Engine:
    return Engine(kb_from_rows(HOUSE, entity_type="Organization"))


def test_a_phone_after_an_address_is_the_phone(house: Engine):
    assert read(
        house, "Braeside Guest House sits at 22 Kirk Wynd and you can ring them on 01592 611347."
    ) == [
        ("Braeside Guest House", "address", "22 Kirk Wynd", "Verified"),
        ("Braeside Guest House", "phone", "01592 611347", "Verified"),
    ]


def test_a_wrong_phone_is_contradicted_as_a_phone(house: Engine):
    claims = read(house, "Harbour View Rooms is at 9 Shore Street, phone 01592 611347.")
    assert claims == [
        ("Harbour View Rooms", "address", "9 Shore Street", "Verified"),
        ("Harbour View Rooms", "phone", "01592 611347", "Contradicted"),
    ]


def test_each_known_value_goes_to_the_attribute_that_lists_it(house: Engine):
    assert read(house, "Braeside Guest House is in the north of town in the budget range.") == [
        ("Braeside Guest House", "area", "north", "Verified"),
        ("Braeside Guest House", "price_range", "budget", "Verified"),
    ]
    assert read(house, "Harbour View Rooms is located in the north, in the budget range.") == [
        ("Harbour View Rooms", "area", "north", "Contradicted"),
        ("Harbour View Rooms", "price_range", "budget", "Contradicted"),
    ]


def test_a_known_value_of_another_attribute_is_not_the_cued_ones(house: Engine):
    # "in the east" follows the address; "east" is an area, not a second address
    assert read(house, "The address of Harbour View Rooms is 9 Shore Street in the east.") == [
        ("Harbour View Rooms", "address", "9 Shore Street", "Verified"),
        ("Harbour View Rooms", "area", "east", "Verified"),
    ]


def test_one_attribute_is_claimed_once_per_sentence():
    kb = {
        "entities": [
            {
                "id": "F1",
                "name": "Loch Forecast",
                "attributes": {"temperature": "48", "rain_chance": "12", "wind": "14"},
            }
        ]
    }
    engine = Engine(kb_from_document(kb))
    # "12 percent" fits the temperature's type, but the sentence gave the temperature already
    assert read(
        engine, "The temperature tomorrow is 48 degrees with a 12 percent risk of showers."
    ) == [("Loch Forecast", "temperature", "48 degrees", "Verified")]
