"""Issue 11, a gym of our own (a domain no suite or dataset has), handed in as CSV: "open" that
denies the closed days, a day said relatively that picks its weekday's hours, a clock time
said without am/pm, one KB value said twice in two forms, lengths in the unit a column's name
carries ("a 12-month membership" of contract_months), a two-letter unit joined to its number
("50GB"), the unit a rate comes by ("50GB of storage a month"), money in words the KB also
holds as a number, a thing named by the sentence after the one that gives its values ("There's
a class at 7pm on Thursday. It's Pedal Power."), "our front desk" told of the gym's own hours,
and a "what classes" question answered by a class.

Every case fails on b383040 (main before these changes); the verdicts were written before the
code was run.
"""

from __future__ import annotations

from datetime import datetime

import pytest
from conftest import flagged, verdicts

from replyguard.engine import Engine
from replyguard.kb import kb_from_csv
from replyguard.models import HallucinationType

TUESDAY = datetime(2026, 12, 1, 10, 0)  # tomorrow is Wednesday; the gym is closed on Sundays
GYM = """id,name,type,aliases,phone,monday_open,monday_close,tuesday_open,tuesday_close,\
wednesday_open,wednesday_close,thursday_open,thursday_close,friday_open,friday_close,\
saturday_open,saturday_close,closed_days,open_days,start_time,days,room,contract_months,\
monthly_price,storage_gb,return_time
forge,Forge Fitness,Organization,Forge,01632 555 870,6:00 am,10:00 pm,6:00 am,10:00 pm,\
6:00 am,10:00 pm,6:00 am,10:00 pm,6:00 am,9:00 pm,8:00 am,4:00 pm,Sunday,,,,,,,,
cafe,Forge Café,Location,the café,,,,,,,,,,,,,,,Monday|Wednesday|Friday,,,,,,,
pedal,Pedal Power,Event,spin class,,,,,,,,,,,,,,,,7:30 pm,Thursday,Studio 2,,,,
stretch,Sunrise Stretch,Event,yoga class,,,,,,,,,,,,,,,,6:30 am,Tuesday,Studio 1,,,,
annual,Annual Membership,Object,annual plan,,,,,,,,,,,,,,,,,,,12,£32,,
flexi,Flexi Membership,Object,flexi plan,,,,,,,,,,,,,,,,,,,1,£45,,
locker,Cloud Locker,Object,video locker,,,,,,,,,,,,,,,,,,,,£12,50,
retreat,Lakeside Retreat,Event,weekend retreat,,,,,,,,,,,,,,,,8:00 am,Saturday,,,£95,,6:00 pm
"""


@pytest.fixture(scope="module")
def gym():
    return Engine(kb_from_csv(GYM, origin="gym.csv"))


def check(engine, reply, query=""):  # noqa: ANN001, ANN201
    return engine.postprocess(reply, query, [], reference_time=TUESDAY)


@pytest.mark.parametrize(
    "reply",
    [
        "Yes, we're open tomorrow from 6am until 10pm.",
        "Yes, we're open tomorrow, Wednesday, from 6am until 10pm.",
        "We're closed on Sundays, but we're open again on Monday from 6am.",
    ],
)
def test_open_on_a_day_denies_that_it_is_a_closed_day(gym, reply):
    result = check(gym, reply, "Are you open tomorrow?")
    assert flagged(result, HallucinationType.ContradictsFact) == []
    assert result.recommendation.kind == "Accept"


def test_open_on_the_closed_day_is_contradicted(gym):
    result = check(gym, "Yes, we're open on Sunday.", "Are you open on Sunday?")
    assert verdicts(result) == {"closed_days=Sunday": "Contradicted"}


def test_a_day_said_relatively_before_the_hours_picks_its_weekday(gym):
    result = check(gym, "We are, and tomorrow we're open 6am to 10pm.", "Are you open tomorrow?")
    assert verdicts(result) == {
        "wednesday_open=6am": "Verified",
        "wednesday_close=10pm": "Verified",
    }


