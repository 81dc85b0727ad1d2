"""The short weekday forms ("tue", "thurs", "sat") are listed once, in the temporal grammar: the
column-name reading (`day_words`), the grammar's own reading of a reply and the organisation
rules (metta/entities.metta, full weekday names only) must agree on them."""

from __future__ import annotations

from datetime import datetime

import pytest

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase
from replyguard.text.temporal import WEEKDAYS, day_words, find_temporal, names_weekday

MONDAY = datetime(2027, 2, 1, 9, 0)


@pytest.mark.parametrize("day", WEEKDAYS)
def test_every_short_form_of_a_column_is_read_by_the_grammar_as_its_day(day):
    forms = day_words(day) - {day}
    assert forms, day
    for form in forms:
        mentions = find_temporal(f"See you on {form.capitalize()}.", MONDAY)
        assert [m.value for m in mentions] == [day], form


@pytest.mark.parametrize(("column", "day"), [("tues_last_orders", "tuesday"), ("thur", "thursday")])
def test_a_column_named_by_a_short_form_is_about_that_day(column, day):
    assert names_weekday(column, day)
    assert not any(names_weekday(column, d) for d in WEEKDAYS if d != day)


def test_an_ordinary_word_spelt_like_a_short_form_is_no_day():
    assert find_temporal("Thus the kiln is cooling.", MONDAY) == []


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(
        KnowledgeBase.model_validate(
            {
                "entities": [
                    {
                        "id": "kiln",
                        "name": "Marlpit Pottery",
                        "type": "Organization",
                        "attributes": {
                            "street": "5 Clay Row, Hamble",
                            "weds": "10:00 - 16:00",
                            "sat": "closed",
                        },
                    },
                    {"id": "class", "name": "Wheel Taster", "type": "Event", "attributes": {}},
                ]
            }
        )
    )


def test_the_rules_name_each_weekday_once_and_never_a_short_form(engine):
    facts = engine.host.facts("organisation-detail")
    listed = {str(w) for kind, w in facts if str(kind) == "hours"}
    assert set(WEEKDAYS) <= listed
    short = {form for day in WEEKDAYS for form in day_words(day)} - set(WEEKDAYS)
    assert not listed & short


def test_a_column_per_short_weekday_makes_the_organisation_speak_as_we(engine):
    result = engine.postprocess("We're closed on Saturdays.", "", [], reference_time=MONDAY)
    claims = {(c.subject_id, c.predicate) for c in result.factual_validation.claims}
    assert claims == {("kiln", "sat")}
