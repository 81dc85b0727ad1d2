"""Class 3 of issue 11, names found by where they stand and what the KB is about, not by letter
case alone: a known place said where a place is named is no invented entity unless the KB's
entities are themselves places; a title before its maker and a name after a class value are
names. A bakery, a small press, a boatyard, a market."""

from __future__ import annotations

import pytest
from test_names_as_values import check, invented

from replyguard.engine import Engine
from replyguard.kb import kb_from_document

CAKES = {
    "entities": [
        {
            "id": "K1",
            "name": "Lemon Drizzle",
            "type": "Object",
            "attributes": {"price": "£18", "serves": 10},
        },
        {
            "id": "K2",
            "name": "Coffee Walnut",
            "type": "Object",
            "attributes": {"price": "£22", "serves": 12},
        },
    ]
}

TOWNS = {
    "entities": [
        {"id": "T1", "name": "Inverness", "type": "Location", "attributes": {"outlook": "rain"}},
        {"id": "T2", "name": "Aberdeen", "type": "Location", "attributes": {"outlook": "sun"}},
        {"id": "T3", "name": "Dundee", "type": "Location", "attributes": {"outlook": "fog"}},
    ]
}


@pytest.fixture(scope="module")
def bakery() -> Engine:
    return Engine(kb_from_document(CAKES))


@pytest.fixture(scope="module")
def forecast() -> Engine:
    return Engine(kb_from_document(TOWNS))


@pytest.mark.parametrize(
    "text",
    [
        "We can send the Lemon Drizzle to Glasgow by Friday.",
        "Our Coffee Walnut is popular with customers near Edinburgh.",
        "Shall I deliver one Lemon Drizzle in San Diego, CA?",
    ],
)
def test_a_known_place_where_a_place_is_said_is_no_invented_entity(bakery, text):
    assert invented(check(bakery, text)) == []


def test_an_unknown_name_after_a_place_word_is_still_invented(bakery):
    # "Glenmorven Gardens" is no place on the list: a shop the KB lacks
    assert invented(check(bakery, "You can collect it from Glenmorven Gardens.")) == [
        "Glenmorven Gardens"
    ]


def test_a_place_the_kb_lacks_is_invented_when_the_kb_is_about_places(forecast):
    assert invented(check(forecast, "The outlook is rain in Glasgow.")) == ["Glasgow"]
    assert invented(check(forecast, "The outlook is fog in Dundee.")) == []


# A small press's catalogue: books and who wrote them.
BOOKS = {
    "entities": [
        {
            "id": "B1",
            "name": "Salt Roads",
            "type": "Object",
            "attributes": {"author": "Ines Varga", "imprint": "Kestrel Press", "pages": 312},
        },
        {
            "id": "B2",
            "name": "The Quiet Orchard",
            "type": "Object",
            "attributes": {"author": "Tomas Reyes", "imprint": "Kestrel Press", "pages": 208},
        },
    ]
}


@pytest.fixture(scope="module")
def press() -> Engine:
    return Engine(kb_from_document(BOOKS))


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("Have you read Hold Me Close by Ines Varga?", "Hold Me Close"),
        ("You might enjoy Patience by Tomas Reyes.", "Patience"),  # a common word
        ("Try Tuesday by Tomas Reyes, it is short.", "Tuesday"),  # a day, after a verb
        ("Only You by Ines Varga is our best seller.", "Only You"),  # opening the sentence
        ("What about winter bridges by ines varga?", "winter bridges"),  # all lower case
    ],
)
def test_a_title_before_its_author_is_a_name_the_kb_lacks(press, text, title):
    assert invented(check(press, text)) == [title]


@pytest.mark.parametrize(
    "text",
    [
        "Have you read Salt Roads by Ines Varga?",
        "We stock two novels by Tomas Reyes.",
        "There are some books by Ines Varga on the shelf.",
        "a novel by ines varga is in stock.",
        "Books by Tomas Reyes sell well.",
    ],
)
def test_a_kb_title_or_a_plain_noun_before_the_author_is_no_invented_name(press, text):
    assert invented(check(press, text)) == []


