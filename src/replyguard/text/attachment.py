"""Attachment: which KB entity a claim is about, and which attribute its value fills.

The grammar says *that* a value belongs to a subject; this module says *which* attribute, by
evidence in a fixed order: a cue phrase in the text that names a type-compatible attribute, then
an attribute the KB already holds this value under, then the only attribute of the subject whose
type fits the value. The basis is kept on the claim because the rules weigh it (a cue is firmer
evidence than a type guess).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from replyguard.models import Cardinality, Entity, ValueType
from replyguard.text.claims import PREPOSITIONS, ClaimDraft
from replyguard.text.lexer import Lexeme
from replyguard.text.lexicon import KBIndex
from replyguard.text.temporal import NUMBER_WORDS, WEEKDAYS, day_words
from replyguard.text.words import STOPWORDS, joined, stem
from replyguard.values import (
    YEAR_LIKE,
    measured,
    number_key,
    order_key,
    round_the_clock,
    value_key,
)

_TEXTUAL = {ValueType.text, ValueType.enum, ValueType.entity}
_COMPATIBLE: dict[ValueType, set[ValueType]] = {
    ValueType.time: {ValueType.time, ValueType.datetime},
    ValueType.date: {ValueType.date, ValueType.datetime},
    ValueType.datetime: {ValueType.date, ValueType.datetime, ValueType.time},
    ValueType.year: {ValueType.year, ValueType.date, ValueType.datetime},
    ValueType.number: {ValueType.number, ValueType.money, ValueType.percent, ValueType.duration},
    ValueType.duration: {ValueType.duration},  # "two days" is no temperature
    ValueType.money: {ValueType.money, ValueType.number},
    ValueType.percent: {ValueType.percent, ValueType.number},
    ValueType.email: {ValueType.email},
    ValueType.phone: {ValueType.phone},
    ValueType.url: {ValueType.url},
}


_AMOUNTS = (ValueType.money, ValueType.percent)


def _holds_measures(attribute: str, index: KBIndex) -> bool:
    """Whether the KB writes the attribute's values as numbers with a unit ("9 degrees")."""
    values = [str(v) for e in index.entities.values() for v in e.values_of(attribute)[0]]
    return any(measured(v) for v in values)


def compatible(value_type: ValueType | None, attribute_type: ValueType) -> bool:
    if value_type is None or value_type in _TEXTUAL:
        return attribute_type in _TEXTUAL
    return attribute_type in _COMPATIBLE.get(value_type, {value_type})


def strictly(value_type: ValueType | None, attribute: str, index: KBIndex) -> bool:
    """The attribute holds values of exactly this type (a duration: a column named for one)."""
    if value_type == ValueType.duration and attribute in index.timed:
        return True
    return value_type not in (None, *_TEXTUAL) and index.attribute_type(attribute) == value_type


def fits_attribute(value_type: ValueType | None, attribute: str, index: KBIndex) -> bool:
    """Whether a value of this type may be the attribute's: its type is compatible, or it is a
    duration and the attribute a number column named for a stretch of time ("wait_time"). A
    bare number is no price of a column the KB writes with its currency ("over 60" beside
    "£24")."""
    atype = index.attribute_type(attribute)
    if value_type == ValueType.number and atype == ValueType.money:
        return not index.writes_currency(attribute)
    if value_type == ValueType.year and index.holds_weekdays_only(attribute):
        return False
    return (
        compatible(value_type, atype)
        or (value_type == ValueType.duration and attribute in index.timed)
        # "rated 15" of an age rating written "12A", "15", "PG"
        or (value_type == ValueType.number and attribute in index.numbered_text)
    )


@dataclass
class AttachedClaim:
    """A claim ready for the atom space: subject resolved, attribute chosen, value normalised."""

    draft: ClaimDraft
    subject_text: str
    subject_id: str | None
    resolution: str  # Direct | Fuzzy | Pronoun | AmbiguousPronoun | Values | Several | ...
    predicate: str
    basis: str  # Cue | Focus | ValueOwner | Type
    value: Lexeme
    polar: bool = False  # a yes/no value read from the attribute's words ("pets are allowed")
    # resolution Several: the rows sharing the subject's name, none holding the value and no two
    # holding the same, that the claim is checked against together
    rows: tuple[str, ...] = ()

    @property
    def negated(self) -> bool:
        return self.draft.negated != (self.predicate in self.draft.denied)


