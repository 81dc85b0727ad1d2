"""Questions a reply leaves unanswered and offers that ignore what the user said of themselves
(stages/coherence.py, stages/user_needs.py, text/details.py `party_details`,
metta/coherence.metta, metta/hallucination.metta `UserSaid`), on a leisure pool's KB: hours per
weekday, classes on set days, pools with yes/no facilities, a sauna."""

from __future__ import annotations

import pytest
from conftest import check as verdict

from replyguard.engine import Engine
from replyguard.models import HallucinationType as H
from replyguard.models import KnowledgeBase, Turn
from replyguard.models import RecommendationKind as R

POOL = {
    "entities": [
        {
            "id": "centre",
            "name": "Millford Leisure Pool",
            "type": "Organization",
            "aliases": ["Millford Pool"],
            "attributes": {
                "address": "2 Weir Lane, Millford",
                "email": "swim@millfordpool.example",
                "friday_hours": "6:30 am - 9:00 pm",
                "sunday_hours": "8:00 am - 4:00 pm",
            },
        },
        {
            "id": "lido",
            "name": "Outdoor Lido",
            "type": "Object",
            "aliases": ["the lido"],
            "attributes": {"length": "50 metres", "wheelchair_access": False, "heated": True},
        },
        {
            "id": "main",
            "name": "Main Pool",
            "type": "Object",
            "attributes": {"lanes": 6, "wheelchair_access": True, "heated": True},
        },
        {
            "id": "aquafit",
            "name": "Aqua Fit",
            "type": "Event",
            "attributes": {
                "runs_on": ["Monday", "Thursday"],
                "starts": "7:00 pm",
                "price": "£6.50",
            },
        },
        {
            "id": "sauna",
            "name": "Sauna",
            "type": "Object",
            "attributes": {"price": "£9", "children_allowed": False},
        },
    ]
}


@pytest.fixture(scope="module")
def pool() -> Engine:
    return Engine(KnowledgeBase.model_validate(POOL))


def _turns(*user: str) -> list[Turn]:
    out = []
    for text in user:
        out += [Turn(speaker="user", text=text), Turn(speaker="assistant", text="Noted, thanks.")]
    return out


def _prior(result) -> list:
    return [f for f in result.hallucination_flags if f.hallucination_type == H.ContradictsPrior]


# ---------------------------------------------------------------- unanswered questions


_OTHER = R.Regenerate  # a reply that answers another question
_ANSWER = R.Accept


@pytest.mark.parametrize(
    ("query", "reply", "kind"),
    [
        ("How much does the sauna cost?", "The sauna costs £9.", _ANSWER),
        ("What's your email address?", "You can email us at swim@millfordpool.example.", _ANSWER),
        # "on" of runs_on names nothing: the time asked is not the class's days
        ("What time do you open on Friday?", "Aqua Fit runs on Mondays and Thursdays.", _OTHER),
        ("What time do you open on Friday?", "On Fridays we open at 6:30am.", _ANSWER),
        # a yes/no attribute asked, other attributes of the same thing given
        ("Is the lido wheelchair accessible?", "The lido is 50 metres long and heated.", _OTHER),
        (
            "Is the lido wheelchair accessible?",
            "I'm afraid the lido has no wheelchair access.",
            _ANSWER,
        ),
        ("Is the main pool heated?", "Yes, the main pool is heated.", _ANSWER),
        # a yes/no question answered by the asked attribute's own words
        (
            "Are children allowed in the sauna?",
            "Sorry, children aren't allowed in the sauna.",
            _ANSWER,
        ),
    ],
)
def test_a_reply_that_answers_another_question_is_regenerated(pool, query, reply, kind):
    result = verdict(pool, reply, query)
    assert result.coherence.qud_relevance.answers_another_question is (kind == _OTHER)
    assert result.recommendation.kind == kind


@pytest.mark.parametrize(
    "reply",
    [
        # nothing read, and the only number is a length or a pronoun: no price said in words
        "A sauna session lasts 40 minutes.",
        "The sauna is one of our favourites.",
    ],
)
def test_a_price_question_answered_with_no_possible_price_is_regenerated(pool, reply):
    result = verdict(pool, reply, "How much is the sauna?")
    assert result.coherence.qud_relevance.answers_another_question is True
    assert result.recommendation.kind == R.Regenerate


def test_a_bare_number_may_be_the_price_the_reading_missed(pool):
    result = verdict(pool, "Towels are 2 each.", "How much is a towel?")
    assert result.coherence.qud_relevance.answers_another_question is False
    assert result.recommendation.kind != R.Regenerate


