"""Reading a text once: lexemes, resolved references and attached claims (the shared document).

Like a spaCy pipeline over one Doc, every stage reads this one analysis of the reply instead of
re-tokenising. Reading goes left to right with a reference resolver, so a pronoun sees exactly the
entities in focus at its position, and each claim's subject is resolved where it stands.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import partial
from typing import TypeVar

from lark import Lark

from replyguard.models import AttributeSchema, Entity, EntityType, ValueType
from replyguard.text.attachment import (
    DAY_STEMS,
    YEAR_LIKE,
    AttachedClaim,
    affinity,
    choose_attribute,
    fits_attribute,
    named_holder,
    named_in,
    one_value_each,
    pair_ends,
    strictly,
    unqualified,
)
from replyguard.text.claims import PREPOSITIONS, ClaimDraft, Subject, extract_drafts
from replyguard.text.class_values import asked_classes
from replyguard.text.lexer import LexedText, Lexeme, Lexer, Marker
from replyguard.text.lexicon import KBIndex, NameHit, WordLists, word_key
from replyguard.text.references import ReferenceResolver, Referent
from replyguard.text.rows import RowFinder
from replyguard.text.temporal import (
    NUMBER_WORDS,
    WEEKDAYS,
    day_words,
    mention_weekday,
    names_weekday,
    week_parts,
)
from replyguard.text.tokens import Token, tokenize
from replyguard.text.words import content_stems, joined, stem
from replyguard.text.yes_no import Candidate, polar_claim, polar_mentions
from replyguard.values import fold, order_key, round_the_clock, value_key

_QUESTION_WORD = re.compile(r"[^\W\d_]+")
_WORDS_TYPES = (ValueType.text, ValueType.enum)  # values said in words: "a Soundtracks song"
_ORG_WORDS = {
    "inc",
    "corp",
    "ltd",
    "llc",
    "company",
    "team",
    "department",
    "group",
    "university",
    "bank",
    "agency",
    "institute",
    "association",
    "foundation",
    "club",
    "committee",
}
_PLACE_PREPOSITIONS = {"in", "at", "near", "to", "from"}
_LEX_CACHE_SIZE = 4096
T = TypeVar("T")
# value types that say nothing of which attribute holds them ("2", "Oban")
_OPEN_TYPES = (None, ValueType.number, ValueType.text, ValueType.enum, ValueType.entity)
# values that say whom to reach: one entity holding any is the one a lone such value is of
_CONTACT_TYPES = (ValueType.phone, ValueType.email, ValueType.url)
_TEXTUAL = (ValueType.text, ValueType.enum)
_RELATIVE = frozenset({"relative_day", "relative_weekday"})  # "today", "next Friday"
_ARTICLES = frozenset({"the", "a", "an"})


@dataclass
class EntityMention:
    lexeme: Lexeme
    entity_id: str
    resolution: str  # Direct | Fuzzy | Values (a row told by the values said with it)


@dataclass
class PronounReading:
    lexeme: Lexeme
    candidates: list[Referent]

    @property
    def resolved(self) -> Referent | None:
        return self.candidates[0] if self.candidates else None


@dataclass
class ReadText:
    lexed: LexedText
    mentions: list[EntityMention] = field(default_factory=list)
    pronouns: list[PronounReading] = field(default_factory=list)
    names: list[Lexeme] = field(default_factory=list)  # proper names the KB does not know
    claims: list[AttachedClaim] = field(default_factory=list)
    # values the reply worked out from others it states: a total ("two nights would be £160"),
    # the length of a range ("half an hour, from 1pm to 1:30pm"): read, no claim
    totals: list[Lexeme] = field(default_factory=list)

    @property
    def text(self) -> str:
        return self.lexed.text


def _with_short_days(days: set[str]) -> set[str]:
    """Weekdays with the short forms a KB's columns may use ("tue_open")."""
    return {w for d in days for w in day_words(d)}


def _sentence_days(lexed: LexedText, row: list[Lexeme], periods: list[Marker]) -> set[str]:
    """The weekdays a sentence speaks of: its dates', or all of them for "this week"."""
    start, end = row[0].start, row[-1].end
    if any(start <= m.start < end for m in periods):
        return set(WEEKDAYS)
    return {
        m.date.strftime("%A").lower()
        for m in lexed.temporal
        if start <= m.start < end and m.date is not None
    }


@dataclass(frozen=True)
class _Sentence:
    """What attaching a claim needs to know of its sentence."""

    words: frozenset[str]  # content stems and the weekdays it speaks of
    own_days: dict[int, set[str]]  # value start -> the days a list says that value of
    # value start -> the words of attribute names said only with other values of its type
    elsewhere: dict[int, frozenset[str]]
    named: list[tuple[int, int, str]]  # (start, end, entity id) of the entities it names
    after_copula: frozenset[int]  # starts of the values after its verb of being
    # what each pronoun standing as a value ("wrote it") may refer to, likeliest first
    object_referents: dict[int, list[Referent]] = field(default_factory=dict)
    rows: list[list[Lexeme]] = field(default_factory=list)  # its values, grouped by row said
    speaks_for_us: bool = False  # it says "we", "us" or "our"
    names_others: bool = False  # it names an entity other than the organisation, or a new name
    names_unknown: bool = False  # it names someone or something the KB does not know
    # start -> the entities sharing a name it says, where no one of them was told
    shared_names: dict[int, tuple[str, ...]] = field(default_factory=dict)
    asks: bool = False  # it ends in a question mark
    refers: bool = False  # it has a pronoun ("It starts at 2 pm"): a lone value is its referent's
    breaks: tuple[int, ...] = ()  # starts of the separators joining its clauses (",", "and")
    pronouns: tuple[int, ...] = ()  # starts of its pronouns ("and it lasts two hours")
    # content stems of the question the text answers: they tell apart columns its own words
    # do not ("what's the humidity?" - "it will be 26 %", beside a precipitation of 26 too)
    asked: frozenset[str] = frozenset()
    # entities no name of which is said, but every word of one of them in other forms ("we
    # deliver prescriptions" of "Prescription Delivery")
    loosely: tuple[str, ...] = ()
    # the one entity every "it" of the sentence refers to, none of them ambiguous ("It's
    # electronica music" after Amber Run Brooklyn was offered): its values are said of it
    it_refers: str | None = None
    # the one entity the next sentence says this one was about ("There is an event at Husky
    # Stadium at 7 pm. It is the match Huskies Vs Cougars."), when this one names nothing
    named_next: str | None = None

    def row_of(self, value: Lexeme) -> list[Lexeme]:
        return next((g for g in self.rows if any(v is value for v in g)), [])

    def words_for(self, value: Lexeme) -> frozenset[str]:
        """The sentence's words with the value's own days in place of all the days named."""
        own = self.own_days.get(value.start)
        words = self.words - self.elsewhere.get(value.start, frozenset())
        if own is None:
            return words
        return words - DAY_STEMS | _with_short_days(own) | week_parts(own)  # weekday_price


def _without_qualifying_days(claims: list[AttachedClaim], index: KBIndex) -> list[AttachedClaim]:
    """Drops a weekday said with no subject of its own, or given to an entity its sentence does
    not name or that lacks the attribute ("On Saturdays we open at 9", "we're open late on
    Wednesdays"), that says which day's attribute is meant: one another claim of its sentence
    has (saturday_hours), or one the KB has on another entity while the entity the weekday was
    given to has none. It is no value of whatever entity holds weekdays."""
    out = []
    for claim in claims:
        mention = claim.value.temporal
        entity = index.entities.get(claim.subject_id or "")
        unowned = (
            # a sentence the next one names the subject of ("... at 9pm. It is Nightjar.")
            (claim.draft.subject is None and claim.resolution != "Pronoun")
            or claim.resolution == "Implicit"
            # "we're open late on Wednesdays": the practice has no column of weekdays
            or (entity is not None and claim.predicate not in entity.attributes)
        )
        day = mention_weekday(mention) if mention and unowned else None
        if day is None or not (
            any(other is not claim and names_weekday(other.predicate, day) for other in claims)
            or _day_named_elsewhere(index, claim.subject_id, day)
        ):
            out.append(claim)
    return out


def _day_named_elsewhere(index: KBIndex, subject_id: str | None, day: str) -> bool:
    """Some entity other than the subject has an attribute named for the day; the subject none."""
    named = [
        e.id for e in index.entities.values() if any(names_weekday(a, day) for a in e.attributes)
    ]
    return bool(named) and subject_id not in named


def _first_bound(attribute: str, index: KBIndex) -> bool:
    """A range's first bound split from a column of hours ("saturday_hours_start")."""
    return attribute.endswith("_start") and index.attribute_type(attribute) == ValueType.time


def _plural_mention(text: str, name: str) -> bool:
    """An entity named in the plural ("our puppy parties" of "Puppy Party"): the mention's last
    word ends in s where the name's does not."""
    said, named = text.lower().split()[-1:], name.lower().split()[-1:]
    return bool(said and named) and said != named and said[0][-1:] == "s" and named[0][-1:] != "s"


def _asks(lexed: LexedText, row: list[Lexeme]) -> bool:
    """Whether the sentence of these lexemes is a question (ends in a question mark)."""
    text = lexed.text
    return any(
        s.start <= row[0].start < s.end and text[s.start : s.end].rstrip()[-1:] == "?"
        for s in lexed.sentences
    )


def _after_copula(row: list[Lexeme]) -> frozenset[int]:
    """Starts of the values that follow a copula in their sentence ("It is Monday at 1 pm"),
    not those before it ("Today's game is at 11 am")."""
    out: set[int] = set()
    seen = False
    for lexeme in row:
        seen = seen or lexeme.cat == "COP"
        if seen and lexeme.cat == "VAL":
            out.add(lexeme.start)
    return frozenset(out)


