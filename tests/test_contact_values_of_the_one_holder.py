"""Issue 11, classes 1 and 5: a phone number, email or web address said with no subject that
holds one ("you can ring the boathouse on ...", "for the pedalo please call ...") is the one
the KB's only holder of such values has, read against the column the sentence's words name.

A boat hire of our own; the verdicts were written before the code was run.
"""

from __future__ import annotations

from datetime import datetime

import pytest
from conftest import verdicts

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase

REFERENCE = datetime(2026, 12, 2, 12, 0)
KB = {
    "entities": [
        {
            "id": "boats",
            "name": "Lakeside Boats",
            "type": "Organization",
            "attributes": {
                "phone": "01539 555 010",
                "out_of_hours_phone": "07700 900 123",
                "email": "ahoy@lakeside-boats.example",
            },
        },
        {
            "id": "pedalo",
            "name": "Swan Pedalo",
            "type": "Object",
            "attributes": {"hourly_price": "£18", "seats": 4},
        },
        {
            "id": "rowing",
            "name": "Rowing Boat",
            "type": "Object",
            "attributes": {"hourly_price": "£14", "seats": 3},
        },
    ]
}


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(KnowledgeBase.model_validate(KB))


def _check(engine: Engine, reply: str):  # noqa: ANN202
    return engine.postprocess(reply, "How do I book a boat?", reference_time=REFERENCE)


@pytest.mark.parametrize(
    ("reply", "claims"),
    [
        ("You can ring the boathouse on 01539 555 010.", {"phone=01539 555 010": "Verified"}),
        (
            "Out of hours, please call 07700 900 123.",
            {"out_of_hours_phone=07700 900 123": "Verified"},
        ),
        (
            "For the Swan Pedalo please call 01539 555 010.",
            {"phone=01539 555 010": "Verified"},
        ),
        (
            "Just email ahoy@lakeside-boats.example to book.",
            {"email=ahoy@lakeside-boats.example": "Verified"},
        ),
    ],
)
def test_a_contact_value_is_the_one_holders(engine: Engine, reply: str, claims: dict) -> None:
    result = _check(engine, reply)
    assert verdicts(result) == claims
    assert result.recommendation.kind == "Accept"


def test_a_wrong_number_is_corrected(engine: Engine) -> None:
    result = _check(engine, "You can ring the boathouse on 01539 555 011.")
    assert verdicts(result) == {"phone=01539 555 011": "Contradicted"}
    assert result.recommendation.kind == "CorrectAndDeliver"
    assert result.recommendation.deliver == "You can ring the boathouse on 01539 555 010."


def test_a_number_no_column_is_named_for_is_the_main_lines(engine: Engine) -> None:
    # of two numbers the holder has, with no qualifier said ("out of hours"), the plain one
    result = _check(engine, "Please call 07700 900 124.")
    assert verdicts(result) == {"phone=07700 900 124": "Contradicted"}
    assert result.recommendation.deliver == "Please call 01539 555 010."


@pytest.mark.parametrize("number", ["017687 555 210", "015394 55010", "01539 555 010"])
def test_a_national_number_with_a_long_area_code_is_a_phone(number: str) -> None:
    from replyguard.models import ValueType
    from replyguard.values import infer_value_type

    assert infer_value_type(number) == ValueType.phone
