"""ContradictsPrior for replies that restate or act on what the user asked for: a reply that
confirms or commits to a request restates its details as the user gave them ("Schedule my 10 am
dentist appointment" -> "I have scheduled your dentist appointment for 2 pm" is a contradiction
even though no KB entity is named), and an answer, an offer or a recommendation keeps the
details the user said with a noun or a cue ("I'd prefer a luxury ride" -> "2 seats on a regular
ride"; "the destination is Pier 4" -> "going to Pier 9").

The request is the task in hand, since the assistant last confirmed one: details said with a
noun or a cue (how many of a thing, which kind of it, where to, from or in, how many people
come), dates and times from its first user turn, the others from its first request on. Later
user turns replace earlier ones ("No, make it today"); an offer of another value the user lets
stand replaces theirs. Details are compared slot by slot: a time with a time, a date with a
date (said with the same words of their clause when the user gave several: "pick up on the 5th",
"drop off on the 9th"), a KB value with a value of the same column, how many by number, kinds
and places by their words, and details named by a phrase ("with my aunt", "a reminder for
dinner") by their words (text/details.py). A suggestion of what the user said they already have
contradicts them too. Which reply acts restate or act on a request, and how sure the flag is,
are rules (metta/hallucination.metta).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rapidfuzz.distance import OSA

from replyguard.metta_host import Sym
from replyguard.models import EntityType, Evidence, HallucinationType, Span, ValueType
from replyguard.stages.acts import classify_reply_act, classify_turn_act
from replyguard.stages.candidates import Candidate
from replyguard.stages.context import CallContext
from replyguard.text.details import (
    Details,
    count_details,
    modifier_details,
    party_details,
    place_details,
    request_details,
    value_cues,
)
from replyguard.text.lexer import LexedText, Lexeme
from replyguard.text.temporal import WEEKDAYS
from replyguard.text.words import content_stems
from replyguard.values import grade

if TYPE_CHECKING:
    from replyguard.dialogue import TurnReading
    from replyguard.engine import Engine
    from replyguard.text.lexicon import KBIndex

_SLOT_TYPES = {ValueType.datetime: "time", ValueType.year: "date"}
_NOUN_SLOTS = ("count of ", "kind of ")
_SAID_ANY_TIME = ("date", "time", "place ", "party size", *_NOUN_SLOTS)
_MIN_MISSPELT = 5
_NEGATIVE = frozenset({"negation", "negative-marker"})


def _slot(lexeme: Lexeme, index: KBIndex) -> str | None:
    """Which detail of a request a lexeme states."""
    if lexeme.cat == "VAL":
        if lexeme.attributes and not lexeme.name_value:  # a name read as a value is a guess
            return lexeme.attributes[0]
        if lexeme.value_type is not None and lexeme.temporal is not None:
            return _SLOT_TYPES.get(lexeme.value_type, lexeme.value_type.value)
        return None
    if lexeme.cat == "ENT" and len(lexeme.entity_ids) == 1:
        entity = index.entities[lexeme.entity_ids[0]]
        if entity.type == EntityType.Event:
            return "event"
    return None


def _slots(lexed: LexedText, engine: Engine, *, questions: bool = True) -> Details:
    """Each detail a text gives: KB values and dates by their column or type, the details
    phrases introduce ("with my aunt"), unless a KB value already fills that slot, and the
    details said with their noun or cue (`_said_with`). Read once per text (every call of a
    conversation reads its earlier turns again); the result is shared, never changed."""
    return engine.reader.derived(
        "request-details" if questions else "request-details-no-questions",
        lexed,
        lambda lx: _read_slots(lx, engine, questions=questions),
    )


def _read_slots(lexed: LexedText, engine: Engine, *, questions: bool) -> Details:
    out: Details = {}
    for lexeme in lexed.lexemes:
        slot = _slot(lexeme, engine.index)
        if slot is not None:
            out.setdefault(slot, []).append(lexeme)
    details = request_details(lexed, engine.words.markers.get, lambda lx: _is_person(lx, engine))
    details.update(_said_with(lexed, engine, questions=questions))
    for slot, lexemes in details.items():
        out.setdefault(slot, lexemes)
    return out


def _said_with(
    lexed: LexedText, engine: Engine, *, questions: bool = True, restating: bool = True
) -> Details:
    """The details a text ties to a noun or a cue: how many of a thing ("4 tickets"), where to
    or from ("a cab to Pier 4"), how many people come ("the two of us"), and where the text
    restates a request (`restating`) which kind of a thing (in questions only with
    `questions`: "a luxury ride") and the dates and times said with a word of their clause
    ("pick up on March 5th": "date with pick"). An answer that offers a kind the KB holds or
    a date says what the KB has, not what the user asked for: of an answer, only the kinds
    that are no KB entity or value are read ("2 seats on a regular ride"), outside questions."""
    out = count_details(lexed)
    out.update(place_details(lexed))
    out.update(party_details(lexed, engine.words.markers.get))
    kinds = modifier_details(lexed, engine.words.markers.get, questions=questions and restating)
    if not restating:  # a kind the KB does not know is no offer of what it has
        known = {
            k
            for lx in lexed.lexemes
            if lx.entity_ids or lx.attributes
            for k in range(lx.start_tok, lx.end_tok)
        }
        out.update(
            (slot, unknown)
            for slot, lexemes in kinds.items()
            if (unknown := [lx for lx in lexemes if lx.start_tok not in known])
        )
        return out
    out.update(kinds)
    for lexeme in lexed.lexemes:
        kind = _temporal_slot(lexeme)
        for cue in value_cues(lexed, lexeme) if kind else ():
            out.setdefault(f"{kind} with {cue}", []).append(lexeme)
    return out


def _temporal_slot(lexeme: Lexeme) -> str | None:
    """ "date" or "time" for a date or time, else None."""
    if lexeme.cat != "VAL" or lexeme.temporal is None or lexeme.value_type is None:
        return None
    kind = _SLOT_TYPES.get(lexeme.value_type, lexeme.value_type.value)
    return kind if kind in ("date", "time") else None


def _is_person(lexeme: Lexeme, engine: Engine) -> bool:
    """An unknown name, or a KB entity that is a person."""
    if lexeme.cat == "NAME":
        return True
    found = [engine.index.entities.get(i) for i in lexeme.entity_ids]
    return (
        lexeme.cat == "ENT"
        and bool(found)
        and all(e is not None and e.type == EntityType.Person for e in found)
    )


def _value_type(lexeme: Lexeme) -> ValueType:
    return lexeme.value_type or ValueType.text


@dataclass(frozen=True)
class _Asked:
    """What a user turn said of a slot."""

    lexemes: list[Lexeme]
    turn: TurnReading


def restatement_candidates(engine: Engine, ctx: CallContext, reply_act: str) -> list[Candidate]:
    return [*_request_candidates(engine, ctx, reply_act), *_owned_candidates(ctx)]


def _request_candidates(engine: Engine, ctx: CallContext, reply_act: str) -> list[Candidate]:
    restates = engine.host.holds("restates-request", Sym(reply_act))
    if not (restates or engine.host.holds("acts-on-request", Sym(reply_act))):
        return []
    request = _request(engine, ctx.dialogue.readings)
    several = _several_values(request)
    if restates:
        said = _slots(ctx.reply.lexed, engine)
    else:  # an answer or a question keeps what the user said with a noun or a cue
        plain = _plain_sentences(ctx.reply.lexed)
        said = {
            slot: kept
            for slot, lexemes in _said_with(ctx.reply.lexed, engine, restating=False).items()
            if (kept := [lx for lx in lexemes if any(a <= lx.start < b for a, b in plain)])
        }
    reply_stems = set(ctx.reply.lexed.stems)
    last = len(ctx.dialogue.readings) - 1
    out = []
    for slot, lexemes in said.items():
        asked = request.get(_same_slot(slot, request))
        if asked is None:
            continue
        pairs = [
            (r, a)
            for r in lexemes
            for a in asked.lexemes
            if _comparable(ctx.reply.lexed, r, asked, a, several)
        ]
        if not pairs or any(_agrees(engine, slot, r, a) for r, a in pairs):
            continue
        value, wanted = pairs[0]
        # "a regular ride, or the luxury one": the reply names the kind asked for too; and a
        # kind or place the user named since ("the speaker in the bedroom", "no, play it in my
        # bedroom" after "on my TV") is theirs
        if value.cat == "MODIFIER" and any(a.value_key in reply_stems for a in asked.lexemes):
            continue
        if value.cat in ("MODIFIER", "PLACE") and _named_since(value) & _user_stems_since(
            ctx, asked.turn.index
        ):
            continue
        if value.cat == "COUNT" and value.value_key in _counts_since(ctx, engine, asked.turn.index):
            continue  # "1 seat", then "change that to a ride with 2 people": 2 seats is theirs
        turn = asked.turn.turn
        out.append(
            Candidate(
                HallucinationType.ContradictsPrior,
                (Sym("RequestRestated"), last - asked.turn.index),
                Span(start=value.start, end=value.end),
                f"turn {turn.id or ''} asked for {slot} '{wanted.text}'",
                suggestion=f"Use '{wanted.text}' as requested",
                support=[
                    Evidence(
                        kind="turn",
                        turn_id=turn.id or "",
                        text=turn.text,
                        attribute=slot,
                        value=wanted.text,
                    )
                ],
            )
        )
    return out


def _owned_candidates(ctx: CallContext) -> list[Candidate]:
    """A reply that suggests a KB entity the user said they already have."""
    owned = {
        entity: (reading, lexeme)
        for reading in ctx.dialogue.readings
        if reading.turn.role == "user"
        for lexeme in _entities_after(reading.reading.lexed, "owned-phrase")
        for entity in lexeme.entity_ids
    }
    last = len(ctx.dialogue.readings) - 1
    out = []
    for lexeme in _entities_after(ctx.reply.lexed, "suggestion-phrase"):
        found = next((owned[e] for e in lexeme.entity_ids if e in owned), None)
        if found is None:
            continue
        reading, said = found
        turn = reading.turn
        out.append(
            Candidate(
                HallucinationType.ContradictsPrior,
                (Sym("AlreadyOwned"), last - reading.index),
                Span(start=lexeme.start, end=lexeme.end),
                f"turn {turn.id or ''} said the user already has '{said.text}'",
                suggestion=f"Suggest something other than '{said.text}'",
                support=[Evidence(kind="turn", turn_id=turn.id or "", text=turn.text)],
            )
        )
    return out


def _entities_after(lexed: LexedText, kind: str) -> list[Lexeme]:
    """The first KB entity after each marker of `kind` in its sentence, in sentences that deny
    nothing ("I never bought the mug set")."""
    plain = _plain_sentences(lexed)
    out = []
    for marker in lexed.markers_of(kind):
        bounds = next(((a, b) for a, b in plain if a <= marker.start < b), None)
        if bounds is None:
            continue
        found = next(
            (
                lx
                for lx in lexed.lexemes
                if lx.cat == "ENT" and marker.end <= lx.start < bounds[1] and lx.entity_ids
            ),
            None,
        )
        if found is not None:
            out.append(found)
    return out


def _request(engine: Engine, readings: list[TurnReading]) -> dict[str, _Asked]:
    """Slot -> what the user last said of it in the task in hand.

    The task began after the assistant last confirmed one. Dates, times and details said with a
    noun or a cue ("4 tickets", "a luxury ride", "to Pier 4") count from its first user turn;
    the others from its first request on. A later user turn replaces what an earlier one said;
    an assistant turn that states one other value lets it stand in place of the user's (the
    user took the offer), so the user's earlier word no longer binds."""
    done = max(
        (r.index for r in readings if r.turn.role == "assistant" and _finishes_task(engine, r)),
        default=-1,
    )
    start = next(
        (
            r.index
            for r in readings
            if r.index > done
            and r.turn.role == "user"
            and classify_turn_act(r.turn.text, r.turn.act, engine.words) == "Request"
        ),
        len(readings),
    )
    request: dict[str, _Asked] = {}
    for reading in readings[done + 1 :]:
        lexed = reading.reading.lexed
        if reading.turn.role == "user":
            _forget_restated_dates(request, lexed)
            for slot, lexemes in _slots(lexed, engine, questions=False).items():
                if reading.index >= start or slot.startswith(_SAID_ANY_TIME):
                    request[_same_slot(slot, request)] = _Asked(lexemes, reading)
            continue
        for slot, lexemes in _slots(lexed, engine).items():
            asked = request.get(slot)
            offered = {(lx.value_key or lx.text).lower() for lx in lexemes}
            if (
                asked is not None
                and len(offered) == 1
                and not any(_agrees(engine, slot, o, a) for o in lexemes for a in asked.lexemes)
            ):
                del request[slot]
    return request