def _value_days(lexed: LexedText, row: list[Lexeme]) -> dict[int, set[str]]:
    """In a sentence naming several days ("low of 60F on Monday, low of 80F on Tuesday"), the
    days each value is said of, keyed by the value's start: the days named next after it when
    days follow their values, the days named last before it when they lead. A run of days with
    no value between them goes together ("hot on Monday and Thursday")."""
    start, end = row[0].start, row[-1].end
    days = [
        (m.start, m.date.strftime("%A").lower())
        for m in lexed.temporal
        if start <= m.start < end and m.date is not None
    ]
    values = [lx.start for lx in row if lx.cat == "VAL" and lx.temporal is None]
    if len({d for _, d in days}) < 2 or not values:
        return {}
    marks = sorted([(p, "day", d) for p, d in days] + [(p, "value", "") for p in values])
    if _opens_clause(lexed, start, min(p for p, _ in days)):
        marks.reverse()  # days lead ("On Monday ..., on Tuesday ..."): read backwards
    out: dict[int, set[str]] = {}
    for k, (position, kind, _) in enumerate(marks):
        if kind != "value":
            continue
        run: set[str] = set()
        for _, later_kind, day in marks[k + 1 :]:
            if later_kind == "day":
                run.add(day)
            elif run:
                break
        if run:
            out[position] = run
    return out


_WORDY = (ValueType.text, ValueType.enum)
_UNTYPED = (None, *_WORDY)


_CLAUSE_JOINS = frozenset({",", ";", "and", "or", "but", "while", "whereas"})


def _value_stretches(
    lexed: LexedText, row: list[Lexeme], parts: frozenset[str]
) -> dict[int, frozenset[str]]:
    """In a sentence saying several values of one type ("£48 with a senior stylist or £30 with
    a junior one"), the stems of attribute-name words (`parts`) that go with another value of
    that type, keyed by each value's start. A word goes with the value nearest it, counting
    first the clauses joined between them ("and", "or", a comma), then the words."""
    if not row:
        return {}
    typed: dict[ValueType, list[Lexeme]] = {}
    for lx in row:
        dated = lx.value_type == ValueType.date  # "picked up on March 6th, back on March 9th"
        if lx.cat == "VAL" and (lx.temporal is None or dated) and lx.value_type not in _UNTYPED:
            typed.setdefault(lx.value_type, []).append(lx)
    tokens = [t for t in lexed.tokens if row[0].start <= t.start < row[-1].end]
    said = [(k, stem(t.text)) for k, t in enumerate(tokens)] + list(_compounds(tokens))
    out: dict[int, frozenset[str]] = {}
    for same in typed.values():
        if len(same) < 2:
            continue
        place = {v.start: next(k for k, t in enumerate(tokens) if t.start >= v.start) for v in same}
        joins = [k for k, t in enumerate(tokens) if t.lower in _CLAUSE_JOINS]
        goes: dict[int, set[str]] = {v.start: set() for v in same}
        for k, word in said:
            token = tokens[k]
            if word not in parts or any(v.start <= token.start < v.end for v in same):
                continue
            spans = {v.start: sorted((k, place[v.start])) for v in same}
            nearest = min(
                same,
                key=lambda v: (
                    sum(spans[v.start][0] < j < spans[v.start][1] for j in joins),
                    spans[v.start][1] - spans[v.start][0],
                ),
            )
            goes[nearest.start].add(word)
        for value in same:
            others = set().union(*(w for start, w in goes.items() if start != value.start))
            out[value.start] = frozenset(others - goes[value.start])
    return out


_DAY_SPANS = frozenset({"to", "through", "thru", "till", "until", "-", "–"})
_CLAUSE_BREAKS = frozenset({",", ";", "with", "but", "except"})


def _each_day(
    attach: Callable[[_Sentence], AttachedClaim | None], sentence: _Sentence, days: list[str]
) -> list[AttachedClaim]:
    """ "We're open 9am to 5:30pm Tuesday to Friday": a typed value (a time, a price, not a
    word such as "hot") said of several weekdays, where each has a column of its own, is a
    claim on each day's column (`attach` reads it against a
    sentence speaking of that one day); none when any day has no column it fits."""
    out = []
    for day in days:
        one = replace(sentence, words=sentence.words - DAY_STEMS | _with_short_days({day}))
        claim = attach(replace(one, own_days={}))
        if claim is None or not names_weekday(claim.predicate, day):
            return []
        out.append(claim)
    return out


def _spoken_days(lexed: LexedText, row: list[Lexeme], value: Lexeme) -> list[str]:
    """The weekdays a value is said of, in order, a span filled in ("Tuesday to Friday" is
    Tuesday, Wednesday, Thursday and Friday): those of its own clause (between commas, or
    after "with"/"but"/"except"), else those of its sentence."""
    if not row:
        return []
    named = [
        m
        for m in lexed.temporal
        if row[0].start <= m.start < row[-1].end and m.kind == "weekday" and m.date is not None
    ]
    breaks = [
        t.start
        for t in lexed.tokens
        if row[0].start <= t.start < row[-1].end and t.lower in _CLAUSE_BREAKS
    ]
    low = max((b for b in breaks if b < value.start), default=row[0].start)
    high = min((b for b in breaks if b > value.start), default=row[-1].end)
    named = [m for m in named if low <= m.start < high] or named
    out: list[str] = []
    for k, mention in enumerate(named):
        day = mention.date.weekday()
        if k and lexed.text[named[k - 1].end : mention.start].strip().lower() in _DAY_SPANS:
            first = named[k - 1].date.weekday()
            out += [WEEKDAYS[(first + n) % 7] for n in range(1, (day - first) % 7)]
        out.append(WEEKDAYS[day])
    return list(dict.fromkeys(out))


_RATE_WORDS = frozenset({"a", "an", "per", "each"})
_TOTAL_WORDS = frozenset({"total", "altogether"})
_SUM_WORDS = _TOTAL_WORDS | {"so", "both", "together", "combined"}
_COUNT_VERBS = frozenset({"would", "will", "cost", "costs", "come", "comes"})


def _count_at(token: Token) -> bool:
    """A count of two or more: "two", "3"."""
    number = NUMBER_WORDS.get(token.lower, int(token.text) if token.text.isdigit() else 0)
    return number >= 2


def _unclaimed_totals(
    lexed: LexedText, row: list[Lexeme], claims: list[AttachedClaim]
) -> list[Lexeme]:
    """Amounts no claim took that the sentence says are totals over a count ("£26 per player,
    so four of you would pay £104 in total"): worked out by the reply, not unread values."""
    if not row:
        return []
    tokens = [t for t in lexed.tokens if row[0].start <= t.start < row[-1].end]
    if not any(t.lower in _TOTAL_WORDS for t in tokens):
        return []
    taken = {c.value.start for c in claims}
    return [
        lx
        for lx in row
        if lx.cat == "VAL"
        and lx.value_type == ValueType.money
        and lx.start not in taken
        and any(_count_at(t) for t in tokens if t.end <= lx.start)
    ]


def _totals(
    lexed: LexedText, row: list[Lexeme], claims: list[AttachedClaim], index: KBIndex
) -> set[int]:
    """The ids of price claims that are totals the reply worked out from a KB price: said after
    a count (or right after "for" and a count) of the thing priced ("two manicures would be
    £50", "so two would be £50"), of the unit its sentence gives a rate in ("£80 a night, so
    two nights would be £160"), or of anything "in total". A price said as a rate ("£80 a
    night", "£25 each") is no total. Whether the sum is right is not checked."""
    if not row:
        return set()
    tokens = [t for t in lexed.tokens if row[0].start <= t.start < row[-1].end]
    units = {
        stem(after.text)
        for money, rate, after in zip(tokens, tokens[1:], tokens[2:], strict=False)
        if money.kind == "money" and rate.lower in _RATE_WORDS and after.kind == "word"
    }
    in_total = any(t.lower in _TOTAL_WORDS for t in tokens)
    # a count in a name ("the 10 Visit Pass", "NHS Band 3 costs") or inside a longer value
    # counts nothing
    inside = [lx for lx in row if lx.cat in ("ENT", "VAL", "NAME")]

    def counts_units(k: int) -> bool:
        # "a course of 3 doses at £70 per dose": a value that is a count of the rate's unit
        return k + 1 < len(tokens) and stem(tokens[k + 1].text) in units

    counts = [
        k
        for k, t in enumerate(tokens[:-1])
        if _count_at(t)
        and not any(
            lx.start <= t.start < lx.end
            and (lx.end > t.end or lx.cat != "VAL")
            and not (lx.cat == "VAL" and lx.start == t.start and counts_units(k))
            for lx in inside
        )
    ]
    out: set[int] = set()
    for claim in claims:
        if index.attribute_type(claim.predicate) != ValueType.money:
            continue
        if _sums_what_went_before(claim.value, row):
            out.add(id(claim))  # "£30 and £25, so £55 if you'd like both"
            continue
        entity = index.entities.get(claim.subject_id or "")
        priced = {stem(w) for w in fold(entity.name).split()} if entity and entity.name else set()
        at = next((k for k, t in enumerate(tokens) if t.start >= claim.value.start), len(tokens))
        after = [t.lower for t in tokens[at + 1 : at + 3]]
        if after[:1] and (after[0] == "each" or (after[0] in _RATE_WORDS and len(after) > 1)):
            continue  # "£80 a night", "£25 each": the rate itself
        counted = [
            None if noun.lower in _COUNT_VERBS else stem(noun.text)  # "so two would be £50"
            for k in counts
            if (noun := tokens[k + 1]).kind == "word"
            and (k < at or (k == at + 2 and tokens[at + 1].lower == "for"))
        ]
        if any(n is None or n in units or n in priced or in_total for n in counted):
            out.add(id(claim))
    return out


