"""Weekdays, closed days and durations in a user's own columns: "open" said of a day against a
column of closed days, a weekday that picks its day's hours, a weekday against a column of
weekdays beside a full date, and durations written as modifiers or in months."""

from __future__ import annotations

import pytest
from reading_domain import REFERENCE, read  # noqa: I001

from replyguard.engine import Engine
from replyguard.kb import kb_from_csv

# A pottery studio: hours per weekday, the days it is shut, a weekly class, a membership.
STUDIO = "\n".join(
    [
        "name,type,address,tuesday_hours,saturday_hours,closed_on,day,next_session,start,"
        "length,fee,valid_for",
        'Kiln Yard Pottery,Organization,"4 Tanner Close, Brisford",10:00 - 18:00,09:00 - 13:00,'
        "Monday|Sunday,,,,,,",
        "Wheel Throwing,Event,,,,,Wednesday,2026-12-09,18:30,2 hours,£40,",
        "Studio Membership,Object,,,,,,,,,£90,3 months",
    ]
)


@pytest.fixture(scope="module")
def studio() -> Engine:
    return Engine(kb_from_csv(STUDIO, origin="studio.csv"))


def test_open_on_a_day_denies_it_is_a_closed_day(studio: Engine):
    # "open" where the KB names its days by "closed": the day said open is no closed day
    assert read(studio, "We're open again on Tuesday from 10am.") == [
        ("Kiln Yard Pottery", "closed_on", "Tuesday", "Verified"),
        ("Kiln Yard Pottery", "tuesday_hours_start", "10am", "Verified"),
    ]
    assert read(studio, "Sorry about that, we're open on Sundays.")[0][1:] == (
        "closed_on",
        "Sundays",
        "Contradicted",
    )


def test_open_denies_no_time_said_with_it(studio: Engine):
    # the denial is of the closed days only: "until 6pm" is the day's closing time, affirmed
    result = studio.postprocess(
        "On Tuesdays we're open until 6pm.", "", [], reference_time=REFERENCE
    )
    claims = [
        (c.predicate, c.negated, v.status.kind)
        for c, v in zip(
            result.factual_validation.claims,
            result.factual_validation.claim_validations,
            strict=True,
        )
    ]
    assert claims == [("tuesday_hours_end", False, "Verified")]
    # the weekday chose the day's hours: it was read, it is no unread value
    assert result.unread_values == []


def test_a_preposition_in_a_column_name_names_no_column(studio: Engine):
    # "on" is part of "closed_on", but "busy on Saturdays" says nothing of closed days
    assert read(studio, "We usually get busy on Saturdays.") == []


def test_a_weekday_against_a_column_of_weekdays(studio: Engine):
    # the class has a weekday column and a date column; a weekday is the weekday column's value
    assert read(studio, "Wheel Throwing runs on Thursday evenings.") == [
        ("Wheel Throwing", "day", "Thursday", "Contradicted")
    ]
    assert read(studio, "Wheel Throwing starts at 6:30pm on Wednesdays.") == [
        ("Wheel Throwing", "start", "6:30pm", "Verified"),
        ("Wheel Throwing", "day", "Wednesdays", "Verified"),
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Wheel Throwing is a 2-hour class.", ("length", "2-hour", "Verified")),
        ("Wheel Throwing is a three-hour class.", ("length", "three-hour", "Contradicted")),
        ("Wheel Throwing costs £40 for a 120-minute class.", ("length", "120-minute", "Verified")),
        ("Studio Membership is valid for 3 months.", ("valid_for", "3 months", "Verified")),
        ("Studio Membership is valid for six months.", ("valid_for", "six months", "Contradicted")),
    ],
)
def test_durations_as_modifiers_and_in_months(studio: Engine, text, expected):
    assert expected in [c[1:] for c in read(studio, text)]


def test_a_wrong_number_of_months_is_corrected_whole(studio: Engine):
    result = studio.postprocess(
        "Studio Membership is valid for 6 months.", "", [], reference_time=REFERENCE
    )
    assert result.corrected is not None
    assert result.corrected.corrected == "Studio Membership is valid for 3 months."


def test_open_from_one_day_to_another_denies_both_are_closed_days(studio: Engine):
    assert [c[1:] for c in read(studio, "We're open Tuesday to Saturday.")] == [
        ("closed_on", "Tuesday", "Verified"),
        ("closed_on", "Saturday", "Verified"),
    ]
    assert [c[1:] for c in read(studio, "We're open Tuesday to Sunday.")][1] == (
        "closed_on",
        "Sunday",
        "Contradicted",
    )