def _finishes_task(engine: Engine, turn: TurnReading) -> bool:
    """Whether an assistant turn finished the task in hand (`finishes-task`), decided once per
    turn text."""
    return engine.reader.derived(
        "finishes-task",
        turn.reading.lexed,
        lambda lexed: engine.host.holds(
            "finishes-task",
            Sym(classify_reply_act(turn.reading, engine.words)),
            _opening_asks(lexed),
            bool(_slots(lexed, engine)),
        ),
    )


def _forget_restated_dates(request: dict[str, _Asked], lexed: LexedText) -> None:
    """A user turn that gives a date or time said with a word an earlier one was said with
    replaces it under all its words: "tickets for the 11th" after "buy tickets for the 9th"
    leaves no "date with buy" of the 9th."""
    said = [(kind, value_cues(lexed, lx)) for lx in lexed.lexemes if (kind := _temporal_slot(lx))]
    for slot, asked in list(request.items()):
        kind, _, cue = slot.partition(" with ")
        if not cue:
            continue
        earlier = asked.turn.reading.lexed
        if any(
            kind == k and cues & value_cues(earlier, a) for k, cues in said for a in asked.lexemes
        ):
            del request[slot]


def _kb_allows_comparing(said: Lexeme, asked: Lexeme) -> bool:
    """A place or kind of the reply that the KB knows is compared with the user's only when
    the KB knows that one too, as the same entity or a value of the same column: "LAX
    International Airport" (a pickup location) is not compared with "Los Angeles" (a city),
    nor "Standard" (a car type) with "rental"."""
    if not (said.entity_ids or said.attributes):
        return True
    if said.entity_ids and asked.entity_ids:
        return True
    return bool(set(said.attributes) & set(asked.attributes))