def _sums_what_went_before(value: Lexeme, row: list[Lexeme]) -> bool:
    """An amount that is the sum of the two or more amounts its sentence said before it, in
    one currency, with a word that says so between them ("£30 and £25, so £55 if you'd like
    both"): a total the reply worked out, not a price of one thing."""
    amounts = [
        lx
        for lx in row
        if lx.cat == "VAL" and lx.value_type == ValueType.money and lx.end <= value.start
    ]
    keys = [
        k.split(":") for k in (*(a.value_key for a in amounts), value.value_key) if k and ":" in k
    ]
    if len(amounts) < 2 or len(keys) != len(amounts) + 1 or len({c for c, _ in keys}) != 1:
        return False
    between = {
        w
        for lx in row
        if lx.cat == "W" and amounts[-1].end <= lx.start and lx.end <= value.start
        for w in lx.text.lower().split()
    }
    *parts, (_, total) = keys
    return (
        bool(between & _SUM_WORDS) and abs(sum(float(a) for _, a in parts) - float(total)) < 0.005
    )


def _spans(row: list[Lexeme], claims: list[AttachedClaim]) -> list[Lexeme]:
    """Lengths of time the reply worked out from a range of times it states: "we close for half
    an hour at lunchtime, from 1pm to 1:30pm" says the range's length, no value of its own."""
    gaps = set()
    for low, high in zip(claims, claims[1:], strict=False):
        if (low.draft.range_end, high.draft.range_end) != ("low", "high"):
            continue
        ends = [c.value.temporal.value if c.value.temporal else None for c in (low, high)]
        if all(isinstance(e, str) and re.fullmatch(r"\d\d:\d\d", e) for e in ends):
            (h1, m1), (h2, m2) = (map(int, e.split(":")) for e in ends)  # type: ignore[union-attr]
            gaps.add((h2 * 60 + m2 - h1 * 60 - m1) % (24 * 60))
    return [
        lx
        for lx in row
        if lx.value_type == ValueType.duration
        and (minutes := order_key(ValueType.duration, value_key(ValueType.duration, lx.text)))
        is not None
        and round(minutes) in gaps
    ]


_DAY_PREFIXES = frozenset("on for by this next".split())


def _opens_clause(lexed: LexedText, sentence_start: int, position: int) -> bool:
    """Whether the words at `position` open the sentence or a clause, past a preposition."""
    before = [t for t in lexed.tokens if sentence_start <= t.start < position]
    while before and before[-1].lower in _DAY_PREFIXES:
        before.pop()
    last = before[-1] if before else None  # "£11 Monday to Friday": "£11" is no punctuation
    return last is None or not any(c.isalnum() for c in last.text) or last.lower in ("and", "then")


def _sentence_words(lexed: LexedText, row: list[Lexeme], days: set[str]) -> frozenset[str]:
    """Content stems of a sentence plus the weekdays it speaks of."""
    start, end = row[0].start, row[-1].end
    tokens = [t for t in lexed.tokens if start <= t.start < end]
    stems = {stem(t.text) for t in tokens}
    # "call-out" says the column word "callout"
    stems |= {stem(w.replace("-", "")) for w in stems if "-" in w}
    stems |= {joined for _, joined in _compounds(tokens)}
    # "a group of five" says the 5 of price_5_players
    stems |= {str(NUMBER_WORDS[t.lower]) for t in tokens if t.lower in NUMBER_WORDS}
    return frozenset(stems | _with_short_days(days))


def _compounds(tokens: list[Token]) -> Iterator[tuple[int, str]]:
    """Two adjacent words said as the one word a column name writes ("picked up" says
    "pickup": `joined`), each with the position of its first word."""
    for k, (first, second) in enumerate(zip(tokens, tokens[1:], strict=False)):
        if first.text.isalpha() and second.text.isalpha():
            yield k, joined(first.text, second.text)


def guess_type(lexeme: Lexeme, previous: Lexeme | None) -> EntityType:
    """A new name's likely type, from its words and what precedes it."""
    words = [w.lower() for w in lexeme.text.split()]
    if words and words[-1] in _ORG_WORDS:
        return EntityType.Organization
    if previous is not None and previous.cat == "W":
        last = previous.text.lower().split()[-1]
        if last in _PLACE_PREPOSITIONS and len(words) == 1:
            return EntityType.Location
        if last in ("the",):
            return EntityType.Organization
    if len(words) >= 2:
        return EntityType.Person
    return EntityType.Unknown


def _names_loosely(attribute: str, words: frozenset[str]) -> bool:
    """Whether the sentence says a word of the attribute's name or one it begins ("3 bedrooms"
    of number_of_beds, "rated" of average_rating), not a preposition of it."""
    parts = [stem(p) for p in attribute.lower().split("_") if p.isalpha() and p not in PREPOSITIONS]
    return any(
        w == p or (min(len(w), len(p)) >= 3 and (w.startswith(p) or p.startswith(w)))
        for p in parts
        for w in words
        if w.isalpha()
    )


def unread_values(
    read: ReadText, schema: dict[str, AttributeSchema]
) -> list[tuple[Lexeme, ValueType]]:
    """The values a text states that none of its claims used, each with its type: typed values
    of a type some KB attribute has ("$180" beside a nightly rate), and values the KB lists.
    A pronoun standing as a value ("wrote it") is no value, nor is a part of the day ("open
    every evening"), and a question states none."""
    kb_types = {spec.value_type for spec in schema.values()}
    text = read.lexed.text
    skipped = (
        [(c.value.start, c.value.end) for c in read.claims]
        + [(v.start, v.end) for v in read.totals]
        + [
            (s.start, s.end)
            for s in read.lexed.sentences
            if text[s.start : s.end].rstrip()[-1:] == "?"
        ]
    )
    out = []
    for lexeme, previous in zip(read.lexed.lexemes, [None, *read.lexed.lexemes], strict=False):
        if lexeme.cat != "VAL" or lexeme.pronoun is not None or lexeme.text.lower() in NUMBER_WORDS:
            continue  # a count said as a word ("two nights") is a value only after its cue
        if lexeme.counted:
            continue  # "I found 2 flights": a count of things no column is named for
        if lexeme.value_type == ValueType.entity and lexeme.attributes:
            continue  # "return it to the Wrenfield Station Depot": a KB thing named, no value
        if _rate_unit(lexeme, previous, text):
            continue
        if lexeme.temporal is not None and lexeme.temporal.kind == "part_of_day":
            continue  # "in the evening" qualifies a time; it states none
        if _picks_column(lexeme, read):
            continue
        if any(start < lexeme.end and lexeme.start < end for start, end in skipped):
            continue
        listed = [schema[a].value_type for a in lexeme.attributes if a in schema]
        said = ValueType.duration if round_the_clock(lexeme.text) else lexeme.value_type
        vtype = said if said in kb_types else next(iter(listed), None)
        if vtype is not None:
            out.append((lexeme, vtype))
    return out


# the words between "you" and a number that make it the user's own: "you're between 21 and 24"
_BEING_BETWEEN = frozenset("'re are were is be between and over under aged only just".split())


_CATAPHORIC = frozenset({"it", "this", "that"})


def _names_what_went_before(row: list[Lexeme]) -> str | None:
    """The entity a sentence says "it" is, as the whole of what it says: "It is the match
    Huskies Vs Cougars.", "It's Nightjar.", "This car is standard and is an Altima." (one entity,
    named last after a verb of being; before it only words, values and other verbs of being)."""
    content = [lx for lx in row if not (lx.cat == "W" and not any(c.isalnum() for c in lx.text))]
    if len(content) < 3 or not _points_back(content[0]) or content[1].cat != "COP":
        return None
    last = content[-1]
    if last.cat != "ENT" or len(last.entity_ids) != 1:
        return None
    if any(lx.cat not in _BETWEEN_BEING for lx in content[2:-1]):  # "the match", "the film"
        return None
    if not (
        content[-2].cat == "COP" or (content[-2].cat in ("W", "PRON") and content[-3].cat == "COP")
    ):
        return None  # "is Nightjar", "is the match ..."
    return last.entity_ids[0]


_BETWEEN_BEING = frozenset({"W", "PRON", "VAL", "SEP", "COP"})


def _points_back(lexeme: Lexeme) -> bool:
    """ "it", "this", "that", or a demonstrative with its noun ("this car", "that film")."""
    words = fold(lexeme.text).split()
    if lexeme.cat == "PRON":
        return words[0] in _CATAPHORIC
    return lexeme.cat == "W" and len(words) == 2 and words[0] in ("this", "that")


def _it_refers(row: list[Lexeme], pronouns: list[PronounReading]) -> str | None:
    starts = {lx.start for lx in row if lx.cat == "PRON" and lx.pronoun == "it"}
    its = [p for p in pronouns if p.lexeme.start in starts]
    ids = {c.entity_id for p in its for c in p.candidates}
    if not its or len(ids) != 1 or any(len(p.candidates) != 1 for p in its):
        return None
    return next(iter(ids))


_FORM_PREFIX = 4  # two forms of a word share at least their first four letters


def _forms_of(a: str, b: str) -> bool:
    """Two stems of one word in other forms: "deliver" and "delivery", "groom" and "grooming"."""
    short, long = sorted((a, b), key=len)
    return short == long or (
        len(short) >= 4 and long.startswith(short) and len(long) - len(short) <= 3
    )


