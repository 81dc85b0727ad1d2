"""What the user said of themselves, read closer (stages/user_needs.py, stages/user_bounds.py,
stages/coherence.py; `need-words`, `bound-words`, `several-words`, `UserSaid` in
metta/hallucination.metta), on a lakeside boat hire's KB: the only days or parts of the day in
the clause that says "only", a range of times judged by its start, bounds of a column
(`min_age`, `max_paddler_weight`) and of the user ("at least three bedrooms"), an age said in
a question, a need named by another word, the organisation that speaks offering itself, one of
several the user has, another value of theirs, and a yes/no question to "you" answered with
other facts."""

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
            "id": "hire",
            "name": "Lakeside Boat Hire",
            "type": "Organization",
            "attributes": {
                "address": "The Jetty, Ambleford",
                "phone": "01632 960 771",
                "friday_hours": "9:00 am - 6:00 pm",
                "saturday_hours": "8:00 am - 7:00 pm",
                "parking": True,
                "cafe": False,
                "wheelchair_access": False,
                "cards_taken": ["Visa", "Mastercard"],
            },
        },
        {
            "id": "kayak",
            "name": "Kayak",
            "type": "Object",
            "attributes": {
                "price": "£15",
                "min_age": 12,
                "max_paddler_weight": "110 kg",
                "pets_allowed": False,
            },
        },
        {
            "id": "rowing",
            "name": "Rowing Boat",
            "type": "Object",
            "aliases": ["rowing boat"],
            "attributes": {"price": "£25", "seats": 4, "pets_allowed": True},
        },
        {
            "id": "dawn",
            "name": "Dawn Paddle",
            "type": "Event",
            "aliases": ["dawn paddle"],
            "attributes": {"days": ["Tuesday"], "hours": "8:00 am - 12:30 pm", "price": "£20"},
        },
        {
            "id": "cabin",
            "name": "Heron Cabin",
            "type": "Location",
            "attributes": {"bedrooms": 2, "nightly_price": "£90"},
        },
        {
            "id": "lodge",
            "name": "Osprey Lodge",
            "type": "Location",
            "attributes": {"bedrooms": 4, "nightly_price": "£160"},
        },
    ]
}


@pytest.fixture(scope="module")
def hire() -> Engine:
    return Engine(KnowledgeBase.model_validate(HIRE))


def _said(text: str) -> list[Turn]:
    return [Turn(speaker="user", text=text), Turn(speaker="assistant", text="Thanks, noted.")]


def _prior(result) -> list[str]:
    return [
        f.content for f in result.hallucination_flags if f.hallucination_type == H.ContradictsPrior
    ]


@pytest.mark.parametrize(
    ("said", "reply", "flagged"),
    [
        # days another clause names restrict nothing
        (
            "I can only get out on Fridays, Tuesdays are for my choir.",
            "The Dawn Paddle on Tuesday would be lovely for you.",
            ["Tuesday"],
        ),
        # ... but a list that continues the restricting clause does
        (
            "I can only get out on Tuesday, Friday or Saturday.",
            "The Dawn Paddle on Tuesday would be lovely for you.",
            [],
        ),
        (
            "I can only get out on Tuesday, Friday or Saturday.",
            "We could fit you in on Monday with a kayak.",
            ["Monday"],
        ),
        # the parts of the day the same
        (
            "I can only do evenings, mornings are the school run.",
            "The Dawn Paddle at 8am is a good start to the day.",
            ["8am"],
        ),
        # a range of times is judged by its start
        (
            "I can only come in the afternoon.",
            "The Dawn Paddle from 8am to 12:30pm would suit you.",
            ["8am"],
        ),
        ("I can only come in the afternoon.", "A kayak from 1pm to 3pm would suit you.", []),
    ],
)
def test_only_the_clause_that_restricts_names_the_days(hire, said, reply, flagged):
    result = check(hire, reply, "What could I do?", _said(said))
    assert _prior(result) == flagged
    if flagged:
        assert result.recommendation.kind == R.Regenerate


