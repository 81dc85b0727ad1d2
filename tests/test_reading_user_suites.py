"""Reading classes found in the user-domain suites (issue 11), each tested in a domain of its
own: a children's nursery, with sentences written for these tests."""

from __future__ import annotations

from datetime import datetime

import pytest
from reading_domain import REFERENCE, read  # noqa: I001

from replyguard.engine import Engine
from replyguard.kb import kb_from_document
from replyguard.text.temporal import find_temporal
from replyguard.values import duration_key, infer_value_type, money_key

NOW = datetime(2026, 11, 30, 9, 0)

NURSERY = {
    "entities": [
        {
            "id": "acorns",
            "name": "Little Acorns Nursery",
            "type": "Organization",
            "aliases": ["Little Acorns", "the nursery"],
            "attributes": {
                "address": "9 Orchard Wynd, Kelso",
                "phone": "01573 224 680",
                "postcode": "TD5 7BQ",
                "drop_off": "8:00 am",
                "pick_up": "5:30 pm",
                "lunch_hours": "11:45 am - 12:45 pm",
                "open_days": ["Monday", "Tuesday", "Wednesday", "Thursday"],
                "meals_included": True,
            },
        },
        {
            "id": "fullday",
            "name": "Full Day",
            "type": "Object",
            "attributes": {"price": "£58", "session_hours": "8:00 am - 5:30 pm"},
        },
        {
            "id": "forest",
            "name": "Forest School",
            "type": "Object",
            "attributes": {"price": "£6 per hour", "runs_on": ["Tuesday", "Thursday"]},
        },
        {
            "id": "bus",
            "name": "Nursery Minibus",
            "type": "Object",
            "attributes": {"price": "free", "departs": "7:45 am"},
        },
        {
            "id": "fiona",
            "name": "Fiona Baird",
            "type": "Person",
            "gender": "Feminine",
            "attributes": {"role": "Nursery Manager"},
        },
    ]
}


@pytest.fixture(scope="module")
def nursery() -> Engine:
    return Engine(kb_from_document(NURSERY))


def claims(engine: Engine, text: str) -> list[tuple[str, str, str]]:
    return [c[1:] for c in read(engine, text)]


def delivered(engine: Engine, text: str, query: str = "") -> str | None:
    return engine.postprocess(text, query, [], reference_time=REFERENCE).recommendation.deliver


# ------------------------------------------------------------------ prices per unit, "free"


def test_a_price_per_unit_is_money_compared_by_its_amount():
    assert infer_value_type("£6 per hour") is infer_value_type("$12/night") is not None
    assert money_key("£6 per hour") == money_key("£6") != money_key("£7 a week")
    assert money_key("free") == money_key("£0") == money_key("$0.00")
    assert money_key("€1,250") == "EUR:1250.00"


def test_a_price_column_with_rates_and_free_is_read_as_prices(nursery: Engine):
    assert claims(nursery, "Forest School costs £6 an hour.") == [("price", "£6", "Verified")]
    assert claims(nursery, "Forest School is £9 an hour.") == [("price", "£9", "Contradicted")]
    assert claims(nursery, "The Nursery Minibus is free.") == [("price", "free", "Verified")]
    assert claims(nursery, "The Nursery Minibus costs £2.") == [("price", "£2", "Contradicted")]


def test_a_rate_is_corrected_to_its_amount_the_way_the_reply_says_it(nursery: Engine):
    assert (
        delivered(nursery, "Forest School costs £9 an hour.") == "Forest School costs £6 an hour."
    )


def test_a_comma_after_an_amount_is_not_part_of_it(nursery: Engine):
    assert claims(nursery, "The Full Day is £58, lunch included.") == [("price", "£58", "Verified")]
    assert (
        delivered(nursery, "The Full Day is £61, with lunch.") == "The Full Day is £58, with lunch."
    )


# ------------------------------------------------------------------ "X at Y is ...": Y owns X


