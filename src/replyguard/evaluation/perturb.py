"""The five KVRET perturbations: a gold reply changed in one place whose effect is known.

Each generator makes at most one perturbed case per gold turn, and only where the truth is
unambiguous — the changed value belongs to exactly one KB fact of an entity the reply names, it
occurs once in the reply, and the replacement really differs from what the KB (or the driver)
said. Where that cannot be established the turn is skipped rather than given a doubtful label:
a wrong label costs more than a smaller sample.

Randomness comes from one `random.Random` per (seed, gold turn, kind), seeded with a string (which
Python hashes with SHA-512, independent of PYTHONHASHSEED), so a case never changes because
another dialogue was added, removed or limited away.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from replyguard.evaluation.cases import EvalCase, Perturbation, PerturbationKind
from replyguard.evaluation.scene import Scene, Vocabulary, norm, occurrences
from replyguard.models import Entity, Turn
from replyguard.text.temporal import WEEKDAYS

# fmt: off
_QUESTION_WORDS = {
    "what", "when", "where", "who", "whom", "which", "why", "how", "is", "are", "was", "were",
    "do", "does", "did", "can", "could", "will", "would", "should", "shall", "may", "am", "have",
    "has",
}
# fmt: on
_REQUEST_MODALS = {"can", "could", "would", "will"}
# Scenario intents in which the driver tells the assistant facts rather than asking for them.
STATING_INTENTS = {"schedule"}
# A driver turn that only thanks or closes asks nothing, so swapping it tests no relevance.
_COURTESY = re.compile(r"\b(?:thanks?|thank you|thx|bye|goodbye)\b", re.IGNORECASE)
_TIME = re.compile(r"\d{1,2}(?:am|pm)")
_CLOCK = re.compile(r"(?P<hour>\d{1,2})(?P<gap>\s*)(?P<meridiem>[ap]m)", re.IGNORECASE)
_ADDRESS = re.compile(r"\d+\s+\w")
_SENTENCE_END = re.compile(r"[.!?]+(?=\s|$)|$")
_ORDINAL = re.compile(r"(?:the)?\d{1,2}(?:st|nd|rd|th)")
_WORD = re.compile(r"[^\W\d_]+")


@dataclass(frozen=True)
class Mention:
    """A KB fact the gold reply states: ``reply[start:end]`` is ``entity.attribute``'s value."""

    entity: Entity
    attribute: str
    value: str
    start: int
    end: int


def perturbations(scene: Scene, index: int, vocab: Vocabulary, *, seed: int = 0) -> list[EvalCase]:
    """Every perturbation gold turn ``scene.turns[index]`` supports, in PerturbationKind order."""
    made = []
    for kind, make in _MAKERS.items():
        rng = random.Random(f"{seed}/{scene.case_id(index)}/{kind}")
        case = make(scene, index, vocab, rng)
        if case is not None:
            made.append(case)
    return made


# --------------------------------------------------------------------------- the five kinds


def value_swap(scene: Scene, index: int, vocab: Vocabulary, rng: random.Random) -> EvalCase | None:
    """A stated value replaced by another row's value of the same column: a KB contradiction."""
    reply = scene.turns[index].text
    mentions = mentions_in_reply(scene, index)
    rng.shuffle(mentions)
    for m in mentions:
        column = _distinct(
            str(e.attributes[m.attribute]) for e in scene.kb.entities if m.attribute in e.attributes
        )
        pool = [v for v in column if _differs(v, m.value)]
        if pool:
            new = restyle(rng.choice(pool), reply[m.start : m.end])
            return _edit(
                scene,
                index,
                PerturbationKind.value_swap,
                m.start,
                m.end,
                new,
                correctable=True,
                entity_id=m.entity.id,
                attribute=m.attribute,
            )
    return None


def entity_swap(scene: Scene, index: int, vocab: Vocabulary, rng: random.Random) -> EvalCase | None:
    """A named KB entity replaced by a name of the same kind that this KB and dialogue lack.

    "Of the same kind" keeps the sentence plausible (a coffee shop becomes another coffee shop,
    not a hospital); street addresses are not names, so they are never drawn.
    """
    reply = scene.turns[index].text
    named = []
    for e in unambiguous_entities(scene):
        spans = occurrences(e.name, reply)
        if len(spans) == 1:
            named.append((spans[0], e))
    known = {norm(e.name) for e in scene.kb.entities if e.name}
    known |= {norm(str(v)) for e in scene.kb.entities for v in e.attributes.values()}
    said = norm(" ".join(t.text for t in scene.turns[: index + 1]))
    rng.shuffle(named)
    for (start, end), entity in named:
        column = vocab.kind_columns.get(scene.intent)
        kind = norm(str(entity.attributes.get(column, ""))) if column else ""
        pool = [
            n
            for n in vocab.names.get((scene.intent, kind), ())
            if _differs(n, entity.name)
            and norm(n) not in known
            and norm(n) not in said
            and not _ADDRESS.match(n)
        ]
        if pool:
            new = restyle(rng.choice(pool), reply[start:end])
            return _edit(
                scene,
                index,
                PerturbationKind.entity_swap,
                start,
                end,
                new,
                correctable=False,
                entity_id=entity.id,
            )
    return None