def _rate_unit(lexeme: Lexeme, previous: Lexeme | None, text: str) -> bool:
    """ "£12 an hour", "$4 per hour": the length of time a price is said per is no duration."""
    return (
        lexeme.value_type == ValueType.duration
        and previous is not None
        and previous.value_type == ValueType.money
        and text[previous.end : lexeme.start].strip().lower() in ("", "per", "/")
    )


def _picks_column(lexeme: Lexeme, read: ReadText) -> bool:
    """ "On Fridays we're open until 8pm": a weekday that names the attribute a claim of its
    sentence was read against (friday_hours) chose that column; "we're open Tuesday to
    Sunday": a weekday that names a column a cue of its sentence names (tuesday_open), which
    the KB has for that day. Either was read, as no value. So was a word value naming a part of
    a claim's attribute: "£62 with a junior stylist" (a person's role) chose `junior_price`."""
    sentence = next((s for s in read.lexed.sentences if s.start <= lexeme.start < s.end), None)
    if sentence is None:
        return False
    named = [c.predicate for c in read.claims if sentence.start <= c.value.start < sentence.end]
    if lexeme.value_type in (None, *_WORDY):
        said = {stem(w) for w in fold(lexeme.text).split() if w not in PREPOSITIONS}
        return any(said & {stem(p) for p in a.lower().split("_")} for a in named)
    if lexeme.temporal is None or lexeme.temporal.kind != "weekday":
        return False
    named += [
        a
        for cue in read.lexed.lexemes
        if cue.cat == "CUE" and sentence.start <= cue.start < sentence.end
        for a in cue.attributes
    ]
    return any(lexeme.value_key in a.lower().split("_") for a in named)


