"""Temporal expressions: finding and resolving times and dates against a reference datetime."""

import datetime
import logging
import random
from importlib.resources import files

import pytest
from lark import Lark

from replyguard.text import temporal
from replyguard.text.temporal import (
    TemporalMention,
    find_temporal,
    normalise_date,
    normalise_time,
    normalise_weekday,
)

# The project's standard reference: Monday 30 November 2026, mid-morning.
REF = datetime.datetime(2026, 11, 30, 10, 0)
D = datetime.date
T = datetime.time


def only(text: str) -> TemporalMention:
    mentions = find_temporal(text, REF)
    assert len(mentions) == 1, mentions
    return mentions[0]


def summary(text: str) -> list[tuple[str, str, str]]:
    return [(m.text, m.kind, m.value) for m in find_temporal(text, REF)]


def assert_well_formed(text: str, mentions: list[TemporalMention]) -> None:
    for mention in mentions:
        assert mention.text == text[mention.start : mention.end]
        assert 0 <= mention.start < mention.end <= len(text)
    for before, after in zip(mentions, mentions[1:], strict=False):
        assert before.end <= after.start


# ---- the grammar -------------------------------------------------------------------------------


def test_grammar_ships_as_package_data_and_is_conflict_free(caplog):
    source = (files("replyguard.grammars") / "temporal.lark").read_text(encoding="utf-8")
    with caplog.at_level(logging.DEBUG, logger="lark"):
        Lark(source, parser="lalr", lexer="basic", debug=True)
    assert not [r for r in caplog.records if "conflict" in r.getMessage().lower()]


def test_every_rule_that_builds_a_node_has_a_transformer_method():
    for rule in temporal._PARSER.rules:
        name = rule.alias or rule.origin.name
        kept = [symbol for symbol in rule.expansion if not symbol.name.startswith("_")]
        if name.startswith("_") or (rule.options.expand1 and not rule.alias and len(kept) <= 1):
            continue  # inlined: no node reaches the transformer
        assert callable(getattr(temporal._Resolver, name, None)), name


LEXER_SAMPLES = [
    "Meet at 2pm on Monday, or at 2:30 p.m. on Thrusday the 5th of March, 2025.",
    "In 2019 (2019–2021) he wrote 1,500 words in 1.5 hours; 03/03/2025 and 2025-03-03T14:00Z.",
    "Good morning! See you at 3. half past seven, quarter to five, 7 o’clock, the day after",
    "Have a lovely evening, a great day and a safe trip.",
    "money Monterey 2019abc abc2pm Sundae SUN, 6 DEC 2026 sat down — ünïcödé 東京 ٣pm \t\n end",
]


@pytest.mark.parametrize("text", LEXER_SAMPLES)
def test_fast_tokeniser_matches_larks_own_lexer(text):
    def typo(token):
        return token.update("WEEKDAY") if temporal._fuzzy_weekday(token) is not None else token

    source = (files("replyguard.grammars") / "temporal.lark").read_text(encoding="utf-8")
    lark_lexer = Lark(source, parser=None, lexer="basic", lexer_callbacks={"WORD": typo})
    expected = [(t.type, str(t), t.start_pos, t.end_pos) for t in lark_lexer.lex(text)]
    ours = [(t.type, str(t), t.start_pos, t.end_pos) for t in temporal._tokens(text, 0, len(text))]
    assert ours[-1][0] == "_STOP"  # the end of the text counts as a pause
    assert ours[:-1] == expected


# ---- clock times -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "span", "value"),
    [
        ("Call me at 2pm.", "2pm", "14:00"),
        ("2 pm", "2 pm", "14:00"),
        ("2:30pm", "2:30pm", "14:30"),
        ("14:00", "14:00", "14:00"),
        ("2 o'clock", "2 o'clock", "14:00"),
        ("2 o’clock", "2 o’clock", "14:00"),
        ("noon", "noon", "12:00"),
        ("midday", "midday", "12:00"),
        ("midnight", "midnight", "00:00"),
        ("7 in the evening", "7 in the evening", "19:00"),
        ("7 in the morning", "7 in the morning", "07:00"),
        ("10 at night", "10 at night", "22:00"),
        ("7:30 in the evening", "7:30 in the evening", "19:30"),
        ("11 a.m.", "11 a.m.", "11:00"),
        ("5 P.M.", "5 P.M.", "17:00"),
        ("2.30pm", "2.30pm", "14:30"),
        ("half past seven", "half past seven", "07:30"),
        ("quarter to five", "quarter to five", "16:45"),
        ("ten past three", "ten past three", "15:10"),
        ("12am", "12am", "00:00"),
        ("12pm", "12pm", "12:00"),
        ("14:00:30", "14:00:30", "14:00:30"),
    ],
)
def test_clock_times(text, span, value):
    mention = only(text)
    assert (mention.kind, mention.text, mention.value) == ("time", span, value)
    assert mention.time == datetime.time.fromisoformat(value)
    assert mention.date is None and not mention.relative


