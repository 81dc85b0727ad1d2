"""Typed values: recognise a value's type, normalise it to a comparison key, and grade a match.

Rules compare like with like only if every value reaches them in one canonical form, so this
module is the single place where "2pm", "2:00 PM" and "14:00" become the same key. Grading is a
measurement (exact, normalised, compatible, fuzzy distance, mismatch); whether a grade counts as a
match is decided by the rules in metta/facts.metta.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from functools import lru_cache

from rapidfuzz.distance import Levenshtein

from replyguard.models import ValueType
from replyguard.text.temporal import (
    NUMBER_WORDS,
    normalise_date,
    normalise_duration,
    normalise_time,
    normalise_weekday,
)
from replyguard.text.words import stem

EMAIL_RE = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]+")
URL_RE = re.compile(r"(?:https?://|www\.)[^\s<>\"]+[^\s<>\".,;:!?)]", re.IGNORECASE)
PHONE_RE = re.compile(
    r"(?:\+?\d{1,3}[\s.-]?)?(?:\(\d{3}\)|\d{3})[\s.-]?\d{3}[\s.-]?\d{4}"
    # national numbers after a trunk 0 ("01223 323737", "020 7946 0018"), international ones
    r"|(?<![\d.])0\d{2,5}[\s-]?\d{3,4}[\s-]?\d{3,4}(?!\d|\.\d)"
    r"|(?<![\d.])0\d{3,4}[\s-]?\d{6,7}(?!\d|\.\d)"
    r"|(?<![\d.])0\d{5}[\s-]?\d{4,5}(?!\d|\.\d)"  # a five-digit area code: "015394 55010"
    r"|\+\d{1,3}(?:[\s-]?\d{2,5}){2,4}(?!\d)"
    r"|(?<![\d.-])[2-9]\d{2}-\d{4}(?![\d-])"  # a local number: "555-0199"
)
# a number that may be a year: "released in 1865", "a 2012 song"
YEAR_LIKE = re.compile(r"1[0-9]{3}|2[01][0-9]{2}")
# An amount's digits, with thousands commas inside it only: "€99," ends before its comma.
_AMOUNT = r"\d(?:[\d,]*\d)?(?:\.\d+)?"
# Pence and cents after the amount ("15p", "50 pence", "99 cents"): hundredths of the currency;
# the "p" of a time is none ("3 p.m.", "5 pm").
_HUNDREDTHS = r"pence|cents?|(?<=\d)p(?!\w|\.\s?m\b)"
MONEY_RE = re.compile(
    rf"(?:(?P<sym>[$€£¥])\s?(?P<a1>{_AMOUNT})(?:\s?(?P<m1>k|m|bn|million|billion|thousand)\b)?)"
    rf"|(?:(?P<a2>{_AMOUNT})\s?(?P<code>USD|EUR|GBP|JPY|dollars?|euros?|pounds?|{_HUNDREDTHS}))",
    re.IGNORECASE,
)
# A price per unit as a KB writes one ("£15 per day", "$4/hour", "€9 a night"): money, compared
# by its amount (a reply says the rate in its own words: "£15 a day").
_RATE_RE = re.compile(r"(?P<money>.+?)\s*(?:/|\bper\b|\ba\b|\ban\b|\beach\b)\s*[^\W\d_]+\.?", re.I)
# Words that state a price of nothing ("the shuttle is free"), in a column of prices.
FREE_WORDS = frozenset({"free", "free of charge", "no charge", "complimentary"})
PERCENT_RE = re.compile(r"(?P<n>-?\d+(?:\.\d+)?)\s?(?:%|percent\b|per cent\b)", re.IGNORECASE)
NUMBER_RE = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
YEAR_RE = re.compile(r"(?:19|20|21)\d\d")
DURATION_RE = re.compile(
    r"(?P<n>\d+(?:\.\d+)?)\s?(?P<u>minutes?|mins?|hours?|hrs?|h|days?|weeks?|months?|years?)\b",
    re.IGNORECASE,
)
UNIT_NUMBER_RE = re.compile(
    r"(?P<n>-?\d[\d,]*(?:\.\d+)?)[\s-]?(?:degrees?\s+(?=[FfCc]))?(?P<u>[A-Za-z°]+\.?)"
)

_MONEY_CODES = {
    "p": "GBP",
    "pence": "GBP",
    "cent": "USD",
    "cents": "USD",
    "$": "USD",
    "€": "EUR",
    "£": "GBP",
    "¥": "JPY",
    "dollar": "USD",
    "dollars": "USD",
    "euro": "EUR",
    "euros": "EUR",
    "pound": "GBP",
    "pounds": "GBP",
}
_FRACTIONAL = frozenset({"p", "pence", "cent", "cents"})  # hundredths of their currency
# money said in words: "eighty-nine quid", "twenty pounds", "a tenner"
MONEY_WORDS = {
    "quid": "GBP",
    "bucks": "USD",
    **{w: c for w, c in _MONEY_CODES.items() if len(w) > 2},
}
_NOTES = {"fiver": ("GBP", 5), "tenner": ("GBP", 10)}
_UNIT_WORDS = {
    w: n
    for n, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen".split()
    )
}
_TENS_WORDS = {
    w: 10 * n
    for n, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), 2)
}


def number_in_words(words: Sequence[str]) -> int | None:
    """The whole number some words say ("eighty-nine", "one hundred and twenty", "a hundred"),
    or None."""
    parts = [p for w in words for p in w.lower().split("-") if p]
    total, current, said = 0, 0, False
    for k, part in enumerate(parts):
        if part in ("a", "an") and k == 0:
            current, said = 1, False
        elif part in _UNIT_WORDS:
            current, said = current + _UNIT_WORDS[part], True
        elif part in _TENS_WORDS:
            current, said = current + _TENS_WORDS[part], True
        elif part == "hundred":
            current, said = max(current, 1) * 100, True
        elif part == "thousand":
            total, current, said = total + max(current, 1) * 1000, 0, True
        elif part == "and" and said:
            continue
        else:
            return None
    return total + current if said else None


def words_money_key(text: str) -> str | None:
    """The key of money said in words ("eighty-nine quid" -> "GBP:89.00", "a tenner")."""
    words = fold(text).split()
    if len(words) == 2 and words[0] in ("a", "one") and words[1] in _NOTES:
        code, amount = _NOTES[words[1]]
        return f"{code}:{amount:.2f}"
    unit = next((k for k, w in enumerate(words) if w in MONEY_WORDS), None)
    if unit is None or unit == 0:
        return None
    amount = number_in_words(words[:unit])
    # "twelve pounds fifty": the minor units after the major ones
    minor = number_in_words(words[unit + 1 :]) if unit + 1 < len(words) else 0
    if amount is None or minor is None or not 0 <= minor < 100:
        return None
    amount += minor / 100
    return "0" if amount == 0 else f"{MONEY_WORDS[words[unit]]}:{amount:.2f}"


_MAGNITUDES = {"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "bn": 1e9, "billion": 1e9}
_MINUTES = {
    "min": 1,
    "minute": 1,
    "h": 60,
    "hr": 60,
    "hour": 60,
    "day": 1440,
    "week": 10080,
    "month": 43200,
    "year": 525600,
}
_UNIT_ALIASES = {
    "mi": "mile",
    "miles": "mile",
    "km": "kilometer",
    "kilometers": "kilometer",
    "kilometres": "kilometer",
    "f": "fahrenheit",
    "°f": "fahrenheit",
    "c": "celsius",
    "celsius": "celsius",
    "°c": "celsius",
    "feet": "foot",
    "ft": "foot",
    "m": "meter",
    "meters": "meter",
    "metres": "meter",
    "lbs": "pound",
    "lb": "pound",
    "kg": "kilogram",
    "kgs": "kilogram",
}
_THE = re.compile(r"^(?:the|a|an)\s+")
_PUNCT = re.compile(r"[^\w\s@.+-]", re.UNICODE)
_SPACE = re.compile(r"\s+")


@lru_cache(maxsize=1 << 16)
def fold(text: str) -> str:
    """Case-, accent- and space-insensitive form used for names and free text (remembered: the
    same words are folded again and again for every reply)."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    return _SPACE.sub(" ", text.casefold().replace("_", " ")).strip()