def _bounding(
    pair: list[str],
    entity: Entity | None,
    value: Lexeme,
    index: KBIndex,
    end: str | None,
    said: str | None = None,
) -> str | None:
    """Of two attributes that bound a range ("monday_low", "monday_high": their names differ
    in a `range-bounds` pair of metta/lexicon.metta), the one a value is said of: the bound it
    equals, else the nearer bound when it lies outside the range; a value inside the range
    ("60F" between 50F and 70F) is no claim on either bound unless the sentence names one
    end (`said`: "opens at 7pm"). Each end of a range ("80-100F")
    is said of its own bound."""
    if entity is None or not index.bound_pair(*pair):
        return None
    vtype = index.attribute_type(pair[0])
    claimed = order_key(vtype, value.text)
    if claimed is None and value.temporal is not None and vtype == ValueType.time:
        claimed = value.temporal.value  # "8" of "from 8 until 12.30 pm" is 08:00
    if claimed is None and value.temporal is not None and value.temporal.date is not None:
        claimed = order_key(vtype, value.temporal.date.isoformat())  # "March 5th": its day
    bounds = []
    for attribute in pair:
        held = entity.values_of(attribute)[0]
        key = order_key(vtype, str(held[0])) if len(held) == 1 else None
        if key is None or claimed is None or type(key) is not type(claimed):
            return None
        bounds.append((key, attribute))
    (low, low_attr), (high, high_attr) = sorted(bounds)
    if end is not None:  # "80-100F": each end of a range against its own bound
        return low_attr if end == "low" else high_attr
    if claimed == low or claimed < low:
        return low_attr
    if claimed == high or claimed > high:
        return high_attr
    # inside the range: the end the sentence's words name ("opens at 7pm")
    return {"low": low_attr, "high": high_attr}.get(said or "")


_UNTIL = frozenset({"until", "till"})
# every word a weekday is said by, short forms too ("tue"), and their stems
DAY_STEMS = frozenset(w for d in WEEKDAYS for w in day_words(d)) | frozenset(
    stem(d) for d in WEEKDAYS
)


def _siblings(cued: Sequence[str], owners: Sequence[str]) -> bool:
    """Whether an attribute a cue names and one the KB lists the value under are two of a kind,
    their names sharing a word and each having one the other lacks ("destination_station_name"
    and "origin_station_name", "to_stop" and "from_stop"): the cue tells which of the two the
    value is said as ("the destination station is Elm Park", where Elm Park is the origin).
    A cue for another kind of thing gives way to the KB ("its address is 12 Elm St, and there
    is heavy traffic"), and so does one the KB's attribute only narrows ("the destination is
    Elm Park station": `destination_station`, not the town `destination`)."""
    for a in cued:
        mine = set(a.lower().split("_"))
        for b in owners:
            theirs = set(b.lower().split("_"))
            if a != b and mine & theirs and mine - theirs and theirs - mine:
                return True
    return False


def _said_end(draft: ClaimDraft, index: KBIndex) -> str | None:
    """ "low" or "high" when the words just before the value say one end ("opens at 7pm",
    "open until 9"): the bound a value inside the range is said of (`range-bounds` in
    metta/lexicon.metta)."""
    words = {stem(w) for w in draft.lead_words}
    # a bound's compound said apart ("pick up on March 8" names "pickup")
    words |= {joined(a, b) for a in draft.lead_words for b in draft.lead_words if a != b}
    if draft.lead_words & _UNTIL:
        return "high"  # "open until 9pm"
    if draft.lead_words & index.range_starts:
        return "low"  # "available on March 10th": the pickup date, not the drop-off
    low = any(stem(a) in words for a, _ in index.range_bounds)
    high = any(stem(b) in words for _, b in index.range_bounds)
    return "low" if low and not high else "high" if high and not low else None