def test_a_time_said_without_am_or_pm_may_be_either_half_of_the_day(gym):
    right = check(gym, "Pedal power starts at half past seven.", "When is pedal power?")
    assert verdicts(right) == {"start_time=half past seven": "Verified"}
    wrong = check(gym, "Pedal power starts at half past eight.", "When is pedal power?")
    assert verdicts(wrong) == {"start_time=half past eight": "Contradicted"}
    assert wrong.corrected.corrected == "Pedal power starts at 7:30 pm."
    stated = check(gym, "Pedal power starts at 7:30am.", "When is pedal power?")
    assert verdicts(stated) == {"start_time=7:30am": "Contradicted"}


def test_one_kb_value_said_twice_is_no_inconsistency(gym):
    result = check(
        gym,
        "Sunrise stretch runs every Tuesday, so today's has already finished.",
        "When is sunrise stretch?",
    )
    assert flagged(result, HallucinationType.LogicalInconsistency) == []
    assert result.recommendation.kind == "Accept"


def test_a_length_is_read_in_the_unit_its_column_is_named_for(gym):
    right = check(
        gym, "The annual plan is a 12-month membership at £32 a month.", "Tell me about it"
    )
    assert verdicts(right) == {
        "contract_months=12-month": "Verified",
        "monthly_price=£32": "Verified",
    }
    wrong = check(
        gym, "The annual plan is a 24-month membership at £32 a month.", "Tell me about it"
    )
    assert verdicts(wrong) == {
        "contract_months=24-month": "Contradicted",
        "monthly_price=£32": "Verified",
    }
    assert wrong.corrected.corrected == "The annual plan is a 12-month membership at £32 a month."
    assert wrong.recommendation.kind == "CorrectAndDeliver"


def test_a_two_letter_unit_joined_to_its_number_names_its_column(gym):
    result = check(gym, "The video locker gives you 40GB of storage for £12 a month.", "How big?")
    assert verdicts(result) == {"storage_gb=40GB": "Contradicted", "monthly_price=£12": "Verified"}


def test_the_unit_an_amount_comes_by_is_no_length(gym):
    result = check(gym, "The video locker gives you 50GB of storage a month.", "How big is it?")
    assert verdicts(result) == {"storage_gb=50GB": "Verified"}
    assert result.recommendation.kind == "Accept"


def test_money_in_words_may_start_with_a_number_the_kb_holds(gym):
    result = check(gym, "You can add the video locker for twelve pounds a month.", "How much?")
    assert verdicts(result) == {"monthly_price=twelve pounds": "Verified"}
    assert result.recommendation.kind == "Accept"


def test_back_at_is_the_return_time(gym):
    result = check(gym, "The weekend retreat starts at 8am and is back at 7pm.", "When is it back?")
    assert verdicts(result) == {"start_time=8am": "Verified", "return_time=7pm": "Contradicted"}


def test_a_sentence_naming_nothing_is_about_what_the_next_one_names(gym):
    right = check(gym, "There's a class at 7.30pm on Thursday in Studio 2. It's Pedal Power.", "?")
    assert verdicts(right) == {
        "start_time=7.30pm": "Verified",
        "days=Thursday": "Verified",
        "room=Studio 2": "Verified",
    }
    wrong = check(gym, "There's a class at 8pm on Thursday. It's the class Pedal Power.", "?")
    assert verdicts(wrong) == {"start_time=8pm": "Contradicted", "days=Thursday": "Verified"}


def test_our_part_told_of_the_organisations_own_values_is_not_invented(gym):
    result = check(
        gym, "Our front desk is open from 8am until 4pm on Saturdays.", "Saturday hours?"
    )
    assert flagged(result, HallucinationType.NonexistentEntity) == []
    assert result.recommendation.kind == "Accept"


def test_days_said_with_the_organisations_claims_are_the_days_it_has_hours_on(gym):
    open_days = check(gym, "You can reach the front desk on 01632 555 870, Monday to Saturday.")
    assert verdicts(open_days) == {"phone=01632 555 870": "Verified"}
    assert open_days.unread_values == []
    assert open_days.recommendation.kind == "Accept"
