"""Values a reply states that were left unread or misread, in a small swimming club of our own:

- a range of numbers in a text column ("6-8" of an age band) said "6 to 8" is that value, not two
  counts for the column of whole numbers beside it;
- an amount in pence ("40p", "75 pence") is money, compared with the KB's pence and pounds;
- people a price column is named for ("junior_price") name it in their own words ("juniors",
  "kids pay"), and a column of how many a place takes is named by "holds up to", "room for";
- of two price columns a thing holds, the one named by one word ("price") is meant when the
  sentence names neither qualifier ("for the season" names "season_fee");
- a thing's alias in the plural names it ("10-lap sessions");
- a range of hours written bare after a weekday or "it's" ("Sundays 7 till 1:30", "it's 7:15 to
  2") is a range of times of the working day, each end against its own bound;
- "we're open Sunday to Tuesday" against a column per weekday: each day said is not "closed"
  (the day its column holds hours is open, the one marked "closed" is contradicted)."""

from __future__ import annotations

from functools import cache

from reading_domain import read

from replyguard.engine import Engine
from replyguard.kb import kb_from_csv
from replyguard.values import money_key

CLUB = """name,type,aliases,age_band,pool_places,price,season_fee,child_price,capacity,\
sunday_hours,monday_hours,tuesday_hours,address
Otterbrook Swim Club,Organization,,,,,,,,7:00 am - 1:30 pm,7:15 am - 2:00 pm,closed,2 Mill Lane
Minnows,Event,,6-8,12,£7,£70,,,,,,
Dolphins,Event,,9-12,16,£8,£80,,,,,,
Swim Cap,Object,,,,£3.50,,,,,,,
Goggle Strap,Object,,,,75p,,,,,,,
Family Splash,Event,,,,£6,,£3,,,,,
Lap Session,Event,10-lap session,,,£4,£36,,,,,,
Spectator Gallery,Location,,,,,,,40,,,,"""


@cache
def club() -> Engine:
    return Engine(kb_from_csv(CLUB, origin="club.csv"))


def said(reply: str) -> list[tuple[str, str, str, str]]:
    return read(club(), reply)


def test_a_range_of_numbers_said_in_words_is_the_range_value():
    assert said("Minnows is for children aged 6 to 8.") == [
        ("Minnows", "age_band", "6 to 8", "Verified")
    ]
    assert said("The Dolphins group takes swimmers of 9 – 12.") == [
        ("Dolphins", "age_band", "9 – 12", "Verified")
    ]
    # the count beside it is still the count
    assert said("Dolphins has 16 places for 9 to 12 year olds.") == [
        ("Dolphins", "pool_places", "16 places", "Verified"),
        ("Dolphins", "age_band", "9 to 12", "Verified"),
    ]
    assert said("Minnows has 14 places for 6-8 year olds.") == [
        ("Minnows", "pool_places", "14 places", "Contradicted"),
        ("Minnows", "age_band", "6-8", "Verified"),
    ]


def test_pence_are_money():
    assert money_key("40p") == money_key("£0.40") == money_key("40 pence") == "GBP:0.40"
    assert money_key("5 pm") is None and money_key("3 p.m.") is None
    assert said("A goggle strap costs 75p.") == [("Goggle Strap", "price", "75p", "Verified")]
    assert said("A goggle strap costs 60p.") == [("Goggle Strap", "price", "60p", "Contradicted")]
    assert said("The swim cap is £3.50 and the goggle strap is 75 pence.") == [
        ("Swim Cap", "price", "£3.50", "Verified"),
        ("Goggle Strap", "price", "75 pence", "Verified"),
    ]


def test_people_and_places_name_their_columns_in_their_own_words():
    assert said("Family splash is £6, and kids pay £3.") == [
        ("Family Splash", "price", "£6", "Verified"),
        ("Family Splash", "child_price", "£3", "Verified"),
    ]
    assert said("Family splash is £6. Children pay £2.") == [
        ("Family Splash", "price", "£6", "Verified"),
        ("Family Splash", "child_price", "£2", "Contradicted"),
    ]
    assert said("The spectator gallery has room for 40.") == [
        ("Spectator Gallery", "capacity", "40", "Verified")
    ]
    assert said("The spectator gallery holds up to 60 people.") == [
        ("Spectator Gallery", "capacity", "60 people", "Contradicted")
    ]


def test_the_plain_column_is_meant_when_no_qualifier_is_said():
    assert said("A lap session costs £4, or £36 for the season.") == [
        ("Lap Session", "price", "£4", "Verified"),
        ("Lap Session", "season_fee", "£36", "Verified"),
    ]
    assert said("The Dolphins group costs £9.") == [("Dolphins", "price", "£9", "Contradicted")]


def test_an_alias_in_the_plural_names_its_thing():
    assert said("10-lap sessions are £5.") == [("Lap Session", "price", "£5", "Contradicted")]


def test_bare_hours_after_a_weekday_are_a_range_of_times():
    assert said("The pool is yours Sundays 7 till 1:30.") == [
        ("Otterbrook Swim Club", "sunday_hours_start", "7", "Verified"),
        ("Otterbrook Swim Club", "sunday_hours_end", "1:30", "Verified"),
    ]
    assert said("On Mondays it's 7:15 to 3.") == [
        ("Otterbrook Swim Club", "monday_hours_start", "7:15", "Verified"),
        ("Otterbrook Swim Club", "monday_hours_end", "3", "Contradicted"),
    ]


COACHES = """name,type,gender,teaches,works_on
Ines Varga,Person,Feminine,Butterfly,Monday|Thursday
Pavel Dunn,Person,Masculine,Backstroke,Wednesday"""


@cache
def coaches() -> Engine:
    return Engine(kb_from_csv(COACHES, origin="coaches.csv"))


def test_an_object_pronoun_after_a_verb_is_no_subject():
    reply = "Ines Varga coaches butterfly. She runs them on Thursdays."
    assert read(coaches(), reply)[-1] == ("Ines Varga", "works_on", "Thursdays", "Verified")
    reply = "Pavel takes them on Fridays."
    assert read(coaches(), reply) == [("Pavel Dunn", "works_on", "Fridays", "Contradicted")]


def test_days_said_open_are_read_against_each_days_column():
    club_name = "Otterbrook Swim Club"
    assert said("We're open Sunday to Monday.") == [
        (club_name, "sunday_hours_start", "closed", "Verified"),
        (club_name, "monday_hours_start", "closed", "Verified"),
    ]
    assert said("We are open on Mondays and Tuesdays.") == [
        (club_name, "monday_hours_start", "closed", "Verified"),
        (club_name, "tuesday_hours", "closed", "Contradicted"),
    ]
