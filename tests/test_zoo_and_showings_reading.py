"""Issue 11, two domains of our own: a zoo handed in as CSV, and the showings a cinema search
returned (rows named by the film, as a service returns them).

Reading: a range's high end goes with its low end ("you'll need between 3 and 8 people" is no
number of the user's); a code is read by its shape ("ZX4 9QT" of the postcode ZX4 9TQ); "you
can get on at ..." does something, it supposes no state; a name made of words of a KB name the
reply gives in full is part of that thing ("the Aviary" of "The Aviary Walk"); "a child ticket
is £6" beside one named thing is its child_price, though "child" names only the zoo's
child_ages; a day said with
a weekday or weekend price is read; money said in one hyphenated word ("a ten-pound deposit");
a bare number after an unknown name is part of it ("at Century 16"); "the theater" of a
theater_name column is the row in focus.

Every case fails on b383040 (main before these changes); verdicts written before the run.
"""

from __future__ import annotations

from datetime import datetime

import pytest
from conftest import flagged, verdicts

from replyguard.engine import Engine
from replyguard.kb import kb_from_csv, kb_from_document
from replyguard.models import HallucinationType, Turn

TUESDAY = datetime(2026, 12, 1, 10, 0)
ZOO = """id,name,type,aliases,postcode,phone,deposit,weekday_price,weekend_price,\
min_people,max_people,pickup_points,duration,child_ages,child_price
ashby,Ashby Zoo,Organization,the zoo,ZX4 9TQ,01632 555 120,£10,,,,,,,3 to 15,
walk,The Aviary Walk,Event,bird walk,,,,£8,£11,,,,45 minutes,,£5
keeper,Keeper for a Day,Event,keeper experience,,,,£95,£120,3,8,,4 hours,,
train,Safari Train,Event,the little train,,,,£3,£3,,,Main Gate|Lion Lodge,20 minutes,,£2
"""


@pytest.fixture(scope="module")
def zoo():
    return Engine(kb_from_csv(ZOO, origin="zoo.csv"))


def check(engine, reply, query="", turns=None):  # noqa: ANN001, ANN201
    return engine.postprocess(reply, query, turns or [], reference_time=TUESDAY)


def test_a_ranges_high_end_goes_with_its_low_end(zoo):
    result = check(
        zoo, "For keeper for a day you'll need between 3 and 8 people.", "How many can come?"
    )
    assert verdicts(result) == {"min_people=3": "Verified", "max_people=8 people": "Verified"}
    assert result.unread_values == []


def test_a_code_is_read_by_its_shape(zoo):
    right = check(zoo, "Our postcode is ZX4 9TQ.", "What's your postcode?")
    assert verdicts(right) == {"postcode=ZX4 9TQ": "Verified"}
    wrong = check(zoo, "Our postcode is ZX4 9QT.", "What's your postcode?")
    assert verdicts(wrong) == {"postcode=ZX4 9QT": "Contradicted"}
    assert wrong.corrected.corrected == "Our postcode is ZX4 9TQ."


def test_you_can_get_on_at_supposes_no_state(zoo):
    result = check(
        zoo, "You can get on the little train at the main gate or lion lodge.", "Where from?"
    )
    assert flagged(result, HallucinationType.UnsupportedClaim) == []
    assert result.recommendation.kind == "Accept"


def test_a_name_of_words_of_a_name_said_in_full_is_its_part(zoo):
    result = check(
        zoo, "The Aviary Walk takes 45 minutes and the Aviary is lovely.", "How long is it?"
    )
    assert flagged(result, HallucinationType.NonexistentEntity) == []


def test_a_day_said_with_a_weekday_or_weekend_price_is_read(zoo):
    result = check(
        zoo, "The bird walk is £8 Monday to Friday and £11 on Saturdays.", "How much is it?"
    )
    assert verdicts(result) == {"weekday_price=£8": "Verified", "weekend_price=£11": "Verified"}
    assert result.unread_values == []
    assert result.recommendation.kind == "Accept"


def test_money_in_one_hyphenated_word(zoo):
    right = check(zoo, "We take a ten-pound deposit when you book.", "Is there a deposit?")
    assert verdicts(right) == {"deposit=ten-pound": "Verified"}
    wrong = check(zoo, "We take a twenty-pound deposit when you book.", "Is there a deposit?")
    assert verdicts(wrong) == {"deposit=twenty-pound": "Contradicted"}


# the showings a cinema search returned, as a service returns them: rows named by the film
SHOWINGS = {
    "entities": [
        {
            "id": "R1",
            "name": "Marrow Lane",
            "attributes": {
                "theater_name": "Palace Picture House",
                "street_address": "14 Quarry Road",
                "show_time": "19:30",
                "genre": "Drama",
            },
        }
    ],
    "schema": {"show_time": {"value_type": "time"}},
}


@pytest.fixture(scope="module")
def showings():
    return Engine(kb_from_document(SHOWINGS, origin="showings"))


def test_a_bare_number_after_an_unknown_name_is_part_of_it(showings):
    result = check(showings, "There is 1 showing at 7:30 pm at Century 16.", "When is it on?")
    assert verdicts(result) == {
        "show_time=7:30 pm": "Verified",
        "theater_name=Century 16": "Contradicted",
    }
    assert flagged(result, HallucinationType.NonexistentEntity) == []


def test_the_thing_a_name_column_names_is_the_row_in_focus(showings):
    turns = [Turn(speaker="user", text="Book two tickets for Marrow Lane")]
    right = check(showings, "Done. The theater is at 14 Quarry Road.", "Where is it?", turns)
    assert verdicts(right) == {"street_address=14 Quarry Road": "Verified"}
    wrong = check(showings, "Done. The theater is at 3 Mill Lane.", "Where is it?", turns)
    assert verdicts(wrong) == {"street_address=3 Mill Lane": "Contradicted"}
    assert wrong.corrected.corrected == "Done. The theater is at 14 Quarry Road."


def test_words_of_a_cue_that_cannot_take_the_value_name_the_named_things_column(zoo):
    reply = "The bird walk takes 45 minutes, and a child ticket is £{}."
    right = check(zoo, reply.format(5), "How much for my son?")
    assert verdicts(right) == {"duration=45 minutes": "Verified", "child_price=£5": "Verified"}
    wrong = check(zoo, reply.format(6), "How much for my son?")
    assert verdicts(wrong) == {"duration=45 minutes": "Verified", "child_price=£6": "Contradicted"}


def test_an_amount_said_as_a_total_over_a_count_is_worked_out_not_unread(zoo):
    result = check(
        zoo,
        "Keeper for a day is £95 on weekdays, so three of you would pay £285 in total.",
        "How much for three of us?",
    )
    assert verdicts(result) == {"weekday_price=£95": "Verified"}
    assert result.unread_values == []
    assert result.recommendation.kind == "Accept"
