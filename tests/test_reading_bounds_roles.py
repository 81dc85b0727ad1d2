"""Values said in words the KB writes otherwise (issue 11): ages bounded on one side, quarters
of an hour, a charge named by "fee", the plain one of a column and its qualified kin, a role
standing for the person holding it. An art studio, with sentences written for these tests."""

from __future__ import annotations

import pytest
from reading_domain import read  # noqa: I001

from replyguard.engine import Engine
from replyguard.kb import kb_from_document
from replyguard.models import ValueType
from replyguard.values import grade

STUDIO = {
    "entities": [
        {
            "id": "studio",
            "name": "Brightwater Art Studio",
            "type": "Organization",
            "aliases": ["the studio"],
            "attributes": {
                "phone": "01632 960 114",
                "booking_fee": "£2",
                "weekend_booking_fee": "£4",
                "kiln_hire": "£15",
            },
        },
        {
            "id": "tiny",
            "name": "Tiny Painters",
            "type": "Event",
            "attributes": {
                "ages": "0-3",
                "price": "£7",
                "length": "45 minutes",
                "tutor": "Maya Lund",
            },
        },
        {
            "id": "silver",
            "name": "Silver Sketchers",
            "type": "Event",
            "attributes": {"ages": "60+", "price": "£5", "length": "2 hours", "tutor": "Ravi Shah"},
        },
        {
            "id": "maya",
            "name": "Maya Lund",
            "type": "Person",
            "gender": "Feminine",
            "attributes": {"role": "Early Years Tutor"},
        },
        {
            "id": "ravi",
            "name": "Ravi Shah",
            "type": "Person",
            "gender": "Masculine",
            "attributes": {"role": "Programme Lead"},
        },
    ]
}


@pytest.fixture(scope="module")
def studio() -> Engine:
    return Engine(kb_from_document(STUDIO))


def claims(engine: Engine, text: str) -> list[tuple[str, str, str]]:
    return [c[1:] for c in read(engine, text)]


@pytest.mark.parametrize(
    ("said", "kb"),
    [("60 and over", "60+"), ("over 60s", "60+"), ("3 and under", "0-3"), ("under 4s", "0-3")],
)
def test_ages_bounded_on_one_side_are_the_tables_ranges(said, kb):
    assert grade(ValueType.text, said, kb).kind == "Normalised"
    assert grade(ValueType.text, "70 and over", "60+").kind == "Mismatch"


def test_an_age_bound_said_in_words_is_read_and_checked(studio: Engine):
    assert ("ages", "60 and over", "Verified") in claims(
        studio, "Silver Sketchers is for people aged 60 and over."
    )
    assert ("ages", "up to age 3", "Verified") in claims(
        studio, "Tiny Painters is for little ones up to age 3."
    )
    assert ("ages", "50 and over", "Contradicted") in claims(
        studio, "Silver Sketchers is for people aged 50 and over."
    )


def test_quarters_of_an_hour_are_a_duration(studio: Engine):
    assert ("length", "three quarters of an hour", "Verified") in claims(
        studio, "Tiny Painters lasts three quarters of an hour."
    )
    assert ("length", "a quarter of an hour", "Contradicted") in claims(
        studio, "Tiny Painters lasts a quarter of an hour."
    )


def test_the_fee_for_a_thing_is_its_price(studio: Engine):
    assert claims(studio, "The fee for Silver Sketchers is £5.") == [("price", "£5", "Verified")]
    assert claims(studio, "The fee for Tiny Painters is £9.") == [("price", "£9", "Contradicted")]


def test_the_column_whose_every_word_is_said_beats_its_qualified_kin(studio: Engine):
    assert claims(studio, "The booking fee is £2.") == [("booking_fee", "£2", "Verified")]
    assert claims(studio, "The weekend booking fee is £4.") == [
        ("weekend_booking_fee", "£4", "Verified")
    ]


def test_our_column_is_no_invented_part_of_the_organisation(studio: Engine):
    result = studio.postprocess("Our usual booking fee is £2.", "Is there a booking fee?")
    assert not [
        f for f in result.hallucination_flags if f.hallucination_type == "NonexistentEntity"
    ]
    assert result.recommendation.kind == "Accept"


def test_a_role_said_for_a_relation_stands_for_the_person_holding_it(studio: Engine):
    assert claims(studio, "Silver Sketchers is run by our programme lead.") == [
        ("tutor", "Ravi Shah", "Verified")
    ]
    assert claims(studio, "Tiny Painters is run by our programme lead.") == [
        ("tutor", "Ravi Shah", "Contradicted")
    ]
