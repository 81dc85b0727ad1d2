"""What the user said of themselves against an offer, on a small boat-hire KB: their kind
against a price of another kind (stages/user_kinds.py, `UserSaid OtherKind`), how many they have
against a capacity (`having-words`, `UserSaid Party`) and the only parts of the day they can come
(`day-parts`, `UserSaid OnlyTimes`)."""

from __future__ import annotations

import pytest
from conftest import check

from replyguard.engine import Engine
from replyguard.models import HallucinationType as H
from replyguard.models import KnowledgeBase, Turn
from replyguard.models import RecommendationKind as R

HIRE = {
    "entities": [
        {
            "id": "rowing",
            "name": "Rowing Boat",
            "type": "Object",
            "attributes": {"price": "£18", "student_price": "£12", "seats": 2},
        },
        {
            "id": "motor",
            "name": "Motor Launch",
            "type": "Object",
            "attributes": {"price": "£45", "seats": 6},
        },
        {
            "id": "tour",
            "name": "Heron Tour",
            "type": "Event",
            "attributes": {
                "start_time": "2:30 pm",
                "price": "£9",
                "senior_price": "£6",
                "tour_location": "the Old Quay",
                "address_of_location": "3 Quay Street",
            },
        },
    ]
}


@pytest.fixture(scope="module")
def hire() -> Engine:
    return Engine(KnowledgeBase.model_validate(HIRE))


def _said(text: str) -> list[Turn]:
    return [Turn(speaker="user", text=text), Turn(speaker="assistant", text="Lovely.")]


def _prior(result) -> list[str]:
    return [
        f.reason for f in result.hallucination_flags if f.hallucination_type == H.ContradictsPrior
    ]


@pytest.mark.parametrize(
    ("said", "reply", "contradicts"),
    [
        # the user's kind and another kind's price
        ("I'm a student at the college.", "A rowing boat is £18 an hour.", True),
        ("I'm a student at the college.", "For students a rowing boat is £12 an hour.", False),
        ("My husband and I are retired now.", "The Heron Tour costs £9 each.", True),
        ("My husband and I are retired now.", "The Heron Tour costs £6 each for you.", False),
        # a question states no kind
        ("Is there a price for students?", "A rowing boat is £18 an hour.", False),
        # no kind price on the entity offered
        ("I'm a student at the college.", "The Motor Launch is £45 an hour.", False),
        # columns that share a last word but are no prices name no kinds of customer: the
        # user's "tour" is no kind, the address no value of another kind
        ("I'd like the tour please.", "The Heron Tour starts from 3 Quay Street.", False),
    ],
)
def test_a_price_of_another_kind_than_the_users(hire, said, reply, contradicts):
    result = check(hire, reply, "How much would it be?", _said(said))
    assert any("kind" in r for r in _prior(result)) is contradicts
    if contradicts:
        assert result.recommendation.kind == R.Regenerate


@pytest.mark.parametrize(
    ("said", "contradicts"),
    [
        ("We've got four grandchildren coming along.", True),
        ("I have 2 nieces who love the water.", False),
        # not something they have: no count
        ("I have to leave by 5.", False),
    ],
)
def test_what_the_user_has_against_a_capacity(hire, said, contradicts):
    reply = "A rowing boat would be perfect for you all at £18 an hour."
    result = check(hire, reply, "Which boat?", _said(said))
    assert any("party" in r for r in _prior(result)) is contradicts


@pytest.mark.parametrize(
    ("said", "contradicts"),
    [
        ("We can only come in the mornings.", True),
        ("We can only come in the afternoon.", False),
        # no restriction: the mornings are liked, not the only time
        ("We like the mornings best.", False),
    ],
)
def test_a_time_outside_the_only_parts_of_the_day(hire, said, contradicts):
    reply = "The Heron Tour leaves at 2:30pm and is £9."
    result = check(hire, reply, "Is there a tour?", _said(said))
    assert any("only come in" in r for r in _prior(result)) is contradicts