@pytest.mark.parametrize(
    ("text", "value"),
    [("2:00", "14:00"), ("6 o'clock", "18:00"), ("7 o'clock", "07:00"), ("07:30", "07:30")],
)
def test_an_hour_without_am_or_pm_from_1_to_6_is_afternoon(text, value):
    assert only(text).value == value


def test_at_and_a_bare_hour_is_a_time_only_before_a_pause():
    assert summary("See you at 3.") == [("3", "time", "15:00")]
    assert summary("See you at 3") == [("3", "time", "15:00")]
    assert summary("at 3, then") == [("3", "time", "15:00")]
    assert summary("We have offices at 3 sites") == []


@pytest.mark.parametrize("text", ["13pm", "25:00", "0 o'clock", "2.5pm", "at 25."])
def test_impossible_clock_times_are_not_mentions(text):
    assert find_temporal(text, REF) == []


# ---- days --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "from the 6th of this month",  # "month" is also a duration's unit ("2 months")
        "until 6th of this month.",
        "the 6th of the month, starting at",
    ],
)
def test_a_day_of_this_month(text):
    mention = only(text)
    assert (mention.kind, mention.text, mention.date) == ("date", "6th", D(2026, 11, 6))


def test_a_day_of_another_unit_is_no_day_of_the_month():
    assert find_temporal("the 6th of this week", REF) == []


@pytest.mark.parametrize(
    ("text", "span", "weekday", "date"),
    [
        ("Monday", "Monday", 0, D(2026, 11, 30)),  # the reference day itself
        ("on Friday", "Friday", 4, D(2026, 12, 4)),
        ("on Mon", "Mon", 0, D(2026, 11, 30)),
        ("Tues.", "Tues.", 1, D(2026, 12, 1)),
        ("Weds", "Weds", 2, D(2026, 12, 2)),
        ("SUNDAY", "SUNDAY", 6, D(2026, 12, 6)),
        ("on Mondays", "Mondays", 0, D(2026, 11, 30)),
        ("on Sat", "Sat", 5, D(2026, 12, 5)),
        ("Thrusday", "Thrusday", 3, D(2026, 12, 3)),
        ("Wensday", "Wensday", 2, D(2026, 12, 2)),
        ("Firday", "Firday", 4, D(2026, 12, 4)),
        ("Saturady", "Saturady", 5, D(2026, 12, 5)),
    ],
)
def test_weekdays_resolve_to_the_first_such_day_on_or_after_the_reference(
    text, span, weekday, date
):
    mention = only(text)
    assert (mention.kind, mention.text, mention.weekday, mention.date) == (
        "weekday",
        span,
        weekday,
        date,
    )
    assert mention.value == temporal.WEEKDAYS[weekday]
    assert mention.relative and mention.year is None


@pytest.mark.parametrize(
    "text",
    ["Sunny", "Monte", "Sundae", "sundry", "Frida", "Wendy", "weekday", "birthday", "Mandy"],
)
def test_words_that_look_like_weekdays_are_not_weekdays(text):
    assert find_temporal(f"I met {text} there.", REF) == []
    assert normalise_weekday(text) is None


