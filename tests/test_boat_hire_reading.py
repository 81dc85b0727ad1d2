"""Issue 11, a boat hire of our own (a domain no suite or dataset has): a range's two ends read
against one pair of columns, lengths and totals the reply works out, rates per unit ("£45 an
hour or £210 a day"), a day said with a cue for hours, people's roles in words of the reply's
own, the organisation in yes/no clauses, an entity named loosely ("we service boat engines"),
and what the user can only have.

Every case fails on 5f402a5 (main before these changes); the verdicts were written before the
code was run.
"""

from __future__ import annotations

from datetime import datetime

import pytest
from conftest import verdicts

from replyguard.engine import Engine
from replyguard.kb import kb_from_csv
from replyguard.models import HallucinationType, Turn

SATURDAY = datetime(2026, 12, 5, 10, 0)
# the hire firm's table as a user would hand it in: one row a thing, "|" between list items
BOATS = """id,name,type,aliases,phone,saturday_open,saturday_close,sunday_open,sunday_close,\
lunch_closed_from,lunch_closed_until,closed_days,picnic_delivery,dogs_welcome,hourly_rate,\
daily_rate,seats,engine,role,working_days,price,duration,days
otter,Otter Boat Hire,Organization,Otter,01632 777 410,8:00 am,6:00 pm,10:00 am,4:00 pm,\
12:30 pm,1:15 pm,Monday,no,yes,,,,,,,,,
kingfisher,Kingfisher Day Boat,Object,Kingfisher,,,,,,,,,,,£30,£140,6,electric,,,,,
heron,Heron Cruiser,Object,Heron,,,,,,,,,,,£45,£210,8,petrol,,,,,
mina,Mina Okoye,Person,Mina,,,,,,,,,,,,,,,Hire Desk Supervisor,Saturday|Sunday,,,
tom,Tom Bell,Person,Tom,,,,,,,,,,,,,,,Boat Mechanic,Tuesday|Friday,,,
safari,River Safari,Object,wildlife boat tour,,,,,,,,,,,,,,,,,£25,90 minutes,
servicing,Engine Servicing,Object,,,,,,,,,,,,,,,,,,£95,,Tuesday|Thursday
"""


@pytest.fixture(scope="module")
def boats():
    return Engine(kb_from_csv(BOATS, origin="boats.csv"))


def check(engine, reply, query="", turns=None):  # noqa: ANN001, ANN201
    return engine.postprocess(reply, query, turns or [], reference_time=SATURDAY)


def test_a_range_is_read_against_one_pair_of_bound_columns(boats):
    result = check(boats, "We close for lunch from 12:30pm to 1:15pm.", "Do you close for lunch?")
    assert verdicts(result) == {
        "lunch_closed_from=12:30pm": "Verified",
        "lunch_closed_until=1:15pm": "Verified",
    }


def test_between_one_time_and_another_is_a_range(boats):
    result = check(
        boats, "We close for lunch between 12:30pm and 1:15pm.", "Do you close for lunch?"
    )
    assert verdicts(result) == {
        "lunch_closed_from=12:30pm": "Verified",
        "lunch_closed_until=1:15pm": "Verified",
    }


def test_the_length_of_a_stated_range_is_worked_out_not_unread(boats):
    result = check(
        boats,
        "We close for 45 minutes at lunch, from 12:30pm to 1:15pm.",
        "Do you close for lunch?",
    )
    assert result.unread_values == []
    assert result.recommendation.kind == "Accept"


def test_a_rate_is_the_column_its_unit_names(boats):
    right = check(boats, "The Heron is £45 an hour or £210 a day.", "How much is the Heron?")
    assert verdicts(right) == {"hourly_rate=£45": "Verified", "daily_rate=£210": "Verified"}
    wrong = check(boats, "The Heron is £50 an hour or £200 a day.", "How much is the Heron?")
    assert verdicts(wrong) == {"hourly_rate=£50": "Contradicted", "daily_rate=£200": "Contradicted"}
    assert wrong.corrected.corrected == "The Heron is £45 an hour or £210 a day."


def test_a_day_said_with_a_cue_for_hours_chooses_them(boats):
    result = check(boats, "Yes, we're open tomorrow from 10am to 4pm.", "Are you open tomorrow?")
    assert verdicts(result) == {"sunday_open=10am": "Verified", "sunday_close=4pm": "Verified"}
    assert result.recommendation.kind == "Accept"


def test_a_role_in_the_replys_own_words_is_checked(boats):
    wrong = check(boats, "Tom Bell is our boat engineer.", "Who is Tom?")
    assert verdicts(wrong) == {"role=boat engineer": "Contradicted"}
    assert wrong.corrected.corrected == "Tom Bell is our Boat Mechanic."
    right = check(boats, "Tom is the mechanic.", "Who is Tom?")
    assert right.recommendation.kind == "Accept"