def test_an_attribute_named_before_its_owner_and_a_preposition(nursery: Engine):
    assert claims(nursery, "Drop-off at Little Acorns is from 8am.") == [
        ("drop_off", "8am", "Verified")
    ]
    assert claims(nursery, "Pick-up at the nursery is 6pm.") == [("pick_up", "6pm", "Contradicted")]
    assert claims(nursery, "The price for the Full Day is £58.") == [("price", "£58", "Verified")]


# ------------------------------------------------------------------ "closed on": not open


def test_a_closed_day_against_the_days_open(nursery: Engine):
    assert claims(nursery, "The nursery is closed on Fridays.") == [
        ("open_days", "Fridays", "Verified")
    ]
    assert claims(nursery, "Little Acorns is shut on Wednesdays.") == [
        ("open_days", "Wednesdays", "Contradicted")
    ]
    assert claims(nursery, "The nursery is not closed on Mondays.") == [
        ("open_days", "Mondays", "Verified")
    ]


def test_other_days_in_the_next_clause_add_nothing_to_the_day_said(nursery: Engine):
    assert claims(nursery, "Little Acorns is closed on Fridays, but open every other day.") == [
        ("open_days", "Fridays", "Verified")
    ]
    # an additive word in the value's own clause still marks one more of several
    assert claims(nursery, "Little Acorns is open on Mondays and also on Sundays.") == [
        ("open_days", "Mondays", "Verified"),
        ("open_days", "Sundays", "Unverifiable"),
    ]


# ------------------------------------------------------------------ "out of", a longer name

GARDEN = {
    "entities": [
        {
            "id": "photinia",
            "name": "Red Robin Photinia",
            "type": "Object",
            "attributes": {"in_season": False, "back_in_season": "2027-03-01", "price": "£24"},
        },
        {
            "id": "heather",
            "name": "Winter Heather",
            "type": "Object",
            "attributes": {"in_season": True, "price": "£6"},
        },
    ]
}


@pytest.fixture(scope="module")
def garden() -> Engine:
    return Engine(kb_from_document(GARDEN))


def test_out_of_denies_a_yes_no_attribute(garden: Engine):
    assert claims(garden, "Sadly the Red Robin Photinia is out of season.") == [
        ("in_season", "False", "Verified")
    ]
    assert claims(garden, "Winter Heather is out of season right now.") == [
        ("in_season", "False", "Contradicted")
    ]


def test_a_yes_no_name_inside_a_longer_attributes_name_is_not_said(garden: Engine):
    assert claims(garden, "The Red Robin Photinia will be back in season on 1 March.") == [
        ("back_in_season", "1 March", "Verified")
    ]
    assert delivered(garden, "The Red Robin Photinia will be back in season on 11 March.") == (
        "The Red Robin Photinia will be back in season on 1 March."
    )


def test_a_part_of_the_day_is_no_unread_value(nursery: Engine):
    result = nursery.postprocess(
        "The nursery is closed on Fridays but open every other morning.",
        "",
        [],
        reference_time=REFERENCE,
    )
    assert result.unread_values == []


# ------------------------------------------------------------------ ranges of times


def test_times_of_a_range_whose_am_or_pm_is_said_once():
    said = {m.text: m.value for m in find_temporal("Lunch runs from 11.45 until 12.45 pm.", NOW)}
    assert said == {"11.45": "11:45", "12.45 pm": "12:45"}
    said = {m.text: m.value for m in find_temporal("It is open 6 - 9.30pm.", NOW)}
    assert said == {"6": "18:00", "9.30pm": "21:30"}
    # a first end written as a clock time without am or pm takes it from the second end too
    said = {m.text: m.value for m in find_temporal("Lane swim is from 6:30 to 9am.", NOW)}
    assert said == {"6:30": "06:30", "9am": "09:00"}
    said = {m.text: m.value for m in find_temporal("Swim club is from 6:30 to 8pm.", NOW)}
    assert said == {"6:30": "18:30", "8pm": "20:00"}


