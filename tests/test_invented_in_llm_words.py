"""Invented things in the words LLMs write (issue 11): a thing named by common words must name a
KB thing as a whole, not by one word of some name; what the organisation hosts or shows, and
the common words a sentence opens on, are checked like "our X"; people said in lower case or by
a role no one holds are invented; the words of the KB's own columns are no names. A pottery
studio with classes, a kiln service and two staff."""

from __future__ import annotations

from datetime import datetime

import pytest

from replyguard.engine import Engine
from replyguard.kb import kb_from_document
from replyguard.models import HallucinationType, ValueType
from replyguard.values import infer_value_type

REFERENCE = datetime(2026, 11, 30, 9, 0)

STUDIO = {
    "entities": [
        {
            "id": "studio",
            "name": "Kilnhouse Pottery Studio",
            "type": "Organization",
            "aliases": ["Kilnhouse"],
            "attributes": {
                "address": "7 Slip Lane, Brackwell",
                "phone": "01700 552 010",
                "tuesday_open": "10:00 am",
                "tuesday_close": "9:00 pm",
                "saturday_open": "9:00 am",
                "saturday_close": "5:00 pm",
                "parking": True,
            },
        },
        {
            "id": "ines",
            "name": "Ines Moreau",
            "type": "Person",
            "attributes": {"role": "Studio Manager"},
        },
        {
            "id": "rafe",
            "name": "Rafe Tallis",
            "type": "Person",
            "attributes": {"role": "Pottery Tutor"},
        },
        {
            "id": "taster",
            "name": "Wheel Throwing Taster",
            "type": "Event",
            "attributes": {"day": "Saturday", "starts": "10:00 am", "price": "£35"},
        },
        {
            "id": "course",
            "name": "Hand Building Course",
            "type": "Event",
            "attributes": {
                "day": "Thursday",
                "starts": "6:30 pm",
                "price": "£120",
                "led_by": "Rafe Tallis",
                "clay": "stoneware",
            },
        },
        {
            "id": "kiln",
            "name": "Kiln Firing",
            "type": "Object",
            "attributes": {"bisque_price": "£4", "glaze_price": "£6"},
        },
    ]
}


@pytest.fixture(scope="module")
def studio() -> Engine:
    return Engine(kb_from_document(STUDIO))


def invented(
    engine: Engine,
    text: str,
    dialogue: list[dict[str, str]] | None = None,
    kind: HallucinationType = HallucinationType.NonexistentEntity,
) -> list[str]:
    """What the reply says that the engine flags as `kind` (an invented thing by default)."""
    result = engine.postprocess(text, "", dialogue or [], reference_time=REFERENCE)
    return [f.content for f in result.hallucination_flags if f.hallucination_type == kind]


# ------------------------------------------------------------ a phrase names a thing as a whole


def test_a_word_of_a_kb_name_does_not_make_the_phrase_known(studio):
    # "pottery" is a word of Kilnhouse Pottery Studio; no tour is listed
    assert "pottery tour" in invented(studio, "We offer a pottery tour on Sundays at 2pm for £10.")


@pytest.mark.parametrize(
    "text",
    [
        # the distinctive words of the Wheel Throwing Taster, its kind in another word
        "Our wheel throwing session on Saturdays at 10am costs £35.",
        # the words of a KB value, the role Pottery Tutor
        "Rafe is one of our pottery tutors, so the course with him is £120.",
    ],
)
def test_a_kb_thing_named_in_other_words_as_a_whole_is_known(studio, text):
    assert invented(studio, text) == []


# ------------------------------------------------------------ what the organisation hosts


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Every Tuesday we host a glaze night at 7pm, and it's free.", "glaze night"),
        ("We're showing a ceramics film on 12 December at 6pm.", "ceramics film"),
    ],
)
def test_a_thing_the_organisation_hosts_or_shows_must_be_listed(studio, text, name):
    assert name in invented(studio, text)


# ------------------------------------------------------------ a sentence opening on common words


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Pottery parties run on Sunday afternoons at 1pm and cost £60.", "Pottery parties"),
        ("The loyalty card costs £5 a year.", "loyalty card"),
    ],
)
def test_common_words_opening_a_sentence_that_offers_are_checked(studio, text, name):
    assert name in invented(studio, text)


def test_common_words_whose_values_are_one_kb_things_describe_it(studio):
    # Thursday, 6:30pm and £120 are all the Hand Building Course's
    text = "The evening course meets on Thursdays at 6:30pm and costs £120."
    assert invented(studio, text) == []


def test_one_common_word_opening_a_sentence_is_no_new_thing(studio):
    assert invented(studio, "The class starts at 6:30pm on Thursdays.") == []