def test_sat_sun_and_wed_are_words_unless_capitalised_in_a_date_context():
    assert summary("The sun sat low; they wed in June.") == [("June", "month", "june")]
    assert summary("Sun and Sat are short names.") == []
    dated = only("Sun, 6 Dec 2026")
    assert (dated.kind, dated.date, dated.weekday) == ("date", D(2026, 12, 6), 6)


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("next Tuesday", D(2026, 12, 1)),
        ("next Monday", D(2026, 12, 7)),  # strictly after the reference
        ("last Friday", D(2026, 11, 27)),
        ("last Monday", D(2026, 11, 23)),  # strictly before the reference
        ("this Monday", D(2026, 11, 30)),
        ("this Friday", D(2026, 12, 4)),
        ("next Thrusday", D(2026, 12, 3)),
    ],
)
def test_relative_weekdays(text, date):
    mention = only(text)
    assert (mention.kind, mention.text, mention.date, mention.value) == (
        "relative_weekday",
        text,
        date,
        date.isoformat(),
    )
    assert mention.weekday == date.weekday() and mention.relative


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("today", D(2026, 11, 30)),
        ("tonight", D(2026, 11, 30)),
        ("tomorrow", D(2026, 12, 1)),
        ("yesterday", D(2026, 11, 29)),
        ("the day after tomorrow", D(2026, 12, 2)),
        ("the day before yesterday", D(2026, 11, 28)),
    ],
)
def test_relative_days(text, date):
    mention = only(f"Let's talk {text}.")
    assert (mention.kind, mention.text, mention.date, mention.value) == (
        "relative_day",
        text,
        date,
        date.isoformat(),
    )
    assert mention.relative and mention.weekday is None


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("March 3rd, 2025", "March 3rd, 2025"),
        ("March 3 2025", "March 3 2025"),
        ("Mar 3, 2025", "Mar 3, 2025"),
        ("March the 3rd, 2025", "March the 3rd, 2025"),
        ("3 March 2025", "3 March 2025"),
        ("3rd of March, 2025", "3rd of March, 2025"),
        ("the 3rd of March 2025", "3rd of March 2025"),
        ("2025-03-03", "2025-03-03"),
        ("2025/3/3", "2025/3/3"),
        ("03/03/2025", "03/03/2025"),
        ("3/3/25", "3/3/25"),
    ],
)
def test_absolute_dates(text, span):
    mention = only(f"It was signed on {text}.")
    assert (mention.kind, mention.text, mention.value) == ("date", span, "2025-03-03")
    assert (mention.date, mention.year, mention.relative) == (D(2025, 3, 3), 2025, False)


def test_us_slash_dates_put_the_month_first():
    assert only("04/05/2025").date == D(2025, 4, 5)


def test_a_date_without_a_year_resolves_forward_and_leaves_year_unset():
    mention = only("on March 3")
    assert (mention.date, mention.year, mention.relative) == (D(2027, 3, 3), None, True)


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("See you on the 5th.", D(2026, 12, 5)),
        ("on the 30th", D(2026, 11, 30)),
        ("on the 31st", D(2026, 12, 31)),
        ("the 5th.", D(2026, 12, 5)),
    ],
)
def test_the_nth_is_the_next_such_day_of_a_month(text, date):
    mention = only(text)
    assert (mention.kind, mention.date, mention.relative) == ("date", date, True)
    assert mention.text == text.split("the ")[1].rstrip(".")


def test_the_nth_followed_by_a_noun_is_not_a_date():
    assert find_temporal("It was the 5th time he asked.", REF) == []


@pytest.mark.parametrize("text", ["2025-02-30", "13/13/2025", "2025-13-01"])
def test_impossible_dates_are_not_mentions(text):
    assert find_temporal(text, REF) == []


@pytest.mark.parametrize(
    ("text", "weekday", "conflict"),
    [
        ("Monday, 3 March 2025", 0, False),
        ("Tuesday, 3 March 2025", 1, True),
        ("Friday 13 March 2026", 4, False),
        ("Thu, Mar 5, 2026", 3, False),
        ("Wednesday 2025-03-03", 2, True),
    ],
)
def test_a_weekday_named_with_a_full_date_is_checked_against_it(text, weekday, conflict):
    mention = only(text)
    assert (mention.kind, mention.text, mention.stated_weekday_conflict) == ("date", text, conflict)
    assert mention.weekday == weekday and mention.year == mention.date.year


def test_a_weekday_with_a_yearless_date_is_not_judged():
    mention = only("Monday, March 3rd")
    assert mention.weekday == 0 and mention.year is None
    assert not mention.stated_weekday_conflict


def test_iso_timestamp_is_one_datetime_mention():
    mention = only("Logged 2025-03-03T14:00:00Z.")
    assert (mention.kind, mention.value, mention.date, mention.time, mention.year) == (
        "datetime",
        "2025-03-03T14:00",
        D(2025, 3, 3),
        T(14, 0),
        2025,
    )