def temporal_shift(
    scene: Scene, index: int, vocab: Vocabulary, rng: random.Random
) -> EvalCase | None:
    """A weekday or clock time moved so the reply no longer agrees with the KB.

    A calendar states an event's day or time as a value, which is changed in place (and should be
    corrected back). A weather table keys facts by day, so there the day word is changed to one on
    which every value the reply states for it is different; the contradicted claims are then the
    stated values, which become the evidence spans, and there is nothing to put back in place.
    """
    reply = scene.turns[index].text
    mentions = mentions_in_reply(scene, index)
    options: list[Callable[[], EvalCase | None]] = []
    for m in mentions:
        if _shape(m.value) in ("weekday", "time"):
            options.append(lambda m=m: _shift_value(scene, index, m, vocab, rng))
    days = _weekday_spans(reply)
    if len(days) == 1:
        ((day, start, end),) = days
        stated = [m for m in mentions if _attribute_day(m.attribute) == day]
        if stated:
            options.append(lambda: _shift_day(scene, index, day, start, end, stated, rng))
    rng.shuffle(options)
    for option in options:
        case = option()
        if case is not None:
            return case
    return None


def prior_contradiction(
    scene: Scene, index: int, vocab: Vocabulary, rng: random.Random
) -> EvalCase | None:
    """A value the driver stated earlier, changed in the reply that repeats it.

    Only in dialogues where the driver states facts (scheduling: the event's day, time, party —
    elsewhere the driver's values are search terms such as "the quickest route"), only where no
    KB entity is named in the reply or the question, so the driver's turn is the one piece of
    evidence against the change (otherwise it would be a KB contradiction too), and only values
    the driver asserted — a value inside the driver's question is not a statement.
    """
    reply = scene.turns[index].text
    query = scene.turns[index - 1].text
    if scene.intent not in STATING_INTENTS:
        return None
    named = [e.name for e in scene.kb.entities if e.name]
    if any(occurrences(n, reply) or occurrences(n, query) for n in named):
        return None
    stated: dict[str, list[str]] = {}
    for slots in scene.slots[: index + 1]:
        for slot, value in slots.items():
            if slot in vocab.column_values and value:
                stated.setdefault(slot, []).append(value)
    candidates = []
    for slot, values in sorted(stated.items()):
        for value in dict.fromkeys(values):
            asserted = any(
                t.role == "user" and not is_question(t.text) and occurrences(value, t.text)
                for t in scene.turns[:index]
            )
            spans = occurrences(value, reply)
            if asserted and len(spans) == 1 and in_statement(reply, spans[0][0]):
                candidates.append((slot, value, spans[0]))
    rng.shuffle(candidates)
    for slot, value, (start, end) in candidates:
        taken = stated[slot]
        pool = [
            v
            for v in vocab.column_values[slot]
            if all(_differs(v, t) for t in taken) and _shape(v) == _shape(value)
        ]
        if pool:
            new = restyle(rng.choice(pool), reply[start:end])
            return _edit(
                scene,
                index,
                PerturbationKind.prior_contradiction,
                start,
                end,
                new,
                correctable=False,
                attribute=slot,
            )
    return None


def qud_swap(scene: Scene, index: int, vocab: Vocabulary, rng: random.Random) -> EvalCase | None:
    """The reply paired with the opening question of a dialogue about something else.

    Skipped when the driver's turn is only thanks or goodbye: its reply ("You're welcome!")
    addresses no question, so a drop in relevance would mean nothing.
    """
    if _COURTESY.search(scene.turns[index - 1].text):
        return None
    pool = [
        text
        for dialogue_id, intent, text in vocab.questions
        if intent != scene.intent and dialogue_id != scene.dialogue_id
    ]
    if not pool:
        return None
    question = rng.choice(pool)
    asked = scene.turns[index - 1]
    history = [*scene.turns[: index - 1], Turn(id=asked.id, speaker="user", text=question)]
    reply = scene.turns[index].text
    whole = ((0, len(reply)),)
    truth = Perturbation(
        kind=PerturbationKind.qud_swap,
        source_id=scene.case_id(index),
        intent=scene.intent,
        start=0,
        end=len(reply),
        source_start=0,
        source_end=len(reply),
        original=asked.text,
        replacement=question,
        evidence_spans=whole,
        source_evidence_spans=whole,
        correctable=False,
    )
    return EvalCase(
        case_id=f"{scene.case_id(index)}/{PerturbationKind.qud_swap}",
        case=scene.case_at(index, history=history),
        truth=truth,
    )


