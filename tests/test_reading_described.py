"""A person named as a value and then described ("taught by Ana Ruiz, our ballet teacher"), and
the end of a day's hours said by "until" alone ("open late, until 9pm")."""

from __future__ import annotations

import pytest
from reading_domain import read  # noqa: I001

from replyguard.engine import Engine
from replyguard.kb import kb_from_csv

# A dance studio: hours on two weekdays, two staff with roles, a class with its teacher.
DANCE = "\n".join(
    [
        "name,type,address,thursday_open,thursday_close,saturday_open,saturday_close,role,teacher",
        'Fernhill Dance Studio,Organization,"9 Mill Wynd, Ostby",09:00,21:00,10:00,14:00,,',
        "Ana Ruiz,Person,,,,,,Ballet Teacher,",
        "Joe Park,Person,,,,,,Studio Manager,",
        "Beginners Ballet,Event,,,,,,,Ana Ruiz",
    ]
)


@pytest.fixture(scope="module")
def dance() -> Engine:
    return Engine(kb_from_csv(DANCE, origin="dance.csv"))


@pytest.mark.parametrize(
    ("text", "role"),
    [
        ("Beginners Ballet is taught by Ana Ruiz, our ballet teacher.", "Verified"),
        ("beginners ballet is taught by ana ruiz, our studio manager.", "Contradicted"),
    ],
)
def test_a_name_said_as_a_value_then_described_by_our(dance: Engine, text, role):
    # the description after "our" is the person's, not the class's (which has no role)
    claims = read(dance, text)
    assert claims[0][1:] == ("teacher", claims[0][2], "Verified")
    assert claims[1][0] == "Ana Ruiz"
    assert claims[1][1] == "role"
    assert claims[1][3] == role


def test_our_after_a_comma_with_no_name_before_is_still_us(dance: Engine):
    # no name ends the clause before "our": the value is the studio's own
    assert read(dance, "Thanks for asking, our address is 9 Mill Wynd, Ostby.") == [
        ("Fernhill Dance Studio", "address", "9 Mill Wynd, Ostby", "Verified")
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("On Thursdays we stay open late, until 9pm.", ("thursday_close", "9pm", "Verified")),
        ("On Saturdays we're open until 3pm.", ("saturday_close", "3pm", "Contradicted")),
    ],
)
def test_until_names_the_closing_bound_of_the_day_said(dance: Engine, text, expected):
    assert [c[1:] for c in read(dance, text)] == [expected]


def test_a_value_right_before_a_name_modifies_it():
    # "the £12 beginners ballet": the price is the class's, though "the" opens the clause
    priced = Engine(
        kb_from_csv("name,type,teacher,fee\nBeginners Ballet,Event,Ana Ruiz,£12", origin="d.csv")
    )
    assert read(priced, "The £12 beginners ballet class runs on Mondays.")[0] == (
        "Beginners Ballet",
        "fee",
        "£12",
        "Verified",
    )
    assert read(priced, "The £15 beginners ballet is great fun.")[0][1:] == (
        "fee",
        "£15",
        "Contradicted",
    )