# ---- months and years --------------------------------------------------------------------------


def test_month_names():
    assert summary("It opens in March.") == [("March", "month", "march")]
    assert summary("since May") == [("May", "month", "may")]
    assert summary("MARCH") == [("MARCH", "month", "march")]
    mention = only("March 2025")
    assert (mention.kind, mention.value, mention.year) == ("month", "march", 2025)


@pytest.mark.parametrize("text", ["May I help you?", "We march on.", "Ask Jan.", "Mar the day."])
def test_month_words_that_are_usually_something_else(text):
    assert find_temporal(text, REF) == []


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("He joined in 2019.", "2019"),
        ("since 2020", "2020"),
        ("by 2030", "2030"),
        ("the class of 1999", "1999"),
        ("the year 2019", "2019"),
    ],
)
def test_a_year_needs_words_that_make_it_one(text, span):
    mention = only(text)
    assert (mention.kind, mention.text, mention.year, mention.value) == (
        "year",
        span,
        int(span),
        span,
    )
    assert not mention.relative


@pytest.mark.parametrize(
    "text", ["He lives at 2019 Main St.", "2019 people came.", "Room 2019abc", "It cost 2019."]
)
def test_a_bare_four_digit_number_is_not_a_year(text):
    assert find_temporal(text, REF) == []


def test_year_ranges_give_both_years():
    assert summary("from 2019 to 2021") == [("2019", "year", "2019"), ("2021", "year", "2021")]
    assert summary("(2019–2021)") == [("2019", "year", "2019"), ("2021", "year", "2021")]
    assert summary("between 2019 and 2021") == [("2019", "year", "2019"), ("2021", "year", "2021")]


@pytest.mark.parametrize(
    ("text", "year"),
    [("last year", 2025), ("next year", 2027), ("this year", 2026), ("3 years ago", 2023)],
)
def test_relative_years(text, year):
    mention = only(text)
    assert (mention.kind, mention.text, mention.year, mention.value) == (
        "relative_year",
        text,
        year,
        str(year),
    )
    assert mention.relative


# ---- durations ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "span", "minutes"),
    [
        ("for 2 hours", "2 hours", "120"),
        ("90 minutes", "90 minutes", "90"),
        ("ninety minutes", "ninety minutes", "90"),
        ("1.5 hours", "1.5 hours", "90"),
        ("2h", "2h", "120"),
        ("30 min", "30 min", "30"),
        ("an hour", "an hour", "60"),
        ("half an hour", "half an hour", "30"),
        ("an hour and a half", "an hour and a half", "90"),
        ("1 hour and 30 minutes", "1 hour and 30 minutes", "90"),
        ("2 hours 15 minutes", "2 hours 15 minutes", "135"),
        ("for 3 days", "3 days", "4320"),
        ("1,500 minutes", "1,500 minutes", "1500"),
        ("8 hours a week", "8 hours", "480"),
        ("0.5 minutes", "0.5 minutes", "0.5"),
        ("roughly three quarters of an hour", "three quarters of an hour", "45"),
        ("a quarter of an hour or so", "a quarter of an hour", "15"),
        ("two quarters of a day", "two quarters of a day", "720"),
    ],
)
def test_durations_in_minutes(text, span, minutes):
    mention = only(text)
    assert (mention.kind, mention.text, mention.value) == ("duration", span, minutes)
    assert mention.time is None and mention.date is None


@pytest.mark.parametrize("text", ["once a day", "twice a week", "3 times a day", "per day"])
def test_frequencies_are_not_durations(text):
    assert find_temporal(text, REF) == []


def test_ago_resolves_a_point_in_time():
    days = only("I wrote 2 days ago.")
    assert (days.kind, days.text, days.date, days.relative) == (
        "relative_day",
        "2 days ago",
        D(2026, 11, 28),
        True,
    )
    hours = only("an hour and a half ago")
    assert (hours.kind, hours.time, hours.date, hours.value) == (
        "time",
        T(8, 30),
        D(2026, 11, 30),
        "08:30",
    )


# ---- parts of the day --------------------------------------------------------------------------