def _bound_said(
    attributes: list[str], end: str | None, index: KBIndex, words: frozenset[str]
) -> str | None:
    """The one attribute whose name says the end of a range the words before a value say
    ("begins at 4:45 pm" -> "slot_start", whatever else the sentence names), of several the
    one the sentence names most ("on Thursdays ... until 8pm" -> "thursday_close"): None when
    the words say no end or no single attribute names it (`range-bounds` in
    metta/lexicon.metta)."""
    if end is None:
        return None
    ends = {stem(low if end == "low" else high) for low, high in index.range_bounds}
    named = [a for a in attributes if any(stem(p) in ends for p in a.lower().split("_"))]
    if len(named) > 1:
        # the word that says the end ("until") chose these; the others tell them apart
        words = words - ends
        most = max(affinity(a, words) for a in named)
        named = [a for a in named if affinity(a, words) == most]
        # "we close for lunch from 12:30pm": a column the words name beats one named only by
        # the day they are said on
        worded = [a for a in named if affinity(a, words - DAY_STEMS) == most]
        named = worded or named
    return named[0] if len(named) == 1 else None


def _range_bound(attribute: str, end: str, index: KBIndex) -> str:
    """The attribute of a range's other end, when the range is said of one bound: the "close"
    of "saturday_open" for a range's high end (`range-bounds` pairs in metta/lexicon.metta)."""
    parts = attribute.split("_")
    for k, part in enumerate(parts):
        for low, high in index.range_bounds:
            other = high if end == "high" and part.lower() == low else None
            other = low if end == "low" and part.lower() == high else other
            if other is not None:
                bound = "_".join([*parts[:k], other, *parts[k + 1 :]])
                if bound in index.schema:
                    return bound
    return attribute


def _names_day_of(value: Lexeme, held: set[str]) -> bool:
    """A weekday that names some of the subject's attributes ("saturday_open"), or a day said
    relatively that falls on one ("tomorrow we're open 9am to 5pm")."""
    mention = value.temporal
    day = None
    if mention is not None and mention.kind == "weekday":
        day = value.value_key
    elif mention is not None and mention.relative and mention.date is not None:
        day = WEEKDAYS[mention.date.weekday()]
    return day is not None and any(day in a.lower().split("_") for a in held)


def _holds_weekdays(value: Lexeme, entity: Entity, attribute: str) -> bool:
    """A weekday said, and the entity's values of the attribute are weekdays ("Thursday")."""
    if value.temporal is None or value.temporal.kind != "weekday":
        return False
    values = entity.values_of(attribute)[0]
    return bool(values) and all(str(v).strip().lower() in WEEKDAYS for v in values)


def _kind_holds(entity: Entity, attributes: list[str], index: KBIndex) -> bool:
    """Whether the entity, or any entity of its type, holds one of these attributes. A value the
    KB lists only under attributes of entities of other kinds ("senior stylist", a person's
    role, said beside a treatment) names one of those, not a value of this entity."""
    return any(
        a in entity.attributes or index.entities[h].type == entity.type
        for a in attributes
        for h in index.holders_of(a)
    )


def _shaped_like(text: str, attributes: list[str], index: KBIndex) -> str | None:
    """Of textual columns, the one a value the KB does not list looks like a value of: one of
    its values shares a word with it, else has as many words; None when that does not tell."""
    said = text.lower().split()

    def likeness(attribute: str) -> int:
        score = 0
        for entity in index.entities.values():
            for held in entity.values_of(attribute)[0]:
                words = str(held).lower().split()
                score = max(score, 2 if set(words) & set(said) else int(len(words) == len(said)))
        return score

    scores = {a: likeness(a) for a in attributes}
    top = max(scores.values())
    alike = [a for a, score in scores.items() if score == top]
    return alike[0] if top > 0 and len(alike) == 1 else None


