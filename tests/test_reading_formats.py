"""Class 11 of issue 11: one value in several formats is one value; digits are never fuzzy."""

from __future__ import annotations

import pytest
from reading_domain import domain, read  # noqa: F401 - the fixture

from replyguard.engine import Engine
from replyguard.kb import kb_from_document
from replyguard.models import ValueType
from replyguard.values import grade


@pytest.mark.parametrize(
    ("value_type", "claimed", "kb", "kind"),
    [
        (ValueType.text, "KY169AB", "K.Y 1, 69 A.B", "Normalised"),  # a code without separators
        (ValueType.text, "ky169ab", "KY16 9AB", "Normalised"),
        (ValueType.text, "21 - 23 Shore Road", "21-23 Shore Road", "Normalised"),
        (ValueType.text, "2123 Shore Road", "21-23 Shore Road", "Mismatch"),
        (ValueType.text, "12 Harbour Walk", "17 Harbour Walk", "Mismatch"),  # not "Fuzzy"
        (ValueType.text, "KY16 9AC", "KY16 9AB", "Mismatch"),
        (ValueType.phone, "+44 1334 460 112", "01334 460 112", "Normalised"),
        (ValueType.phone, "01334460112", "01334 460 112", "Normalised"),
        (ValueType.phone, "01334 460 113", "01334 460 112", "Mismatch"),
        (ValueType.duration, "two hours and a half", "150 minutes", "Normalised"),
        (ValueType.duration, "half an hour", "0.5 hours", "Normalised"),
        (ValueType.duration, "forty minutes", "45 minutes", "Mismatch"),
    ],
)
def test_formats_of_one_value(value_type, claimed, kb, kind):
    assert grade(value_type, claimed, kb).kind == kind


def test_formats_in_replies(domain: Engine):  # noqa: F811
    assert read(domain, "Marrow and Vine's postcode is eh39qn.") == [
        ("Marrow and Vine", "postcode", "eh39qn", "Verified")
    ]
    assert read(domain, "Marrow and Vine is at 3 - 5 Tollcross Row.") == [
        ("Marrow and Vine", "address", "3 - 5 Tollcross Row", "Verified")
    ]
    assert read(domain, "The Harbour Shuttle journey takes ninety minutes.") == [
        ("Harbour Shuttle", "journey_time", "ninety minutes", "Verified")
    ]


def test_a_vague_amount_is_no_value(domain: Engine):  # noqa: F811
    assert read(domain, "The Harbour Shuttle fare is a few dollars.") == []


@pytest.mark.parametrize(
    ("claimed", "kind"),
    [("9 March", "Compatible"), ("March 9th", "Compatible"), ("10 March", "Mismatch")],
)
def test_a_date_without_its_year(claimed, kind):
    assert grade(ValueType.date, claimed, "2027-03-09").kind == kind


def test_an_amount_is_no_count():
    kb = {
        "entities": [{"id": "K1", "name": "Kayak Tour", "attributes": {"price": "$45", "seats": 6}}]
    }
    engine = Engine(kb_from_document(kb))
    assert read(engine, "The Kayak Tour is $60 per person and has 6 seats.") == [
        ("Kayak Tour", "price", "$60", "Contradicted"),
        ("Kayak Tour", "seats", "6 seats", "Verified"),  # the count with the noun it counts
    ]


@pytest.mark.parametrize(
    ("claimed", "kb", "kind"),
    [
        ("48 degrees", "48", "Compatible"),
        ("12 percent", "12", "Compatible"),
        ("49 degrees", "48", "Mismatch"),
    ],
)
def test_a_unit_the_kb_leaves_out(claimed, kb, kind):
    assert grade(ValueType.number, claimed, kb).kind == kind
