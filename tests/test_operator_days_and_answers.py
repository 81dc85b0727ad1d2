"""Days that choose what a claim is about, and questions a reply leaves unanswered
(stages/scoring.py `_day_read`, stages/coherence.py, text/questions.py, metta/coherence.metta),
on a pottery studio's KB: opening hours per weekday, classes on set days, a kiln firing fee."""

from __future__ import annotations

import pytest
from conftest import check as verdict

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase
from replyguard.models import RecommendationKind as R
from replyguard.text.questions import classify_question

STUDIO = {
    "entities": [
        {
            "id": "studio",
            "name": "Claybank Studio",
            "type": "Organization",
            "aliases": ["Claybank"],
            "attributes": {
                "address": "8 Potters Row, Hexley",
                "monday_hours": "closed",
                "thursday_hours": "10:00 am - 6:00 pm",
                "saturday_hours": "9:00 am - 3:00 pm",
            },
        },
        {
            "id": "wheel",
            "name": "Wheel Taster",
            "type": "Event",
            "attributes": {"runs_on": "Monday", "fee": "£35", "length": "2 hours"},
        },
        {
            "id": "glaze",
            "name": "Glazing Evening",
            "type": "Event",
            "attributes": {"fee": "£28", "length": "90 minutes"},
        },
        {
            "id": "ada",
            "name": "Ada Lind",
            "type": "Person",
            "gender": "Feminine",
            "attributes": {"role": "Head Potter"},
        },
    ]
}


@pytest.fixture(scope="module")
def studio() -> Engine:
    return Engine(KnowledgeBase.model_validate(STUDIO))


@pytest.mark.parametrize(
    ("reply", "query"),
    [
        # the day chose the attribute (saturday_hours)
        ("On Saturdays we're open from 9am until 3pm.", "When are you open?"),
        # the reference is a Monday: "today" chose monday_hours, "Thursday" thursday_hours
        ("Sorry, today we're closed; on Thursday we close at 6pm.", ""),
        # the claimed event is held on the day today is
        ("Yes, today's Wheel Taster costs £35.", "Is there a class today?"),
    ],
)
def test_a_day_read_with_a_claim_of_its_sentence_is_not_unread(studio, reply, query):
    result = verdict(studio, reply, query)
    assert not result.unread_values
    assert result.recommendation.kind == R.Accept


def test_a_day_the_claimed_event_is_not_held_on_stays_unread(studio):
    result = verdict(studio, "Tomorrow's Glazing Evening costs £28.")
    assert [u.text.lower()[:8] for u in result.unread_values] == ["tomorrow"]
    assert result.recommendation.kind == R.AcceptWithFlags


def test_a_yes_no_question_about_a_day_is_answered_by_that_days_hours(studio):
    result = verdict(studio, "I'm afraid we're closed on Mondays.", "Can I drop in on Monday?")
    assert result.coherence.qud_relevance.addresses_qud
    assert result.recommendation.kind == R.Accept


def test_how_much_before_the_verb_asks_a_price_and_before_a_noun_an_amount():
    assert classify_question("How much is the glazing evening?").head == "much"
    assert classify_question("How much does it cost?").head == "much"
    assert classify_question("How much clay do I get?").head == "much of"


def test_a_price_question_answered_without_a_price_is_regenerated(studio):
    result = verdict(
        studio, "The Glazing Evening lasts 90 minutes on Thursdays.", "How much is the glazing?"
    )
    assert result.coherence.qud_relevance.expected_answer == "money"
    assert result.recommendation.kind == R.Regenerate


def test_a_price_question_answered_with_the_price_is_accepted(studio):
    result = verdict(studio, "The Glazing Evening is £28.", "How much is the glazing evening?")
    assert result.recommendation.kind == R.Accept


def test_a_length_is_no_answer_to_what_time(studio):
    result = verdict(
        studio, "The Wheel Taster is £35 and lasts 2 hours.", "What time do you close on Thursday?"
    )
    assert result.recommendation.kind == R.Regenerate


def test_a_clock_time_answers_what_time(studio):
    result = verdict(studio, "On Thursdays we close at 6pm.", "What time do you close on Thursday?")
    assert result.recommendation.kind == R.Accept


def test_a_weekday_that_says_which_days_hours_is_no_value_of_an_event(studio):
    # an event holds weekdays (runs_on); "Thursdays" here only says whose hours are meant
    result = verdict(studio, "On Thursdays we're open from 10am until 6pm.")
    assert not [f for f in result.hallucination_flags if f.content == "Thursdays"]
    assert {c.predicate for c in result.factual_validation.claims} == {
        "thursday_hours_start",
        "thursday_hours_end",
    }
    assert result.recommendation.kind == R.Accept


def test_a_weekday_said_of_a_named_event_is_still_its_value(studio):
    result = verdict(studio, "The Wheel Taster runs on Saturdays.")
    assert [(c.predicate, c.object) for c in result.factual_validation.claims] == [
        ("runs_on", "Saturdays")
    ]
    assert result.recommendation.kind == R.CorrectAndDeliver


def test_a_cue_of_another_kind_than_the_answer_asked_for_is_not_what_is_asked(studio):
    # "runs" names runs_on (a day), but "who" asks for a person: the role answers it
    result = verdict(studio, "Ada Lind is our head potter.", "Who runs the pottery side?")
    assert not result.coherence.qud_relevance.answers_another_question
    assert result.recommendation.kind == R.Accept


LAUNDRETTE = {
    "entities": [
        {
            "id": "suds",
            "name": "Suds Laundrette",
            "type": "Organization",
            "attributes": {
                "address": "2 Tanner Lane, Brill",
                "mon": "closed",
                "thu_open": "7:00",
                "thu_close": "21:00",
            },
        },
        {
            "id": "duvet",
            "name": "Duvet Wash",
            "type": "Object",
            "attributes": {"price": "£12", "collected_on": ["Tuesday", "Friday"]},
        },
    ]
}


@pytest.fixture(scope="module")
def laundrette() -> Engine:
    return Engine(KnowledgeBase.model_validate(LAUNDRETTE))


def test_columns_named_by_short_weekdays_take_the_days_hours(laundrette):
    result = verdict(laundrette, "On Thursdays we open at 7am and close at 9pm.")
    assert {c.predicate for c in result.factual_validation.claims} == {"thu_open", "thu_close"}
    assert result.recommendation.kind == R.Accept


def test_a_day_closed_in_a_short_weekday_column_is_no_collection_day(laundrette):
    result = verdict(laundrette, "Sorry, we're closed on Mondays.", "Are you open on Monday?")
    assert [(c.predicate, c.object) for c in result.factual_validation.claims] == [
        ("mon", "closed")
    ]
    assert result.recommendation.kind == R.Accept


def test_an_organisation_with_a_column_per_weekday_speaks_as_we():
    kiosk = Engine(
        KnowledgeBase.model_validate(
            {
                "entities": [
                    {
                        "id": "kiosk",
                        "name": "Keyline Kiosk",
                        "type": "Organization",
                        "attributes": {
                            "address": "3 Tanyard Street, Hollin",
                            "tuesday": "9:00 - 17:00",
                            "sunday": "closed",
                        },
                    },
                    {"id": "cut", "name": "Key Cutting", "type": "Object", "attributes": {}},
                ]
            }
        )
    )
    result = verdict(kiosk, "We're at 3 Tanyard Street in Hollin. We're closed on Sundays.")
    claims = {(c.subject_id, c.predicate) for c in result.factual_validation.claims}
    assert claims == {("kiosk", "address"), ("kiosk", "sunday")}
    assert result.recommendation.kind == R.Accept
