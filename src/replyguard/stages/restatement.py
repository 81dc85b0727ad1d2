"""ContradictsPrior for confirmations: a reply that confirms or commits to a request restates its
details as the user gave them ("Schedule my 10 am dentist appointment" -> "I have scheduled your
dentist appointment for 2 pm" is a contradiction even though no KB entity is named).

The request is the task in hand: the first user request since the assistant last confirmed one,
and the user turns after it (later details replace earlier ones: "No, make it today"). Details
are compared slot by slot: a time with a time, a date with a date, a KB value with a value of the
same column, how many of a thing by number ("4 tickets"), and details named by a phrase ("with
my aunt", "a reminder for dinner") by their words (text/details.py). Whether a reply act
restates a request, and how sure the flag is, are rules (metta/hallucination.metta).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from replyguard.metta_host import Sym
from replyguard.models import EntityType, Evidence, HallucinationType, Span, ValueType
from replyguard.stages.acts import classify_reply_act, classify_turn_act
from replyguard.stages.candidates import Candidate
from replyguard.stages.context import CallContext
from replyguard.text.details import count_details, request_details
from replyguard.text.lexer import LexedText, Lexeme
from replyguard.text.temporal import WEEKDAYS
from replyguard.text.words import content_stems
from replyguard.values import grade

if TYPE_CHECKING:
    from replyguard.engine import Engine
    from replyguard.text.lexicon import KBIndex

_SLOT_TYPES = {ValueType.datetime: "time", ValueType.year: "date"}


def _slot(lexeme: Lexeme, index: KBIndex) -> str | None:
    """Which detail of a request a lexeme states."""
    if lexeme.cat == "VAL":
        if lexeme.attributes:
            return lexeme.attributes[0]
        if lexeme.value_type is not None and lexeme.temporal is not None:
            return _SLOT_TYPES.get(lexeme.value_type, lexeme.value_type.value)
        return None
    if lexeme.cat == "ENT" and len(lexeme.entity_ids) == 1:
        entity = index.entities[lexeme.entity_ids[0]]
        if entity.type == EntityType.Event:
            return "event"
    return None


def _slots(lexed: LexedText, engine: Engine) -> dict[str, list[Lexeme]]:
    """Each detail a text gives: KB values and dates by their column or type, and the details
    phrases introduce ("with my aunt"), unless a KB value already fills that slot."""
    out: dict[str, list[Lexeme]] = {}
    for lexeme in lexed.lexemes:
        slot = _slot(lexeme, engine.index)
        if slot is not None:
            out.setdefault(slot, []).append(lexeme)
    details = request_details(lexed, engine.words.markers.get, lambda lx: _is_person(lx, engine))
    details.update(count_details(lexed))  # "4 tickets"
    for slot, lexemes in details.items():
        out.setdefault(slot, lexemes)
    return out


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


def restatement_candidates(engine: Engine, ctx: CallContext, reply_act: str) -> list[Candidate]:
    if not engine.host.holds("restates-request", Sym(reply_act)):
        return []
    readings = ctx.dialogue.readings
    # The task in hand began with the first request after the assistant last confirmed one.
    done = max(
        (
            r.index
            for r in readings
            if r.turn.role == "assistant"
            and engine.host.holds(
                "finishes-task",
                Sym(classify_reply_act(r.reading, engine.words)),
                _opening_asks(r.reading.lexed),
            )
        ),
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
        None,
    )
    if start is None:
        return []
    request: dict[str, tuple[list[Lexeme], str, str, int]] = {}
    for reading in readings[start:]:
        if reading.turn.role != "user":
            continue
        for slot, lexemes in _slots(reading.reading.lexed, engine).items():
            request[slot] = (lexemes, reading.turn.id or "", reading.turn.text, reading.index)
    last = len(readings) - 1
    out = []
    for slot, said in _slots(ctx.reply.lexed, engine).items():
        if slot not in request:
            continue
        asked, turn_id, turn_text, turn_index = request[slot]
        if any(_agrees(engine, slot, r, a) for r in said for a in asked):
            continue
        value = said[0]
        out.append(
            Candidate(
                HallucinationType.ContradictsPrior,
                (Sym("RequestRestated"), last - turn_index),
                Span(start=value.start, end=value.end),
                f"turn {turn_id} asked for {slot} '{asked[0].text}'",
                suggestion=f"Use '{asked[0].text}' as requested",
                support=[
                    Evidence(
                        kind="turn",
                        turn_id=turn_id,
                        text=turn_text,
                        attribute=slot,
                        value=asked[0].text,
                    )
                ],
            )
        )
    return out


def _opening_asks(lexed: LexedText) -> bool:
    sentences = lexed.sentences
    return bool(sentences) and lexed.text[: sentences[0].end].rstrip().endswith("?")


def _weekdays(text: str) -> set[str]:
    return {w for w in text.lower().replace(",", " ").split() if w in WEEKDAYS}


def _agrees(engine: Engine, slot: str, said: Lexeme, asked: Lexeme) -> bool:
    if "COUNT" in (said.cat, asked.cat):  # "1 tickets" does not restate "4 tickets"
        return said.value_key == asked.value_key
    if "DETAIL" in (said.cat, asked.cat):  # "yoga" restates "a yoga activity"
        a, b = set(content_stems(said.text.split())), set(content_stems(asked.text.split()))
        return a <= b or b <= a
    if said.cat == "ENT" or asked.cat == "ENT":
        return said.entity_ids == asked.entity_ids
    t1, t2 = said.temporal, asked.temporal
    if "part_of_day" in (getattr(t1, "kind", None), getattr(t2, "kind", None)):
        return True  # "in the afternoon" is restated by any time the reply gives for it
    if t1 is not None and t2 is not None:  # "tomorrow" and "Tuesday" may be the same day
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