def _named_since(value: Lexeme) -> set[str]:
    """The word that tells a kind or place said apart: a kind's own stem, a place's first
    content word ("bedroom" of "Bedroom Speaker"; not "restaurant" of "Pasta Pelican
    Restaurant", which any restaurant shares)."""
    if value.cat == "MODIFIER":
        return {str(value.value_key)}
    return set(content_stems(value.text.split())[:1])


def _user_stems_since(ctx: CallContext, index: int) -> set[str]:
    return {
        stem
        for r in ctx.dialogue.readings[index:]
        if r.turn.role == "user"
        for stem in r.reading.lexed.stems
    }


def _counts_since(ctx: CallContext, engine: Engine, index: int) -> set[str | None]:
    """The counts of anything the user said after turn `index` ("with 2 people")."""
    return {
        lexeme.value_key
        for r in ctx.dialogue.readings[index + 1 :]
        if r.turn.role == "user"
        for lexemes in _slots(r.reading.lexed, engine, questions=False).values()
        for lexeme in lexemes
        if lexeme.cat == "COUNT"
    }


def _several_values(request: dict[str, _Asked]) -> set[str]:
    """The kinds (date, time) of which the user gave more than one value in the task."""
    values: dict[str, set[str]] = {}
    for asked in request.values():
        for lexeme in asked.lexemes:
            kind = _temporal_slot(lexeme)
            if kind is not None:
                values.setdefault(kind, set()).add(str(lexeme.temporal.value))  # type: ignore[union-attr]
    return {kind for kind, found in values.items() if len(found) > 1}


