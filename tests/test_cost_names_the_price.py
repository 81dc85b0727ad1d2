"""Issue 11: "cost" names the price (`cue-word-synonym` in metta/lexicon.metta): of a boat's two
money columns, "The Kingfisher will cost you £45" is its hire price, not its deposit. A boat
hire of my own; verdicts written before the run."""

from __future__ import annotations

from datetime import datetime

import pytest

from replyguard.engine import Engine
from replyguard.kb import kb_from_document
from replyguard.models import Turn

REFERENCE = datetime(2026, 12, 3, 10, 0)

BOATS = {
    "entities": [
        {
            "id": "B1",
            "name": "Kingfisher",
            "type": "Object",
            "attributes": {"seats": "4", "hire_price": "£60", "deposit": "£20"},
        },
        {
            "id": "B2",
            "name": "Heron",
            "type": "Object",
            "attributes": {"seats": "6", "hire_price": "£85", "deposit": "£30"},
        },
    ]
}
BEFORE = [
    Turn(id="T1", speaker="user", text="I'd like a boat for four on Saturday."),
    Turn(id="T2", speaker="assistant", text="The Kingfisher seats 4. Shall I book it?"),
    Turn(id="T3", speaker="user", text="How much is the hire?"),
]


@pytest.fixture(scope="module")
def hire() -> Engine:
    return Engine(kb_from_document(BOATS))


def statuses(result) -> set[tuple[str, str, str]]:
    fv = result.factual_validation
    return {
        (c.subject, c.predicate, v.status.kind)
        for c, v in zip(fv.claims, fv.claim_validations, strict=True)
    }


@pytest.mark.parametrize(
    ("reply", "status"),
    [
        ("The Kingfisher would cost you £60 for the day.", "Verified"),
        ("The Kingfisher will cost you £45.", "Contradicted"),
        ("Hiring the Kingfisher costs you £45.", "Contradicted"),
    ],
)
def test_a_value_after_you_is_the_subjects(hire, reply, status):
    result = hire.postprocess(reply, BEFORE[-1].text, BEFORE, reference_time=REFERENCE)
    assert ("Kingfisher", "hire_price", status) in statuses(result)


# a cinema of my own: "child" in the ticket's own name is no qualifier naming child_price, a
# column only the film club holds (issue 11: never an attribute the entity lacks when one fits)
CINEMA = {
    "entities": [
        {"id": "C1", "name": "Child Ticket", "type": "Object", "attributes": {"price": "£6"}},
        {
            "id": "C2",
            "name": "Saturday Film Club",
            "type": "Event",
            "attributes": {"price": "£9", "child_price": "£5"},
        },
    ]
}


@pytest.mark.parametrize(
    ("reply", "status"),
    [("A child ticket costs £6.", "Verified"), ("A child ticket costs £5.", "Contradicted")],
)
def test_a_word_of_the_things_own_name_names_no_column_it_lacks(reply, status):
    result = Engine(kb_from_document(CINEMA)).postprocess(reply, "", [], reference_time=REFERENCE)
    assert statuses(result) == {("Child Ticket", "price", status)}