def named_in(cue: str, attributes: object) -> list[str]:
    """Of these attributes, those whose names hold every part of a cue's attribute name: the
    KB's own column for a lexicon cue it lacks ("address" -> "venue_address")."""
    parts = cue.lower().split("_")
    return [a for a in attributes if all(p in a.lower().split("_") for p in parts)]  # type: ignore[attr-defined]


def affinity(attribute: str, words: frozenset[str]) -> int:
    """How many parts of an attribute's name the sentence says ("tuesday_high" in "on tuesday
    the high is ..."): it tells apart attributes that share a value type. A preposition of the
    name counts only beside a word of it the sentence says too: "on" names no "closed_on"."""
    said = [part for part in attribute.lower().split("_") if part and _part_stem(part) in words]
    return len(said) if any(part not in PREPOSITIONS for part in said) else 0


def _part_stem(part: str) -> str:
    """A column name's word as the sentence says it: "daily_rate" is named by "a day",
    "weekly_rate" by "a week" (an adverb of time in -ly by its noun)."""
    if len(part) > 4 and part.endswith("ily"):
        return stem(part[:-3] + "y")
    if len(part) > 5 and part.endswith("ly"):
        return stem(part[:-2])
    return stem(part)


def _parts(attribute: str) -> int:
    return len([p for p in attribute.lower().split("_") if p])


def unqualified(attributes: list[str]) -> list[str]:
    """Of several columns a value fits equally, the one named by a single word ("price"
    beside "term_fee" and "child_price"): a qualified column is meant when its qualifier is
    said ("for the term", "children pay"), the plain one otherwise. Empty unless exactly one."""
    plain = [a for a in attributes if _parts(a) == 1]
    return plain if len(plain) == 1 and len(attributes) > 1 else []


# words that say a price is asked, naming no kind of customer or term it is asked of
_PRICING_WORDS = frozenset(stem(w) for w in "cost costs pay pays charge charged price".split())


def plain_unless_held(
    columns: list[str],
    entity: Entity | None,
    value: Lexeme,
    index: KBIndex,
    words: frozenset[str],
) -> list[str]:
    """`unqualified`, but a qualified column whose KB value is the one said, where the plain
    one's is not, is meant when the sentence says more than the thing, the value and the
    plain column ("as a pensioner, a dog walk would be £10" is its senior_price; "a dog walk
    is £10" stays its price, and wrong)."""
    plain = unqualified(columns)
    if not plain or entity is None or not value.value_key:
        return plain

    def holds(attribute: str) -> bool:
        return any(
            value_key(index.attribute_type(attribute), str(v)) == value.value_key
            for v in entity.values_of(attribute)[0]
        )

    holding = [a for a in columns if a != plain[0] and holds(a)]
    if len(holding) != 1 or holds(plain[0]):
        return plain
    told = {stem(w) for name in entity.names for w in name.lower().split()}
    told |= {_part_stem(p) for p in plain[0].lower().split("_")} | _PRICING_WORDS | DAY_STEMS
    said = {
        w
        for w in words - told
        if w.isalpha() and len(w) >= 3 and w not in STOPWORDS and not _two_words(w, words)
    }
    return holding if said else plain


def _two_words(word: str, words: frozenset[str]) -> bool:
    """A stem the reader made of two words the sentence says ("grouplesson", "gogglar" of
    "goggles are"): a word and the start of another, no word of its own."""
    known = words | STOPWORDS
    return any(
        word[:k] in known and any(w.startswith(word[k:]) for w in known)
        for k in range(2, len(word))
    )


def _led_column(
    draft: ClaimDraft,
    entity: Entity | None,
    index: KBIndex,
    fits: Callable[[str], bool],
) -> str | None:
    """The one column of the entity that the words just before a typed value name, when no cue
    and no copula says whose it is: "with a high of 15 degrees" is the forecast_high. A
    measure or count only: a free-text value needs its cue."""
    vtype = draft.value.value_type
    if entity is None or vtype in (None, *_TEXTUAL) or draft.copula or draft.direct:
        return None
    lead = frozenset(stem(w) for w in draft.lead_words)
    led = [
        a
        for a in entity.attributes
        if a in index.schema and fits(a) and strictly(vtype, a, index) and affinity(a, lead) > 0
    ]
    return led[0] if len(led) == 1 else None


