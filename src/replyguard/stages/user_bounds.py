"""ContradictsPrior for an offer outside a bound of what the user said of themselves:

- **An age.** "My daughter is 18 months old", "my son has just turned 4", "a 9-year-old",
  "aged 12": a reply that offers a thing whose age band (a column named by an `age-words` word,
  cells such as "3-5" or "12+") holds none of the ages the user gave contradicts them ("the
  Oak Room, for ages 3 to 5, would suit her").
- **How many they are.** "There are 8 of us", "a group of 8" (the request's party size,
  text/details.py), or how many they have ("we have three terriers", `having-words`), against
  a thing whose capacity (a number column named by a `capacity-words` word) is smaller.

- **A measure, or a bound of one.** "I weigh about 90 kg" against a column whose name holds a
  `bound-words` word of the highest (`max_rider_weight` "80 kg"), or of the lowest, in the same
  unit (the cell's, or a word of the column's name for a bare number); "we need at least three
  bedrooms" (a number after a `bound-words` word of the lowest, or of the highest) against the
  column the noun names (`bedrooms` 2). An age column with a bare number is such a bound too
  (`min_age` 8 is the band "8+").

With several ages said (two children), an offer fits when any of them is in its band. Only
sentences that deny or regret nothing offer ("Stay and Play is only for under-3s, so it won't
suit him"). The words are rules (`age-words`, `age-units`, `age-verbs`, `age-persons`,
`capacity-words`, `bound-words` in metta/hallucination.metta); how sure each flag is too
(`UserSaid`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from replyguard.kb import name_words
from replyguard.models import Entity
from replyguard.stages.user_said import Found, offered
from replyguard.stages.user_said import plain_sentences as _plain
from replyguard.stages.user_said import within as _in
from replyguard.text.details import NUMBER_WORDS, party_details
from replyguard.text.words import stem

if TYPE_CHECKING:
    from replyguard.dialogue import TurnReading
    from replyguard.engine import Engine
    from replyguard.stages.context import CallContext
    from replyguard.text.lexer import LexedText, Lexeme

_BAND = re.compile(r"(?P<low>\d+)\s*(?:-|–|to)\s*(?P<high>\d+)|(?P<over>\d+)\s*\+")
_MONTHS_PER_YEAR = 12
_AGE_LOOKBACK = 4  # words back from "is" / "turned" to the person whose age it is
# what may follow a bare age: "my son is 2 and ...", "she is 4."
_AFTER_AN_AGE = frozenset(
    {",", ".", "!", ";", "and", "but", "so", "now", "next", "this", "last", "in", "on", "soon"}
    | {"today", "yesterday", "recently", "already", "too"}
)


def bound_candidates(engine: Engine, ctx: CallContext, users: list[TurnReading]) -> list[Found]:
    """The reply's offers outside an age or a party size the user gave (module doc)."""
    ages = _ages(engine, users)
    party = _party(engine, users)
    bounds = _bound_words(engine)
    measures = _measures(users, bounds)
    if not ages and party is None and not measures:
        return []
    age_columns = _columns(engine, "age-words")
    capacity_columns = _columns(engine, "capacity-words")
    out: list[Found] = []
    seen: set[str] = set()
    for lexeme, entity in offered(engine, ctx):
        if entity.id in seen:
            continue
        seen.add(entity.id)
        if ages:
            out.extend(_age_found(entity, ages, age_columns, bounds, lexeme))
        if party is not None:
            out.extend(_party_found(entity, party, capacity_columns, lexeme))
        out.extend(_measure_found(entity, measures, bounds, lexeme))
    return out


