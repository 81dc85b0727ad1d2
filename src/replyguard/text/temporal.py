"""Times and dates in English text, found and resolved against a reference datetime.

The phrases themselves are described in ``grammars/temporal.lark`` (an editable data file); this
module turns parses of it into :class:`TemporalMention` values that the lexer, the claim
extractor, the fact checker and the KB value normaliser share.

How a text is scanned, and why:

* A regex built from the grammar's own terminals finds *anchors* (weekday and month names,
  numbers, "tomorrow", "noon", ...). Only windows of text around anchors are tokenised, so a reply
  with no temporal words costs one regex pass.
* Each window is tokenised with the grammar's terminals, by the rules of Lark's basic lexer (see
  ``_scanner``). At every token that can begin a phrase the Lark LALR parser is fed token by
  token; the last point where the input could end is the longest phrase. An LALR parser stops at
  the first token that cannot continue any phrase, so an attempt costs a few tokens.
* A reading the transformer rejects as impossible ("tomorrow at 25", 30 February) falls back to
  the longest valid beginning of the phrase ("tomorrow"; a yearless "Feb 29" for "Feb 29, 2025").
* A phrase must start and end on word boundaries, so "2019abc" is not a year and "money" has no
  Monday in it. Only ASCII digits are numbers.

Decisions a caller should know:

* A combined phrase such as "at 2pm on Monday" yields two mentions, a ``time`` ("2pm") and a day
  ("Monday"), each with its own span. They share what the phrase resolves: the time mention
  carries the day's ``date`` (and ``weekday``/``year`` when stated), the day mention carries the
  ``time``. ``datetime`` is used only for single-token ISO timestamps ("2025-03-03T14:00").
* Spans leave out context words: "in 2019" is reported as "2019", "for 2 hours" as "2 hours", "on
  the 5th" as "5th", so a correction can replace the span with a value.
* ``relative`` is True when the mention's own words get their value from the reference:
  "tomorrow", "next Tuesday", "last year", "3 days ago", and also partial dates that are resolved
  forward from it — a bare weekday, "the 5th", "March 3" without a year — each to the first such
  day on or after the reference date. ``year`` is set only when the text states a year or names
  one relatively ("last year"); when it is None the year in ``date`` was inferred.
* ``value`` by kind: time "14:00"; date, relative_day, relative_weekday "2025-03-03"; datetime
  "2025-03-03T14:00"; weekday "monday"; month "march"; year and relative_year "2019"; part_of_day
  "morning"; duration whole minutes "90" (a fraction of a minute is kept: "0.5").
* A clock time without am/pm and with a single-digit hour from 1 to 6 ("2 o'clock", "at 3",
  "2:00") is read as afternoon, because replies talk about office hours; "7 o'clock" and "07:00"
  stay morning, "tonight at 8" is 20:00.
* "next Tuesday" is the first Tuesday after the reference date, "last Friday" the last one before
  it, "this Monday" the first one on or after it.
* "at 3" and "the 5th" alone count only before punctuation or the end of the text ("at 3 shops",
  "the 5th time" do not); "once a day", "8 hours a week" and "Good morning" are recognised so
  that they do not yield a spurious duration or part of the day.
* A weekday written "Sat", "Sun" or "Wed" counts only capitalised and next to "on", "next"/"last"/
  "this" or a date; "May" and abbreviated months only in a date or after "in", "since", ...; a
  bare full month name only capitalised ("we march on"). A four-digit year (1900-2199) needs a
  preposition ("in", "since", "by", "from", ...), "year", a date or a range around it, so "2019
  Main St" and "2019 people" are not years.
* Misspelt weekdays ("Thrusday") are matched with rapidfuzz; see ``_TYPO_SHAPE``.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from importlib.resources import files
from typing import NamedTuple

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedInput, VisitError
from lark.parsers.lalr_interactive_parser import InteractiveParser
from rapidfuzz import fuzz, process

__all__ = [
    "WEEKDAYS",
    "TemporalMention",
    "find_temporal",
    "normalise_date",
    "normalise_time",
    "normalise_weekday",
    "mention_weekday",
    "names_weekday",
    "day_words",
]


@dataclass(frozen=True)
class TemporalMention:
    """One time or date in a text, with what it resolves to against the reference datetime."""

    start: int
    end: int
    text: str
    kind: str
    time: datetime.time | None
    date: datetime.date | None
    year: int | None
    weekday: int | None
    relative: bool
    stated_weekday_conflict: bool
    value: str


WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
NUMBER_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "forty-five": 45,
    "fifty": 50,
    "sixty": 60,
    "ninety": 90,
}
# Minutes per unit, keyed by the unit's first letter (minute/min, hour/hr/h, day, week/wk),
# and a month's (30 days) by its first two.
_UNIT_MINUTES = {"m": 1, "h": 60, "d": 1440, "w": 10080, "mo": 43200}


def _unit_minutes(unit: Token) -> int:
    word = unit.lower()
    return _UNIT_MINUTES["mo" if word.startswith("mo") else word[0]]


_DAY_OFFSETS = {
    "DAY_BEFORE_YESTERDAY": -2,
    "YESTERDAY": -1,
    "TODAY": 0,
    "TONIGHT": 0,
    "TOMORROW": 1,
    "DAY_AFTER_TOMORROW": 2,
}
_DAY_KINDS = frozenset({"date", "relative_day", "weekday", "relative_weekday", "datetime"})

# A misspelt weekday keeps its "d" and ends in "y", "ay" or "ya" ("Thrusday", "Wensday",
# "Mondya"). Requiring that shape keeps real words that score close to a weekday name ("Sundae",
# "sundry", "Frida") out, and the score cutoff rejects the rest ("Sunny", "Monte", "Wendy",
# "weekday", "today", "birthday").
_TYPO_SHAPE = re.compile(r"[^\W\d_]{2,8}d(?:a?y|ya)s?", re.IGNORECASE)
_TYPO_CUTOFF = 80

# Grammar terminals too common in ordinary prose to start a search from; every phrase that uses
# them also contains another anchor ("this morning", "half an hour", "last year").
_COMMON_TERMINALS = frozenset(
    {"ARTICLE", "THIS", "NEXT", "LAST", "HALF", "QUARTER", "QUARTERS", "PAST", "TO", "AM"}
)
# Characters tokenised on each side of an anchor: enough for the context words before a phrase
# ("throughout the", "at half past") and the non-anchor words after one (" a.m.", " and a half").
_REACH_BEFORE = 20
_REACH_AFTER = 16
# No phrase of the grammar is this long, so longer text cannot be a single time or date.
_MAX_VALUE_CHARS = 200
# Reference for the normalisers when none is given; mentions that depend on it are refused.
_NO_REFERENCE = datetime.datetime(2000, 1, 1)


def _fuzzy_weekday(word: str) -> int | None:
    if not _TYPO_SHAPE.fullmatch(word):
        return None
    match = process.extractOne(word.lower(), WEEKDAYS, scorer=fuzz.ratio, score_cutoff=_TYPO_CUTOFF)
    return None if match is None else match[2]


_GRAMMAR = (files("replyguard.grammars") / "temporal.lark").read_text(encoding="utf-8")
_PARSER = Lark(_GRAMMAR, parser="lalr", lexer="basic", maybe_placeholders=False)
# The parser drops terminals no rule uses; the lexer-only view keeps WORD, OTHER and WS, which
# are what let any text be tokenised.
_LEXER = Lark(_GRAMMAR, parser=None, lexer="basic")
_PRISTINE = _PARSER.parse_interactive(start="start")
_STARTERS = frozenset(name for name in _PRISTINE.choices() if name.isupper())
_EXACT_WEEKDAY = re.compile(_LEXER.get_terminal("WEEKDAY").pattern.to_regexp())
_SHORT_WEEKDAY = re.compile(_LEXER.get_terminal("WEEKDAY_SHORT").pattern.to_regexp())


def _scanner() -> tuple[re.Pattern[str], dict[str, str]]:
    """Lark's basic lexer for this grammar as one regex, to run with ``re.finditer``.

    Lark's own lexer makes a Python call per token and per skipped space, which was half the cost
    of a reply. This keeps its rules: terminals in Lark's order (priority, then longest possible
    match), and a plain word string is a keyword that a whole WORD must equal (case-insensitively,
    as every word string in the grammar is written). Each match swallows the ignored text (space)
    before its token, so that Python sees tokens only.
    """
    ignored = []
    groups = []
    keywords = {}
    for terminal in sorted(
        _LEXER.terminals,
        key=lambda t: (-t.priority, -t.pattern.max_width, -len(t.pattern.value), t.name),
    ):
        pattern = terminal.pattern
        if terminal.name in _LEXER.ignore_tokens:
            ignored.append(pattern.to_regexp())
        elif pattern.type == "str" and re.fullmatch(r"\w+", pattern.value):
            keywords[pattern.value.lower()] = terminal.name
        else:
            groups.append(f"(?P<{terminal.name}>{pattern.to_regexp()})")
    return re.compile(f"(?:{'|'.join(ignored)})*(?:{'|'.join(groups)})"), keywords


_SCANNER, _KEYWORDS = _scanner()


def _anchor_pattern() -> re.Pattern[str]:
    """One regex for every terminal worth starting a search from, each at the start of a word.

    A phrase starts at a word boundary and an anchor that does not ("pm" in "2pm") always follows
    one that does, so the look-behind loses nothing and skips the inside of every word.
    """
    parts = []
    for terminal in _PARSER.terminals:
        name = terminal.name
        if name.startswith("_") or name in _COMMON_TERMINALS or name in _PARSER.ignore_tokens:
            continue
        pattern = terminal.pattern
        parts.append(rf"{re.escape(pattern.value)}\b" if pattern.type == "str" else pattern.value)
    parts.append(rf"{_TYPO_SHAPE.pattern}\b")
    return re.compile(rf"(?<!\w)(?:{'|'.join(parts)})", re.IGNORECASE)


_ANCHOR = _anchor_pattern()
_ONLY_SPACE = re.compile(r"\s*\Z")
_WORD_REST = re.compile(r"\w*")


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def _on_boundary(text: str, pos: int) -> bool:
    return not (0 < pos < len(text) and _is_word_char(text[pos - 1]) and _is_word_char(text[pos]))


# ---- value helpers ----------------------------------------------------------------------------


def _grammar_weekday(word: str) -> int | None:
    """The weekday a word is as the grammar spells weekdays, no misspelling allowed."""
    if _EXACT_WEEKDAY.fullmatch(word) or _SHORT_WEEKDAY.fullmatch(word.capitalize()):
        return next(i for i, name in enumerate(WEEKDAYS) if word.lower().startswith(name[:2]))
    return None


def _weekday_index(word: str) -> int | None:
    index = _grammar_weekday(word)
    return _fuzzy_weekday(word) if index is None else index


def _number(token: Token) -> float:
    if token.type == "NUMBER_WORD":
        return NUMBER_WORDS[token.lower()]
    if token.type == "DECIMAL":
        return float(token)
    return int(token.rstrip("stndrhSTNDRH").replace(",", ""))


def _whole(number: float) -> int:
    if number != int(number):
        raise ValueError(f"{number} is not a whole number")
    return int(number)


def _clock_value(moment: datetime.time) -> str:
    return moment.isoformat(timespec="seconds" if moment.second else "minutes")


def _minutes_value(minutes: float) -> str:
    return str(int(minutes)) if minutes == int(minutes) else str(minutes)


def _twelve_hour(hour: float, meridiem: str, minute: int = 0, second: int = 0) -> datetime.time:
    hour = _whole(hour)
    if not 1 <= hour <= 12:
        raise ValueError(f"{hour} is not an hour on a 12-hour clock")
    return datetime.time(hour % 12 + (12 if meridiem == "pm" else 0), minute, second)


def _guess_hour(hour: float, evening: bool = False) -> int:
    """Resolve an hour said without am/pm: 1 to 6 is after noon, and so is any hour "tonight"."""
    hour = _whole(hour)
    if not 0 <= hour <= 23:
        raise ValueError(f"{hour} is not an hour")
    return hour + 12 if (1 <= hour <= 6 or (evening and 1 <= hour <= 11)) else hour


def _period_hour(hour: int, period: str) -> int:
    """Put a 12-hour clock hour into a part of the day: 7 in the evening is 19:00."""
    if not 1 <= hour <= 12:
        raise ValueError(f"{hour} is not an hour on a 12-hour clock")
    if period == "morning" or (period == "night" and (hour <= 4 or hour == 12)):
        return hour % 12
    return hour % 12 + 12


def _on_or_after(reference: datetime.date, weekday: int) -> datetime.date:
    return reference + datetime.timedelta(days=(weekday - reference.weekday()) % 7)


def _next_day_of_month(reference: datetime.date, day: int) -> datetime.date:
    """The first date on or after the reference whose day of the month is ``day``."""
    year, month = reference.year, reference.month
    for _ in range(12):
        if day >= reference.day or (year, month) != (reference.year, reference.month):
            try:
                return datetime.date(year, month, day)
            except ValueError:
                pass
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    raise ValueError(f"no month has a day {day}")


def _next_month_day(reference: datetime.date, month: int, day: int) -> datetime.date:
    """The first date on or after the reference that falls on this month and day."""
    for year in range(reference.year, reference.year + 9):  # 29 February recurs within 8 years
        try:
            candidate = datetime.date(year, month, day)
        except ValueError:
            continue
        if candidate >= reference:
            return candidate
    raise ValueError(f"no date {month}-{day}")


def _span(token: Token) -> tuple[int, int]:
    return token.start_pos, token.end_pos


def _copy(mention: TemporalMention, **changes) -> TemporalMention:
    """``dataclasses.replace`` without its per-field checks, which cost more than a parse."""
    return TemporalMention(**{**mention.__dict__, **changes})


class _Piece(NamedTuple):
    """A word or number of a phrase, resolved, with its span, before it joins a mention."""

    value: int | float | str
    start: int
    end: int


class _Amount(NamedTuple):
    """A piece of a duration. ``minutes`` is None for "a half", which halves the unit before it."""

    minutes: float | None
    unit: int
    start: int
    end: int


# ---- the transformer --------------------------------------------------------------------------


class _Resolver(Transformer):
    """Turns the parse of one phrase into mentions, one method per rule of temporal.lark."""

    def __init__(self, text: str, reference: datetime.datetime) -> None:
        super().__init__(visit_tokens=False)
        self._text = text
        self._now = reference
        self._today = reference.date()

    # -- building blocks

    def _piece(self, token: Token, value: int | float | str) -> _Piece:
        return _Piece(value, *_span(token))

    def _mention(
        self,
        kind: str,
        start: int,
        end: int,
        value: str,
        *,
        time: datetime.time | None = None,
        date: datetime.date | None = None,
        year: int | None = None,
        weekday: int | None = None,
        relative: bool = False,
        conflict: bool = False,
    ) -> TemporalMention:
        return TemporalMention(
            start,
            end,
            self._text[start:end],
            kind,
            time,
            date,
            year,
            weekday,
            relative,
            conflict,
            value,
        )

    def _time(self, start: int, end: int, moment: datetime.time) -> TemporalMention:
        return self._mention("time", start, end, _clock_value(moment), time=moment)

    def _day(self, kind: str, start: int, end: int, date: datetime.date, **fields):
        return self._mention(kind, start, end, date.isoformat(), date=date, **fields)

    def _respan(self, mention: TemporalMention, start: int, end: int) -> TemporalMention:
        return _copy(mention, start=start, end=end, text=self._text[start:end])

    def _calendar_date(self, start: int, end: int, year: Token | None, month: int, day: int):
        if year is None:
            date = _next_month_day(self._today, month, day)
            return self._day("date", start, end, date, relative=True)
        date = datetime.date(int(year), month, day)
        return self._day("date", start, _span(year)[1], date, year=date.year)

    # -- phrases

    def start(self, children):
        (phrase,) = children
        return phrase if isinstance(phrase, list) else [phrase]

    def day_at_time(self, children):
        day, moment = children
        if isinstance(moment, _Piece):
            evening = day.text.lower() == "tonight"
            hour = datetime.time(_guess_hour(moment.value, evening))
            moment = self._time(moment.start, moment.end, hour)
        return self._join(day, moment)

    def time_on_day(self, children):
        moment, day = children
        if isinstance(moment, _Piece):
            moment = self._time(moment.start, moment.end, datetime.time(_guess_hour(moment.value)))
        return self._join(day, moment)

    def _join(self, day: TemporalMention, moment: TemporalMention) -> list[TemporalMention]:
        dated = _copy(moment, date=day.date, weekday=day.weekday, year=day.year)
        timed = _copy(day, time=moment.time)
        return sorted([dated, timed], key=lambda mention: mention.start)

    def day_with_period(self, children):
        day, period = children
        part = self._mention(
            "part_of_day",
            period.start,
            period.end,
            period.value,
            date=day.date,
            weekday=day.weekday,
            year=day.year,
            relative=day.relative,
        )
        return [day, part]

    # -- clock times

    def bare_hour(self, children):
        (hour,) = children
        return self._time(hour.start, hour.end, datetime.time(_guess_hour(hour.value)))

    def hour_meridiem(self, children):
        hour, meridiem = children
        return self._time(hour.start, meridiem.end, _twelve_hour(hour.value, meridiem.value))

    def clock_face(self, children):
        face, *meridiem = children
        hour, minute, *second = (int(part) for part in face.split(":"))
        start, end = _span(face)
        if meridiem:
            moment = _twelve_hour(hour, meridiem[0].value, minute, *second)
            return self._time(start, meridiem[0].end, moment)
        if not face.startswith("0"):
            hour = _guess_hour(hour)
        return self._time(start, end, datetime.time(hour, minute, *second))

    def dotted_clock(self, children):
        face, meridiem = children
        hour, minute = face.split(".")
        if len(minute) != 2:
            raise ValueError(f"{face} is not a time")
        moment = _twelve_hour(int(hour), meridiem.value, int(minute))
        return self._time(_span(face)[0], meridiem.end, moment)

    def oclock(self, children):
        hour, word = children
        if not 1 <= hour.value <= 12:
            raise ValueError(f"{hour.value} o'clock")
        return self._time(hour.start, _span(word)[1], datetime.time(_guess_hour(hour.value)))

    def named_time(self, children):
        (word,) = children
        return self._time(*_span(word), datetime.time(12 if word.type == "NOON" else 0))

    def hour_named_time(self, children):
        hour, word = children
        if hour.value != 12:
            raise ValueError(f"{hour.value} {word}")
        return self._time(
            hour.start, _span(word)[1], datetime.time(12 if word.type == "NOON" else 0)
        )

    def clock_in_period(self, children):
        hour, period = children
        if isinstance(hour, Token):
            start = _span(hour)[0]
            hours, *minute_second = (int(part) for part in hour.split(":"))
        else:
            start, hours, minute_second = hour.start, _whole(hour.value), []
        moment = datetime.time(_period_hour(hours, period.value), *minute_second)
        return self._time(start, period.end, moment)

    def past_to(self, children):
        minutes, direction, hour = children
        count = {"HALF": 30, "QUARTER": 15}.get(minutes.type) or _whole(_number(minutes))
        if not 1 <= count <= 59 or not 1 <= hour.value <= 12:
            raise ValueError("not a time")
        if minutes.type == "NUMBER" and direction.type == "TO" and count <= 12:
            raise ValueError("a range of hours")  # "open 8 to 4", not 3:52
        base = datetime.datetime.combine(self._today, datetime.time(_guess_hour(hour.value)))
        shift = datetime.timedelta(minutes=count if direction.type == "PAST" else -count)
        return self._time(_span(minutes)[0], hour.end, (base + shift).time())

    def hour(self, children):
        (token,) = children
        return self._piece(token, _number(token))

    def meridiem(self, children):
        (token,) = children
        return self._piece(token, "pm" if token.lower().startswith("p") else "am")

    # -- days

    def relative_day(self, children):
        (word,) = children
        date = self._today + datetime.timedelta(days=_DAY_OFFSETS[word.type])
        return self._day("relative_day", *_span(word), date, relative=True)

    def weekday(self, children):
        (word,) = children
        index = _weekday_index(word)
        date = _on_or_after(self._today, index)
        return self._mention(
            "weekday", *_span(word), WEEKDAYS[index], date=date, weekday=index, relative=True
        )

    def relative_weekday(self, children):
        which, weekday = children
        if which.type == "NEXT":
            date = _on_or_after(self._today + datetime.timedelta(days=1), weekday.value)
        elif which.type == "LAST":
            date = _on_or_after(self._today - datetime.timedelta(days=7), weekday.value)
        else:
            date = _on_or_after(self._today, weekday.value)
        start = _span(which)[0]
        return self._day(
            "relative_weekday", start, weekday.end, date, weekday=weekday.value, relative=True
        )

    def dated_weekday(self, children):
        *which, weekday, date = children  # "next Wednesday, March 4": the date says which one
        conflict = date.year is not None and date.date.weekday() != weekday.value
        named = _copy(date, weekday=weekday.value, stated_weekday_conflict=conflict)
        return self._respan(named, _span(which[0])[0] if which else weekday.start, date.end)

    def ordinal_day(self, children):
        (ordinal,) = children
        date = _next_day_of_month(self._today, _whole(_number(ordinal)))
        return self._day("date", *_span(ordinal), date, relative=True)

    def day_of_month(self, children):
        day, *_, unit = children  # of the reference's month, even when the day has passed
        if not str(unit).lower().startswith("month"):
            raise ValueError("the 5th of this week")  # another unit: the shorter phrase
        date = datetime.date(self._today.year, self._today.month, day.value)
        return self._day("date", day.start, day.end, date, relative=True)

    def weekday_name(self, children):
        (word,) = children
        return self._piece(word, _weekday_index(word))

    def month_day_year(self, children):
        month, day, *year = children
        return self._calendar_date(month.start, day.end, *year or [None], month.value, day.value)

    def day_month_year(self, children):
        day, month, *year = children
        return self._calendar_date(day.start, month.end, *year or [None], month.value, day.value)

    def iso_date(self, children):
        (token,) = children
        year, month, day = (int(part) for part in re.split(r"[-/]", token))
        return self._day("date", *_span(token), datetime.date(year, month, day), year=year)

    def us_date(self, children):
        (token,) = children
        month, day, year = (int(part) for part in token.split("/"))
        year += 2000 if year < 100 else 0
        return self._day("date", *_span(token), datetime.date(year, month, day), year=year)

    def day_number(self, children):
        (token,) = children
        number = _whole(_number(token))
        if not 1 <= number <= 31:
            raise ValueError(f"{number} is not a day of the month")
        return self._piece(token, number)

    def month_name(self, children):
        (word,) = children
        index = next(i for i, name in enumerate(_MONTHS) if word.lower().startswith(name[:3]))
        return self._piece(word, index + 1)

    def timestamp(self, children):
        (token,) = children
        stamp = datetime.datetime.fromisoformat(token[:19].replace(" ", "T"))
        return self._mention(
            "datetime",
            *_span(token),
            stamp.isoformat(timespec="minutes"),
            time=stamp.time(),
            date=stamp.date(),
            year=stamp.year,
        )

    # -- parts of the day

    def bare_part_of_day(self, children):
        (word,) = children
        return self._mention("part_of_day", *_span(word), word.type.lower())

    def part_of_day(self, children):
        (period,) = children
        return self._mention("part_of_day", period.start, period.end, period.value)

    def relative_part_of_day(self, children):
        which, period = children
        date = self._today - datetime.timedelta(days=1 if which.type == "LAST" else 0)
        return self._mention(
            "part_of_day", _span(which)[0], period.end, period.value, date=date, relative=True
        )

    def day_period(self, children):
        (word,) = children
        return self._piece(word, word.type.lower())

    def greeting(self, children):
        return []

    # -- months and years

    def month(self, children):
        (month,) = children
        if isinstance(month, Token):
            if month[0].islower():
                raise ValueError(f"{month!r} alone is a verb or an adjective, not a month")
            month = self.month_name([month])
        return self._mention("month", month.start, month.end, _MONTHS[month.value - 1])

    def month_of_year(self, children):
        month, year = children
        return self._mention(
            "month", month.start, _span(year)[1], _MONTHS[month.value - 1], year=int(year)
        )

    def year(self, children):
        year = children[-1]
        return self._mention("year", *_span(year), str(year), year=int(year))

    def year_range(self, children):
        return [self.year([token]) for token in children if token.type == "YEAR"]

    def relative_year(self, children):
        which, word = children
        year = self._now.year + {"LAST": -1, "NEXT": 1, "THIS": 0}[which.type]
        start, end = _span(which)[0], _span(word)[1]
        return self._mention("relative_year", start, end, str(year), year=year, relative=True)

    def years_ago(self, children):
        count, _word, ago = children
        year = self._now.year - _whole(count.value)
        end = _span(ago)[1]
        return self._mention("relative_year", count.start, end, str(year), year=year, relative=True)

    # -- durations

    def length(self, children):
        (duration,) = children
        return self._mention(
            "duration", duration.start, duration.end, _minutes_value(duration.minutes)
        )

    def rate(self, children):
        return self.length(children[:1])

    def ago(self, children):
        duration, word = children
        end = _span(word)[1]
        moment = self._now - datetime.timedelta(minutes=duration.minutes)
        if duration.unit >= _UNIT_MINUTES["d"]:
            return self._day("relative_day", duration.start, end, moment.date(), relative=True)
        return self._mention(
            "time",
            duration.start,
            end,
            _clock_value(moment.time()),
            time=moment.time(),
            date=moment.date(),
            relative=True,
        )

    def duration(self, children):
        first, *rest = children
        if first.minutes is None:
            raise ValueError("'a half' of nothing")
        minutes = first.minutes
        for amount in rest:  # "and a half" (unit -2), "and a quarter" (unit -4) of the first
            minutes += first.unit / -amount.unit if amount.minutes is None else amount.minutes
        unit = max(amount.unit for amount in children)
        return _Amount(minutes, unit, first.start, children[-1].end)

    def measure(self, children):
        count, unit = children
        per_unit = _unit_minutes(unit)
        return _Amount(count.value * per_unit, per_unit, count.start, _span(unit)[1])

    def one_unit(self, children):
        article, unit = children
        per_unit = _unit_minutes(unit)
        return _Amount(per_unit, per_unit, _span(article)[0], _span(unit)[1])

    def half_unit(self, children):
        half, _article, unit = children
        per_unit = _unit_minutes(unit)
        return _Amount(per_unit / 2, per_unit, _span(half)[0], _span(unit)[1])

    def and_a_half(self, children):
        article, half = children
        return _Amount(None, -2, _span(article)[0], _span(half)[1])

    def and_a_quarter(self, children):
        article, quarter = children
        return _Amount(None, -4, _span(article)[0], _span(quarter)[1])

    def quarters_of_unit(self, children):
        many, _quarter, _article, unit = children
        if isinstance(many, Token):  # "a quarter of an hour"
            quarters, start = 1, _span(many)[0]
        else:
            quarters, start = many.value, many.start
        per_unit = _unit_minutes(unit)
        return _Amount(quarters * per_unit / 4, per_unit, start, _span(unit)[1])

    def count_and_a_half(self, children):
        count, _article, _half, unit = children
        per_unit = _unit_minutes(unit)
        return _Amount((count.value + 0.5) * per_unit, per_unit, count.start, _span(unit)[1])

    def count(self, children):
        (token,) = children
        return self._piece(token, _number(token))

    def frequency(self, children):
        return []


# ---- scanning ---------------------------------------------------------------------------------


def _windows(text: str) -> Iterator[tuple[int, int]]:
    """Stretches of text around anchors, merged, each starting and ending between words."""
    low = high = -1
    for anchor in _ANCHOR.finditer(text):
        start = max(0, anchor.start() - _REACH_BEFORE)
        if not _on_boundary(text, start):
            start = _WORD_REST.match(text, start).end()  # never past the anchor: it starts a word
        end = min(len(text), anchor.end() + _REACH_AFTER)
        if not _on_boundary(text, end):
            end = _WORD_REST.match(text, end).end()
        if _ONLY_SPACE.match(text, end):
            end = len(text)  # so that the end of the text still counts as a pause
        if start <= high:
            high = max(high, end)
            continue
        if high >= 0:
            yield low, high
        low, high = start, end
    if high >= 0:
        yield low, high


def _tokens(text: str, low: int, high: int) -> list[Token]:
    """The tokens of ``text[low:high]``, with offsets into ``text``."""
    tokens = []
    for match in _SCANNER.finditer(text, low, high):
        kind = match.lastgroup
        start = match.start(kind)
        value = match.group(kind)
        if kind == "WORD":
            kind = _KEYWORDS.get(value.lower(), kind)
            if kind == "WORD" and _fuzzy_weekday(value) is not None:
                kind = "WEEKDAY"
        tokens.append(Token(kind, value, start_pos=start, end_pos=match.end()))
    if high == len(text):
        # The end of the text is a pause, like a full stop ("see you at 3").
        tokens.append(Token("_STOP", "", start_pos=high, end_pos=high))
    return tokens


def _resolve(
    parser: InteractiveParser, last: Token, text: str, reference: datetime.datetime
) -> list[TemporalMention] | None:
    try:
        tree = parser.feed_eof(last)
        return _Resolver(text, reference).transform(tree)
    except UnexpectedInput:
        return None  # LALR lookahead merging can promise an end that a full parse refuses
    except VisitError as error:
        if isinstance(error.orig_exc, ValueError | OverflowError):
            return None  # well-formed but impossible: 31 February, 13pm, 10**20 days ago
        raise


def _longest_phrase(
    tokens: list[Token], first: int, text: str, reference: datetime.datetime
) -> tuple[list[TemporalMention], int] | None:
    """The mentions of the longest valid phrase starting at ``tokens[first]``, and where it ends."""
    parser = _fresh_parser()
    ends = []
    fed = first
    while fed < len(tokens) and tokens[fed].type in parser.choices():
        try:
            parser.feed_token(tokens[fed])
        except UnexpectedInput:
            parser = None  # half-reduced: any phrase found so far must be parsed again
            break
        fed += 1
        if "$END" in parser.choices():
            ends.append(fed)
    for end in reversed(ends):
        last = tokens[end - 1]
        if not _on_boundary(text, last.end_pos):
            continue
        if parser is None or end != fed:
            parser = _fresh_parser()
            for token in tokens[first:end]:
                parser.feed_token(token)
        mentions = _resolve(parser, last, text, reference)
        parser = None
        if mentions is not None:
            return mentions, end
    return None


def _fresh_parser() -> InteractiveParser:
    # Parse trees are never changed once built, so the values need no deep copy.
    return _PRISTINE.copy(deepcopy_values=False)


def _scan(text: str, low: int, high: int, reference: datetime.datetime) -> list[TemporalMention]:
    tokens = _tokens(text, low, high)
    found: list[TemporalMention] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        phrase = None
        if token.type in _STARTERS and _on_boundary(text, token.start_pos):
            phrase = _longest_phrase(tokens, index, text, reference)
        if phrase is None:
            index += 1
        else:
            mentions, index = phrase
            found.extend(mentions)
    return found


def find_temporal(text: str, reference: datetime.datetime) -> list[TemporalMention]:
    """All temporal mentions in text, non-overlapping, left to right, longest match preferred."""
    found: list[TemporalMention] = []
    for low, high in _windows(text):
        found.extend(_scan(text, low, high, reference))
    found = [m for m in found if not _opens_a_name(text, m)]
    return _bare_ranges(text, _range_starts(text, found))


_NEXT_WORD = re.compile(r"[ \t]+([A-Z][a-z]+)")


def _opens_a_name(text: str, mention: TemporalMention) -> bool:
    """A month said alone right before a capitalised word opens a name, not a date: "on August
    Hall" is a venue, "June Street" a street."""
    if mention.kind != "month" or " " in mention.text.strip():
        return False
    after = _NEXT_WORD.match(text, mention.end)
    return after is not None and _weekday_index(after.group(1)) is None