_JOINED = re.compile(r"\s*([-/])\s*")
_NUMBER_RANGE = re.compile(r"(\d)\s*(?:\bto\b|\buntil\b|–|—)\s*(\d)")
# A code is letters and digits in short runs ("EH3 9QN", "C.B 2, 1 U.F", "KY169AB"), compared
# without its separators. Its letters stand next to a digit or a dot; a word of its own ("171 Oak
# Rd") or of four letters makes it an address or a name.
_CODE_CHARS = re.compile(r"[\w\s.,/-]+")
_LETTERS = re.compile(r"[^\W\d_]+")


def _is_code(folded: str) -> bool:
    if not _CODE_CHARS.fullmatch(folded) or not any(c.isdigit() for c in folded):
        return False
    runs = list(_LETTERS.finditer(folded))
    for run in runs:
        before, after = folded[run.start() - 1 : run.start()], folded[run.end() : run.end() + 1]
        glued = any(c.isdigit() or c == "." for c in before + after)
        if len(run[0]) > 3 or (len(run[0]) > 1 and not glued):
            return False
    return bool(runs)


_SHORT_CODE = re.compile(r"[A-Z0-9]{2,6}")


def is_short_code(text: str) -> bool:
    """A code of a few capitals and digits ("KOI", "E27", "LHR"): compared letter for letter."""
    t = text.strip()
    return bool(_SHORT_CODE.fullmatch(t)) and any(c.isalpha() for c in t)