class Reader:
    """Reads texts against one KB with the rule files' word lists."""

    def __init__(
        self,
        index: KBIndex,
        words: WordLists,
        *,
        fuzzy_cutoff: float,
        word_prior: Callable[[str], float] | None = None,
        priors: tuple[float, float, float] = (0.0, 0.0, 0.0),
        code_name_holders: int = 2,
        claim_grammar: Lark | None = None,
        organisation: str | None = None,
        voice: frozenset[str] = frozenset(),
        organisations: tuple[str, ...] = (),
    ) -> None:
        """`organisation` is the id of the entity the reply speaks for, `voice` the words that
        speak for it ("we", "our": text/organisation.py); of several `organisations` that may
        speak, the one a reply's question names speaks in that reply."""
        self.index = index
        # the words of the KB's attribute names ("junior" of junior_price), days and
        # prepositions aside
        self._name_parts = frozenset(
            stem(p)
            for a in index.schema
            for p in a.lower().split("_")
            if p and p not in WEEKDAYS and p not in PREPOSITIONS
        )
        # each entity's names of two content words or more, as stems ("loosely" named)
        self._name_words = {
            e.id: [said for n in e.names if len(said := content_stems(fold(n).split())) >= 2]
            for e in index.entities.values()
        }
        self.organisation = organisation
        self.organisations = organisations
        self.voice = voice
        self.words = words
        self.lexer = Lexer(
            index,
            words,
            fuzzy_cutoff=fuzzy_cutoff,
            word_prior=word_prior,
            emphasis_prior=priors[0],
            opener_prior=priors[1],
            gerund_prior=priors[2],
            code_name_holders=code_name_holders,
        )
        self._grammar = claim_grammar
        self.rows = RowFinder(index)
        self._cache: OrderedDict[tuple[str, str], tuple[LexedText, list[list[ClaimDraft]]]] = (
            OrderedDict()
        )
        self._id_sets: dict[int, tuple[tuple[str, ...], frozenset[str]]] = {}
        self._derived: OrderedDict[tuple[str, int], tuple[LexedText, object]] = OrderedDict()

    def derived(self, kind: str, lexed: LexedText, derive: Callable[[LexedText], T]) -> T:
        """`derive(lexed)` once per text this reader lexed and kind: for what depends only on a
        text, the KB and the rules (a dialogue turn's request details, read again at every call
        of a conversation), which live exactly as long as the reader. The result is shared:
        callers must not change it."""
        key = (kind, id(lexed))
        hit = self._derived.get(key)
        if hit is not None and hit[0] is lexed:
            self._derived.move_to_end(key)
            return hit[1]  # type: ignore[return-value]
        value = derive(lexed)
        self._derived[key] = (lexed, value)
        if len(self._derived) > _LEX_CACHE_SIZE:
            self._derived.popitem(last=False)
        return value

    def parse(
        self, text: str, reference: datetime, asked: frozenset[str] = frozenset()
    ) -> tuple[LexedText, list[list[ClaimDraft]]]:
        """Lexemes and each sentence's claim drafts. They depend only on the text, the day and
        the classes the question it answers asks for (ASKED, text/class_values.py), not on what
        is in focus, so a turn seen before costs a dictionary lookup."""
        key = (text, reference.date().isoformat(), asked)
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
            return hit
        lexed = self.lexer.lex(text, reference, asked)
        parsed = (
            lexed,
            [
                extract_drafts(
                    row, self._grammar, self.words.markers.get, self._relation, self._fits
                )
                for row in lexed.sentence_lexemes
            ],
        )
        self._cache[key] = parsed
        if len(self._cache) > _LEX_CACHE_SIZE:
            self._cache.popitem(last=False)
        return parsed

    def _relation(self, attributes: tuple[str, ...]) -> bool:
        return any(self.index.attribute_type(a) == ValueType.entity for a in attributes)

    def _fits(self, value: Lexeme, attributes: tuple[str, ...]) -> bool:
        return any(fits_attribute(value.value_type, a, self.index) for a in attributes)

    def referent_for(self, entity_id: str) -> Referent:
        entity = self.index.entities[entity_id]
        return Referent(
            key=entity_id,
            name=entity.label,
            entity_id=entity_id,
            entity_type=entity.type,
            gender=entity.gender.value if entity.gender else None,
            number=entity.number.value if entity.number else None,
            salience=1.0,
            order=0,
        )

    def name_referent(self, lexeme: Lexeme, previous: Lexeme | None) -> Referent:
        return Referent(
            key="name:" + fold(lexeme.text),
            name=lexeme.text,
            entity_id=None,
            entity_type=guess_type(lexeme, previous),
            gender=None,
            number=None,
            salience=1.0,
            order=0,
        )

    def read(
        self,
        text: str,
        reference: datetime,
        resolver: ReferenceResolver,
        question: str | None = None,
    ) -> ReadText:
        """The text's claims (`_read`), spoken for the organisation the question names when
        several may speak ("What's the phone number for the central library?" - "You can reach
        us on ...")."""
        default = self.organisation
        if default is None and question and len(self.organisations) > 1:
            self.organisation = self._named_organisation(question)
        try:
            return self._read(text, reference, resolver, question)
        finally:
            self.organisation = default

    def _named_organisation(self, question: str) -> str | None:
        words = [word_key(t.text) for t in tokenize(question)]
        named = {
            hit.entity_id
            for i in range(len(words))
            for hit in (self.index.names.longest(words, i) or (0, ()))[1]
            if isinstance(hit, NameHit) and hit.entity_id in self.organisations
        }
        return named.pop() if len(named) == 1 else None

    def _read(
        self,
        text: str,
        reference: datetime,
        resolver: ReferenceResolver,
        question: str | None = None,
    ) -> ReadText:
        """QUESTION: the user's question the text answers, if any (it tells a class said as
        what a thing is: "It's a punk song" to "What kind of music is it?")."""
        asked = (
            asked_classes(_QUESTION_WORD.findall(question), self.lexer.class_attributes, self.words)
            if question
            else frozenset()
        )
        lexed, drafts = self.parse(text, reference, asked)
        asked_words = frozenset(content_stems(_QUESTION_WORD.findall(question or "")))
        out = ReadText(lexed)
        chosen: dict[int, Referent] = {}  # id(lexeme) -> the referent its subject means
        periods = lexed.markers_of("period-phrase")
        last_days: set[str] = set()
        rows = lexed.sentence_lexemes
        names_nothing = [not any(lx.cat in ("ENT", "NAME") for lx in row) for row in rows]
        # values said of rows, sentence by sentence; one naming nothing goes on with the last row
        value_rows = self.rows.reply_groups(
            [
                [lx for lx in row if lx.cat == "VAL" and lx.pronoun is None]
                for row in lexed.sentence_lexemes
            ],
            names_nothing,
        )
        named_next = [
            _names_what_went_before(rows[k + 1]) if k + 1 < len(rows) and names_nothing[k] else None
            for k in range(len(rows))
        ]
        for row, row_drafts, value_row, next_named in zip(
            rows, drafts, value_rows, named_next, strict=True
        ):
            previous: Lexeme | None = None
            for lexeme in row:
                self._observe(lexeme, previous, resolver, out, chosen)
                previous = lexeme
            ambiguous = {id(p.lexeme) for p in out.pronouns if len(p.candidates) > 1}
            # a sentence naming no day speaks of the last one named, or of today
            days = _sentence_days(lexed, row, periods) if row else set()
            days = days or last_days or {reference.strftime("%A").lower()}
            last_days = days
            # names a value may be about; "same year as John" shares a value, it is not its owner
            sharers = {d.subject.lexeme.start for d in row_drafts if d.shared and d.subject}
            sentence = _Sentence(
                words=_sentence_words(lexed, row, days) if row else frozenset(),
                own_days=_value_days(lexed, row) if row else {},
                elsewhere=_value_stretches(lexed, row, self._name_parts),
                named=[
                    (m.lexeme.start, m.lexeme.end, m.entity_id)
                    for m in out.mentions
                    if row
                    and row[0].start <= m.lexeme.start < row[-1].end
                    and m.lexeme.start not in sharers
                ],
                after_copula=_after_copula(row),
                object_referents={
                    id(p.lexeme): p.candidates for p in out.pronouns if p.lexeme.cat == "VAL"
                },
                rows=value_row,
                speaks_for_us=any(lx.cat == "SELF" and fold(lx.text) in self.voice for lx in row),
                names_others=any(
                    (lx.cat == "ENT" and self.organisation not in lx.entity_ids) or lx.cat == "NAME"
                    for lx in row
                ),
                names_unknown=any(lx.cat == "NAME" for lx in row),
                shared_names={
                    lx.start: lx.entity_ids
                    for lx in row
                    if lx.cat == "ENT" and len(lx.entity_ids) > 1 and id(lx) not in chosen
                },
                asks=bool(row) and _asks(lexed, row),
                refers=any(lx.cat == "PRON" for lx in row),
                breaks=tuple(lx.start for lx in row if lx.cat == "SEP"),
                pronouns=tuple(lx.start for lx in row if lx.cat == "PRON"),
                asked=asked_words,
                loosely=self._loosely_named(lexed, row, out.mentions),
                it_refers=_it_refers(row, out.pronouns),
                named_next=next_named,
            )
            drafts = {}  # id(claim) -> the draft it was attached from
            claims = []
            each_day = []  # claims of a value said of several weekdays, one per day
            opened: set[tuple[str | None, str]] = set()  # days said open ("open Tuesday to ...")
            for draft in row_drafts:
                claim = self._attach(draft, chosen, ambiguous, resolver, sentence)
                found = [claim] if claim is not None else []
                spoken = _spoken_days(lexed, row, draft.value)
                if not found and spoken and draft.value.value_type not in (None, *_WORDY):
                    found = _each_day(
                        partial(self._attach, draft, chosen, ambiguous, resolver),
                        sentence,
                        spoken,
                    )
                    each_day += found if len(spoken) > 1 else []
                if not found and spoken and draft.value.temporal is not None:
                    found = self._open_days(draft, lexed, row, chosen, spoken)
                    found = [c for c in found if (c.subject_id, c.predicate) not in opened]
                    opened.update((c.subject_id, c.predicate) for c in found)
                for claim in found:
                    drafts[id(claim)] = draft
                    claims.append(claim)
            # "9am to 5:30pm Tuesday to Friday, with a late night until 8pm on Thursdays": a
            # day's own value overrides the one said of the span
            own = {(c.subject_id, c.predicate) for c in claims if c not in each_day}
            claims = [
                c for c in claims if c not in each_day or (c.subject_id, c.predicate) not in own
            ]
            totals = _totals(lexed, row, claims, self.index)
            out.totals.extend(c.value for c in claims if id(c) in totals)
            claims = [c for c in claims if id(c) not in totals]
            out.totals.extend(_spans(row, claims))
            out.totals.extend(_unclaimed_totals(lexed, row, claims))
            told: set[str] = set()
            pair_ends(claims, self.index)
            for claim in _without_qualifying_days(one_value_each(claims, self.index), self.index):
                draft = drafts[id(claim)]
                out.claims.append(claim)
                row_id = claim.subject_id
                if claim.resolution == "Values" and row_id is not None and row_id not in told:
                    # the row its values told is mentioned, as if named ("it" next)
                    told.add(row_id)
                    said = draft.subject.lexeme if draft.subject else draft.value
                    out.mentions.append(EntityMention(said, row_id, "Values"))
                    resolver.observe(self.referent_for(row_id))
            out.claims.extend(self._yes_no(lexed, row, out, chosen, resolver))
        return out

    def _loosely_named(
        self, lexed: LexedText, row: list[Lexeme], mentions: list[EntityMention]
    ) -> tuple[str, ...]:
        """The entities a sentence naming none says every word of a name of, each in some form
        ("we deliver prescriptions on Tuesdays": Prescription Delivery). Names of two content
        words or more only: one word is a kind, not a name."""
        if not row or any(row[0].start <= m.lexeme.start < row[-1].end for m in mentions):
            return ()
        # the words outside the values: "Our director is Elena Marsh" names Elena as a value
        said = [
            stem(lexed.tokens[k].text)
            for lx in row
            if lx.cat in ("W", "CUE")
            for k in range(lx.start_tok, lx.end_tok)
        ]
        opened = {s[:_FORM_PREFIX] for s in said}
        return tuple(
            entity_id
            for entity_id, names in self._name_words.items()
            if any(
                {w[:_FORM_PREFIX] for w in name} <= opened  # cheap first: a KB may be large
                and all(any(_forms_of(w, s) for s in said) for w in name)
                for name in names
            )
        )

    def _open_days(
        self,
        draft: ClaimDraft,
        lexed: LexedText,
        row: list[Lexeme],
        chosen: dict[int, Referent],
        days: list[str],
    ) -> list[AttachedClaim]:
        """ "We're open Tuesday to Saturday" against a column per weekday: each day said is a
        claim that its column is not the value the open-word denies (`opposite-cue` "open"
        "closed", where the KB writes a closed day "closed"), read against the day's column or,
        where that holds hours, their first bound. None unless the clause says such a word, the
        sentence says no hours (those are the day's claims) and the subject (we, or the entity
        named) has a column for every day said."""
        if draft.value.temporal.kind != "weekday" or draft.negated:
            return []
        if any(lx.cat == "VAL" and lx.value_type == ValueType.time for lx in row):
            return []  # "open 8am to 2pm on Saturdays": the hours said are the day's claims
        subject = draft.subject
        if subject is None or subject.kind == "self":
            entity_id = self.organisation
        else:
            referent = chosen.get(id(subject.lexeme))
            entity_id = referent.entity_id if referent is not None else None
        entity = self.index.entities.get(entity_id or "")
        denied = self._denied_day_value(lexed, row, draft.value)
        if entity is None or denied is None:
            return []
        out = []
        for day in days:
            columns = [
                a
                for a in entity.attributes
                if names_weekday(a, day) and (a in denied[1] or _first_bound(a, self.index))
            ]
            if len(columns) != 1:
                return []
            value = replace(draft.value, text=denied[0], value_type=ValueType.text)
            value.value_key = None
            claimed = replace(draft, value=value, negated=True, basis="Cue")
            out.append(
                AttachedClaim(claimed, entity.label, entity.id, "Direct", columns[0], "Cue", value)
            )
        return out

    def _denied_day_value(
        self, lexed: LexedText, row: list[Lexeme], value: Lexeme
    ) -> tuple[str, tuple[str, ...]] | None:
        """The KB value ("closed", with the weekday columns holding it) that a word of the
        clause before the value denies ("open" of `opposite-cue "open" "closed"`), or None."""
        words = [
            t.lower
            for t in lexed.tokens
            if row[0].start <= t.start < value.start and t.kind != "punct"
        ]
        for i in range(len(words)):
            hit = self.words.opposite_cues.longest(words, i)
            for phrase in hit[1] if hit is not None else ():
                held = self.index.values.get(str(phrase))
                if held:
                    return str(phrase), tuple(str(a) for a in held)
        return None

    def _yes_no(
        self,
        lexed: LexedText,
        row: list[Lexeme],
        out: ReadText,
        chosen: dict[int, Referent],
        resolver: ReferenceResolver,
    ) -> list[AttachedClaim]:
        """Yes/no attributes the sentence states (text/yes_no.py), each about the entity its
        clause names, else one its sentence names, else the one most in focus."""
        claims = []
        for mention in polar_mentions(lexed, row, self.index.polar):
            named = [
                Candidate(Subject("entity", m.lexeme), m.entity_id, m.resolution)
                for m in out.mentions
                if row[0].start <= m.lexeme.start < row[-1].end
            ]
            named += [  # "allowed at Quarry Lane Bakery": a name read as a value of another
                Candidate(Subject("entity", lx), hit.entity_id, "Direct")
                for lx in row
                if lx.cat == "VAL" and lx.attributes
                for hit in self.index.names.get(lx.text)[:1]
            ]
            named += [
                Candidate(Subject("pronoun", p.lexeme), p.resolved.entity_id, "Pronoun")
                for p in out.pronouns
                if p.resolved is not None
                and p.resolved.entity_id is not None
                and row[0].start <= p.lexeme.start < row[-1].end
            ]
            named += [  # "we don't offer home delivery": the organisation speaking
                Candidate(Subject("self", lx), self.organisation, "Organisation")
                for lx in row
                if self.organisation is not None
                and lx.cat == "SELF"
                and fold(lx.text) in self.voice
            ]
            named.sort(key=lambda c: not mention.in_clause(c.subject.lexeme.start))
            focus = sorted(resolver.in_focus(), key=lambda r: (-r.salience, -r.order))
            named += [Candidate(None, r.entity_id, "Implicit") for r in focus if r.entity_id]
            claim = polar_claim(mention, self.index, named)
            if claim is not None:
                claims.append(claim)
        return claims

    def _observe(
        self,
        lexeme: Lexeme,
        previous: Lexeme | None,
        resolver: ReferenceResolver,
        out: ReadText,
        chosen: dict[int, Referent],
    ) -> None:
        if lexeme.cat == "ENT":
            entity_id = self._pick_entity(lexeme, resolver)
            if entity_id is None:
                return  # "John" among many Johns, none in focus: who is meant is unknown
            referent = self.referent_for(entity_id)
            if _plural_mention(lexeme.text, referent.name):
                referent = replace(referent, number="Plural")  # "our puppy parties ... they"
            resolver.observe(referent)
            chosen[id(lexeme)] = referent
            out.mentions.append(
                EntityMention(lexeme, entity_id, "Fuzzy" if lexeme.fuzzy else "Direct")
            )
        elif lexeme.cat == "NAME" or lexeme.new_name:
            referent = self.name_referent(lexeme, previous)
            resolver.observe(referent)
            chosen[id(lexeme)] = referent
            out.names.append(lexeme)
        elif lexeme.cat in ("PRON", "PRON_POSS", "VAL") and lexeme.pronoun is not None:
            info = self.words.pronouns[lexeme.pronoun]
            candidates = resolver.candidates(info)
            out.pronouns.append(PronounReading(lexeme, candidates))
            if candidates:
                chosen[id(lexeme)] = candidates[0]

    def _pick_entity(self, lexeme: Lexeme, resolver: ReferenceResolver) -> str | None:
        """Of several entities sharing a name, the one most in focus; None when none is (a
        claim about an unknown one of many people would be checked against the wrong one)."""
        if len(lexeme.entity_ids) == 1:
            return lexeme.entity_ids[0]
        ids = self._id_set(lexeme.entity_ids)
        focused = [r for r in resolver.in_focus() if r.key in ids]
        if not focused:
            return None
        return max(focused, key=lambda r: (r.salience, r.order)).key

    def _attach_implicit(
        self,
        draft: ClaimDraft,
        resolver: ReferenceResolver,
        sentence: _Sentence,
    ) -> AttachedClaim | None:
        """A KB value with no subject named ("there is moderate traffic") is about an entity that
        holds that attribute: the one the sentence names nearest the value ("5 miles away from
        Pizza Hut and 6 miles away from Round Table"), else the one most in focus. Only values
        the KB itself lists, or values a cue ties to an attribute ("it is 5 miles away"),
        qualify: a bare time or number could belong to anything. A value the speaker or hearer
        is the subject of needs a name after it to be about an entity. A clause opened by a noun
        phrase ("The train leaves at 05:00") is about the entity in focus only when a cue ties
        its value to an attribute and the sentence names no entity."""
        value = draft.value
        named = sentence.named
        if not named and sentence.asks and value.temporal and value.temporal.kind in _RELATIVE:
            return None  # "Anything else today?" asks the user; it dates nothing in the KB
        if draft.subject is not None:
            # "I joined in 2020" is about me; "we're 5 miles away from Pizza Hut" about Pizza Hut
            named = [m for m in named if m[0] >= value.end]
        cued = draft.subject is None or named
        owners = value.attributes or (draft.cues if draft.basis == "Cue" and cued else ())
        if draft.foreign and draft.description is not None and not draft.negated:
            described = self._described(draft, sentence)
            if described is not None:
                return described
        if draft.negated:
            return None
        if not named and draft.subject is None and sentence.it_refers is not None:
            # "It's electronica music": a row "it" points at is told by the dialogue, before the
            # values said could tell another
            pointed = self._claim_on(draft, sentence.it_refers, sentence, "Pronoun")
            held = self.index.entities[sentence.it_refers].attributes
            if pointed is not None and pointed.predicate in held:
                return pointed
        if not named and draft.subject is None and sentence.named_next is not None:
            # "There is a showing at 9pm. It is Nightjar.": the thing the next sentence names
            # as if said of it directly: its one column of the value's type takes the value
            ahead = self._held_claim_on(draft, sentence.named_next, sentence, "Pronoun")
            if ahead is not None:
                return ahead
        if not named and len(sentence.loosely) == 1:
            # "we deliver prescriptions on Tuesdays": the one entity the words name loosely
            loose = self._claim_on(draft, sentence.loosely[0], sentence, "Loose")
            if loose is not None:
                return loose
        if not named:
            by_values = self._by_values(draft, resolver, sentence, None) or (
                None if owners else self._sole(draft, sentence.words_for(value))
            )
            if by_values is not None:
                return by_values
        # a cue, or a name read as one attribute's value ("The track is a Soundtracks song"),
        # ties the value to an attribute as a clause's own subject would
        tied = (
            draft.basis == "Cue"
            or draft.value.name_value
            or (draft.value.value_type in _WORDS_TYPES and len(draft.value.attributes) == 1)
        )
        only = {m[2] for m in named}
        if (
            draft.cues
            and len(only) == 1
            and not any(fits_attribute(value.value_type, a, self.index) for a in draft.cues)
        ):
            # "X leaves at 8:15 am, and a child ticket is £18": words of a cue whose columns
            # cannot take the value ("child" of child_ages) say which column of the one named
            # thing it is (child_price)
            described = self._held_claim_on(draft, next(iter(only)), sentence, "Description")
            if described is not None:
                return described
        if draft.foreign and not (tied and not named):
            return None if named else self._attach_unnamed(draft, resolver, sentence)
        if not owners:
            return self._attach_unnamed(draft, resolver, sentence)

        # of the columns a cue names, those that can take the value ("children" names
        # child_price and required_for_children; £9 is the first's)
        fitting = [a for a in owners if fits_attribute(value.value_type, a, self.index)] or owners

        def holds(entity_id: str | None, exactly: bool = False) -> bool:
            entity = self.index.entities.get(entity_id or "")
            return entity is not None and any(
                a in entity.attributes or (not exactly and named_in(a, entity.attributes))
                for a in fitting
            )

        near = [m for m in named if holds(m[2])]
        if near:
            ids = [min(near, key=lambda m: max(m[0] - value.end, value.start - m[1], 0))[2]]
        else:
            # the thing in focus holding the very column before one holding a kin of it
            # ("children's tickets are £9" after the life jackets, which are required for
            # children: the trip's child_price)
            ranked = sorted(resolver.in_focus(), key=lambda r: (-r.salience, -r.order))
            ids = [r.entity_id for r in ranked if holds(r.entity_id, exactly=True)][:1] or [
                r.entity_id for r in ranked if holds(r.entity_id)
            ][:1]
        if not ids:
            return None
        entity = self.index.entities[ids[0]]
        picked = choose_attribute(
            draft, entity.id, self.index, sentence.words_for(value), sentence.asked
        )
        if picked is None:
            return None
        return AttachedClaim(
            draft, entity.label, entity.id, "Implicit", picked[0], picked[1], draft.value
        )

    def _contact_of_one(self, draft: ClaimDraft, sentence: _Sentence) -> AttachedClaim | None:
        """A phone number, email or web address no subject of its sentence holds: the one
        entity's that has any (`_sole`); not when the sentence names someone the KB does not
        know ("write to Ines Carvalho, our practice manager, at ..."), whose it may be."""
        if draft.value.value_type not in _CONTACT_TYPES or draft.negated:
            return None
        if sentence.names_unknown:
            return None
        return self._sole(draft, sentence.words_for(draft.value))

    def _sole(self, draft: ClaimDraft, words: frozenset[str]) -> AttachedClaim | None:
        """ "The total is $49.20" against a KB of one row (the booking a call returned): the
        value is that row's when exactly one of its attributes holds values of its very type (a
        price, a time, a date; a bare number or a text could be anything). So is a phone
        number, email or web address when one entity alone holds any ("you can call the yard
        on ..."); of its columns of that type, the one the sentence's WORDS name ("for
        emergencies please call ..." of emergency_phone)."""
        value = draft.value
        if value.value_type in _OPEN_TYPES:
            return None
        holders = list(self.index.entities.values())
        if len(holders) != 1 and value.value_type in _CONTACT_TYPES:
            holders = [
                e
                for e in holders
                if any(strictly(value.value_type, a, self.index) for a in e.attributes)
            ]
        if len(holders) != 1:
            return None
        (entity,) = holders
        typed = [a for a in entity.attributes if strictly(value.value_type, a, self.index)]
        if len(typed) > 1:
            # the column holding the value, else the one the words name, else the plain one
            # ("call us on ...": the main line, not the out-of-hours one)
            holding = [
                a
                for a in typed
                if any(
                    value_key(value.value_type, str(v)) == value.value_key
                    for v in entity.values_of(a)[0]
                )
            ]
            best = max(affinity(a, words) for a in typed)
            named = [a for a in typed if best > 0 and affinity(a, words) == best]
            typed = holding or named or unqualified(typed)
        if len(typed) != 1:
            return None
        return AttachedClaim(draft, entity.label, entity.id, "Sole", typed[0], "Type", value)

    def _attach_named(self, draft: ClaimDraft, sentence: _Sentence) -> AttachedClaim | None:
        """A value no subject claims, of the attribute the sentence names, held by one entity
        (text/attachment.py `named_holder`)."""
        words = sentence.words_for(draft.value)
        found = named_holder(draft, self.index, words, {m[2] for m in sentence.named})
        if found is None:
            return None
        entity = self.index.entities[found[0]]
        basis = "Cue" if draft.basis == "Cue" else "Type"
        return AttachedClaim(
            draft, entity.label, entity.id, "Implicit", found[1], basis, draft.value
        )

    def _described(self, draft: ClaimDraft, sentence: _Sentence) -> AttachedClaim | None:
        """ "The nearest rest stop is at 347 Alta Mesa Ave": the one entity that holds the
        describing value ("rest stop") is what the clause is about."""
        assert draft.description is not None
        kind = draft.description.value
        holders = sorted({h for a in kind.attributes for h in self.index.holders(a, kind.text)})
        if len(holders) > 1:
            holders = self._extreme(holders, " ".join(w.text for w in draft.description.lead))
        if len(holders) != 1:
            return None
        entity = self.index.entities[holders[0]]
        picked = choose_attribute(
            draft, entity.id, self.index, sentence.words_for(draft.value), sentence.asked
        )
        if picked is None:
            return None
        return AttachedClaim(
            draft, entity.label, entity.id, "Description", picked[0], picked[1], draft.value
        )

    def _by_values(
        self,
        draft: ClaimDraft,
        resolver: ReferenceResolver,
        sentence: _Sentence,
        candidates: tuple[str, ...] | None,
    ) -> AttachedClaim | None:
        """The claim on the row the values said with this one tell (text/rows.py)."""
        focus = {r.entity_id: (r.salience, r.order) for r in resolver.in_focus() if r.entity_id}

        def attribute_of(entity_id: str) -> str | None:
            claim = self._claim_on(draft, entity_id, sentence, "Candidates")
            return claim.predicate if claim is not None else None

        value = draft.value
        told = self.rows.row_for(
            value,
            sentence.row_of(value),
            candidates,
            focus,
            attribute_of,
            alone=not sentence.refers,
        )
        if told is None:
            return None
        claim = self._claim_on(draft, told[0], sentence, told[1])
        if claim is not None and told[1] == "Several":
            claim = replace(claim, rows=tuple(candidates or ()))
        return claim

    def _ours(
        self, draft: ClaimDraft, subject: Subject, sentence: _Sentence
    ) -> AttachedClaim | None:
        """ "We open at 9", "our phone number is ...", "you can email us at ...": the
        organisation the reply speaks for, unless the sentence names someone or something else
        the value may be said of ("we're 5 miles from the depot", "contact Ana, our buyer, at
        ..."). The value must be one of the organisation's attributes, or be named by a cue."""
        assert self.organisation is not None
        if not self._spoken_for_us(subject, sentence, draft.value):
            return None
        entity = self.index.entities[self.organisation]
        picked = choose_attribute(
            replace(draft, direct=True),
            entity.id,
            self.index,
            sentence.words_for(draft.value),
            sentence.asked,
        )
        # a cue for a column the organisation lacks is ours only in a sentence naming nothing
        # else ("we have baby and adult sizes" beside the life jackets is theirs)
        cued = picked is not None and picked[1] == "Cue" and not sentence.names_others
        if picked is None or (picked[0] not in entity.attributes and not cued):
            return None
        return AttachedClaim(draft, entity.label, entity.id, "Organisation", *picked, draft.value)

    def _spoken_for_us(
        self, subject: Subject, sentence: _Sentence, value: Lexeme | None = None
    ) -> bool:
        """ "we"/"our" of the organisation, or "you" in a sentence that speaks for it, in a
        sentence naming no one and nothing else; with a VALUE said after "we", in a clause of
        its own naming no one else ("we do frame repairs for £10, so drop them in before we
        close at 5:30pm")."""
        if subject.kind == "self":
            speaks = fold(subject.lexeme.text) in self.voice
        else:
            speaks = subject.kind == "addressee" and sentence.speaks_for_us
        loose = [e for e in sentence.loosely if e != self.organisation]
        # "we can usually do it in about an hour": what we do to the thing "it" points at
        pointed = sentence.it_refers not in (None, self.organisation)
        others = sentence.names_others and not (
            value is not None
            and subject.kind == "self"
            and not sentence.names_unknown
            and subject.lexeme.start < value.start
            and self._clause_names_only_us(sentence, subject.lexeme.start, value.start)
        )
        return speaks and not others and not loose and not pointed

    def _clause_names_only_us(self, sentence: _Sentence, start: int, end: int) -> bool:
        """Whether the clause holding START..END (between the sentence's separators) names no
        entity but the organisation."""
        before = max((b for b in sentence.breaks if b <= start), default=-1)
        after = min((b for b in sentence.breaks if b >= end), default=1 << 30)
        return not any(
            before < at < after and entity_id != self.organisation
            for at, _, entity_id in sentence.named
        )

    def _ours_undecided(self, draft: ClaimDraft, subject: Subject, sentence: _Sentence) -> bool:
        """ "We" says a value of a type the organisation holds, naming nothing else, and no one
        of its columns was picked: the value is the organisation's (each day said is read on
        its own), never another entity's that happens to hold it."""
        if subject.kind != "self" or draft.value.value_type is None:
            return False
        if not self._spoken_for_us(subject, sentence):
            return False
        entity = self.index.entities[self.organisation or ""]
        return any(
            self.index.attribute_type(a) == draft.value.value_type for a in entity.attributes
        )

    def _claim_on(
        self, draft: ClaimDraft, entity_id: str, sentence: _Sentence, resolution: str
    ) -> AttachedClaim | None:
        # each value of a row said by its values is said of the row directly
        direct = replace(draft, direct=True)
        picked = choose_attribute(
            direct, entity_id, self.index, sentence.words_for(draft.value), sentence.asked
        )
        if picked is None:
            return None
        entity = self.index.entities[entity_id]
        return AttachedClaim(draft, entity.label, entity_id, resolution, *picked, draft.value)

    def _held_claim_on(
        self, draft: ClaimDraft, entity_id: str, sentence: _Sentence, resolution: str
    ) -> AttachedClaim | None:
        """The draft as if said of the entity directly (its one column of the value's type takes
        the value), when the entity holds the attribute chosen."""
        claim = self._claim_on(replace(draft, direct=True), entity_id, sentence, resolution)
        held = self.index.entities[entity_id].attributes
        return claim if claim is not None and claim.predicate in held else None

    def _extreme(self, ids: list[str], lead: str) -> list[str]:
        """Of several entities a description fits, the one a superlative in it picks: "the
        nearest" is the one with the least distance (`superlative` in metta/lexicon.metta)."""
        for word in lead.lower().split():
            for cue, order in self.words.superlatives.get(word, ()):
                for attribute in self.index.cues.get(cue):
                    ranked = sorted(
                        (k, i)
                        for i in ids
                        for v in self.index.entities[i].values_of(attribute)[0][:1]
                        if (k := order_key(self.index.attribute_type(attribute), str(v)))
                        is not None
                    )
                    if len(ranked) == len(ids):
                        best = ranked[0] if order == "Min" else ranked[-1]
                        if sum(k == best[0] for k, _ in ranked) == 1:
                            return [best[1]]
        return ids

    def _attach_unnamed(
        self, draft: ClaimDraft, resolver: ReferenceResolver, sentence: _Sentence
    ) -> AttachedClaim | None:
        """A value no entity is named for: the one entity holding the attribute the sentence
        names ("orders over €60 ship free": the shop's free_shipping_over), else the entity
        in focus."""
        return (
            self._attach_named(draft, sentence)
            or self._attach_one_named(draft, resolver, sentence)
            or self._attach_focus(draft, resolver, sentence)
        )

    def _attach_one_named(
        self, draft: ClaimDraft, resolver: ReferenceResolver, sentence: _Sentence
    ) -> AttachedClaim | None:
        """ "How about Blueface at the Fillmore on March 3rd?", "There is an event next Tuesday
        for Alejandro Sanz", "At 10:30 pm, you are going to a Jordan Rakei concert": a typed
        value no subject claims (or only the speaker or hearer), in a clause that names one KB
        entity and nothing else, is said of that entity when its words or its type pick one of
        the entity's attributes (`choose_attribute`); of a name several rows share, of the row
        the values said with it tell (`_by_values`). A bare number or free text could be
        anything's; text the KB holds as an attribute's value, or a name read as one, is that
        attribute's ("There is also a place of worship called Alexandra Palace")."""
        value = draft.value
        ids = {m[2] for m in sentence.named}
        known = value.value_type in _TEXTUAL and bool(value.attributes)
        if (
            (draft.subject is not None and draft.subject.kind not in ("self", "addressee"))
            or draft.negated
            or (value.value_type in _OPEN_TYPES and not known)
        ):
            return None
        if not draft.lead_words:
            return None  # "Today's class is at 10am": a value opening its clause qualifies it
        if not ids and len(sentence.shared_names) == 1:
            # "There is an event next Tuesday for Alejandro Sanz" of seven shows so named
            (sharing,) = sentence.shared_names.values()
            return self._by_values(draft, resolver, sentence, sharing)
        if len(ids) != 1 or None in ids:
            return None
        # "At 10:30 pm, you are going to ...": the comma after a fronted time or date joins it
        # to its clause
        fronted = value.temporal is not None and draft.lead_words <= PREPOSITIONS
        if any(
            min(m[0], value.start) < b < max(m[1], value.end)
            and not (fronted and b == value.end)
            # "..., and it lasts two hours": the clause's pronoun points back to the name
            and not (m[1] <= b and any(b < p < value.start for p in sentence.pronouns))
            for m in sentence.named
            for b in sentence.breaks
        ):
            return None  # "Most stay two hours, though the tour takes 45 minutes": another clause
        entity = self.index.entities.get(next(iter(ids)) or "")
        shared = entity is not None and any(
            h.entity_id != entity.id for h in self.index.names.get(entity.label)
        )
        if entity is not None and shared:  # a name several rows share: their values tell which
            sharing = tuple(h.entity_id for h in self.index.names.get(entity.label))
            return self._by_values(draft, resolver, sentence, tuple(dict.fromkeys(sharing)))
        if entity is None:
            return None
        picked = choose_attribute(
            replace(draft, direct=True),
            entity.id,
            self.index,
            sentence.words_for(value),
            sentence.asked,
        )
        if picked is None:
            return None
        return AttachedClaim(draft, entity.label, entity.id, "Implicit", *picked, value)

    def _attach_focus(
        self, draft: ClaimDraft, resolver: ReferenceResolver, sentence: _Sentence
    ) -> AttachedClaim | None:
        """ "It starts at 7 pm", "The song came out 2016", "The total for the booking comes to
        $84", "It's at 9 Mill Lane": a value no subject claims, in a sentence that names no
        entity, is said of the entity most in focus when the sentence's words name exactly one
        of its attributes the value fits, or, naming none, exactly one of its attributes holds
        values of the value's type (`choose_attribute` by type; a street address: the one
        attribute holding street addresses). A bare number or other free text could be anything
        ("directions to 5672 Barringer St" is a street said as a destination, but "2 people"
        no value), and a value that opens its sentence qualifies the clause's subject ("Today's
        game is at 11 am")."""
        value = draft.value
        street = value.value_type == ValueType.text and self._street(value.text)
        year = value.value_type == ValueType.number and YEAR_LIKE.fullmatch(value.text) is not None
        number = value.value_type == ValueType.number and not year
        if (
            # "you can find it at 17 Eastern Parkway": the hearer finds the thing in focus
            (draft.subject is not None and not (street and draft.subject.kind == "addressee"))
            or draft.negated
            or (value.value_type in _OPEN_TYPES and not (street or year or number))
            or sentence.names_others
            or not (
                draft.direct or value.start in sentence.after_copula or draft.lead_words - _ARTICLES
            )
        ):
            return None
        focus = max(resolver.in_focus(), key=lambda r: (r.salience, r.order), default=None)
        entity = self.index.entities.get(focus.entity_id or "") if focus else None
        if entity is None:
            return None
        if street:
            column = self._street_column(entity)
            if column is None:
                return None
            return AttachedClaim(draft, entity.label, entity.id, "Implicit", column, "Type", value)
        if number:
            # "It's rated 4.8 stars": a bare number is the focus's only when the sentence's
            # words name exactly one of its number columns
            words = sentence.words_for(value)
            named = [
                a
                for a in entity.attributes
                if strictly(ValueType.number, a, self.index) and _names_loosely(a, words)
            ]
            if len(named) != 1:
                return None
            return AttachedClaim(draft, entity.label, entity.id, "Implicit", named[0], "Cue", value)
        picked = choose_attribute(
            replace(draft, direct=True),
            entity.id,
            self.index,
            sentence.words_for(value),
            sentence.asked,
        )
        if picked is None or picked[1] != "Type":
            return None
        return AttachedClaim(draft, entity.label, entity.id, "Implicit", *picked, draft.value)

    def _street_column(self, entity: Entity) -> str | None:
        """The one attribute of the entity holding street addresses, or None."""
        held = [
            a
            for a in entity.attributes
            if self.index.attribute_type(a) in (ValueType.text, ValueType.enum)
            and any(self._street(str(v)) for v in entity.values_of(a)[0])
        ]
        return held[0] if len(held) == 1 else None

    def _street(self, text: str) -> bool:
        """Whether a text is shaped like a street address: a house number, then words one of
        which is a `street-word` ("261 Driggs Avenue, Brooklyn")."""
        return self.lexer.street_word_at(text) is not None

    def _id_set(self, ids: tuple[str, ...]) -> frozenset[str]:
        """The ids sharing a name as a set, kept per tuple (a first name may have thousands)."""
        cached = self._id_sets.get(id(ids))
        if cached is None or cached[0] is not ids:
            cached = self._id_sets[id(ids)] = (ids, frozenset(ids))
        return cached[1]

    def _attach(
        self,
        draft: ClaimDraft,
        chosen: dict[int, Referent],
        ambiguous: set[int],
        resolver: ReferenceResolver,
        sentence: _Sentence,
    ) -> AttachedClaim | None:
        subject = draft.subject
        if self.organisation is not None and subject is not None:
            ours = self._ours(draft, subject, sentence)
            if ours is not None:
                return ours
            if self._ours_undecided(draft, subject, sentence):
                return None  # "we open at 8am Monday to Friday": each day's, not another's 8am
        # "you're between 21 and 24": the range's second end goes with its first
        being = draft.low_lead if draft.range_end == "high" else draft.lead_words
        if (
            subject is not None
            and subject.kind == "addressee"
            and being
            and being <= _BEING_BETWEEN
            and draft.basis == "Bare"
            and draft.value.value_type == ValueType.number
        ):
            return None  # "as you're between 21 and 24": the user's age, no KB value
        if subject is None or subject.kind in ("self", "addressee"):
            # "we're going to 145 Amherst St": a KB value is the destination's, not ours
            return (
                self._attach_implicit(draft, resolver, sentence)
                or self._attach_named(draft, sentence)
                or self._contact_of_one(draft, sentence)
            )
        referent = chosen.get(id(subject.lexeme))
        if referent is None and subject.kind == "entity" and subject.lexeme.cat == "VAL":
            # "taught by Ana Ruiz, our head baker": a KB name said as a value, then described
            hit = next(iter(self.index.names.get(subject.lexeme.text)), None)
            referent = None if hit is None else self.referent_for(hit.entity_id)
        if subject.kind == "entity" and len(subject.lexeme.entity_ids) > 1:
            # a name several entities share: the values said with it tell which, before focus
            by_values = self._by_values(draft, resolver, sentence, subject.lexeme.entity_ids)
            if by_values is not None and (referent is None or by_values.resolution == "Values"):
                return by_values
        if subject.kind == "pronoun":
            if referent is None or id(subject.lexeme) in ambiguous:
                # "one of them leaves at 10:20": the row its values tell, before a guess
                by_values = self._by_values(draft, resolver, sentence, None)
                if by_values is not None or referent is None:
                    return by_values
            resolution = "AmbiguousPronoun" if id(subject.lexeme) in ambiguous else "Pronoun"
        elif subject.kind == "entity":
            if referent is None:
                return None  # an ambiguous name its values did not tell apart
            resolution = "Fuzzy" if subject.lexeme.fuzzy else "Direct"
        else:
            resolution = "Unknown"
        subject_id = referent.entity_id if referent is not None else None
        if draft.value.pronoun is not None:
            # "she didn't write it": the value is what "it" refers to (never the subject itself),
            # said where the text has "it"
            meant = next(
                (
                    r
                    for r in sentence.object_referents.get(id(draft.value), [])
                    if r.entity_id is not None and r.entity_id != subject_id
                ),
                None,
            )
            if meant is None:
                return None
            draft = replace(draft, value=replace(draft.value, text=meant.name))
        if subject_id is not None:
            draft = self._holder_named(draft, subject_id) or draft
        picked = choose_attribute(
            draft, subject_id, self.index, sentence.words_for(draft.value), sentence.asked
        )
        entity = self.index.entities.get(subject_id or "")
        if picked is None and entity is not None and (draft.copula or draft.direct):
            # "The quiz is at 52 Bernard Street": a street address the KB lacks is the one
            # attribute of the subject that holds street addresses
            street = draft.value.value_type == ValueType.text and self._street(draft.value.text)
            column = self._street_column(entity) if street else None
            picked = None if column is None else (column, "Type")
        if picked is None:
            # "for dental emergencies please call ...": a number of the one entity that has any
            return self._contact_of_one(draft, sentence)
        attribute, basis = picked
        if subject_id is None:
            inverse = self._inverse(attribute, draft, subject)
            if inverse is not None:
                return inverse
        name = referent.name if referent is not None else subject.lexeme.text
        if entity is not None and attribute not in entity.attributes:
            reverse = self._from_other_end(attribute, draft, replace(subject.lexeme, text=name))
            if reverse is not None:
                return reverse
        return AttachedClaim(draft, name, subject_id, resolution, attribute, basis, draft.value)

    def _holder_named(self, draft: ClaimDraft, subject_id: str) -> ClaimDraft | None:
        """ "certificates are done by our gas engineer": a value the KB lists for one entity of
        another kind (a person's role), said of a subject whose columns name entities, stands
        for the entity holding it, and is checked as that entity's name."""
        value = draft.value
        if value.value_type not in _WORDY or not value.attributes:
            return None
        subject = self.index.entities[subject_id]
        if any(a in subject.attributes for a in value.attributes):
            return None
        holders = {h for a in value.attributes for h in self.index.holders(a, value.text)}
        if len(holders) != 1:
            return None
        holder = self.index.entities[holders.pop()]
        relations = [
            a for a in subject.attributes if self.index.attribute_type(a) == ValueType.entity
        ]
        if holder.type == subject.type or not holder.name or not relations:
            return None
        said = replace(
            value,
            text=holder.name,
            value_type=ValueType.entity,
            value_key=fold(holder.name),
            attributes=tuple(relations),
        )
        return replace(draft, value=said)

    def _from_other_end(
        self, attribute: str, draft: ClaimDraft, subject: Lexeme
    ) -> AttachedClaim | None:
        """ "Tom Hughes, our optician, runs it" of a taster evening `run_by` Tom Hughes: a
        relation between two KB entities its subject lacks and its object holds is the
        object's, its value the subject."""
        if self.index.attribute_type(attribute) != ValueType.entity:
            return None
        owners = {h.entity_id for h in self.index.names.get(draft.value.text)}
        if len(owners) != 1:
            return None
        other = self.index.entities[owners.pop()]
        if attribute not in other.attributes:
            return None
        return AttachedClaim(draft, other.label, other.id, "Inverse", attribute, "Cue", subject)

    def _inverse(self, attribute: str, draft: ClaimDraft, subject: Subject) -> AttachedClaim | None:
        """ "Jim Carrey wrote Larry Crowne", Jim Carrey unknown: read from Larry Crowne's end,
        where the KB can check it ("Larry Crowne" written_by "Jim Carrey")."""
        spec = self.index.schema.get(attribute)
        # a pronoun's referent is checked as itself, not by its words
        if spec is None or spec.inverse is None or subject.kind != "name":
            return None
        owners = {h.entity_id for h in self.index.names.get(draft.value.text)}
        if len(owners) != 1:
            return None
        entity = self.index.entities[owners.pop()]
        return AttachedClaim(
            draft, entity.label, entity.id, "Inverse", spec.inverse, "Cue", subject.lexeme
        )