# The first end of a range of times written without its own am/pm ("from 7.30 until 10 am",
# "9 - 5:30pm"): an hour, or an hour and minutes after a dot or colon, before the joining word.
_RANGE_START = re.compile(
    r"(?:^|(?<=\s))(?P<hour>\d{1,2})(?:[.:](?P<minute>\d{2}))?\s*(?:-|–|to|until|till)\s*$",
    re.IGNORECASE,
)
_MERIDIEM = re.compile(r"[ap]\.?m\b\.?", re.IGNORECASE)
_RANGE_REACH = 16


# A range of bare hours where hours are meant: after "from", "open", "between", a weekday or
# "it's", and before the end of the clause or a word that says when ("open 8 to 4 on
# Saturdays", "from 9 until 5", "Fridays 3 till 6:30", "on Saturdays it's 8:30 to 4").
_BARE_RANGE = re.compile(
    r"\b(?:from|between|open|opens|opening|it['’]s|it is|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?)\s+"
    r"(?P<h1>\d{1,2})(?:[.:](?P<m1>\d{2}))?\s*(?:-|–|to|until|till)\s*"
    r"(?P<h2>\d{1,2})(?:[.:](?P<m2>\d{2}))?"
    r"(?=\s*(?:[.,;!?)]|$)|\s+(?:on|daily|every|each|and|but|or|except|during|today|tomorrow|"
    r"tonight|weekdays|weekends|mon|tue|wed|thu|fri|sat|sun)\w*\b)",
    re.IGNORECASE,
)