# Ages bounded on one side, as said ("65 and over", "over 65s", "4 and under", "under 5s",
# "up to age 4") and as a table writes them ("65+", "0-4").
_AGES_FROM = re.compile(
    r"(?:aged?\s+)?(\d+)\s*(?:\+|and over|and above|and older|and up|or over|or older|plus)"
    r"|over[- ]?(\d+)s"
)
_AGES_UP_TO = re.compile(r"(?:aged?\s+)?(\d+)\s+and\s+(?:under|younger|below)|up to (?:age )?(\d+)")
_AGES_UNDER = re.compile(r"under[- ]?(\d+)s")


def _age_bound(folded: str) -> str | None:
    if m := _AGES_FROM.fullmatch(folded):
        return f"{m[1] or m[2]}+"
    if m := _AGES_UP_TO.fullmatch(folded):
        return f"0-{m[1] or m[2]}"
    if (m := _AGES_UNDER.fullmatch(folded)) and int(m[1]) > 0:
        return f"0-{int(m[1]) - 1}"
    return None


def text_key(text: str) -> str:
    """Free text compared without case, punctuation, articles or the spacing around a hyphen
    ("7 - 9 Quay St" is "7-9 Quay St"); a code without its separators ("EH39QN"); ages bounded
    on one side as a table writes them ("over 65s" is "65+")."""
    folded = _NUMBER_RANGE.sub(r"\1-\2", fold(text))  # "3 to 5 days" is "3-5 days"
    bound = _age_bound(folded)
    if bound is not None:
        return bound
    if _is_code(folded):
        return re.sub(r"[\W_]+", "", folded)
    key = _JOINED.sub(r"\1", _SPACE.sub(" ", _PUNCT.sub(" ", folded)).strip(" ."))
    return _THE.sub("", key)