def _comparable(
    lexed: LexedText, said: Lexeme, asked: _Asked, value: Lexeme, several: set[str]
) -> bool:
    """A date or time of the reply speaks of the same thing as one the user gave; when the
    user gave several, only one said with a word of its clause that the user's shares ("pick
    up on the 6th" is not "I need it till the 9th"). A place or a kind the KB knows may be the
    KB's name for one the user named in words it does not hold ("Philly")."""
    if said.cat == value.cat and said.cat in ("PLACE", "MODIFIER"):
        return _kb_allows_comparing(said, value)
    kind = _temporal_slot(said)
    if kind is None or _temporal_slot(value) is None or kind not in several:
        return True
    mine, theirs = value_cues(lexed, said), value_cues(asked.turn.reading.lexed, value)
    return bool(mine & theirs)


def _same_slot(slot: str, request: dict[str, _Asked]) -> str:
    """The request's slot a reply's slot is: itself, or the same with its noun misspelt ("count
    of tikcet" is "count of ticket")."""
    if slot in request or not slot.startswith(_NOUN_SLOTS):
        return slot
    prefix, _, noun = slot.rpartition(" ")
    for other in request:
        head, _, word = other.rpartition(" ")
        if (
            head == prefix
            and min(len(word), len(noun)) >= _MIN_MISSPELT
            and (OSA.distance(word, noun) <= 1)
        ):
            return other
    return slot