def _bare_ranges(text: str, found: list[TemporalMention]) -> list[TemporalMention]:
    """Both ends of each range of bare hours: the first an hour of the working day (1 to 6 is
    after noon), the second the first such hour after it ("8 to 4" is 08:00 to 16:00)."""
    out = list(found)
    for m in _BARE_RANGE.finditer(text):
        ends = {
            key: (m.start("h" + key), m.end("m" + key) if m["m" + key] else m.end("h" + key))
            for key in "12"
        }
        inside = [f for f in found if f.start < m.end() and m.start("h1") < f.end]
        if any(
            f.kind != "time" or (f.start, f.end) not in ends.values() or _MERIDIEM.search(f.text)
            for f in inside
        ):
            continue  # a range read otherwise, or one whose am/pm is said ("3 till 6:30pm")
        # "3 till 6:30": the clock end is read already, and the first end read so is kept
        said = {(f.start, f.end): f.time for f in inside}
        h1, h2 = int(m["h1"]), int(m["h2"])
        m1, m2 = int(m["m1"] or 0), int(m["m2"] or 0)
        if not (1 <= h1 <= 12 and 1 <= h2 <= 12 and m1 < 60 and m2 < 60):
            continue
        clock = said.get(ends["1"])
        first = clock.hour * 60 + clock.minute if clock is not None else _guess_hour(h1) * 60 + m1
        second = next(t for t in (h2 % 12 * 60 + m2, (h2 % 12 + 12) * 60 + m2, 1440) if t > first)
        if second >= 1440:
            continue
        for key, minutes in (("1", first), ("2", second)):
            start, end = ends[key]
            if (start, end) in said:
                continue
            moment = datetime.time(minutes // 60, minutes % 60)
            out.append(
                TemporalMention(
                    start, end, text[start:end], "time", moment, None, None, None, False, False,
                    _clock_value(moment),
                )
            )  # fmt: skip
    return sorted(out, key=lambda f: f.start)


def _range_starts(text: str, found: list[TemporalMention]) -> list[TemporalMention]:
    """Add the first end of each range whose second end alone says am or pm: the first takes
    the half of the day that puts it latest before the second (7.30 before 10 am is 7:30 am,
    6 before 9:30 pm is 6 pm, 11.45 before 12.45 pm is 11:45 am)."""
    out: list[TemporalMention] = []
    for k, mention in enumerate(found):
        before = found[k - 1].end if k else 0
        if k and found[k - 1].kind == "time" and not _MERIDIEM.search(found[k - 1].text):
            before = found[k - 1].start  # "from 6:30 to 9am": the bare first end, read again
        m = None
        if mention.kind == "time" and mention.time is not None and _MERIDIEM.search(mention.text):
            low = max(before, mention.start - _RANGE_REACH)
            m = _RANGE_START.search(text[low : mention.start])
        if m is not None:
            hour, minute = int(m["hour"]), int(m["minute"] or 0)
            second = mention.time.hour * 60 + mention.time.minute
            starts = [
                h * 60 + minute
                for h in (hour % 12, hour % 12 + 12)
                if 1 <= hour <= 12 and minute < 60 and h * 60 + minute < second
            ]
            if starts:
                first = max(starts)
                moment = datetime.time(first // 60, first % 60)
                start = low + m.start("hour")
                end = low + (m.end("minute") if m["minute"] else m.end("hour"))
                if out and out[-1].start == start:
                    out.pop()
                out.append(
                    TemporalMention(
                        start, end, text[start:end], "time", moment, None, None, None, False,
                        False, _clock_value(moment),
                    )
                )  # fmt: skip
        out.append(mention)
    return out


# ---- normalisers ------------------------------------------------------------------------------


def _whole_phrase(text: str, reference: datetime.datetime) -> list[TemporalMention]:
    """The mentions of ``text`` when all of it is one phrase, else none: "2pm" but not "2pm-ish"."""
    value = text.strip()
    if not value or len(value) > _MAX_VALUE_CHARS:
        return []
    tokens = _tokens(value, 0, len(value))
    phrase = _longest_phrase(tokens, 0, value, reference)
    if phrase is None or phrase[1] < len(tokens) - 1:
        return []
    return phrase[0]


def normalise_time(text: str) -> str | None:
    """Clock time as "HH:MM" ("2pm", "2:00 pm", "2 o'clock" -> "14:00"); None when not a time."""
    for mention in _whole_phrase(text, _NO_REFERENCE):
        if mention.kind in ("time", "datetime") and not mention.relative:
            return _clock_value(mention.time)
    return None


def normalise_date(text: str, reference: datetime.datetime | None = None) -> str | None:
    """ISO date of a date written in any supported form; None when not a date.

    Dates that depend on a reference ("the 5th", "tomorrow", "Monday", "March 3") need one.
    """
    for mention in _whole_phrase(text, reference or _NO_REFERENCE):
        if mention.kind in _DAY_KINDS and (reference is not None or not mention.relative):
            return mention.date.isoformat()
    return None


def day_as_held(mention: TemporalMention | None, held: Sequence[str]) -> str | None:
    """The day a mention names ("tomorrow", "next Wednesday, March 4", "Monday"), resolved
    against the reference, in the form the KB holds its days: the ISO date against dates, the
    weekday against weekdays. None when the mention names no day or the KB holds neither."""
    if mention is None or mention.date is None or mention.kind not in _DAY_KINDS:
        return None
    if any(normalise_date(v) for v in held):
        # a bare weekday ("on Wednesday") may be any week's: compared as a weekday
        return None if mention.kind == "weekday" else mention.date.isoformat()
    if any(normalise_weekday(v) for v in held):
        return WEEKDAYS[mention.date.weekday()]
    return None


def normalise_weekday(text: str) -> str | None:
    """Lower-case weekday name for a name, abbreviation or common misspelling; else None."""
    word = text.strip()
    index = _weekday_index(word) if word else None
    return None if index is None else WEEKDAYS[index]


def mention_weekday(mention: TemporalMention) -> str | None:
    """The weekday a mention falls on or names ("tomorrow" -> its day, "Sundays" -> sunday)."""
    if mention.date is not None:
        return WEEKDAYS[mention.date.weekday()]
    if mention.weekday is not None:
        return WEEKDAYS[mention.weekday]
    return normalise_weekday(mention.text)


def _short_forms(day: str) -> tuple[str, ...]:
    """The short forms the temporal grammar reads as `day` (WEEKDAY, WEEKDAY_SHORT): its name's
    beginnings of three letters or more, with or without a plural "s" ("tue", "weds"). The
    grammar is the one list; the MeTTa facts name the full weekday only."""
    index = WEEKDAYS.index(day)
    candidates = {day[:k] + s for k in range(3, len(day)) for s in ("", "s")}
    return tuple(sorted(f for f in candidates if _grammar_weekday(f) == index))


# how a KB's column names shorten the weekdays ("tue_open", "sat_hours")
_DAY_WORDS = {day: frozenset((day, *_short_forms(day))) for day in WEEKDAYS}


def day_words(day: str) -> frozenset[str]:
    """A weekday's name and the short forms column names use for it."""
    return _DAY_WORDS.get(day, frozenset((day,)))


def names_weekday(attribute: str, day: str) -> bool:
    """Whether an attribute's name is about a weekday ("sunday_hours", "sun_close" of sunday)."""
    return not day_words(day).isdisjoint(attribute.lower().replace("-", "_").split("_"))


# the parts of the week column names say ("weekday_price", "weekend_fee")
_WEEK_PARTS = {
    "weekday": WEEKDAYS[:5],
    "weekdays": WEEKDAYS[:5],
    "weekend": WEEKDAYS[5:],
    "weekends": WEEKDAYS[5:],
}


def covers_weekday(attribute: str, day: str) -> bool:
    """Whether an attribute's name is about a weekday or the part of the week holding it
    ("weekend_price" of saturday, "weekday_fee" of tuesday)."""
    parts = attribute.lower().replace("-", "_").split("_")
    return names_weekday(attribute, day) or any(day in _WEEK_PARTS.get(p, ()) for p in parts)


def week_parts(days: set[str]) -> set[str]:
    """The words for the part of the week all these days are in ("weekday", "weekdays" for
    Monday to Friday; "weekend", "weekends" for Saturday and Sunday)."""
    return {word for word, part in _WEEK_PARTS.items() if days and days <= set(part)}


def normalise_duration(text: str) -> str | None:
    """Minutes of a duration written in any supported form ("an hour and a half" -> "90")."""
    for mention in _whole_phrase(text, _NO_REFERENCE):
        if mention.kind == "duration":
            return mention.value
    return None