def choose_attribute(
    draft: ClaimDraft,
    subject_id: str | None,
    index: KBIndex,
    words: frozenset[str] = frozenset(),
    asked: frozenset[str] = frozenset(),
) -> tuple[str, str] | None:
    """(attribute, basis) for the draft's value, or None when nothing in the text or KB fits.

    `words` are the sentence's content stems and the weekdays its dates fall on, `asked` those
    of the question the text answers: of columns the sentence names alike, the one the question
    names is meant."""
    value = draft.value
    if value.temporal is not None and value.temporal.kind == "part_of_day":
        return None  # "in the evening" qualifies a time; it is not one
    vtype = ValueType.duration if round_the_clock(value.text) else value.value_type
    entity = index.entities.get(subject_id) if subject_id else None
    held = set(entity.attributes) if entity else set()

    def fits(attribute: str) -> bool:
        if attribute not in index.schema:
            # an attribute no entity has ("founded"): any value may claim it, of the type the
            # lexicon gives its values (`cue-value-type`): "hired for £3" is no join date
            declared = index.cue_value_types.get(attribute)
            return declared is None or compatible(vtype, declared)
        atype = index.attribute_type(attribute)
        if (
            atype == ValueType.year
            and vtype == ValueType.number
            and YEAR_LIKE.fullmatch(value.text)
        ):
            return True  # "released in 1865": the temporal grammar only reads 1900-2199 as years
        if vtype == ValueType.number and atype in _AMOUNTS and measured(value.text):
            return False  # "for 3 people", "63 degrees": a count or a measure is no price
        return fits_attribute(vtype, attribute, index)

    def best(candidates: list[str]) -> str | None:
        """One the subject holds, then the candidate the sentence names most; None when it
        names two equally ("hot on Monday and Thursday" cannot be checked against one day).
        "directed" and "directed_by" are named equally by "directed", but a director holds
        only the first; "a child return costs £7.40" names child_price by the thing's own
        name, but the ticket holds only a price."""

        def rank(a: str) -> tuple[bool, int, int]:
            return entity is not None and a not in held, -affinity(a, words), -affinity(a, asked)

        ranked = sorted(candidates, key=rank)
        tied = [a for a in ranked if rank(a) == rank(ranked[0])]
        whole = [a for a in tied if affinity(a, words) == _parts(a)]
        if len(tied) > 1 and len(whole) == 1:
            # "the call-out fee is £45" beside evening_ and weekend_callout_fee: the column
            # whose every word is said, when the others' qualifiers are not
            return whole[0]
        if affinity(ranked[0], words) > 0 and len(tied) > 1 and vtype in _TEXTUAL:
            # "for pickup at Peachtree Station" names pickup_city and pickup_location alike:
            # the one whose values are said in the same shape ("Intercity Terminal")
            shaped = _shaped_like(value.text, tied, index)
            if shaped is not None:
                return shaped
        if affinity(ranked[0], words) > 0 and len(tied) > 1:
            # "60F on Monday", between monday_low and monday_high: read against their range
            return (
                _bounding(tied, entity, value, index, draft.range_end, _said_end(draft, index))
                if len(tied) == 2
                else None
            )
        # "a lap session costs £4": "cost" names price and season_fee alike; with neither
        # qualifier said, the plain column
        plain = plain_unless_held([a for a in tied if a in held], entity, value, index, words)
        return plain[0] if plain else ranked[0]

    cued = [a for a in draft.cues if fits(a)]
    if (
        not cued
        and value.value_type == ValueType.date
        and draft.basis == "Cue"
        and any(a in held for a in draft.cues)
        and {stem(w) for w in draft.lead_words}
        & {stem(p) for a in draft.cues for p in a.lower().split("_")}
    ):
        # "we're open tomorrow from 9am": a day said with a cue for the entity's columns of
        # another type (saturday_open) tells which of them; it is no other column's value
        return None
    if entity is not None and cued and not any(a in index.schema for a in cued):
        # a lexicon cue for a column no entity has ("11 minutes away" -> distance) gives way to
        # the one attribute of the entity a value of this very type fills ("pickup_wait")
        own = [a for a in held if a in index.schema and fits(a) and strictly(vtype, a, index)]
        if len(own) != 1:  # "the address is ..." of an entity whose column is "venue_address"
            own = list(dict.fromkeys(b for a in cued for b in named_in(a, held) if fits(b)))
        cued = own if len(own) == 1 else cued
    denied = [a for a in draft.denied if a in held and fits(a)]
    if entity is not None and len(denied) == 1 and not any(a in held for a in cued):
        # "we're open tomorrow" where the entity holds closed_days and no opening column of
        # days: the day is not one it is closed on
        return denied[0], draft.basis if draft.basis != "Bare" else "Cue"
    if entity is not None and cued and not any(a in held for a in cued):
        # "the café is open from 10 until 4.30": the cue names other entities' columns
        # (tuesday_open); the entity's own column sharing the cue's word is meant (opening_hours)
        said = {stem(p) for a in cued for p in a.lower().split("_") if p not in WEEKDAYS}
        own = [
            a
            for a in held
            if a in index.schema and fits(a) and said & {stem(p) for p in a.lower().split("_")}
        ]
        cued = own or cued
    if entity is not None and cued and draft.basis == "Cue":
        # "we close for lunch from 12:30pm": of the entity's columns of this type named by the
        # cue's own word (lunch_closed_from beside saturday_close), one the sentence names more
        said = {stem(w) for w in draft.lead_words if w not in PREPOSITIONS}
        dayless = words - DAY_STEMS  # the day a sentence is said on names no column better
        most = max(affinity(a, dayless) for a in cued)
        kin = [
            a
            for a in held
            if a not in cued
            and a in index.schema
            and fits(a)
            and strictly(vtype, a, index)
            and said & {stem(p) for p in a.lower().split("_")}
            and affinity(a, dayless) > most
        ]
        cued = kin or cued
    end = draft.range_end or _said_end(draft, index)
    if end is not None:
        # "open from 8:00 until 16:00": each end of a range of times against its own bound;
        # "open late, until 8pm": the end its own words name
        cued = list(dict.fromkeys(_range_bound(a, end, index) for a in cued))
    if (
        entity is not None
        and cued
        and any(a in held and fits(a) for a in value.attributes)
        and not any(a in value.attributes for a in cued)
        and (
            not any(a in held for a in cued)
            or all(index.attribute_type(a) in _TEXTUAL for a in cued)
        )
        and not _siblings(cued, [a for a in value.attributes if a in held])
    ):
        # The value is one the KB lists under another attribute the entity has ("north" under
        # area, "heavy traffic" under traffic): the KB's schema wins over a cue for an attribute
        # the entity lacks ("located in" -> location) and over a free-text one ("its address
        # is 12 Elm St, and there is heavy traffic").
        cued = []
    # of the attributes a cue names ("leaves from": origin, origin_station), the one the KB
    # lists the value under ("Elm Park" a station, not a town), else one of its kind (the
    # origin station of a value the KB lists as the destination station)
    listing = [a for a in value.attributes if a in held]
    cued = [a for a in cued if a in listing] or [a for a in cued if _siblings([a], listing)] or cued
    if cued:
        chosen = best(cued)
        return None if chosen is None else (chosen, draft.basis if draft.basis != "Bare" else "Cue")
    owners = [a for a in value.attributes if fits(a)]
    if entity is not None and owners and not _kind_holds(entity, owners, index):
        return None  # "a facial with a senior stylist": a person's role, no value of the facial
    if owners and value.text.lower() in NUMBER_WORDS:
        return None  # "two nights": a count said as a word is a column's only after its cue
    if owners:
        # a value the KB lists under one column may be said of another the sentence names:
        # "rain" is Friday's weather, but "On Saturday it will rain" is about Saturday
        named = [
            a
            for a in held
            if a not in owners
            and fits(a)
            and any(part in WEEKDAYS and part in words for part in a.lower().split("_"))
        ]
        chosen = best(owners + named)
        return None if chosen is None else (chosen, "ValueOwner")
    if _names_day_of(value, held):
        return None  # "open 8 to 4 on Saturday": the day picks saturday_open, it is no value
    led = _led_column(draft, entity, index, fits)
    if led is not None:
        return led, "Cue"
    if value.counted:
        return None  # "our gym has over 40 machines": a count of things, no column's value
    if entity is not None and (draft.copula or draft.direct):  # "X is at 2pm", "dinner, 5 PM"
        # "it's a comedy rated 15": a column of words some of which are numbers (age_rating)
        # holds numbers too
        numbered = index.numbered_text if vtype == ValueType.number else frozenset()
        typed = [
            a
            for a in entity.attributes
            if a in index.schema
            and fits(a)
            and (index.attribute_type(a) not in _TEXTUAL or a in numbered)
        ]
        # "£160" fits a number column only when no money column does: "sleeps" is no price
        typed = [a for a in typed if index.attribute_type(a) == vtype or a in numbered] or typed
        if vtype == ValueType.number and number_key(value.text) is None and measured(value.text):
            # "so a 17-year-old can come": a number joined to its unit is a number column's by
            # its type alone only where the KB writes that column's values as measures too
            typed = [a for a in typed if _holds_measures(a, index)]
        # "runs on Tuesday": a weekday is the value of a column of weekdays before a full date's
        typed = [a for a in typed if _holds_weekdays(value, entity, a)] or typed
        bound = _bound_said(typed, _said_end(draft, index), index, words)
        if bound is not None:  # "a slot that begins at 4:45 pm and ends at 10 pm"
            return bound, "Type"

        # words the sentence says only in the thing's own name name no column of it: "Basic
        # Cover at £1.50 a week" is its weekly_price, not its cover_limit
        unnamed = words - {stem(w) for name in entity.names for w in name.lower().split()}

        # the words just before the value, since its clause began, name its column before the
        # rest of the sentence does: "we're open until 5pm, and the last boats go out at 3pm"
        lead = frozenset(stem(w) for w in draft.lead_words) & unnamed

        # a length is first the column that counts its own unit: "10 weeks" of weeks_per_season
        # beside hours_per_week
        unit = (
            {stem(w) for w in value.text.lower().split()[1:]}
            if vtype == ValueType.duration
            else set()
        )

        def said(a: str) -> tuple[int, int, int, int, int]:
            counted = a.lower().split("_per_")[0].split("_") if "_per_" in a.lower() else []
            own = int(bool(unit & {stem(p) for p in counted}))
            return (
                own,
                affinity(a, lead),
                affinity(a, unnamed),
                affinity(a, words),
                affinity(a, asked),
            )

        ranked = sorted(typed, key=said, reverse=True)
        top = [a for a in ranked if said(a) == said(ranked[0])]
        if draft.subject is not None and not draft.foreign:  # not of a thing the KB lacks
            top = plain_unless_held(top, entity, value, index, words) or top
        if len(top) == 1:
            return top[0], "Type"
        if len(top) == 2:  # "open until 10pm": the end of the one range of times it has
            bound = _bounding(top, entity, value, index, draft.range_end, _said_end(draft, index))
            return None if bound is None else (bound, "Type")
    return None


