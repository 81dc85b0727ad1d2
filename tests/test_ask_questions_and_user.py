"""Questions left unanswered by a whole reply, and replies against what the user said of
themselves (stages/coherence.py `_answers_another`, `_dated_of_asked`; metta/coherence.metta
`nothing-read-answers-another`; stages/user_needs.py; stages/acts.py; stages/speculation.py), on
a pottery studio's KB: courses on set days, two studio passes, a lead potter."""

from __future__ import annotations

import pytest

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase, Turn
from replyguard.models import RecommendationKind as R

STUDIO = {
    "entities": [
        {
            "id": "studio",
            "name": "Kilnworks Studio",
            "type": "Organization",
            "aliases": ["Kilnworks"],
            "attributes": {
                "address": "8 Clay Street, Denholm",
                "phone": "01632 960 550",
                "tuesday_hours": "9:00 am - 9:00 pm",
                "wednesday_hours": "9:00 am - 9:00 pm",
                "thursday_hours": "9:00 am - 9:00 pm",
                "saturday_hours": "10:00 am - 4:00 pm",
                "parking": False,
            },
        },
        {
            "id": "wheel",
            "name": "Wheel Throwing Course",
            "type": "Event",
            "aliases": ["the wheel course"],
            "attributes": {
                "runs_on": ["Tuesday"],
                "starts": "6:30 pm",
                "price": "£120",
                "member_price": "£95",
            },
        },
        {
            "id": "taster",
            "name": "Handbuilding Taster",
            "type": "Event",
            "attributes": {"runs_on": ["Saturday"], "starts": "11:00 am", "price": "£35"},
        },
        {
            "id": "weekday_pass",
            "name": "Weekday Studio Pass",
            "type": "Object",
            "attributes": {"monthly_price": "£40"},
        },
        {
            "id": "anytime_pass",
            "name": "Anytime Studio Pass",
            "type": "Object",
            "attributes": {"monthly_price": "£65"},
        },
        {
            "id": "ines",
            "name": "Ines Ferreira",
            "type": "Person",
            "gender": "Feminine",
            "attributes": {"role": "Lead Potter"},
        },
    ]
}


@pytest.fixture(scope="module")
def studio() -> Engine:
    return Engine(KnowledgeBase.model_validate(STUDIO))


def _turns(*user: str) -> list[Turn]:
    out = []
    for text in user:
        out += [Turn(speaker="user", text=text), Turn(speaker="assistant", text="Sure.")]
    return out


# ---------------------------------------------------------------- unanswered questions


@pytest.mark.parametrize(
    ("query", "reply", "kind"),
    [
        # a time asked; the whole reply states nothing of the kind and nothing is read
        (
            "When does the wheel course start?",
            "The wheel course is a relaxing way to learn and suits complete beginners.",
            R.Regenerate,
        ),
        ("How much is the wheel course?", "The wheel course is great fun.", R.Regenerate),
        ("What's your phone number?", "We're just off the high street by the mill.", R.Regenerate),
        # the same text cut mid-sentence, as a stream has it so far: it may yet answer
        ("When does the wheel course start?", "The wheel course is a relaxing way to", R.Accept),
        ("How much is the wheel course?", "The wheel course", R.Accept),
        # a number the reading did not take may be the answer
        (
            "How much is the wheel course?",
            "The wheel course comes to a hundred and twenty for the lot.",
            R.Accept,
        ),
        # days said of the thing asked answer "when"
        (
            "When is the handbuilding taster on?",
            "The handbuilding taster runs on Saturdays.",
            R.Accept,
        ),
        (
            "When does the wheel course start?",
            "The wheel course starts at 6:30pm on Tuesdays.",
            R.Accept,
        ),
    ],
)
def test_a_whole_reply_that_states_nothing_asked_is_regenerated(studio, query, reply, kind):
    result = studio.postprocess(reply, query)
    assert result.recommendation.kind == kind, result.recommendation


def test_a_date_said_of_something_else_does_not_answer_when(studio):
    result = studio.postprocess(
        "Ines will ring you tomorrow to go through the details.",
        "When does the handbuilding taster start?",
    )
    assert result.recommendation.kind == R.Regenerate
    assert result.coherence.qud_relevance.answers_another_question


# ---------------------------------------------------------------- suppositions


def _flagged(result, kind: str) -> list[str]:
    return [f.content for f in result.hallucination_flags if f.hallucination_type.value == kind]


def _supposed(result) -> list[str]:
    return _flagged(result, "UnsupportedClaim")


@pytest.mark.parametrize(
    ("query", "reply"),
    [
        (
            "Is the wheel course hard?",
            "Many students say the wheel course is harder than it looks, though Ines is patient.",
        ),
        ("Is the taster messy?", "The taster can get quite messy, so wear old clothes."),
        (
            "Is the handbuilding taster busy?",
            "The handbuilding taster is often full, so book early.",
        ),
        (
            "Is the handbuilding taster busy?",
            "The handbuilding taster might be quieter after the holidays.",
        ),
        # a yes/no question answered by a supposed state, said of a day the KB checks
        ("Is the handbuilding taster busy?", "It might be fairly quiet on Saturdays."),
        ("Is the taster crowded?", "The handbuilding taster can get crowded on Saturdays."),
    ],
)
def test_a_supposition_the_kb_cannot_check_is_flagged(studio, query, reply):
    result = studio.postprocess(reply, query)
    assert result.recommendation.kind == R.AcceptWithFlags
    assert _supposed(result)


def test_can_be_before_a_participle_is_no_supposition(studio):
    result = studio.postprocess(
        "Yes, the handbuilding taster can be booked at the desk.", "Can I book the taster?"
    )
    assert not _supposed(result)