@pytest.mark.parametrize(
    ("said", "reply", "outside"),
    [
        # a bare number in an age column bounds one side: min_age 12
        ("My niece is 10 and mad about boats.", "A kayak would be perfect for her.", True),
        ("My niece is 13 and mad about boats.", "A kayak would be perfect for her.", False),
        # a measure of the user's beyond a bound column in its unit
        ("I weigh about 125 kg.", "A kayak would suit you at £15 an hour.", True),
        ("I weigh about 85 kg.", "A kayak would suit you at £15 an hour.", False),
        # a bound the user set against the column its noun names
        ("We need at least three bedrooms for the family.", "Heron Cabin would be ideal.", True),
        ("We need at least three bedrooms for the family.", "Osprey Lodge would be ideal.", False),
        # a number that is no bound and names no column binds nothing
        ("We stayed 3 nights last year.", "Heron Cabin would be ideal.", False),
    ],
)
def test_an_offer_outside_a_bound_of_the_user_or_of_the_thing(hire, said, reply, outside):
    result = check(hire, reply, "What would suit us?", _said(said))
    assert bool(_prior(result)) is outside
    if outside:
        assert result.recommendation.kind == R.Regenerate


@pytest.mark.parametrize(
    ("said", "reply", "flagged"),
    [
        # a need named by a `need-words` word: dogs need pets_allowed
        ("We're bringing our spaniel, so we need a boat that takes dogs.", "A kayak is £15.", True),
        (
            "We're bringing our spaniel, so we need a boat that takes dogs.",
            "A rowing boat is £25.",
            False,
        ),
        # the organisation that speaks offers itself: its own wheelchair_access is no
        ("I use a wheelchair.", "We'd love to see you at the jetty on Saturday.", True),
        ("I use a wheelchair.", "I'm sorry, we have no step-free route to the jetty.", False),
    ],
)
def test_a_need_named_by_another_word_or_of_the_organisation(hire, said, reply, flagged):
    result = check(hire, reply, "Can we come?", _said(said))
    assert bool(_prior(result)) is flagged
    if flagged:
        assert result.recommendation.kind == R.Regenerate


@pytest.mark.parametrize(
    ("query", "reply", "kind"),
    [
        # a yes/no question to "you" answered with other facts is unanswered
        (
            "Do you have a cafe?",
            "We're open from 9am to 6pm on Fridays, and a kayak is £15.",
            R.Regenerate,
        ),
        ("Do you have parking?", "Yes, there's parking on site.", R.Accept),
        ("Do you have parking?", "Yes, and we're open from 9am on Fridays.", R.Accept),
    ],
)
def test_a_yes_no_question_to_the_organisation_answered_with_other_facts(hire, query, reply, kind):
    assert check(hire, reply, query).recommendation.kind == kind


@pytest.mark.parametrize(
    ("said", "reply", "flagged"),
    [
        # several of theirs, and the reply speaks of one
        ("I've got three kids who all want to paddle.", "A kayak for your child is £15.", True),
        ("I have two terriers.", "Your terrier is welcome in a rowing boat.", True),
        # ... or of all of them
        ("I've got three kids who all want to paddle.", "Each of your kids pays £15.", False),
        ("I have two terriers.", "Your terriers are welcome in a rowing boat.", False),
    ],
)
def test_one_of_several_the_user_has(hire, said, reply, flagged):
    result = check(hire, reply, "How much?", _said(said))
    assert bool(_prior(result)) is flagged
    if flagged:
        assert result.recommendation.kind == R.Regenerate


@pytest.mark.parametrize(
    ("query", "outside"),
    [("I'm 11, what could I hire?", True), ("I'm 14, what could I hire?", False)],
)
def test_an_age_said_in_the_question_itself(hire, query, outside):
    result = check(hire, "A kayak would be a great choice.", query)
    assert bool(_prior(result)) is outside


@pytest.mark.parametrize(
    ("reply", "flagged"),
    [
        ("We'll happily take your Mastercard at the jetty.", True),
        ("We'll happily take your Visa at the jetty.", False),
        ("We take Mastercard too, and your Visa is fine.", False),
    ],
)
def test_another_value_given_as_the_users(hire, reply, flagged):
    result = check(hire, reply, "Can I pay by card?", _said("I've only got a Visa card on me."))
    assert bool(_prior(result)) is flagged