def named_holder(
    draft: ClaimDraft, index: KBIndex, words: frozenset[str], named: set[str]
) -> tuple[str, str] | None:
    """(entity, attribute) for a value no subject claims, when the sentence names the attribute
    ("a checked bag costs £30": checked_bag_fee) and one entity holds it: the one the sentence
    names, else the only one in the KB. A value of a free-text type (unless it is, or is
    shaped like, a value the KB lists under the attribute its cue names), or an attribute the
    sentence's words do not name, is left unread."""
    value = draft.value
    listed = draft.basis == "Cue" and any(a in value.attributes for a in draft.cues)
    if draft.negated or value.value_type is None or (value.value_type in _TEXTUAL and not listed):
        return None  # free text only as the named attribute's: "check-in closes 45 minutes ..."
    words = words | {stem(p) for w in words if "-" in w for p in w.split("-")}  # "check-out"
    scored = [
        (affinity(a, words), a)
        for a, spec in index.schema.items()
        if fits_attribute(value.value_type, a, index) and a not in index.polar
    ]
    # "a 60 percent chance of rain ..., with a high of 6 degrees": of the columns the sentence
    # names, those of the value's own type, before one another value of the sentence fills
    scored = [
        (n, a) for n, a in scored if n > 0 and index.attribute_type(a) == value.value_type
    ] or scored
    best = max((score for score, _ in scored), default=0)
    top = [a for score, a in scored if score == best and best > 0]
    if draft.basis == "Cue":  # "check-out is at 10am": a cue that says the name's words
        top = [a for a in draft.cues if any(a == b and n > 0 for n, b in scored)]
    top = [a for a in top if index.attribute_type(a) == value.value_type] or top
    pairs = {(e, a) for a in top for e in index.holders_of(a)}
    if named:  # a sentence naming entities is about them: "X arrives ... and costs €12"
        pairs = {p for p in pairs if p[0] in named}
    holders = {e for e, _ in pairs}
    if len(pairs) > 1 and len(holders) == 1:
        # one entity's two bounds ("lunch is from 11.45 until 12.45 pm"): the end the value is
        picked = choose_attribute(draft, next(iter(holders)), index, words)
        return (next(iter(holders)), picked[0]) if picked and picked[0] in top else None
    return next(iter(pairs)) if len(pairs) == 1 else None