# ------------------------------------------------------------ people


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("just ask for olwen at the front desk and she'll sort it out.", "olwen"),
        ("rafe tallis teaches it alongside petra okonjo.", "petra okonjo"),
        ("Our studio technician will load the kiln for you.", "studio technician"),
        ("Our pottery tutor olwen will show you the wheel.", "olwen"),
        # a lower-case name in apposition before "our" + a role
        ("Glazes are mixed every Friday by bryony, our technician.", "bryony"),
        ("Tea and cake on course days are made by our cook.", "cook"),
    ],
)
def test_a_person_the_kb_lacks_is_invented_even_in_lower_case(studio, text, name):
    assert name in invented(studio, text)


@pytest.mark.parametrize(
    "text",
    [
        "Just ask for help at the front desk.",
        "Please speak to our studio manager about group bookings.",
        "Our pottery tutor, Rafe Tallis, leads the hand building course.",
        "Our studio manager Ines Moreau can book you in.",
        "rafe tallis teaches it alongside ines moreau.",
    ],
)
def test_people_the_kb_holds_and_common_words_are_no_invented_people(studio, text):
    assert invented(studio, text) == []


# ------------------------------------------------------------ the words of the KB's columns


def test_a_word_of_a_kb_column_opening_a_sentence_is_no_name(studio):
    assert invented(studio, "Bisque firing is £4 and glaze firing is £6.") == []


def test_a_length_in_two_units_is_a_duration():
    assert infer_value_type("3 hours 15 minutes") == ValueType.duration
    assert infer_value_type("1 hour and 40 minutes") == ValueType.duration
    assert infer_value_type("3 hours 15") is None


# ------------------------------------------------------------ words of a booking, the user's things


def test_what_a_booking_or_payment_has_is_no_event(studio):
    assert invented(studio, "Your refund of £35 was sent on Tuesday.") == []


def test_a_name_of_the_users_words_before_a_common_word_is_what_they_asked_for(studio):
    dialogue = [{"speaker": "user", "text": "Could you play some music on the kitchen speaker?"}]
    assert invented(studio, "Playing it now on the Kitchen Radio.", dialogue) == []
    assert invented(studio, "Playing it now on the Harbour Radio.", dialogue) == ["Harbour Radio"]
    # "the" is no word of what they asked for
    assert invented(studio, "How does The Visitor sound to you?", dialogue) == ["The Visitor"]
    # "gallery" was the thing asked for, not a word about it: "Bright" is a new name
    asked = [{"speaker": "user", "text": "Please find me the nearest gallery."}]
    assert invented(studio, "The nearest one is the Gallery Bright.", asked) == ["Gallery Bright"]


# ------------------------------------------------------------ guidance names the real ones


def guidance(engine: Engine, text: str) -> str:
    result = engine.postprocess(text, "", [], reference_time=REFERENCE)
    assert result.recommendation.kind.value == "Regenerate"
    return result.recommendation.guidance or ""


def test_guidance_for_an_invented_person_names_the_kb_people(studio):
    said = guidance(studio, "just ask for olwen at the front desk and she'll sort it out.")
    assert "Ines Moreau" in said and "Rafe Tallis" in said


def test_guidance_for_an_invented_thing_names_the_things_holding_what_it_was_said_to_hold(studio):
    said = guidance(studio, "We offer a pottery tour on Sundays at 2pm for £10.")
    # a day, a time and a price: the classes; not the kiln firing, which has only prices
    assert "Wheel Throwing Taster" in said and "Hand Building Course" in said
    assert "Kiln Firing" not in said


# ------------------------------------------------------------ price bands


def test_a_price_band_the_entity_lacks_is_invented(studio):
    text = "For the kiln firing, earthenware places are £9 a shelf."
    assert "earthenware places" in invented(studio, text)


@pytest.mark.parametrize(
    "text",
    [
        "For the kiln firing, glaze places are £6 a shelf.",  # a band of glaze_price
        "For the kiln firing, cheaper places are £4 a shelf.",  # a comparison, not a band
        "For the kiln firing, shelf places are £4.",  # the bisque price, in other words
    ],
)
def test_a_band_of_the_entity_or_another_word_for_one_is_not_invented(studio, text):
    assert invented(studio, text) == []


# ------------------------------------------------------------ a value word describing a noun


def fabricated(engine: Engine, text: str) -> list[str]:
    return invented(engine, text, kind=HallucinationType.FabricatedFact)


def test_a_kb_value_word_before_a_noun_describes_it_and_claims_nothing(studio):
    # "stoneware" is the course's clay; the taster has none, and "stoneware mugs" says no clay
    assert fabricated(studio, "At the wheel throwing taster you make stoneware mugs.") == []
    assert fabricated(studio, "The wheel throwing taster uses stoneware.") != []
