"""Claims read against the columns a user names for their own business, in three small KBs of
our own (a pottery studio, a dance school, a leisure pool):

- "open" said of a day against a column of closed days, denying only what that column takes;
  a weekday that picks its day's hours; a weekday against a column of weekdays beside a full
  date; "until" naming the closing bound of the day said;
- durations as modifiers ("a 90-minute class") and in months;
- a person named as a value and then described ("taught by Ana Ruiz, our ballet teacher"); a
  value right before a name modifying it ("the £12 beginners ballet");
- things of one kind named short ("juniors" for "Junior Swim" beside "Adult Swim"; "the
  session" of the one session)."""

from __future__ import annotations

from functools import cache

import pytest
from reading_domain import REFERENCE, read  # noqa: I001

from replyguard.engine import Engine
from replyguard.kb import kb_from_csv

# A pottery studio: hours per weekday, the days it is shut, a weekly class, a membership.
STUDIO = """name,type,address,tuesday_hours,saturday_hours,closed_on,day,next_session,start,\
length,fee,valid_for
Kiln Yard Pottery,Organization,"4 Tanner Close, Brisford",10:00 - 18:00,09:00 - 13:00,\
Monday|Sunday,,,,,,
Wheel Throwing,Event,,,,,Wednesday,2026-12-09,18:30,2 hours,£40,
Studio Membership,Object,,,,,,,,,£90,3 months"""

# A dance school: hours on two weekdays, two staff with roles, a class with its teacher and
# the date its term starts.
DANCE = """name,type,address,thursday_open,thursday_close,saturday_open,saturday_close,role,\
teacher,fee,term_starts
Fernhill Dance Studio,Organization,"9 Mill Wynd, Ostby",09:00,21:00,10:00,14:00,,,,
Ana Ruiz,Person,,,,,,Ballet Teacher,,,
Joe Park,Person,,,,,,Studio Manager,,,
Beginners Ballet,Event,,,,,,,Ana Ruiz,£12,2027-01-11"""

# A leisure pool: three swims priced by who swims, one session, a lifeguard.
POOL = """name,type,price,length,role
Adult Swim,Object,£5.10,,
Junior Swim,Object,£3.20,,
Senior Swim,Object,£4.00,,
Aqua Aerobics Session,Event,£6.50,45 minutes,
Rhona Dale,Person,,,Head Lifeguard"""


@cache
def kb(text: str) -> Engine:
    return Engine(kb_from_csv(text, origin="user.csv"))


def said(text: str, reply: str) -> list[tuple[str, str, str]]:
    """(attribute, claimed value, verdict) of each claim of a reply against a KB."""
    return [c[1:] for c in read(kb(text), reply)]


# ---- weekdays and closed days


def test_open_on_a_day_denies_it_is_a_closed_day():
    assert read(kb(STUDIO), "We're open again on Tuesday from 10am.") == [
        ("Kiln Yard Pottery", "closed_on", "Tuesday", "Verified"),
        ("Kiln Yard Pottery", "tuesday_hours_start", "10am", "Verified"),
    ]
    assert said(STUDIO, "Sorry about that, we're open on Sundays.")[0] == (
        "closed_on",
        "Sundays",
        "Contradicted",
    )


def test_open_from_one_day_to_another_denies_both_are_closed_days():
    assert said(STUDIO, "We're open Tuesday to Saturday.") == [
        ("closed_on", "Tuesday", "Verified"),
        ("closed_on", "Saturday", "Verified"),
    ]
    assert said(STUDIO, "We're open Tuesday to Sunday.")[1] == (
        "closed_on",
        "Sunday",
        "Contradicted",
    )


def test_open_denies_no_time_said_with_it():
    # the denial is of the closed days only: "until 6pm" is the day's closing time, affirmed
    result = kb(STUDIO).postprocess(
        "On Tuesdays we're open until 6pm.", "", [], reference_time=REFERENCE
    )
    found = result.factual_validation
    assert [
        (c.predicate, c.negated, v.status.kind)
        for c, v in zip(found.claims, found.claim_validations, strict=True)
    ] == [("tuesday_hours_end", False, "Verified")]
    # the weekday chose the day's hours: it was read, it is no unread value
    assert result.unread_values == []


def test_a_preposition_in_a_column_name_names_no_column():
    # "on" is part of "closed_on", but "busy on Saturdays" says nothing of closed days
    assert said(STUDIO, "We usually get busy on Saturdays.") == []


def test_a_weekday_against_a_column_of_weekdays():
    # the class has a weekday column and a date column; a weekday is the weekday column's value
    assert said(STUDIO, "Wheel Throwing runs on Thursday evenings.") == [
        ("day", "Thursday", "Contradicted")
    ]
    assert said(STUDIO, "Wheel Throwing starts at 6:30pm on Wednesdays.") == [
        ("start", "6:30pm", "Verified"),
        ("day", "Wednesdays", "Verified"),
    ]


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("On Thursdays we stay open late, until 9pm.", ("thursday_close", "9pm", "Verified")),
        ("On Saturdays we're open until 3pm.", ("saturday_close", "3pm", "Contradicted")),
    ],
)
def test_until_names_the_closing_bound_of_the_day_said(reply, expected):
    assert said(DANCE, reply) == [expected]


# ---- durations


DURATIONS = {  # a reply -> a claim it makes
    "Wheel Throwing is a 2-hour class.": ("length", "2-hour", "Verified"),
    "Wheel Throwing is a three-hour class.": ("length", "three-hour", "Contradicted"),
    "Wheel Throwing costs £40 for a 120-minute class.": ("length", "120-minute", "Verified"),
    "Studio Membership is valid for 3 months.": ("valid_for", "3 months", "Verified"),
    "Studio Membership is valid for six months.": ("valid_for", "six months", "Contradicted"),
}


