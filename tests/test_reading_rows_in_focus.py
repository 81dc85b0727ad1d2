"""Issue 11, classes 4, 7 and 11 on rows of our own (a gig guide, a cottage let, a bakery
guide, boat jobs, films): "it" that points at the row just offered takes the values said with
it, even when they are another row's; an unknown name where a venue stands is a venue, though it
starts like the KB's names; "available on" a day is the start of a range of dates; a street
address the user is told they will find the thing at is the address of the thing in focus; a
price "from £60" is a price; "was directed by" in a lower-case reply is a passive, no title; a
number after words naming a column of ratings ("rated 15") is a rating.

Every case fails on 5f402a5 (main before these changes); the verdicts were written before the
code was run.
"""

from __future__ import annotations

from datetime import datetime

from conftest import verdicts

from replyguard.engine import Engine
from replyguard.kb import kb_from_csv
from replyguard.models import Turn

REFERENCE = datetime(2026, 3, 2, 10, 0)


def _check(kb: str, reply: str, query: str, turns: list[Turn] | None = None):  # noqa: ANN202
    engine = Engine(kb_from_csv(kb, origin="rows.csv"))
    return engine.postprocess(reply, query, turns or [], reference_time=REFERENCE)


GIGS = """id,name,type,genre,kind,start_time,venue
g1,Blue Note Quartet,Event,jazz,music,20:00,The Cellar
g2,Red Moon Trio,Event,blues,music,20:00,Corn Exchange
"""


def test_it_takes_the_values_said_of_the_row_just_offered():
    turns = [
        Turn(id="T1", speaker="assistant", text="How about the Blue Note Quartet at The Cellar?"),
        Turn(id="T2", speaker="user", text="What kind of music is it and when does it start?"),
    ]
    result = _check(
        GIGS, "It's blues music and it starts at 8pm.", turns[-1].text, turns[:1] + turns[1:]
    )
    assert {c.subject for c in result.factual_validation.claims} == {"Blue Note Quartet"}
    assert verdicts(result) == {
        "genre=blues": "Contradicted",
        "kind=music": "Verified",
        "start_time=8pm": "Verified",
    }
    assert result.corrected.corrected == "It's jazz music and it starts at 8pm."


MATCHES = """id,name,type,kick_off,venue
m1,Foxes Vs Hounds,Event,15:00,Kingsway Stadium
m2,Foxes Vs Otters,Event,19:45,Kingsway Stadium
"""


def test_an_unknown_name_where_a_venue_stands_is_a_venue():
    result = _check(MATCHES, "Foxes Vs Hounds is at Foxes Park.", "Where is the match?")
    assert verdicts(result) == {"venue=Foxes Park": "Contradicted"}
    assert result.corrected.corrected == "Foxes Vs Hounds is at Kingsway Stadium."


COTTAGES = """id,name,type,start_date,end_date,nightly_price
c1,Gull Cottage,Object,2026-03-12,2026-03-19,£95
"""


def test_available_on_a_day_is_where_a_range_of_dates_starts():
    result = _check(
        COTTAGES, "Gull Cottage is available on March 14th.", "When can I have Gull Cottage?"
    )
    assert verdicts(result) == {"start_date=March 14th": "Contradicted"}
    assert result.corrected.corrected == "Gull Cottage is available on March 12th."


BAKERIES = """id,name,type,address,opens
b1,Crumb & Co,Organization,8 Quay Road,07:30
b2,Dough Bros,Organization,3 Mill Lane,08:00
"""


def test_where_the_user_will_find_the_thing_in_focus_is_its_address():
    turns = [
        Turn(id="T1", speaker="assistant", text="Crumb & Co opens at 7:30am."),
        Turn(id="T2", speaker="user", text="Great, where is it?"),
    ]
    result = _check(BAKERIES, "You can find it at 12 Harbour Street.", turns[-1].text, turns)
    assert verdicts(result) == {"address=12 Harbour Street": "Contradicted"}
    assert result.corrected.corrected == "You can find it at 8 Quay Road."


JOBS = """id,name,type,price
j1,Hull Cleaning,Object,from £60
j2,Engine Check,Object,£35
"""


def test_a_price_it_starts_from_is_a_price():
    right = _check(
        JOBS, "Hull cleaning starts from £60 and an engine check costs £35.", "What do they cost?"
    )
    assert set(verdicts(right).values()) == {"Verified"}
    assert len(verdicts(right)) == 2
    wrong = _check(JOBS, "An engine check costs £60.", "How much is an engine check?")
    assert verdicts(wrong) == {"price=£60": "Contradicted"}


FILMS = """id,name,type,director,age_rating,running_time
f1,Nightjar,Object,Kasia Wren,18,104 minutes
f2,Salt and Stone,Object,Tom Ashe,12A,118 minutes
"""


def test_a_passive_before_by_is_no_title_in_a_lower_case_reply():
    right = _check(FILMS, "nightjar was directed by kasia wren.", "Who directed nightjar?")
    assert verdicts(right) == {"director=kasia wren": "Verified"}
    wrong = _check(FILMS, "nightjar was directed by tom ashe.", "Who directed nightjar?")
    assert verdicts(wrong) == {"director=tom ashe": "Contradicted"}


def test_a_number_after_words_naming_a_column_of_ratings_is_a_rating():
    right = _check(FILMS, "nightjar is a thriller, directed by kasia wren and rated 18.", "Tell me")
    assert verdicts(right) == {"director=kasia wren": "Verified", "age_rating=18": "Verified"}
    wrong = _check(FILMS, "Nightjar is rated 15.", "What is Nightjar rated?")
    assert verdicts(wrong) == {"age_rating=15": "Contradicted"}
    assert wrong.corrected.corrected == "Nightjar is rated 18."