_FIRM = ("Cue", "Focus", "ValueOwner")


def pair_ends(claims: list[AttachedClaim], index: KBIndex) -> None:
    """A range's two ends said of one subject are the two bounds of one pair of columns: "we
    close at lunchtime, from 1pm to 1:30pm" is lunch_closed_from and lunch_closed_until, the
    high end taking the column paired with the one the low end was read against (`range-bounds`
    pairs of metta/lexicon.metta), not another column of closing times."""
    said = {(c.subject_id, c.predicate) for c in claims}
    for low, high in zip(claims, claims[1:], strict=False):
        if (low.draft.range_end, high.draft.range_end) != ("low", "high"):
            continue
        if sum(c.draft is low.draft or c.draft is high.draft for c in claims) != 2:
            continue  # "10am to 5pm Tuesday to Thursday": each day's range is read already
        if low.subject_id is None or low.subject_id != high.subject_id:
            continue
        partner = _range_bound(low.predicate, "high", index)
        entity = index.entities.get(low.subject_id)
        if (
            partner in (low.predicate, high.predicate)
            or (low.subject_id, partner) in said
            or entity is None
            or partner not in entity.attributes
            or not fits_attribute(high.value.value_type, partner, index)
        ):
            continue
        high.predicate = partner


def one_value_each(claims: list[AttachedClaim], index: KBIndex) -> list[AttachedClaim]:
    """A sentence's claims with each single-valued attribute of a subject claimed once: a value
    attached only by its type gives way to one the sentence ties to that attribute ("the
    temperature is 60 degrees, with a 6 percent chance of rain": the 6 percent is not the
    temperature), and a guess by type of another kind of value than the first guess is none."""
    firm = {
        (c.subject_id, c.predicate) for c in claims if c.basis in _FIRM and c.subject_id is not None
    }
    kinds: dict[tuple[str | None, str], ValueType | None] = {}  # the first value's type
    out = []
    for claim in claims:
        spec = index.schema.get(claim.predicate)
        key = (claim.subject_id, claim.predicate)
        single = spec is None or spec.cardinality != Cardinality.many
        if (
            claim.basis == "Type"
            and single
            and (
                key in firm
                or kinds.setdefault(key, claim.value.value_type) != claim.value.value_type
            )
        ):
            continue  # "48 degrees with a 12 percent risk of showers": 12% is no temperature
        out.append(claim)
    return out