@pytest.mark.parametrize(("reply", "expected"), DURATIONS.items())
def test_durations_as_modifiers_and_in_months(reply, expected):
    assert expected in said(STUDIO, reply)


def test_a_wrong_number_of_months_is_corrected_whole():
    result = kb(STUDIO).postprocess(
        "Studio Membership is valid for 6 months.", "", [], reference_time=REFERENCE
    )
    assert result.corrected is not None
    assert result.corrected.corrected == "Studio Membership is valid for 3 months."


# ---- descriptions and modifiers


@pytest.mark.parametrize(
    ("reply", "role"),
    [
        ("Beginners Ballet is taught by Ana Ruiz, our ballet teacher.", "Verified"),
        ("beginners ballet is taught by ana ruiz, our studio manager.", "Contradicted"),
    ],
)
def test_a_name_said_as_a_value_then_described_by_our(reply, role):
    # the description after "our" is the person's, not the class's (which has no role)
    claims = read(kb(DANCE), reply)
    assert [c[1] for c in claims] == ["teacher", "role"]
    assert claims[0][3] == "Verified"
    assert (claims[1][0], claims[1][3]) == ("Ana Ruiz", role)


def test_our_after_a_comma_with_no_name_before_is_still_us():
    assert read(kb(DANCE), "Thanks for asking, our address is 9 Mill Wynd, Ostby.") == [
        ("Fernhill Dance Studio", "address", "9 Mill Wynd, Ostby", "Verified")
    ]


def test_a_value_right_before_a_name_modifies_it():
    # "the £12 beginners ballet": the price is the class's, though "the" opens the clause
    assert said(DANCE, "The £12 beginners ballet class runs on Mondays.")[0] == (
        "fee",
        "£12",
        "Verified",
    )
    assert said(DANCE, "The £15 beginners ballet is great fun.")[0] == (
        "fee",
        "£15",
        "Contradicted",
    )


# ---- short names


def test_the_word_that_tells_siblings_apart_names_each():
    assert read(kb(POOL), "An adult swim is £5.10, and juniors are £3.20.") == [
        ("Adult Swim", "price", "£5.10", "Verified"),
        ("Junior Swim", "price", "£3.20", "Verified"),
    ]
    assert read(kb(POOL), "Adult swims are £5.10 and seniors are £4.50.")[1] == (
        "Senior Swim",
        "price",
        "£4.50",
        "Contradicted",
    )


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("The session lasts 45 minutes.", ("length", "45 minutes", "Verified")),
        ("our session lasts an hour.", ("length", "an hour", "Contradicted")),
    ],
)
def test_a_last_word_no_other_name_ends_with_names_it_after_the(reply, expected):
    assert read(kb(POOL), reply) == [("Aqua Aerobics Session", *expected)]


def test_a_word_of_a_kb_value_names_nothing():
    # "session" is also a word of a role here: "our session leader" is the role, not the session
    staffed = POOL.replace("Head Lifeguard", "Session Leader")
    assert read(kb(staffed), "Rhona Dale is our session leader.") == [
        ("Rhona Dale", "role", "session leader", "Verified")
    ]
    assert said(staffed, "The session lasts 45 minutes.") == []


def test_a_day_said_open_where_the_kb_has_that_days_hours_is_read():
    # "open" names thursday_open and saturday_open: the days that pick them are read
    def unread(reply: str) -> list[str]:
        result = kb(DANCE).postprocess(reply, "", [], reference_time=REFERENCE)
        return [u.text for u in result.unread_values]

    assert unread("We're open on Thursday and Saturday.") == []
    # the studio has no Sunday hours: a Sunday said open is checked by nothing
    assert unread("We're open on Thursday and Sunday.") == ["Sunday"]


# A market hall with hours per weekday, and a stall inside it with hours of its own.
HALL = """name,type,friday_open,friday_close,opening_hours,ages
Corn Exchange,Organization,08:00,18:00,,
Noodle Stall,Organization,,,11:00 am - 3:30 pm,
Junior Cookery Club,Event,,,,8-12"""


@pytest.mark.parametrize(("closing", "verdict"), [("3.30", "Verified"), ("4", "Contradicted")])
def test_a_cue_for_other_entities_columns_finds_the_entitys_own(closing, verdict):
    # "open" names the hall's friday_open; the stall has only opening_hours, and a range of
    # bare numbers is no "8-12" age range
    assert said(HALL, f"The Noodle Stall is open from 11 until {closing}.") == [
        ("opening_hours_start", "11", "Verified"),
        ("opening_hours_end", closing, verdict),
    ]


def test_a_last_word_the_name_also_opens_with_is_no_short_name():
    # "the Rovers" would open "the Rovers Vs Rovers match" and leave "Vs Rovers" a new name
    fixtures = kb("name,type,kick_off\nRovers Vs Rovers,Event,19:45")
    assert read(fixtures, "Is that the Rovers Vs Rovers match at 7:45pm?") == [
        ("Rovers Vs Rovers", "kick_off", "7:45pm", "Verified")
    ]


def test_numbers_a_kb_value_joins_by_spaces_keep_their_shape():
    # only a range of numbers ("8-12") is a shape every range fits; a phone's stays one value
    phoned = (
        "name,type,phone,ages\nNoodle Stall,Organization,07700 900461,\nJunior Club,Event,,8-12"
    )
    assert said(phoned, "You can call the Noodle Stall on 07700 900416.") == [
        ("phone", "07700 900416", "Contradicted")
    ]