def test_a_range_of_bare_hours_where_hours_are_meant():
    said = [(m.text, m.value) for m in find_temporal("We are open 8 to 4 on Thursdays.", NOW)]
    assert said[:2] == [("8", "08:00"), ("4", "16:00")]
    assert find_temporal("Delivery takes from 3 to 5 working days.", NOW) == []
    assert find_temporal("The room sleeps 2 to 4.", NOW) == []


def test_twelve_noon_is_one_time():
    assert [(m.text, m.value) for m in find_temporal("Pick-up is at 12 noon.", NOW)] == [
        ("12 noon", "12:00")
    ]


def test_a_range_is_read_end_by_end_and_corrected_in_its_own_style(nursery: Engine):
    assert claims(nursery, "Lunch is served from 11.45 until 12.45 pm.") == [
        ("lunch_hours_start", "11.45", "Verified"),
        ("lunch_hours_end", "12.45 pm", "Verified"),
    ]
    assert delivered(nursery, "Lunch is served from 11.15 until 12.45 pm.") == (
        "Lunch is served from 11.45 until 12.45 pm."
    )
    assert delivered(nursery, "Pick-up at the nursery is at 12 noon.") == (
        "Pick-up at the nursery is at 5:30pm."
    )


def test_a_name_that_starts_with_a_time_word_is_the_name():
    engine = Engine(
        kb_from_document(
            {
                "entities": [
                    {
                        "id": "yoga",
                        "name": "Evening Yoga",
                        "type": "Event",
                        "attributes": {"class_hours": "6:30 pm - 7:45 pm", "fee": "£9"},
                    },
                    {
                        "id": "swim",
                        "name": "Morning Swim",
                        "type": "Event",
                        "attributes": {"fee": "£4"},
                    },
                ]
            }
        )
    )
    assert claims(engine, "Evening Yoga runs from 6.30 until 8 pm and costs £9.") == [
        ("class_hours_start", "6.30", "Verified"),
        ("class_hours_end", "8 pm", "Contradicted"),
        ("fee", "£9", "Verified"),
    ]


# ------------------------------------------------------------------ numbers in a KB value


def test_an_address_with_other_numbers_is_that_address_contradicted(nursery: Engine):
    assert claims(nursery, "Little Acorns is at 11 Orchard Wynd, Kelso.") == [
        ("address", "11 Orchard Wynd, Kelso", "Contradicted")
    ]
    assert claims(nursery, "Little Acorns is at 9 Orchard Wynd, Kelso.") == [
        ("address", "9 Orchard Wynd, Kelso", "Verified")
    ]
    # only the part of the address said is corrected
    assert delivered(nursery, "The nursery is at 19 Orchard Wynd.") == (
        "The nursery is at 9 Orchard Wynd."
    )


# ------------------------------------------------------------------ verbs of a timetable

COACHES = {
    "entities": [
        {
            "id": "ops",
            "name": "Borders Coaches",
            "type": "Organization",
            "attributes": {
                "boarding_closes": "10 minutes before departure",
                "phone": "01896 300 400",
            },
        },
        {"id": "mel", "name": "Melrose", "type": "Location", "attributes": {}},
        {"id": "gal", "name": "Galashiels", "type": "Location", "attributes": {}},
        {
            "id": "x62",
            "name": "X62",
            "type": "Event",
            "attributes": {
                "origin": "Melrose",
                "destination": "Galashiels",
                "departs": "06:50",
                "arrives": "07:25",
            },
        },  # fmt: skip
    ]
}


@pytest.fixture(scope="module")
def coaches() -> Engine:
    return Engine(kb_from_document(COACHES))


def test_a_hyphenated_word_names_an_attribute_written_as_one_word(coaches: Engine):
    assert claims(coaches, "Boarding closes 10 minutes before departure.") == [
        ("boarding_closes", "10 minutes before departure", "Verified")
    ]
    assert claims(coaches, "Board-ing closes 15 minutes before departure.") == [
        ("boarding_closes", "15 minutes before departure", "Contradicted")
    ]