def _number(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def _num_key(x: float) -> str:
    return f"{x:.6g}"


def _unit(u: str) -> str:
    u = u.lower().rstrip(".")
    if u in _UNIT_ALIASES:
        return _UNIT_ALIASES[u]
    return u[:-1] if len(u) > 3 and u.endswith("s") else u


def number_key(text: str) -> str | None:
    text = text.strip()
    if text.lower() in NUMBER_WORDS:  # "four" is 4
        return _num_key(NUMBER_WORDS[text.lower()])
    m = UNIT_NUMBER_RE.fullmatch(text)
    if m:
        n = _number(m["n"])
        return None if n is None else f"{_num_key(n)} {_unit(m['u'])}"
    n = _number(text)
    return None if n is None else _num_key(n)


FROM_PRICE = re.compile(r"^(?:from|starting at|starts at|starting from)\s+(?=\S)", re.IGNORECASE)


def money_key(text: str) -> str | None:
    """ "GBP:15.00" for "£15", "15 pounds" and "£15 per day"; "0" for any amount of nothing
    ("free", "£0")."""
    text = FROM_PRICE.sub("", text.strip())  # "from £69": a price it starts at is that price
    if fold(text) in FREE_WORDS:
        return "0"
    m = MONEY_RE.fullmatch(text)
    if not m:
        rate = _RATE_RE.fullmatch(text)
        m = MONEY_RE.fullmatch(rate["money"]) if rate else None
    if not m:  # "twenty pounds", "a ten-pound deposit"
        return words_money_key(text) or words_money_key(text.replace("-", " "))
    amount = _number(m["a1"] or m["a2"])
    if amount is None:
        return None
    if m["m1"]:
        amount *= _MAGNITUDES[m["m1"].lower()]
    if m["code"] and m["code"].lower() in _FRACTIONAL:
        amount /= 100
    if amount == 0:
        return "0"
    code = m["sym"] or m["code"]
    code = _MONEY_CODES.get(code.lower() if len(code) > 1 else code, code.upper())
    return f"{code}:{amount:.2f}"


def rate_amount(text: str) -> str | None:
    """The amount of a price per unit ("£15" of "£15 per day"), None for any other text."""
    rate = _RATE_RE.fullmatch(text.strip())
    return rate["money"] if rate is not None and MONEY_RE.fullmatch(rate["money"]) else None


def money_amount(text: str) -> str | None:
    """The amount of a money value as a bare number ("12.50" of "$12.50", "1500" of "€1.5k"),
    or None for text that is no money value."""
    key = money_key(text)
    if key is None:
        n = _number(text.strip())
        return None if n is None else f"{n:.2f}"
    return key.rpartition(":")[2]  # "USD:12.50"; "free" is the currency-less "0"


# "24/7": open every hour of every day, the whole of each day ("24 hours").
_ROUND_THE_CLOCK = re.compile(r"24\s?/\s?7")


def round_the_clock(text: str) -> bool:
    """ "24/7": a number's digits that say a length of time, the whole day."""
    return bool(_ROUND_THE_CLOCK.fullmatch(text.strip()))


def duration_key(text: str) -> str | None:
    if round_the_clock(text):
        return _num_key(_MINUTES["day"])
    m = DURATION_RE.fullmatch(text.strip())
    if not m:
        return normalise_duration(text)  # "an hour and a half", "ninety minutes"
    unit = m["u"].lower().rstrip("s")
    unit = {"hr": "hr", "mins": "min"}.get(unit, unit)
    return _num_key(float(m["n"]) * _MINUTES[unit])


def measured(text: str) -> bool:
    """A number said with a unit that is neither a currency nor a percent ("3 people",
    "12 miles", "a 17-year-old")."""
    key = number_key(text)
    if key is None:  # "17-year-old": digits joined to words no number reading takes
        return text[:1].isdigit() and any(c.isalpha() for c in text)
    return " " in key


def in_named_unit(attribute: str, text: str) -> str | None:
    """A length said in one unit of a number column named for another ("two years" of
    contract_months, "90 minutes" of duration_hours): its number in the column's unit; None when
    the column's name holds no unit of time or the text is no length. Months and years are
    calendar ones (a year is twelve months); in a rate ("weeks_per_year") the unit counted.
    """
    parts = attribute.lower().split("_")
    if "per" in parts:
        parts = parts[: parts.index("per")]  # weeks_per_year counts weeks
    units = [p.rstrip("s") for p in parts if p.rstrip("s") in _MINUTES]
    minutes = duration_key(text) if units else None
    if minutes is None:
        return None
    n = float(minutes) / _MINUTES[units[-1]]
    whole = round(n)
    return _num_key(whole if whole and abs(n - whole) / whole < 0.02 else round(n, 2))


def phone_key(text: str) -> str | None:
    digits = re.sub(r"\D", "", text)
    if not 7 <= len(digits) <= 15:
        return None
    return digits[1:] if len(digits) == 11 and digits.startswith("1") else digits


def url_key(text: str) -> str:
    key = re.sub(r"^(?:https?://)?(?:www\.)?", "", text.strip().lower())
    return key.rstrip("/")


def year_key(text: str) -> str | None:
    text = text.strip()
    if YEAR_RE.fullmatch(text):
        return text
    iso = normalise_date(text)
    return iso[:4] if iso else None


_FIRST_NUMBER = re.compile(r"-?\d+(?:,\d{3})*(?:\.\d+)?")


def order_key(value_type: ValueType, text: str) -> float | str | None:
    """What values of one type are ordered by ("5 miles" < "7 miles", "09:00" < "14:00");
    None for a value with no order."""
    match value_type:
        case ValueType.number | ValueType.money | ValueType.percent | ValueType.duration:
            m = _FIRST_NUMBER.search(text)  # one attribute's values share their unit
            return _number(m[0]) if m else None
        case ValueType.time:
            return normalise_time(text)
        case ValueType.date | ValueType.datetime:
            return normalise_date(text)
        case _:
            return None


def value_key(value_type: ValueType, text: str) -> str:
    """The canonical comparison key of a value of the given type (falls back to the text key)."""
    key: str | None
    match value_type:
        case ValueType.email:
            key = text.strip().lower()
        case ValueType.phone:
            key = phone_key(text)
        case ValueType.url:
            key = url_key(text)
        case ValueType.date | ValueType.datetime:
            key = normalise_date(text) or normalise_weekday(text)
        case ValueType.time:
            key = normalise_time(text)
        case ValueType.year:
            key = year_key(text)
        case ValueType.number:
            key = number_key(text)
        case ValueType.money:
            key = money_key(text)
        case ValueType.percent:
            m = PERCENT_RE.fullmatch(text.strip())
            key = _num_key(float(m["n"])) if m else number_key(text)
        case ValueType.duration:
            key = duration_key(text)
        case _:
            key = None
    return key if key is not None else text_key(text)


def _compound_duration(text: str) -> bool:
    """A length said in two units: "2 hours 10 minutes", "1 hour and 45 minutes"."""
    parts = re.split(r"\s*(?:,|\band\b)?\s+(?=\d)", text)
    return len(parts) > 1 and all(DURATION_RE.fullmatch(p) for p in parts)


def infer_value_type(text: str) -> ValueType | None:
    """The most specific type a single value fits, or None for plain text."""
    t = text.strip()
    if not t:
        return None
    checks: list[tuple[ValueType, bool]] = [
        (ValueType.email, bool(EMAIL_RE.fullmatch(t))),
        (ValueType.url, bool(URL_RE.fullmatch(t))),
        (ValueType.year, bool(YEAR_RE.fullmatch(t))),
        (ValueType.money, money_key(t) is not None and fold(t) not in FREE_WORDS),
        (ValueType.percent, bool(PERCENT_RE.fullmatch(t))),
        (ValueType.phone, bool(PHONE_RE.fullmatch(t))),
        (ValueType.duration, bool(DURATION_RE.fullmatch(t)) or _compound_duration(t)),
        (ValueType.time, normalise_time(t) is not None),
        (ValueType.date, normalise_date(t) is not None or normalise_weekday(t) is not None),
        (ValueType.number, number_key(t) is not None and bool(NUMBER_RE.match(t))),
    ]
    return next((vt for vt, ok in checks if ok), None)


@dataclass(frozen=True)
class Grade:
    """How a claimed value compares with one KB value: a measurement, not a verdict."""

    kind: str  # "Exact" | "Normalised" | "Compatible" | "Fuzzy" | "Mismatch"
    distance: float = 0.0  # normalised edit distance, for Fuzzy


_WORDY = (ValueType.text, ValueType.enum)
_HEAD_END = re.compile(r"\s+[-–—(]\s*|\s*[,:;]\s+")


def value_head(text: str) -> str | None:
    """The head words of a qualified value: "Lead Mechanic" of "Lead Mechanic - Engines" or of
    "Lead Mechanic (Engines)"; None for a value with no qualifier."""
    parts = _HEAD_END.split(text.strip(), maxsplit=1)
    if len(parts) < 2 or not parts[0].strip() or not parts[1].strip(" )"):
        return None
    return parts[0].strip()


_HALF_OF_DAY = re.compile(
    r"(?:\d|\b)[ap]\.?m\b\.?|\b(?:noon|midday|midnight|morning|afternoon|evening|night|tonight)\b",
    re.IGNORECASE,
)


def _either_half(text: str, clock: str) -> str | None:
    """The afternoon reading of a time said without am/pm or a part of the day, on the
    12-hour clock ("half past seven", "7:30", "at 7" -> "19:30"); None when the text says which
    half, or writes the 24-hour clock ("07:30", "19:30")."""
    hour, minute = clock.split(":")
    if _HALF_OF_DAY.search(text) or text.strip().startswith("0") or not 1 <= int(hour) <= 11:
        return None
    return f"{int(hour) + 12:02d}:{minute}"


def _compatible(value_type: ValueType, claimed: str, kb: str) -> bool:
    """A less precise claim that agrees with the KB value: a year or weekday of a KB date, a
    number without the KB's unit ("80" in "80-100F"), an amount with or without the currency a
    money column leaves unstated ("$12.50" of 12.50), the head words of a qualified value
    ("head baker" of "Head Baker - Sourdough")."""
    if value_type in _WORDY:
        head = value_head(kb)
        if head is not None and text_key(head) == text_key(claimed):
            return True
    if value_type == ValueType.number:  # "80" of "80F", and "60 degrees" of a bare 60
        said, held = number_key(claimed), number_key(kb)
        minutes = duration_key(claimed)
        if minutes is not None and held is not None and _num_key(float(minutes)) == held:
            return True  # "an hour" of a bare 60 (minutes)
        if said is None or held is None or said == held:
            return False
        bare = [k for k in (said, held) if " " not in k]
        return len(bare) == 1 and said.split(" ")[0] == held.split(" ")[0]
    if value_type == ValueType.money:  # "$12.50" of a money column holding a bare 12.50
        said, held = money_key(claimed), money_key(kb)
        return (said is None) != (held is None) and money_amount(claimed) == money_amount(kb)
    if value_type == ValueType.time:  # "half past seven" of 7:30 pm: the half of the day unsaid
        said, held = normalise_time(claimed), normalise_time(kb)
        return said is not None and held is not None and _either_half(claimed, said) == held
    if value_type in (ValueType.date, ValueType.datetime, ValueType.year):
        kb_iso = normalise_date(kb) or (kb if YEAR_RE.fullmatch(kb.strip()) else None)
        if not kb_iso:
            return False
        if YEAR_RE.fullmatch(claimed.strip()):
            return kb_iso[:4] == claimed.strip()
        if len(kb_iso) == 10:  # "8 December" of 2026-12-08: a date without its year
            january = datetime(int(kb_iso[:4]), 1, 1)
            if normalise_date(claimed, january) == kb_iso and normalise_date(claimed) is None:
                return True
        weekday = normalise_weekday(claimed)
        if weekday and len(kb_iso) == 10:
            return date.fromisoformat(kb_iso).strftime("%A").lower() == weekday
    return False


def _stems(key: str) -> tuple[str, ...]:
    return tuple(stem(w) for w in key.split())


def grade(
    value_type: ValueType, claimed: str, kb: str, equivalents: Mapping[str, str] | None = None
) -> Grade:
    """How a claimed value compares with a KB value. `equivalents` maps words that mean the same
    in a value ("avenue" -> "ave", from metta/lexicon.metta) to one spelling."""
    if claimed.strip().casefold() == kb.strip().casefold():
        return Grade("Exact")
    ck, kk = value_key(value_type, claimed), value_key(value_type, kb)
    if equivalents and value_type in _WORDY:
        ck, kk = (" ".join(equivalents.get(w, w) for w in k.split()) for k in (ck, kk))
    if ck == kk:
        return Grade("Normalised")
    if value_type in _WORDY and _stems(ck) == _stems(kk):  # "raining" and "rain"
        return Grade("Normalised")
    if _compatible(value_type, claimed, kb):
        return Grade("Compatible")
    if value_type == ValueType.phone and _same_line(ck, kk):
        return Grade("Normalised")
    codes = is_short_code(claimed) and is_short_code(kb)  # "KWL" is not "KOI"
    if _DIGITS.findall(ck) != _DIGITS.findall(kk) or _is_code(fold(claimed)) or codes:
        return Grade("Mismatch")  # "14 Quay St" is not "16 Quay St": digits, codes never fuzzy
    if value_type in (ValueType.text, ValueType.enum, ValueType.entity, ValueType.email):
        return Grade("Fuzzy", round(Levenshtein.normalized_distance(ck, kk), 4))
    return Grade("Mismatch")


_DIGITS = re.compile(r"\d+")


def _same_line(a: str, b: str) -> bool:
    """One phone number written with and without its country code ("+44 131 496 0723" and
    "0131 496 0723"): the national number, past a trunk "0", ends the international one."""
    short, long = sorted((a.removeprefix("0"), b.removeprefix("0")), key=len)
    return len(short) >= 7 and long.endswith(short) and len(long) - len(short) <= 3