def test_a_misspelt_title_before_its_author_is_the_kbs_title(press):
    result = check(press, "Have you read The Quiet Orchrd by Tomas Reyes?")
    assert invented(result) == []
    assert [e.similar_to for e in result.new_entities] == ["The Quiet Orchard"]


# A boatyard's hire fleet: each boat named, of a class.
BOATS = {
    "entities": [
        {
            "id": "H1",
            "name": "Osprey",
            "type": "Object",
            "attributes": {"boat_type": "Cruiser", "berth": "Jetty 2", "day_rate": "£140"},
        },
        {
            "id": "H2",
            "name": "Kittiwake",
            "type": "Object",
            "attributes": {"boat_type": "Dayboat", "berth": "Jetty 5", "day_rate": "£90"},
        },
    ]
}


@pytest.fixture(scope="module")
def boatyard() -> Engine:
    return Engine(kb_from_document(BOATS))


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("We have a Cruiser Heron boat free at Jetty 2.", "Heron"),  # a common word
        ("There is a dayboat, a Puffin, at Jetty 5.", "Puffin"),  # in apposition
        ("I can offer a cruiser like an Albatross for £140.", "Albatross"),
        ("You could take a cruiser bramblewick from Jetty 2.", "bramblewick"),  # no common word
        ("There is a Dayboat KW7 at Jetty 5.", "KW7"),  # a code
    ],
)
def test_a_name_after_a_class_value_is_a_name_the_kb_lacks(boatyard, text, name):
    assert invented(check(boatyard, text)) == [name]


@pytest.mark.parametrize(
    "text",
    [
        "We have a Cruiser Osprey boat free at Jetty 2.",
        "There is a dayboat, the Kittiwake, at Jetty 5.",
        "We have a cruiser boat at Jetty 2 for £140.",
        "The Cruiser costs £140 a day.",
        "There is a Dayboat for hire at Jetty 5.",
    ],
)
def test_a_kb_name_or_a_plain_word_after_a_class_value_is_no_invented_name(boatyard, text):
    assert invented(check(boatyard, text)) == []


def test_a_boat_named_after_its_class_keeps_its_claims(boatyard):
    result = check(boatyard, "We have a Cruiser Osprey boat at Jetty 5.")
    assert any(v.status.kind == "Contradicted" for v in result.factual_validation.claim_validations)


MARKETS = {
    "entities": [
        {
            "id": "M1",
            "name": "North Berwick Fringe Market",
            "type": "Event",
            "attributes": {
                "town": "North Berwick",
                "pitch": "Quality Street",
                "date": "2026-12-05",
            },
        },
        {
            "id": "M2",
            "name": "Haddington Craft Fair",
            "type": "Event",
            "attributes": {"town": "Haddington", "pitch": "Corn Exchange", "date": "2026-12-06"},
        },
    ]
}


def test_a_kb_name_longer_than_the_value_it_opens_is_that_name():
    engine = Engine(kb_from_document(MARKETS))
    result = check(engine, "There is the North Berwick Fringe Market at the Corn Exchange.")
    assert invented(result) == []
    fv = result.factual_validation
    assert [
        (c.subject, c.predicate, v.status.kind)
        for c, v in zip(fv.claims, fv.claim_validations, strict=True)
    ] == [("North Berwick Fringe Market", "pitch", "Contradicted")]


def test_a_temperature_scale_is_no_name_even_after_a_misspelt_unit(forecast):
    assert invented(check(forecast, "Dundee will see 48 degres Fahrenheit and fog.")) == []


def test_a_misspelt_opening_word_before_i_is_no_name(bakery):
    assert invented(check(bakery, "Cna I suggest the Lemon Drizzle?")) == []


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("How does The Lantern Keeper sound to you?", ["The Lantern Keeper"]),
        ("How does The Quiet Orchard sound to you?", []),  # the KB's title
        ("You can read it in The Quiet Orchard.", []),
    ],
)
def test_a_capital_the_inside_a_sentence_begins_a_title(press, text, names):
    assert invented(check(press, text)) == names