def test_parts_of_the_day():
    assert summary("in the morning") == [("morning", "part_of_day", "morning")]
    assert summary("The afternoon is free") == [("afternoon", "part_of_day", "afternoon")]
    assert summary("at night") == [("night", "part_of_day", "night")]
    evening = only("this evening")
    assert (evening.text, evening.date, evening.relative) == ("this evening", D(2026, 11, 30), True)
    assert only("last night").date == D(2026, 11, 29)


def test_night_alone_and_greetings_name_no_time():
    assert find_temporal("Good morning! It was a long night.", REF) == []
    assert find_temporal("Good night", REF) == []


@pytest.mark.parametrize("text", ["Have a wonderful afternoon.", "Have a nice evening!"])
def test_a_wish_names_no_time(text):
    assert find_temporal(text, REF) == []


def test_a_day_and_a_part_of_it_are_two_mentions_sharing_the_date():
    day, part = find_temporal("tomorrow morning", REF)
    assert (day.kind, day.text, day.date) == ("relative_day", "tomorrow", D(2026, 12, 1))
    assert (part.kind, part.text, part.date) == ("part_of_day", "morning", D(2026, 12, 1))


# ---- combined phrases --------------------------------------------------------------------------


def test_time_and_day_are_two_mentions_that_share_what_the_phrase_resolves():
    text = "Can we meet at 2pm on Monday?"
    moment, day = find_temporal(text, REF)
    assert (moment.kind, moment.text, moment.start) == ("time", "2pm", text.index("2pm"))
    assert (day.kind, day.text, day.start) == ("weekday", "Monday", text.index("Monday"))
    assert (moment.time, moment.date, moment.weekday) == (T(14, 0), D(2026, 11, 30), 0)
    assert (day.time, day.date) == (T(14, 0), D(2026, 11, 30))
    assert not moment.relative and day.relative


@pytest.mark.parametrize(
    ("text", "time", "date"),
    [
        ("Monday at 3", T(15, 0), D(2026, 11, 30)),
        ("tomorrow at 9am", T(9, 0), D(2026, 12, 1)),
        ("9am tomorrow", T(9, 0), D(2026, 12, 1)),
        ("at noon tomorrow", T(12, 0), D(2026, 12, 1)),
        ("tonight at 8", T(20, 0), D(2026, 11, 30)),
        ("on 3/3/2025 at 10am", T(10, 0), D(2025, 3, 3)),
        ("the day after tomorrow at 3pm", T(15, 0), D(2026, 12, 2)),
    ],
)
def test_combined_day_and_time(text, time, date):
    mentions = find_temporal(text, REF)
    assert len(mentions) == 2
    (moment,) = [m for m in mentions if m.kind == "time"]
    (day,) = [m for m in mentions if m.kind != "time"]
    assert (moment.time, moment.date, day.date, day.time) == (time, date, date, time)


def test_an_impossible_part_falls_back_to_the_valid_beginning():
    assert summary("tomorrow at 25") == [("tomorrow", "relative_day", "2026-12-01")]


# ---- scanning ----------------------------------------------------------------------------------

REPLY = (
    "John joined in 2019 and can meet at 2pm on Monday, or next Tuesday for 90 minutes. "
    "His email is john.smith@company.com."
)
REPLY_MENTIONS = [
    ("2019", "year", "2019"),
    ("2pm", "time", "14:00"),
    ("Monday", "weekday", "monday"),
    ("next Tuesday", "relative_weekday", "2026-12-01"),
    ("90 minutes", "duration", "90"),
]


def test_a_reply_yields_its_mentions_left_to_right():
    mentions = find_temporal(REPLY, REF)
    assert [(m.text, m.kind, m.value) for m in mentions] == REPLY_MENTIONS
    assert_well_formed(REPLY, mentions)


@pytest.mark.parametrize(
    "phrase",
    [
        "at half past seven in the evening",
        "throughout the morning",
        "an hour and a half ago",
        "Tuesday, 3 March 2025 at 2:30 p.m.",
        "between 2019 and 2021",
        "on the 5th.",
    ],
)
def test_phrases_are_found_the_same_inside_long_prose(phrase):
    padding = "plain words without any dates " * 4
    text = f"{padding}{phrase} {padding}"
    alone = [(m.text, m.kind, m.value) for m in find_temporal(phrase, REF)]
    inside = find_temporal(text, REF)
    assert alone and [(m.text, m.kind, m.value) for m in inside] == alone
    assert_well_formed(text, inside)


