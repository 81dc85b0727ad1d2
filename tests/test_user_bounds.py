"""An offer outside an age or a party size the user gave (stages/user_bounds.py, `UserSaid Age`
and `UserSaid Party` in metta/hallucination.metta), on a small coding club's KB: clubs by age
band, a room with a capacity."""

from __future__ import annotations

import pytest
from conftest import check

from replyguard.engine import Engine
from replyguard.models import HallucinationType as H
from replyguard.models import KnowledgeBase, Turn
from replyguard.models import RecommendationKind as R

CLUB = {
    "entities": [
        {
            "id": "juniors",
            "name": "Junior Coders",
            "type": "Event",
            "attributes": {"age_range": "7-10", "day": "Thursday", "price": "£8"},
        },
        {
            "id": "makers",
            "name": "Teen Makers",
            "type": "Event",
            "attributes": {"age_range": "11+", "day": "Saturday", "price": "£10"},
        },
        {
            "id": "pod",
            "name": "Robot Pod",
            "type": "Location",
            "attributes": {"capacity": 4, "hourly_rate": "£15"},
        },
    ]
}


@pytest.fixture(scope="module")
def club() -> Engine:
    return Engine(KnowledgeBase.model_validate(CLUB))


def _said(*user: str) -> list[Turn]:
    out = []
    for text in user:
        out += [Turn(speaker="user", text=text), Turn(speaker="assistant", text="Thanks!")]
    return out


def _ages_and_parties(result) -> list[str]:
    return [
        f.reason
        for f in result.hallucination_flags
        if f.hallucination_type == H.ContradictsPrior and "knowledge base" in f.reason
    ]


@pytest.mark.parametrize(
    ("said", "reply", "outside"),
    [
        ("My nephew is 6, he loves robots.", "Junior Coders on Thursdays would suit him.", True),
        ("My nephew is 9, he loves robots.", "Junior Coders on Thursdays would suit him.", False),
        ("She turned 13 last week.", "Junior Coders would be a great fit for her.", True),
        ("She turned 13 last week.", "Teen Makers would be a great fit for her.", False),
        # months are whole years: 30 months is 2
        ("Our little one is 30 months old.", "Junior Coders would be lovely for them.", True),
        ("I'm looking for my 8-year-old.", "Junior Coders meets on Thursdays.", False),
        # two children: an offer that fits one of them fits
        ("My son is 12 and my daughter is 8.", "Junior Coders is on Thursdays.", False),
        # a denial offers nothing
        ("My nephew is 6.", "Junior Coders isn't open to him yet, sadly.", False),
        # a number after "is" that is no age
        ("The bus stop is 5 minutes away.", "Junior Coders meets on Thursdays.", False),
    ],
)
def test_an_offer_outside_the_age_the_user_gave(club, said, reply, outside):
    result = check(club, reply, "What would you suggest?", _said(said))
    assert bool(_ages_and_parties(result)) is outside
    if outside:
        assert result.recommendation.kind == R.Regenerate


@pytest.mark.parametrize(
    ("said", "outside"),
    [("There are 7 of us in the team.", True), ("It's just the three of us.", False)],
)
def test_an_offer_smaller_than_the_party_the_user_gave(club, said, outside):
    reply = "The Robot Pod is free on Friday for your group."
    result = check(club, reply, "Any room?", _said(said))
    assert bool(_ages_and_parties(result)) is outside