def _invented(result) -> list[str]:  # noqa: ANN001
    return [
        f.content
        for f in result.hallucination_flags
        if f.hallucination_type == HallucinationType.NonexistentEntity
    ]


def test_a_time_in_apposition_is_no_part_of_the_organisation(boats):
    result = check(boats, "Saturday, our busiest day, we open at 8am.", "When do you open?")
    assert _invented(result) == []
    assert verdicts(result) == {"saturday_open=8am": "Verified"}


def test_a_lower_case_name_set_off_after_a_role_is_invented(boats):
    result = check(
        boats, "our safety officer, jack reed, will brief you.", "Who does the briefing?"
    )
    assert _invented(result) == ["jack reed"]
    assert result.recommendation.kind == "Regenerate"


def test_the_organisation_speaks_in_a_yes_no_clause(boats):
    no = check(boats, "Sorry, we don't offer picnic delivery.", "Can you bring a picnic?")
    assert verdicts(no) == {"picnic_delivery=no": "Verified"}
    yes = check(boats, "Yes, we offer picnic delivery.", "Can you bring a picnic?")
    assert verdicts(yes) == {"picnic_delivery=yes": "Contradicted"}


def test_an_entity_named_by_its_words_in_other_forms(boats):
    result = check(
        boats, "We service boat engines on Tuesdays and Fridays.", "When do you do servicing?"
    )
    assert verdicts(result) == {"days=Tuesdays": "Verified", "days=Fridays": "Contradicted"}


def test_an_offer_of_another_value_than_the_only_one_the_user_can_have(boats):
    turns = [
        Turn(
            id="T1",
            speaker="user",
            text="We can only use electric boats, petrol isn't allowed there.",
        ),
        Turn(id="T2", speaker="assistant", text="Understood."),
    ]
    heron = check(boats, "The Heron Cruiser would be perfect for your group.", "Which boat?", turns)
    assert HallucinationType.ContradictsPrior in {
        f.hallucination_type for f in heron.hallucination_flags
    }
    assert heron.recommendation.kind == "Regenerate"
    kingfisher = check(
        boats, "The Kingfisher Day Boat would be perfect for your group.", "Which boat?", turns
    )
    assert kingfisher.recommendation.kind == "Accept"


def test_a_total_of_a_rate_over_a_count_of_its_unit_is_worked_out(boats):
    result = check(
        boats, "The Kingfisher is £30 per hour, so 3 hours would be £90.", "How much for 3 hours?"
    )
    assert verdicts(result) == {"hourly_rate=£30": "Verified"}
    assert result.recommendation.kind == "Accept"


def test_it_of_if_it_helps_points_at_nothing(boats):
    result = check(
        boats,
        "We have the Kingfisher and the Heron. If it helps, you can call us on 01632 777 410.",
        "What boats do you have?",
    )
    assert "AmbiguousReference" not in {i.issue_type for i in result.coherence.issues}


def test_a_thing_of_a_kind_only_an_alias_names_is_invented(boats):
    result = check(
        boats,
        "Yes, we offer the sunset boat tour on Fridays. It's £35 and lasts an hour.",
        "Do you do evening trips?",
    )
    assert any(name.startswith("sunset boat tour") for name in _invented(result))
    assert result.recommendation.kind == "Regenerate"


def test_values_of_another_kind_of_thing_describe_no_thing_of_this_kind(boats):
    result = check(boats, "We offer a sunset tour for £95 on Tuesdays.", "Do you do evening trips?")
    assert any(name.startswith("sunset tour") for name in _invented(result))


def test_money_said_in_words_is_money(boats):
    right = check(boats, "The Kingfisher is thirty pounds an hour.", "How much is the Kingfisher?")
    assert verdicts(right) == {"hourly_rate=thirty pounds": "Verified"}
    wrong = check(boats, "The Heron is forty quid an hour.", "How much is the Heron?")
    assert verdicts(wrong) == {"hourly_rate=forty quid": "Contradicted"}
    assert wrong.corrected.corrected == "The Heron is £45 an hour."
    vague = check(boats, "The Heron is a couple of hundred pounds a day.", "How much?")
    assert verdicts(vague) == {}


def test_a_price_answers_a_question_whether_we_charge(boats):
    asked = "Do you charge to look at my engine?"
    result = check(boats, "Engine servicing is ninety-five pounds.", asked)
    assert result.coherence.qud_relevance.addresses_qud
    assert result.recommendation.kind == "Accept"