def test_verbs_that_mean_an_attributes_word_and_a_place_between_verb_and_time(coaches: Engine):
    said = claims(coaches, "The X62 leaves Melrose at 6:50 am and gets to Galashiels at 7:40.")
    assert [c for c in said if c[0] in ("departs", "arrives")] == [
        ("departs", "6:50 am", "Verified"),
        ("arrives", "7:40", "Contradicted"),
    ]
    said = claims(coaches, "X62 sets off from Melrose at 06:50.")
    assert ("departs", "06:50", "Verified") in said


# ------------------------------------------------------------------ codes, ranges of numbers

DEPOT = {
    "entities": [
        {
            "id": "depot",
            "name": "Tweed Buses",
            "type": "Organization",
            "attributes": {
                "hand_luggage_limit": "8 kg",
                "hold_luggage_fee": "£5",
                "refund_time": "5-7 working days",
            },
        },  # fmt: skip
        {"id": "s1", "name": "Melrose Square", "type": "Location", "attributes": {"code": "MSQ"}},
        {"id": "s2", "name": "Kelso Abbey", "type": "Location", "attributes": {"code": "KAB"}},
        {"id": "b45", "name": "B45", "type": "Event", "attributes": {"departs": "08:10"}},
        {"id": "b47", "name": "B47", "type": "Event", "attributes": {"departs": "09:40"}},
    ]
}


@pytest.fixture(scope="module")
def depot() -> Engine:
    return Engine(kb_from_document(DEPOT))


def test_a_code_after_its_cue_is_a_value_never_a_near_spelling(depot: Engine):
    assert claims(depot, "The stop code for Kelso Abbey is KAB.") == [("code", "KAB", "Verified")]
    assert claims(depot, "Melrose Square has the code MSO.") == [("code", "MSO", "Contradicted")]


def test_a_code_shaped_name_the_kb_lacks_is_a_new_name(depot: Engine):
    result = depot.postprocess("The B49 departs at 08:10.", "", [], reference_time=REFERENCE)
    kinds = {str(f.hallucination_type) for f in result.hallucination_flags}
    assert "NonexistentEntity" in kinds
    assert claims(depot, "The B47 departs at 09:40.") == [("departs", "09:40", "Verified")]


def test_a_range_of_numbers_said_with_to_is_the_kbs_range(depot: Engine):
    assert claims(depot, "Refunds take 5 to 7 working days.") == [
        ("refund_time", "5 to 7 working days", "Verified")
    ]
    assert claims(depot, "Refunds take 3 to 4 working days.") == [
        ("refund_time", "3 to 4 working days", "Contradicted")
    ]


def test_the_leading_words_of_a_long_attribute_name_name_it(depot: Engine):
    assert claims(depot, "You may bring a 12 kg hand luggage bag.") == [
        ("hand_luggage_limit", "12 kg", "Contradicted")
    ]
    assert claims(depot, "Hold luggage costs £5.") == [("hold_luggage_fee", "£5", "Verified")]


def test_a_wrong_value_in_a_list_is_corrected_to_one_the_reply_left_out():
    engine = Engine(
        kb_from_document(
            {
                "entities": [
                    {
                        "id": "tulips",
                        "name": "Darwin Tulips",
                        "type": "Object",
                        "attributes": {"colours": ["red", "yellow", "purple"]},
                    },
                    {
                        "id": "pansies",
                        "name": "Winter Pansies",
                        "type": "Object",
                        "attributes": {"colours": ["blue", "orange"]},
                    },
                ]
            }
        )
    )
    assert delivered(engine, "Darwin Tulips come in red, orange and blue.") == (
        "Darwin Tulips come in red, yellow and purple."
    )


# ------------------------------------------------------------------ formats of values