def one_of_several(engine: Engine, ctx: CallContext, users: list[TurnReading]) -> list[Found]:
    """The user said they have several of a thing ("I have two children", `having-words`), and
    the reply speaks of one of theirs ("for your child", "your dog": a `party-noun` of One
    beside one of Many, or the singular of the user's word) and of no more ("both", "each", a
    number of two or more: `several-words`)."""
    having = frozenset(str(engine.setting("having-words")).split())
    said = None
    for reading in users:
        owned = _had(reading.reading.lexed, having)
        if owned is not None and owned[0] > 1:
            said = owned, reading
    if said is None:
        return []
    (count, noun), reading = said
    kinds = engine.words.markers.get
    reply = ctx.reply.lexed
    tokens = reply.tokens
    several = set(str(engine.setting("several-words")).split())
    if any(t.lower in several for t in tokens) or any(n > 1 for _, n in _numbers(reply)):
        return []
    plain = _plain(reply)
    many = "party-noun:Many" in (str(x) for x in kinds(noun))
    for k in range(1, len(tokens)):
        word = tokens[k].lower
        if "addressee" not in kinds(tokens[k - 1].lower) or not _in(plain, tokens[k].start):
            continue
        one = "party-noun:One" in (str(x) for x in kinds(word))
        if (many and one) or (word != noun and stem(word) == stem(noun)):
            reason = f"says the user has {count} {noun}, and the reply speaks of their {word}"
            return [Found("OneOfSeveral", reading, tokens[k], reason, f"Speak of all {count}")]
    return []


def _bound_words(engine: Engine) -> dict[str, str]:
    """`bound-words` (WORD:SIDE): the words that make a number or a column a bound, each with
    the side it bounds ("low": at least, "high": at most)."""
    pairs = (p.split(":", 1) for p in str(engine.setting("bound-words")).split())
    return {word: side for word, side in pairs}


def _side(attribute: str, bounds: dict[str, str]) -> str | None:
    """The side a column bounds by a word of its name (`max_rider_weight`: "high"), or None."""
    sides = {bounds[w] for w in (x.lower() for x in name_words(attribute)) if w in bounds}
    return sides.pop() if len(sides) == 1 else None


@dataclass(frozen=True)
class _Measure:
    """A number with its unit (a word's stem) the user said of themselves, and the side it
    bounds when a `bound-words` word comes before it ("at least three bedrooms")."""

    number: float
    unit: str
    side: str | None
    turn: TurnReading
    text: str


def _measures(users: list[TurnReading], bounds: dict[str, str]) -> list[_Measure]:
    """Each number before a word in the users' statements about themselves (a sentence with a
    self-reference that asks and denies nothing): "I weigh about 90 kg", "we need at least
    three bedrooms"."""
    out = []
    for reading in users:
        lexed = reading.reading.lexed
        plain = _plain(lexed, user=True)
        selves = [lx.start for lx in lexed.lexemes if lx.cat == "SELF"]
        spans = [(a, b) for a, b in plain if any(a <= s < b for s in selves)]
        tokens = lexed.tokens
        for k, number in _numbers(lexed):
            if k + 1 >= len(tokens) or not _in(spans, tokens[k].start):
                continue
            unit = tokens[k + 1]
            if unit.kind != "word" or unit.lower in _AFTER_AN_AGE or unit.lower in NUMBER_WORDS:
                continue
            before = [t.lower for t in tokens[max(0, k - 2) : k] if t.lower != "of"]
            side = bounds.get(before[-1]) if before else None
            text = lexed.text[tokens[k].start : unit.end]
            out.append(_Measure(number, stem(unit.lower), side, reading, text))
    return out


_CELL = re.compile(r"(?P<number>\d+(?:\.\d+)?)\s*(?P<unit>[^\W\d_]+)?")