_MAKERS: dict[
    PerturbationKind, Callable[[Scene, int, Vocabulary, random.Random], EvalCase | None]
] = {
    PerturbationKind.value_swap: value_swap,
    PerturbationKind.entity_swap: entity_swap,
    PerturbationKind.temporal_shift: temporal_shift,
    PerturbationKind.prior_contradiction: prior_contradiction,
    PerturbationKind.qud_swap: qud_swap,
}


# --------------------------------------------------------------------------- finding stated facts


def unambiguous_entities(scene: Scene) -> list[Entity]:
    """Named entities whose name no other row shares: two "meeting" rows make "the meeting"
    ambiguous."""
    named = [e for e in scene.kb.entities if e.name]
    counts = Counter(norm(e.name) for e in named)
    return [e for e in named if counts[norm(e.name)] == 1]


def focused_entities(scene: Scene, index: int) -> list[Entity]:
    """The entities the reply is about: those it names, else those the latest earlier turn that
    names any entity names (the driver asked about Boston two turns ago; "it will rain" is about
    Boston)."""
    unambiguous = unambiguous_entities(scene)
    for turn in reversed(scene.turns[: index + 1]):
        named = [e for e in unambiguous if occurrences(e.name, turn.text)]
        if named:
            return named
    return []


def mentions_in_reply(scene: Scene, index: int) -> list[Mention]:
    """KB facts of the focused entities whose value the reply states once and unambiguously.

    Only values in a statement count: a question ("do you want the one at 5 pm?") asserts
    nothing a changed value could contradict. A fact keyed by a day (weather) counts only if the
    reply names that day ("today" names the reference day), since "it will rain" alone does not
    say which day's fact it states. A value shared by two facts in focus ("wednesday" for two
    events) is skipped unless the reply names the day of exactly one of them; a value equal to
    an entity name is skipped because changing it would change which entity the reply is about.
    """
    reply = scene.turns[index].text
    days = {day for day, _, _ in _weekday_spans(reply)}
    if re.search(r"\btoday\b", reply, re.IGNORECASE):
        days.add(WEEKDAYS[scene.reference_time.weekday()])
    names = {norm(e.name) for e in scene.kb.entities if e.name}
    facts = [
        (e, attribute, str(value))
        for e in focused_entities(scene, index)
        for attribute, value in e.attributes.items()
        if isinstance(value, str | int | float)
    ]
    found = []
    for e, attribute, value in facts:
        day = _attribute_day(attribute)
        if norm(value) in names or (day is not None and day not in days):
            continue
        spans = occurrences(value, reply)
        if len(spans) != 1 or not in_statement(reply, spans[0][0]):
            continue
        same = [(e2.id, a2) for e2, a2, v2 in facts if norm(v2) == norm(value)]
        if len(same) > 1:
            cued = [(eid, a2) for eid, a2 in same if _attribute_day(a2) in days]
            if cued != [(e.id, attribute)]:
                continue
        found.append(Mention(e, attribute, value, *spans[0]))
    return found


# --------------------------------------------------------------------------- helpers


def is_question(text: str) -> bool:
    """A question asks for values rather than stating them; a polite request ("can you set the
    meeting for Monday?") states what the driver wants, so it is not one."""
    words = _WORD.findall(text.lower())
    if words[:1] == ["please"] or (words[1:2] == ["you"] and words[0] in _REQUEST_MODALS):
        return False
    return text.strip().endswith("?") or (bool(words) and words[0] in _QUESTION_WORDS)


def in_statement(text: str, position: int) -> bool:
    """Whether the sentence holding ``position`` is not a question."""
    end = _SENTENCE_END.search(text, position)
    return not (end.group() if end else "").startswith("?")


def restyle(new: str, occurrence: str) -> str:
    """Write ``new`` in the letter case the reply used for the text it replaces."""
    letters = [c for c in occurrence if c.isalpha()]
    if len(letters) > 1 and all(c.isupper() for c in letters):
        return new.upper()
    words = [w for w in occurrence.split() if w[:1].isalpha()]
    if words and all(w[0].isupper() for w in words):
        return " ".join(w[:1].upper() + w[1:] for w in new.split())
    return new