# ---------------------------------------------------------------- what the user said


def _prior(result) -> list[str]:
    return _flagged(result, "ContradictsPrior")


@pytest.mark.parametrize(
    ("said", "reply", "contradicts"),
    [
        # a thing of a kind the user chose by the word that tells it from the others
        (
            "I work from home on weekdays, so I'd take the weekday pass.",
            "The anytime studio pass is £65 a month.",
            True,
        ),
        (
            "I work from home on weekdays, so I'd take the weekday pass.",
            "The weekday studio pass is £40 a month.",
            False,
        ),
        # the reply names the one chosen too: it weighs the two
        (
            "I work from home on weekdays, so I'd take the weekday pass.",
            "The weekday pass is £40, and the anytime studio pass is £65 a month.",
            False,
        ),
        # a question chooses nothing
        ("Is the weekday pass the cheaper one?", "The anytime studio pass is £65 a month.", False),
        # what the user would rather not have
        (
            "I'd rather pay for each session than commit to a pass.",
            "The anytime studio pass is £65 a month.",
            True,
        ),
        (
            "Could I do a course instead of buying a pass?",
            "The anytime studio pass is £65 a month.",
            False,
        ),
        (
            "I'd like a course instead of a monthly pass.",
            "The anytime studio pass is £65 a month.",
            True,
        ),
        # the only days they can come, said as "weekends"
        (
            "I can only get there at weekends.",
            "The wheel course runs on Tuesdays at 6:30pm.",
            True,
        ),
        (
            "I can only get there at weekends.",
            "The handbuilding taster runs on Saturdays at 11am.",
            False,
        ),
        # what they said they do not need
        (
            "I don't need 24-hour access, I only throw in the mornings.",
            "Since you need round-the-clock access, the anytime studio pass suits you.",
            True,
        ),
        (
            "I won't need a wheel, I do handbuilding.",
            "As you need a wheel, the wheel course is the one for you.",
            True,
        ),
        # something else needed, a question, or the reply agreeing
        (
            "I don't need 24-hour access.",
            "Since you need step-free access, the weekday studio pass suits you.",
            False,
        ),
        (
            "Do I need 24-hour access?",
            "Since you need round-the-clock access, the anytime studio pass suits you.",
            False,
        ),
        (
            "I don't need 24-hour access.",
            "You don't need round-the-clock access, so the weekday studio pass suits you.",
            False,
        ),
    ],
)
def test_an_offer_against_what_the_user_chose_is_regenerated(studio, said, reply, contradicts):
    result = studio.postprocess(reply, "What would you suggest?", _turns(said))
    assert bool(_prior(result)) == contradicts, result.hallucination_flags
    if contradicts:
        assert result.recommendation.kind == R.Regenerate


def test_an_act_word_after_a_determiner_names_a_thing(studio):
    """ "The anytime pass" is an answer, not the acknowledgement "anytime"."""
    result = studio.postprocess(
        "The anytime studio pass is £65 a month.",
        "Which pass should I get?",
        _turns("I'd go for the weekday pass."),
    )
    assert result.coherence.discourse_coherence.reply_act == "Answer"


@pytest.mark.parametrize(
    ("reply", "contradicts"),
    [
        ("I've reserved one place on Saturday's taster for you.", True),
        ("I've booked the handbuilding taster for one person.", True),
        ("I've booked two places on the taster for you.", False),
        # a price for one place is no party size
        ("One place on the handbuilding taster is £35.", False),
        ("The handbuilding taster is £35 for one person.", False),
    ],
)
def test_one_place_for_a_party_of_two_contradicts_them(studio, reply, contradicts):
    result = studio.postprocess(reply, "Can you book us in?", _turns("There'll be two of us."))
    assert bool(_prior(result)) == contradicts, result.hallucination_flags


# ---------------------------------------------------------------- corrected, with unread values


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        # 10am is wrong (11:00 am); £35 is unread, but the taster holds it: said in other words
        (
            "The handbuilding taster starts at 10am on Saturdays and there's a £35 charge.",
            R.CorrectAndDeliver,
        ),
        # a fee the taster holds nowhere would go out unchecked beside the corrected time
        (
            "The handbuilding taster starts at 10am on Saturdays and there's a £8 clay charge.",
            R.Regenerate,
        ),
    ],
)
def test_a_corrected_reply_goes_out_with_unread_values_its_entities_hold(studio, reply, kind):
    result = studio.postprocess(reply, "When is the taster?")
    assert result.unread_values, "the price is said where no claim reads it"
    assert result.recommendation.kind == kind
    if kind == R.CorrectAndDeliver:
        unread = result.unread_values[0].span
        assert unread in result.recommendation.flags
        assert "11" in result.recommendation.deliver


def test_one_wrong_value_read_against_several_weekdays_is_one_to_correct():
    """ "8am" is read against Tuesday's, Wednesday's and Thursday's opening times: one wrong
    value said, corrected in place, not most of the reply wrong."""
    hours = {"tuesday_hours", "wednesday_hours", "thursday_hours"}
    shop = Engine(
        KnowledgeBase.model_validate(
            {
                "entities": [
                    {
                        "id": "shop",
                        "name": "Glaze and Fire",
                        "type": "Organization",
                        "attributes": {a: "9:00 am - 5:00 pm" for a in hours},
                    }
                ]
            }
        )
    )
    result = shop.postprocess("Tuesday to Thursday we open at 8am.", "When do you open?")
    validations = result.factual_validation.claim_validations
    wrong = [v for v in validations if v.status.kind == "Contradicted"]
    assert len(wrong) == 3, "one value, three columns"
    assert result.recommendation.kind == R.CorrectAndDeliver
    assert "9" in result.recommendation.deliver and "8am" not in result.recommendation.deliver