STUDIO = {
    "entities": [
        {
            "id": "studio",
            "name": "Kiln Room Pottery",
            "type": "Organization",
            "attributes": {
                "address": "Unit 7C, Teviot Business Park, Mill Road, Hawick TD9 8LQ",
                "phone": "(312) 555-0147",
                "class_length": "2.5 hours",
                "firing_time": "75 minutes",
            },
        }
    ]
}


@pytest.fixture(scope="module")
def studio() -> Engine:
    return Engine(kb_from_document(STUDIO))


def test_a_long_address_is_a_value_the_reply_may_say_whole(studio: Engine):
    said = "Kiln Room Pottery is at Unit 7C, Teviot Business Park, Mill Road, Hawick TD9 8LQ."
    assert claims(studio, said) == [
        ("address", "Unit 7C, Teviot Business Park, Mill Road, Hawick TD9 8LQ", "Verified")
    ]


def test_a_local_phone_number_without_its_area_code(studio: Engine):
    assert claims(studio, "You can ring Kiln Room Pottery on 555-0147.") == [
        ("phone", "555-0147", "Verified")
    ]
    assert claims(studio, "You can ring Kiln Room Pottery on 555-0174.") == [
        ("phone", "555-0174", "Contradicted")
    ]


def test_durations_in_words_with_a_fraction(studio: Engine):
    assert claims(studio, "A class at Kiln Room Pottery lasts two and a half hours.") == [
        ("class_length", "two and a half hours", "Verified")
    ]
    assert duration_key("an hour and a quarter") == duration_key("75 minutes")
    assert duration_key("three and a half hours") != duration_key("2.5 hours")


# ------------------------------------------------------------------ "our X": a part of us


def test_a_part_of_the_organisation_the_kb_lacks_is_invented(nursery: Engine):
    def invented(text: str, query: str = "") -> list[str]:
        result = nursery.postprocess(text, query, [], reference_time=REFERENCE)
        return [
            f.content
            for f in result.hallucination_flags
            if str(f.hallucination_type) == "NonexistentEntity"
        ]

    asked = "Do you have a sensory room?"
    assert invented("Yes, our sensory room is open from 9 am to 3 pm.", asked) == ["sensory room"]
    # parts the KB names by an entity or an attribute are no invention
    assert invented("Our lunch is served from 11.45 until 12.45 pm.") == []
    assert invented("Our forest school costs £6 an hour.") == []


def test_a_cell_of_days_then_hours_is_read_as_the_days_and_the_two_ends():
    engine = Engine(
        kb_from_document(
            {
                "entities": [
                    {
                        "id": "surgery",
                        "name": "Eildon Vets",
                        "type": "Organization",
                        "attributes": {"clinic_hours": "Tuesday and Thursday, 2:00 pm - 6:00 pm"},
                    }
                ]
            }
        )
    )
    assert {a for e in engine.kb.entities for a in e.attributes} == {
        "clinic_hours",
        "clinic_hours_start",
        "clinic_hours_end",
    }
    assert claims(engine, "Eildon Vets holds clinics from 2pm until 7pm.") == [
        ("clinic_hours_start", "2pm", "Verified"),
        ("clinic_hours_end", "7pm", "Contradicted"),
    ]


def test_our_names_an_entity_the_kb_calls_the_and_one_end_said_inside_the_range():
    engine = Engine(
        kb_from_document(
            {
                "entities": [
                    {
                        "id": "cafe",
                        "name": "Abbey Tearoom",
                        "type": "Organization",
                        "aliases": ["the tearoom"],
                        "attributes": {"serving_hours": "10:00 am - 4:30 pm"},
                    }
                ]
            }
        )
    )
    assert claims(engine, "Our tearoom opens at 11am.") == [
        ("serving_hours_start", "11am", "Contradicted")
    ]
    assert claims(engine, "The tearoom is open until 3pm.") == [
        ("serving_hours_end", "3pm", "Contradicted")
    ]
    assert claims(engine, "The tearoom closes at 4:30pm.") == [
        ("serving_hours_end", "4:30pm", "Verified")
    ]