def _plain_sentences(lexed: LexedText) -> list[tuple[int, int]]:
    """The (start, end) of the sentences that deny or regret nothing: "there are no luxury rides,
    a regular ride is free" offers an alternative, it does not restate the request."""
    negative = [m.start for m in lexed.markers if m.kind in _NEGATIVE]
    return [
        (s.start, s.end + 1)
        for s in lexed.sentences
        if not any(s.start <= m <= s.end for m in negative)
    ]


def _opening_asks(lexed: LexedText) -> bool:
    sentences = lexed.sentences
    return bool(sentences) and lexed.text[: sentences[0].end].rstrip().endswith("?")


def _weekdays(text: str) -> set[str]:
    return {w for w in text.lower().replace(",", " ").split() if w in WEEKDAYS}


def _within(one: str, other: str) -> bool:
    """The content words of one phrase are all in the other's, or the other way round."""
    a, b = set(content_stems(one.split())), set(content_stems(other.split()))
    return a <= b or b <= a


def _agrees(engine: Engine, slot: str, said: Lexeme, asked: Lexeme) -> bool:
    if {"COUNT", "MODIFIER"} & {said.cat, asked.cat}:  # "1 tickets" does not restate "4 tickets"
        return said.value_key == asked.value_key
    if "PLACE" in (said.cat, asked.cat) and _within(said.text, asked.text):
        return True  # "to Elm Park" restates "to Elm Park Marina"
    if "DETAIL" in (said.cat, asked.cat):  # "yoga" restates "a yoga activity"
        return _within(said.text, asked.text)
    if said.cat == "ENT" or asked.cat == "ENT":
        return said.entity_ids == asked.entity_ids
    t1, t2 = said.temporal, asked.temporal
    if "part_of_day" in (getattr(t1, "kind", None), getattr(t2, "kind", None)):
        return True  # "in the afternoon" is restated by any time the reply gives for it
    if t1 is not None and t2 is not None:  # "tomorrow" and "Tuesday" may be the same day
        slot = slot.split(" with ")[0]  # "date with pick": a date
        if slot == "time" and t1.time is not None and t2.time is not None:
            return t1.time == t2.time
        days = (_weekdays(said.text), _weekdays(asked.text))
        if slot == "date" and all(days):  # "Monday" restates "Monday August 8th"
            return bool(days[0] & days[1])
        if slot == "date" and t1.date is not None and t2.date is not None:
            return t1.date == t2.date
    g = grade(_value_type(asked), said.text, asked.text, engine.words.equivalents)
    accepted = (Sym("Fuzzy"), g.distance) if g.kind == "Fuzzy" else Sym(g.kind)
    return engine.host.value("value-accepted", accepted) is True