def _shape(value: str) -> str:
    key = norm(value)
    if key in WEEKDAYS:
        return "weekday"
    if _TIME.fullmatch(key):
        return "time"
    if _ORDINAL.fullmatch(key):
        return "ordinal"
    return "text"


def _differs(new: str, old: str) -> bool:
    """A replacement must say something else, not the same thing more or less precisely
    ("doctor appointment" for "appointment" is no contradiction)."""
    a, b = norm(new), norm(old)
    return bool(a) and a not in b and b not in a


def _attribute_day(attribute: str) -> str | None:
    day = attribute.split("_", 1)[0].lower()
    return day if day in WEEKDAYS else None


def _weekday_spans(text: str) -> list[tuple[str, int, int]]:
    return [(day, s, e) for day in WEEKDAYS for s, e in occurrences(day, text)]


def _distinct(values: Iterable[str]) -> list[str]:
    by_key: dict[str, str] = {}
    for v in values:
        by_key.setdefault(norm(v), v)
    return sorted(by_key.values())


def _shift_value(
    scene: Scene, index: int, m: Mention, vocab: Vocabulary, rng: random.Random
) -> EvalCase | None:
    """Another weekday, or another of the clock times the dataset uses, written as the reply
    wrote the original ("5 PM" becomes "2 PM", "5pm" becomes "2pm")."""
    reply = scene.turns[index].text
    said = reply[m.start : m.end]
    if _shape(m.value) == "weekday":
        new = restyle(rng.choice([d for d in WEEKDAYS if d != norm(m.value)]), said)
    else:
        times = vocab.column_values.get(m.attribute, ())
        pool = [
            clock
            for v in times
            if norm(v) != norm(m.value) and (clock := _CLOCK.fullmatch(v.strip()))
        ]
        written = _CLOCK.search(said)
        if not pool or written is None:
            return None
        chosen = rng.choice(pool)
        meridiem = chosen["meridiem"].lower()
        if written["meridiem"].isupper():
            meridiem = meridiem.upper()
        new = f"{chosen['hour']}{written['gap']}{meridiem}"
    return _edit(
        scene,
        index,
        PerturbationKind.temporal_shift,
        m.start,
        m.end,
        new,
        correctable=True,
        entity_id=m.entity.id,
        attribute=m.attribute,
    )


def _shift_day(
    scene: Scene,
    index: int,
    day: str,
    start: int,
    end: int,
    stated: list[Mention],
    rng: random.Random,
) -> EvalCase | None:
    entity = stated[0].entity
    if any(m.entity.id != entity.id for m in stated):
        return None

    def differs(other: str) -> bool:
        for m in stated:
            moved = other + m.attribute[len(day) :]
            value = entity.attributes.get(moved)
            if value is None or norm(str(value)) == norm(m.value):
                return False
        return True

    pool = [d for d in WEEKDAYS if d != day and differs(d)]
    if not pool:
        return None
    reply = scene.turns[index].text
    new = restyle(rng.choice(pool), reply[start:end])
    return _edit(
        scene,
        index,
        PerturbationKind.temporal_shift,
        start,
        end,
        new,
        correctable=False,
        entity_id=entity.id,
        attribute=day,
        also=[(m.start, m.end) for m in stated],
    )


def _edit(
    scene: Scene,
    index: int,
    kind: PerturbationKind,
    start: int,
    end: int,
    new: str,
    *,
    correctable: bool,
    entity_id: str | None = None,
    attribute: str | None = None,
    also: list[tuple[int, int]] | None = None,
) -> EvalCase:
    """Replace ``reply[start:end]`` by ``new``; ``also`` are further evidence spans in the gold
    reply, carried over to the perturbed one."""
    reply = scene.turns[index].text
    perturbed = reply[:start] + new + reply[end:]
    delta = len(new) - (end - start)
    source_spans = ((start, end), *(also or []))
    spans = tuple((s + delta, e + delta) if s >= end else (s, e) for s, e in source_spans)
    spans = ((start, start + len(new)), *spans[1:])
    truth = Perturbation(
        kind=kind,
        source_id=scene.case_id(index),
        intent=scene.intent,
        start=start,
        end=start + len(new),
        source_start=start,
        source_end=end,
        original=reply[start:end],
        replacement=new,
        evidence_spans=spans,
        source_evidence_spans=source_spans,
        correctable=correctable,
        entity_id=entity_id,
        attribute=attribute,
    )
    return EvalCase(
        case_id=f"{scene.case_id(index)}/{kind}",
        case=scene.case_at(index, response=perturbed),
        truth=truth,
    )