@pytest.mark.parametrize(
    "text",
    ["money", "Monterey", "2019abc", "abc2pm", "afternoons", "x2019", "in 1990s", "in 2019abc"],
)
def test_mentions_start_and_end_on_word_boundaries(text):
    assert find_temporal(text, REF) == []


def test_longest_reading_wins():
    assert summary("on Monday, 3 March 2025") == [("Monday, 3 March 2025", "date", "2025-03-03")]
    assert summary("Monday, we met") == [("Monday", "weekday", "monday")]


# ---- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "   ", "\n\t", ".", "?!"])
def test_empty_or_blank_text_has_no_mentions(text):
    assert find_temporal(text, REF) == []


def test_arbitrary_unicode_never_raises():
    rng = random.Random(20261130)
    alphabet = [chr(c) for c in range(0x20, 0x3000)] + ["\ud800", "\x00", "٣", "²", "İ", " "] * 40
    for _ in range(200):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 120)))
        assert_well_formed(text, find_temporal(text, REF))
    assert find_temporal("٣pm ²pm", REF) == []  # only ASCII digits are numbers


def test_absurd_numbers_are_rejected_not_raised():
    assert summary("99999999999 days ago") == [("99999999999 days", "duration", "143999999998560")]
    assert find_temporal("9" * 5000 + " minutes", REF) == []
    assert find_temporal("1" + "0" * 400 + ".5 hours ago", REF) == []


def test_a_long_text_is_scanned_completely():
    text = (REPLY + " ") * 1000
    assert len(text) > 100_000
    mentions = find_temporal(text, REF)
    assert [(m.text, m.kind, m.value) for m in mentions] == REPLY_MENTIONS * 1000
    assert_well_formed(text, mentions)
    assert mentions[-1].start == text.rindex("90 minutes")


# ---- normalisers -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("2pm", "14:00"),
        ("2 PM", "14:00"),
        ("2:00 pm", "14:00"),
        ("14:00", "14:00"),
        ("2 o'clock", "14:00"),
        ("  at 2pm ", "14:00"),
        ("noon", "12:00"),
        ("midnight", "00:00"),
        ("7 in the evening", "19:00"),
        ("2025-03-03T14:00", "14:00"),
    ],
)
def test_normalise_time(text, value):
    assert normalise_time(text) == value


@pytest.mark.parametrize(
    "text", ["", "tomorrow", "hello", "2pm-ish", "2pm and 3pm", "2 hours ago", "14", "March 3"]
)
def test_normalise_time_refuses_what_is_not_one_time(text):
    assert normalise_time(text) is None


@pytest.mark.parametrize(
    "text",
    ["March 3rd, 2025", "3 March 2025", "2025-03-03", "03/03/2025", "Monday, 3 March 2025"],
)
def test_normalise_date(text):
    assert normalise_date(text) == "2025-03-03"
    assert normalise_date(text, REF) == "2025-03-03"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("the 5th", "2026-12-05"),
        ("on the 5th", "2026-12-05"),
        ("tomorrow", "2026-12-01"),
        ("next Tuesday", "2026-12-01"),
        ("Friday", "2026-12-04"),
        ("March 3", "2027-03-03"),
    ],
)
def test_normalise_date_needs_a_reference_for_relative_dates(text, value):
    assert normalise_date(text) is None
    assert normalise_date(text, REF) == value


@pytest.mark.parametrize("text", ["", "March 2025", "2pm", "in 2019", "3 March 2025 or so"])
def test_normalise_date_refuses_what_is_not_one_date(text):
    assert normalise_date(text, REF) is None


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Mon", "monday"),
        ("monday", "monday"),
        ("TUESDAY", "tuesday"),
        ("Weds", "wednesday"),
        ("Thrusday", "thursday"),
        ("Thurs.", "thursday"),
        (" sun ", "sunday"),
        ("Sat.", "saturday"),
        ("Fridays", "friday"),
    ],
)
def test_normalise_weekday(text, value):
    assert normalise_weekday(text) == value


@pytest.mark.parametrize("text", ["", "today", "Sunny", "Monte", "Month", "Mo", "Fri day"])
def test_normalise_weekday_refuses_other_words(text):
    assert normalise_weekday(text) is None