_WARM = "When will the lido be warm enough to swim in?"


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        # a supposition about what was asked answers it, hedged: flagged, not regenerated
        ("Aqua Fit costs £6.50, and the lido is probably warm enough from late spring.", None),
        # a supposition about something else leaves the question unanswered
        ("Aqua Fit costs £6.50, and it is probably our friendliest class.", R.Regenerate),
    ],
)
def test_a_hedged_answer_to_a_wh_question_is_flagged_not_regenerated(pool, reply, kind):
    result = verdict(pool, reply, _WARM)
    flags = {f.hallucination_type for f in result.hallucination_flags}
    assert H.UnsupportedClaim in flags
    assert result.recommendation.kind == (kind or R.AcceptWithFlags)


# ---------------------------------------------------------------- what the user said


_SWIM = "Where should we swim?"
_LIDO = "The Outdoor Lido is perfect for a family swim."


@pytest.mark.parametrize(
    ("said", "query", "reply", "flagged"),
    [
        # the only days the user can come; a restriction said with regret still restricts
        (
            "I can only get there on Thursdays.",
            "Any classes?",
            "Try Monday's Aqua Fit.",
            ["Monday"],
        ),
        ("I can only get there on Thursdays.", "Any classes?", "Try Thursday's Aqua Fit.", []),
        (
            "I'm afraid I'm only around on Thursdays.",
            "Any?",
            "Monday's Aqua Fit is at 7pm.",
            ["Monday"],
        ),
        ("I went swimming on Thursday and loved it.", "Any?", "Try Monday's Aqua Fit.", []),
        # a time bound the user set
        (
            "It has to be after 7:30pm.",
            "Any class?",
            "Aqua Fit on Thursday starts at 7pm.",
            ["7pm"],
        ),
        ("It has to be after 7:30pm.", "Can I swim then?", "On Fridays we're open until 9pm.", []),
        # a yes/no attribute the user needs; said with a denial the reply offers nothing
        ("My daughter uses a wheelchair.", _SWIM, _LIDO, ["Outdoor Lido"]),
        (
            "My daughter uses a wheelchair.",
            _SWIM,
            "The Main Pool is perfect for a family swim.",
            [],
        ),
        ("My daughter uses a wheelchair.", _SWIM, "The lido has no wheelchair access.", []),
        # a need the user denies, or asks about, binds nothing
        ("We don't need a wheelchair, we're all fine on steps.", _SWIM, _LIDO, []),
        ("Can you tell me whether the pools have wheelchair access?", _SWIM, _LIDO, []),
        # a KB entity named by what the user said they have none of
        (
            "We'll just swim, no sauna for us.",
            "What else?",
            "The Sauna is £9 a session.",
            ["Sauna"],
        ),
        ("I love a sauna.", "How much is the sauna?", "The Sauna is £9 a session.", []),
        # another person or thing of the user's than the one they named
        ("My husband would like a class.", "Which?", "Your wife would enjoy Aqua Fit.", ["wife"]),
        ("My husband would like a class.", "Which?", "Your husband would enjoy Aqua Fit.", []),
        ("I've booked my outdoor swim.", "How much?", "Your main pool swim is £5.", ["main"]),
        ("I've booked my outdoor swim.", "How much?", "Your outdoor swim is £5.", []),
        # a word that is a whole name by itself may be another word's synonym ("home", "house")
        ("I'd like to pay for my sauna visit.", "How much?", "Your lido visit is £9.", []),
        # a party counted over "and", or said as "just yourself"
        ("We're three adults and one child.", "How much?", "For the two of you it's £18.", ["two"]),
        ("We're three adults and one child.", "What's on?", "For the four of you, Aqua Fit.", []),
        ("I'm coming with my two sons.", "Cost?", "For just yourself, it's £9.", ["just yourself"]),
    ],
)
def test_an_offer_against_what_the_user_said_of_themselves_is_regenerated(
    pool, said, query, reply, flagged
):
    result = verdict(pool, reply, query, _turns(said))
    assert [f.content for f in _prior(result)] == flagged
    if flagged:
        assert result.recommendation.kind == R.Regenerate


def test_a_thing_of_ours_named_by_an_act_word_is_no_act(pool):
    result = verdict(pool, "Our booking desk is by the main entrance.", "Where do I pay?")
    assert result.coherence.discourse_coherence.reply_act == "Answer"
    booked = verdict(pool, "Booking you in now.", "Can I join?")
    assert booked.coherence.discourse_coherence.reply_act == "Confirmation"
