"""Values a reply states that were left unread or misread, in a small music school of our own:

- a count said as a word ("seats four") against a column of whole numbers;
- a person's role said beside a lesson ("with an assistant tutor"): it names a kind of person,
  not a value of the lesson, and it chooses the price column that bears its word;
- two prices in one sentence, each with the words of its own column;
- a column of opening hours where one cell is no range ("24 hours"): the ranges are still read
  by their bounds, and "24/7" is the whole day."""

from __future__ import annotations

from functools import cache

from reading_domain import read

from replyguard.engine import Engine
from replyguard.kb import kb_from_csv

SCHOOL = """name,type,role,principal_price,assistant_price,length,seats,opening_hours,price
Fenwick Music School,Organization,,,,,,8:00 am - 9:00 pm,
Mara Quist,Person,Principal Tutor,,,,,,
Tobias Rand,Person,Assistant Tutor,,,,,,
Piano Lesson,Object,,£40,£28,45 minutes,,,
Cello Lesson,Object,,£44,£30,45 minutes,,,
Theory Workbook,Object,,,,,,,£9
Studio A,Location,,,,,4,24 hours,
Studio B,Location,,,,,9,7:00 am - 10:00 pm,£12
Recital Hall,Location,,,,,60,10:00 am - 6:00 pm,"""


@cache
def school() -> Engine:
    return Engine(kb_from_csv(SCHOOL, origin="school.csv"))


def said(reply: str) -> list[tuple[str, str, str, str]]:
    return read(school(), reply)


def unread(reply: str) -> list[str]:
    return [u.text for u in school().postprocess(reply, "").unread_values]


def test_a_count_said_as_a_word_is_read_against_its_column():
    assert said("Studio A seats four.") == [("Studio A", "seats", "four", "Verified")]
    assert said("Studio B seats four.") == [("Studio B", "seats", "four", "Contradicted")]


def test_a_role_beside_a_lesson_is_no_value_of_the_lesson_and_picks_its_price():
    assert said("A cello lesson with an assistant tutor costs £30.") == [
        ("Cello Lesson", "assistant_price", "£30", "Verified")
    ]
    assert said("Piano lessons are £44 with a principal tutor.") == [
        ("Piano Lesson", "principal_price", "£44", "Contradicted")
    ]
    assert unread("A cello lesson with an assistant tutor costs £30.") == []
    # said of a person, the role is that person's
    assert said("Tobias is our principal tutor.") == [
        ("Tobias Rand", "role", "principal tutor", "Contradicted")
    ]


def test_two_prices_in_one_sentence_each_take_the_column_said_with_them():
    assert said("The piano lesson is £40 with a principal tutor or £25 with an assistant.") == [
        ("Piano Lesson", "principal_price", "£40", "Verified"),
        ("Piano Lesson", "assistant_price", "£25", "Contradicted"),
    ]
    reply = "With an assistant tutor a cello lesson is £30, and it is £44 with a principal."
    assert said(reply) == [
        ("Cello Lesson", "assistant_price", "£30", "Verified"),
        ("Cello Lesson", "principal_price", "£44", "Verified"),
    ]


def test_hours_are_read_by_their_bounds_beside_a_cell_that_is_no_range():
    assert said("Studio B is open from 7am until 9pm.") == [
        ("Studio B", "opening_hours_start", "7am", "Verified"),
        ("Studio B", "opening_hours_end", "9pm", "Contradicted"),
    ]
    assert said("Studio A is open 24/7.") == [("Studio A", "opening_hours", "24/7", "Verified")]
    assert said("Studio A is open 12 hours a day.")[0][3] == "Contradicted"


def test_a_total_worked_out_from_a_price_is_no_claim_on_the_price():
    # a count of the thing priced, in its plural, or of the thing itself
    assert said("Three theory workbooks would be £27 in total.") == []
    assert unread("Three theory workbooks would be £27 in total.") == []
    assert said("A theory workbook is £9, so two would be £18.") == [
        ("Theory Workbook", "price", "£9", "Verified")
    ]
    # a count of the unit the sentence gives a rate in
    reply = "Studio B is £12 a session to hire, so three sessions would be £36."
    assert said(reply) == [("Studio B", "price", "£12", "Verified")]
    assert unread(reply) == []
    assert unread("Studio B is £12 an hour to hire.") == []  # the rate's unit is no length
    # a count of something else is no total: the price is the thing's
    assert said("A theory workbook for two pupils is £11.") == [
        ("Theory Workbook", "price", "£11", "Contradicted")
    ]


def test_a_count_said_as_a_word_of_something_else_is_no_value():
    # "four" is a count of seats in the KB, but here it counts pianos: no cue of seats
    assert said("Studio B has four pianos.") == []
    assert unread("Studio B has four pianos.") == []


# A village library: hours per weekday, a late opening on Wednesdays.
LIBRARY = """name,type,monday_hours,tuesday_hours,wednesday_hours,thursday_hours,saturday_hours
Elmsworth Library,Organization,closed,10:00 am - 5:00 pm,10:00 am - 7:30 pm,10:00 am - 5:00 pm,\
9:00 am - 12:00 pm"""


def test_hours_said_over_a_span_of_days_are_read_for_each_day():
    engine = Engine(kb_from_csv(LIBRARY, origin="library.csv"))
    reply = "We're open 10am to 5pm Tuesday to Thursday, and until 7:30pm on Wednesdays."
    assert sorted(c[1:] for c in read(engine, reply)) == [
        ("thursday_hours_end", "5pm", "Verified"),
        ("thursday_hours_start", "10am", "Verified"),
        ("tuesday_hours_end", "5pm", "Verified"),
        ("tuesday_hours_start", "10am", "Verified"),
        ("wednesday_hours_end", "7:30pm", "Verified"),
        ("wednesday_hours_start", "10am", "Verified"),
    ]
    # a day of the span whose hours differ is contradicted
    wrong = read(engine, "Tuesday to Thursday we close at 5pm.")
    assert ("Elmsworth Library", "wednesday_hours_end", "5pm", "Contradicted") in wrong
    assert ("Elmsworth Library", "tuesday_hours_end", "5pm", "Verified") in wrong


# A climbing wall's passes (our own): a pass named by a length of time, a card with money off.
PASSES = """name,type,price,discount,length
Week Pass,Object,£35,,
Member Card,Object,£20,£4,
Taster Session,Object,£15,,2 hours"""


def test_a_name_after_an_article_opening_a_length_of_time_is_the_name():
    engine = Engine(kb_from_csv(PASSES, origin="passes.csv"))
    assert read(engine, "A week pass costs £35.") == [("Week Pass", "price", "£35", "Verified")]
    assert read(engine, "The taster session takes a week.")[0][1:] == (
        "length",
        "a week",
        "Contradicted",
    )


def test_money_off_is_read_as_the_discount():
    engine = Engine(kb_from_csv(PASSES, origin="passes.csv"))
    assert read(engine, "The member card takes £4 off.") == [
        ("Member Card", "discount", "£4", "Verified")
    ]
    assert read(engine, "The member card takes £6 off.")[-1][1:] == (
        "discount",
        "£6",
        "Contradicted",
    )