def _measure_found(
    entity: Entity, measures: list[_Measure], bounds: dict[str, str], lexeme: Lexeme
) -> list[Found]:
    """The first measure the entity's columns put out of bounds: a bound column (by its name)
    below or above what the user said, in the same unit; or a column a bound the user set
    names, holding less (or more) than it."""
    for attribute in entity.attributes:
        held = entity.values_of(attribute)[0]
        if len(held) != 1 or isinstance(held[0], bool):
            continue
        cell = _CELL.fullmatch(str(held[0]).strip())
        if cell is None:
            continue
        value = float(cell["number"])
        named = {stem(w.lower()) for w in name_words(attribute)}
        column_side = _side(attribute, bounds)
        for measure in measures:
            unit = stem(cell["unit"].lower()) if cell["unit"] else None
            if not (measure.unit == unit or (unit is None and measure.unit in named)):
                continue
            if measure.side is None:  # what the user is or has, against the column's bound
                if column_side is None:
                    continue
                out = measure.number > value if column_side == "high" else measure.number < value
            else:  # the user's bound, against what the column holds
                if column_side is not None:
                    continue  # a bound against a bound tells nothing
                out = value < measure.number if measure.side == "low" else value > measure.number
            if not out:
                continue
            reason = (
                f"says {measure.text}, and {entity.label}'s {attribute} is '{held[0]}' in the "
                f"knowledge base"
            )
            fix = f"Offer something whose {attribute} fits {measure.text}"
            return [Found("Measure", measure.turn, lexeme, reason, fix)]
    return []


def _columns(engine: Engine, setting: str) -> set[str]:
    """The KB's attributes whose name holds one of the words of a setting."""
    words = set(str(engine.setting(setting)).split())
    return {a for a in engine.index.schema if {w.lower() for w in name_words(a)} & words}


def _age_found(
    entity: Entity,
    ages: list[tuple[int, TurnReading]],
    columns: set[str],
    bounds: dict[str, str],
    lexeme: Lexeme,
) -> list[Found]:
    for attribute in sorted(columns & set(entity.attributes)):
        side = _side(attribute, bounds)
        bands = [b for v in entity.values_of(attribute)[0] if (b := _band(str(v), side))]
        if not bands:
            continue
        if any(low <= age <= high for age, _ in ages for low, high in bands):
            continue
        said = ", ".join(str(age) for age, _ in ages)
        value = "/".join(str(v) for v in entity.values_of(attribute)[0])
        reason = (
            f"gives the age {said}, and {entity.label}'s {attribute} is "
            f"'{value}' in the knowledge base"
        )
        fix = f"Offer something whose {attribute} includes {said}"
        return [Found("Age", ages[-1][1], lexeme, reason, fix)]
    return []


def _party_found(
    entity: Entity, party: tuple[int, TurnReading], columns: set[str], lexeme: Lexeme
) -> list[Found]:
    size, reading = party
    for attribute in sorted(columns & set(entity.attributes)):
        held = entity.values_of(attribute)[0]
        if len(held) != 1 or not str(held[0]).isdigit() or int(str(held[0])) >= size:
            continue
        reason = (
            f"says the user's party is {size}, and {entity.label}'s {attribute} is "
            f"{held[0]} in the knowledge base"
        )
        fix = f"Offer something whose {attribute} is at least {size}"
        return [Found("Party", reading, lexeme, reason, fix)]
    return []


def _band(value: str, side: str | None) -> tuple[int, int] | None:
    """(lowest, highest) age of a band cell: "3-5", "5 to 8", "12+", or a bare number of a
    column that bounds one side (`side`: `min_age` 8 is "8+")."""
    if side is not None and value.strip().isdigit():
        return (int(value), 1_000) if side == "low" else (0, int(value))
    m = _BAND.fullmatch(value.strip())
    if m is None:
        return None
    if m["over"]:
        return int(m["over"]), 1_000
    return int(m["low"]), int(m["high"])


