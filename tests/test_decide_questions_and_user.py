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


@pytest.mark.parametrize(
    ("query", "reply"),
    [
        # a price asked, no price given and nothing claimed
        ("How much does the sauna cost?", "The sauna is a lovely way to relax after a swim."),
        # an email asked, nothing of the kind given
        ("What's your email address?", "You'll find us just off the high street by the weir."),
        # "on" of runs_on names nothing: the time asked is not the class's days
        ("What time do you open on Friday?", "Aqua Fit runs on Mondays and Thursdays."),
        # a yes/no attribute asked, other attributes of the same thing given
        ("Is the lido wheelchair accessible?", "The lido is 50 metres long and heated."),
    ],
)
def test_a_reply_that_answers_another_question_is_regenerated(pool, query, reply):
    result = verdict(pool, reply, query)
    assert result.coherence.qud_relevance.answers_another_question
    assert result.recommendation.kind == R.Regenerate


@pytest.mark.parametrize(
    ("query", "reply"),
    [
        ("How much does the sauna cost?", "The sauna costs £9."),
        ("What's your email address?", "You can email us at swim@millfordpool.example."),
        ("What time do you open on Friday?", "On Fridays we open at 6:30am."),
        ("Is the main pool heated?", "Yes, the main pool is heated."),
        ("Is the lido wheelchair accessible?", "I'm afraid the lido has no wheelchair access."),
        # a when-question answered by days; a yes/no one by the asked attribute's words
        ("When is Aqua Fit on?", "Aqua Fit runs on Mondays and Thursdays."),
        ("Are children allowed in the sauna?", "Sorry, children aren't allowed in the sauna."),
    ],
)
def test_a_reply_that_answers_the_question_is_not_answering_another(pool, query, reply):
    result = verdict(pool, reply, query)
    assert not result.coherence.qud_relevance.answers_another_question
    assert result.recommendation.kind == R.Accept


# ---------------------------------------------------------------- what the user said


def test_an_offer_on_a_day_the_user_cannot_come_contradicts_them(pool):
    turns = _turns("I can only get there on Thursdays after work.")
    result = verdict(pool, "You could try Monday's Aqua Fit at 7pm.", "Any classes?", turns)
    assert [f.span.start for f in _prior(result)] == [14]
    assert result.recommendation.kind == R.Regenerate
    kept = verdict(pool, "You could try Thursday's Aqua Fit at 7pm.", "Any classes?", turns)
    assert not _prior(kept)


def test_a_restriction_said_with_regret_still_restricts(pool):
    turns = _turns("I'm afraid I'm only around on Thursdays.")
    result = verdict(pool, "Monday's Aqua Fit starts at 7pm.", "Any classes?", turns)
    assert _prior(result)


def test_a_weekday_said_without_restriction_binds_no_offer(pool):
    turns = _turns("I went swimming on Thursday and loved it.")
    result = verdict(pool, "You could try Monday's Aqua Fit at 7pm.", "Any classes?", turns)
    assert not _prior(result)


def test_an_offer_without_what_the_user_needs_contradicts_them(pool):
    turns = _turns("My daughter uses a wheelchair.")
    result = verdict(
        pool, "The Outdoor Lido is perfect for a family swim.", "Where should we swim?", turns
    )
    assert [f.span.start for f in _prior(result)] == [4]
    assert result.recommendation.kind == R.Regenerate
    # said with a denial it is information, not an offer; an entity that has it is fine
    for reply in (
        "The lido has no wheelchair access, but the Main Pool does.",
        "The Main Pool is perfect for a family swim.",
    ):
        assert not _prior(verdict(pool, reply, "Where should we swim?", turns))


@pytest.mark.parametrize(
    "said",
    [
        "We don't need a wheelchair, we're all fine on steps.",
        # a question asks about the facility, it states no need
        "Can you tell me whether the pools have wheelchair access?",
    ],
)
def test_a_need_the_user_denies_or_asks_about_binds_nothing(pool, said):
    turns = _turns(said)
    result = verdict(
        pool, "The Outdoor Lido is perfect for a family swim.", "Where should we swim?", turns
    )
    assert not _prior(result)


def test_another_person_of_the_user_than_the_one_they_named_contradicts_them(pool):
    turns = _turns("My husband would like to try a class.")
    wrong = verdict(pool, "Your wife would enjoy Aqua Fit on Mondays.", "Which one?", turns)
    assert [(f.span.start, f.span.end) for f in _prior(wrong)] == [(5, 9)]
    assert wrong.recommendation.kind == R.Regenerate
    right = verdict(pool, "Your husband would enjoy Aqua Fit on Mondays.", "Which one?", turns)
    assert not _prior(right)


def test_a_party_counted_over_and_is_the_sum(pool):
    turns = _turns("We're three adults and one child.")
    wrong = verdict(pool, "For the two of you a sauna session is £18.", "How much?", turns)
    assert _prior(wrong)
    right = verdict(pool, "For the four of you that's Aqua Fit at 7pm.", "What's on?", turns)
    assert not _prior(right)


def test_a_thing_of_ours_named_by_an_act_word_is_no_act(pool):
    result = verdict(pool, "Our booking desk is by the main entrance.", "Where do I pay?")
    assert result.coherence.discourse_coherence.reply_act == "Answer"
    booked = verdict(pool, "Booking you in now.", "Can I join?")
    assert booked.coherence.discourse_coherence.reply_act == "Confirmation"


def test_an_offer_on_the_wrong_side_of_the_users_time_bound_contradicts_them(pool):
    turns = _turns("I finish work late, so it has to be after 7:30pm.")
    early = verdict(
        pool, "Aqua Fit on Thursday starts at 7pm.", "Is there a class I can do?", turns
    )
    assert [f.content for f in _prior(early)] == ["7pm"]
    assert early.recommendation.kind == R.Regenerate
    late = verdict(pool, "On Fridays we're open until 9pm.", "Can I swim then?", turns)
    assert not _prior(late)


def test_an_entity_named_by_what_the_user_said_they_have_none_of_contradicts_them(pool):
    turns = _turns("We'll just swim, no sauna for us.")
    offered = verdict(pool, "The Sauna is £9 a session.", "What else is there?", turns)
    assert [f.content for f in _prior(offered)] == ["Sauna"]
    assert offered.recommendation.kind == R.Regenerate
    # the same entity named by a user who wants it is theirs
    wanted = verdict(
        pool, "The Sauna is £9 a session.", "How much is the sauna?", _turns("I love a sauna.")
    )
    assert not _prior(wanted)


def test_another_thing_of_the_users_of_a_kind_the_kb_names_contradicts_them(pool):
    turns = _turns("I'd like to pay for my sauna visit.")
    wrong = verdict(pool, "Your lido visit is £9.", "How much is it?", turns)
    assert [f.content for f in _prior(wrong)] == ["lido"]
    right = verdict(pool, "Your sauna visit is £9.", "How much is it?", turns)
    assert not _prior(right)


def test_a_party_of_one_said_as_just_you_contradicts_a_larger_party(pool):
    turns = _turns("I'm coming with my two sons.")
    alone = verdict(pool, "For just yourself, a sauna visit is £9.", "What does it cost?", turns)
    assert [f.content for f in _prior(alone)] == ["just yourself"]
    together = verdict(pool, "For the three of you, Aqua Fit is at 7pm.", "What's on?", turns)
    assert not _prior(together)