def _party(engine: Engine, users: list[TurnReading]) -> tuple[int, TurnReading] | None:
    """The latest party size a user turn gave, or how many of a thing the user said they
    have ("we have three terriers"), with its turn."""
    having = frozenset(str(engine.setting("having-words")).split())
    found = None
    for reading in users:
        lexed = reading.reading.lexed
        sizes = party_details(lexed, engine.words.markers.get).get("party size")
        if sizes and sizes[-1].value_key and sizes[-1].value_key.isdigit():
            found = int(sizes[-1].value_key), reading
        owned = _had(lexed, having)
        if owned is not None:
            found = owned[0], reading
    return found


_HAVER_LOOKBACK = 2  # tokens back from the verb to the user ("I", "we", "I 've")


def _had(lexed: LexedText, having: frozenset[str]) -> tuple[int, str] | None:
    """How many things the user says they have and the word for them, the last said: a number
    right after a `having-words` verb of a self-reference, before a word ("we have three
    terriers", "I've got 2 kids"), in a sentence that asks and denies nothing."""
    plain = _plain(lexed, user=True)
    selves = [lx.end_tok for lx in lexed.lexemes if lx.cat == "SELF"]
    found = None
    for k, number in _numbers(lexed):
        if k < 1 or k + 1 >= len(lexed.tokens) or lexed.tokens[k - 1].lower not in having:
            continue
        verb = k - 1
        while verb > 0 and lexed.tokens[verb - 1].lower in having:
            verb -= 1
        if not any(0 <= verb - end <= _HAVER_LOOKBACK for end in selves):
            continue
        after = lexed.tokens[k + 1]
        if after.kind == "word" and _in(plain, lexed.tokens[k].start):
            found = number, after.lower
    return found


@dataclass(frozen=True)
class _AgeWords:
    units: frozenset[str]  # "years", "months", "year-old"
    verbs: frozenset[str]  # "is", "turned"
    before: frozenset[str]  # "aged"
    persons: frozenset[str]  # "he", "she", "they"


def _ages(engine: Engine, users: list[TurnReading]) -> list[tuple[int, TurnReading]]:
    """Each age in whole years a user turn gave of someone, with its turn."""

    def words(key: str) -> frozenset[str]:
        return frozenset(str(engine.setting(key)).split())

    said = _AgeWords(
        words("age-units"), words("age-verbs"), words("age-words"), words("age-persons")
    )
    out = []
    for reading in users:
        lexed = reading.reading.lexed
        plain = _plain(lexed, user=True, questions=True)  # "I'm 15, which gigs can I go to?"
        for k, number in _numbers(lexed):
            if not _in(plain, lexed.tokens[k].start):
                continue
            age = _age_at(lexed, k, number, said)
            if age is not None:
                out.append((age, reading))
    return out


def _numbers(lexed: LexedText) -> list[tuple[int, int]]:
    out = []
    for k, token in enumerate(lexed.tokens):
        if token.kind == "num" and token.text.isdigit():
            out.append((k, int(token.text)))
        elif token.lower in NUMBER_WORDS:
            out.append((k, NUMBER_WORDS[token.lower]))
    return out


def _age_at(lexed: LexedText, k: int, number: int, said: _AgeWords) -> int | None:
    """The age in whole years a number at token k says, or None: "18 months old", "a 9-year-
    old", "aged 6", or a number after "is" / "turned" said of someone ("my son is 2")."""
    lowered = [t.lower for t in lexed.tokens]
    after = [w for w in lowered[k + 1 : k + 3] if w != "-"]
    if after and after[0] in said.units:
        return number // _MONTHS_PER_YEAR if after[0].startswith("month") else number
    if k > 0 and lowered[k - 1] in said.before:
        return number
    if k == 0 or lowered[k - 1] not in said.verbs:
        return None
    if after and after[0] not in _AFTER_AN_AGE:
        return None  # "is 12 minutes away"
    back = set(range(max(0, k - 1 - _AGE_LOOKBACK), k - 1))
    people = {
        lx.start_tok
        for lx in lexed.lexemes
        if lx.cat == "SELF" or (lx.cat == "PRON" and lx.text.lower() in said.persons)
    }
    return number if people & back else None
