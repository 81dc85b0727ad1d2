"""Dialogue state: what the conversation so far makes salient, topical, asked and asserted.

Derived from the turns when the caller gives only turns (DESIGN §3): entity salience starts at 1.0
on mention and decays x0.8 per turn, leaving focus under 0.1; topic activation decays x0.9 per turn
and drops off at <= 0.1; a user question pushes a QUD and an answering turn pops it. Claims made in
each turn become the history the fact checker compares against. Precomputed parts given by the
caller (QUD stack, topics, registry) are used as given.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from datetime import datetime

from replyguard.models import QUD, DialogueState, QuestionType, Topic, Turn
from replyguard.text.analysis import Reader, ReadText
from replyguard.text.lexicon import phrase_key
from replyguard.text.questions import QuestionForm, classify_question
from replyguard.text.references import ReferenceResolver, Referent
from replyguard.values import fold


@dataclass(frozen=True)
class DecayConfig:
    salience_decay: float
    salience_focus: float
    topic_decay: float
    topic_floor: float


@dataclass
class TurnReading:
    turn: Turn
    index: int
    reading: ReadText
    form: QuestionForm


@dataclass
class DialogueContext:
    readings: list[TurnReading] = field(default_factory=list)
    referents: list[Referent] = field(default_factory=list)
    topics: list[Topic] = field(default_factory=list)
    qud_stack: list[QUD] = field(default_factory=list)
    known_names: set[str] = field(default_factory=set)  # folded names said in the dialogue
    spoken: str = " "  # every turn's words, folded, space-separated: " i met priya patel "

    def mentions(self, name: str) -> bool:
        """Whether the dialogue has said this name, as a name or in passing ("starbucks")."""
        folded = fold(name)
        return folded in self.known_names or f" {' '.join(phrase_key(folded))} " in self.spoken

    def resolver(self, focus: float) -> ReferenceResolver:
        return ReferenceResolver(self.referents, focus)

    @property
    def turn_count(self) -> int:
        return len(self.readings)


def effective_turns(dialogue: DialogueState, query: str) -> list[Turn]:
    """The dialogue's turns plus the query as the latest user turn (unless it is already last)."""
    turns = list(dialogue.turns)
    if query.strip() and not (turns and turns[-1].role == "user" and turns[-1].text == query):
        turns.append(Turn(id=f"T{len(turns) + 1}-query", speaker="user", text=query))
    return turns


class DialogueTracker:
    """Dialogue state kept up to date one turn at a time (a session), or built from all turns.

    Adding a turn reads it once against what is in focus at that point; the context for a reply
    is then a decay over what was last mentioned when, so a session never re-reads old turns.
    """

    def __init__(self, reader: Reader, reference: datetime, decay: DecayConfig) -> None:
        self.reader = reader
        self.reference = reference
        self.decay = decay
        self.readings: list[TurnReading] = []
        self.qud_stack: list[QUD] = []
        self.known_names: set[str] = set()
        self._last_mention: dict[str, tuple[int, Referent]] = {}
        self._topic_seen: dict[str, int] = {}
        self._order = 0
        self._spoken: list[str] = []

    def fork(self) -> DialogueTracker:
        """A copy to try a turn on (the query) without changing this tracker."""
        other = copy.copy(self)
        other.readings = list(self.readings)
        other.qud_stack = list(self.qud_stack)
        other.known_names = set(self.known_names)
        other._last_mention = dict(self._last_mention)
        other._topic_seen = dict(self._topic_seen)
        other._spoken = list(self._spoken)
        return other

    def add(self, turn: Turn) -> TurnReading:
        index = len(self.readings)
        referents = [
            _decayed(r, index, self._last_mention, self.decay) for r in _current(self._last_mention)
        ]
        resolver = ReferenceResolver(referents, self.decay.salience_focus)
        reading = self.reader.read(turn.text, turn.timestamp or self.reference, resolver)
        form = (
            classify_question(turn.text)
            if turn.role == "user"
            else QuestionForm(QuestionType.Statement)
        )
        record = TurnReading(turn, index, reading, form)
        self.readings.append(record)
        for mention in reading.mentions:
            self._order += 1
            referent = _with_order(self.reader.referent_for(mention.entity_id), self._order)
            self._last_mention[mention.entity_id] = (index, referent)
            self.known_names.add(fold(mention.lexeme.text))
        for name in reading.names:
            self._order += 1
            referent = _with_order(self.reader.name_referent(name, None), self._order)
            self._last_mention[referent.key] = (index, referent)
            self.known_names.add(fold(name.text))
        for stem in reading.lexed.stems:
            self._topic_seen[stem] = index
        self._spoken.append(" ".join(fold(t.text) for t in reading.lexed.tokens))
        _update_quds(self.qud_stack, turn, form, reading)
        return record

    def context(self, given: DialogueState | None = None) -> DialogueContext:
        """The state a reply is read in; precomputed parts of `given` replace derived ones."""
        last = len(self.readings) - 1
        context = DialogueContext(
            readings=list(self.readings),
            referents=[
                _decayed(r, last, self._last_mention, self.decay)
                for r in _current(self._last_mention)
            ],
            topics=_topics(self._topic_seen, last, self.decay),
            qud_stack=list(self.qud_stack),
            known_names=set(self.known_names),
            spoken=" " + " ".join(self._spoken) + " ",
        )
        if given is not None:
            _apply_given(context, given)
        return context


def derive_context(
    dialogue: DialogueState, query: str, reader: Reader, reference: datetime, decay: DecayConfig
) -> DialogueContext:
    tracker = DialogueTracker(reader, reference, decay)
    for turn in effective_turns(dialogue, query):
        tracker.add(turn)
    return tracker.context(dialogue)


def _apply_given(context: DialogueContext, dialogue: DialogueState) -> None:
    if dialogue.qud_stack is not None:
        context.qud_stack = list(dialogue.qud_stack)
    if dialogue.topics is not None:
        context.topics = list(dialogue.topics)
    if dialogue.entity_registry is not None:
        context.referents = [
            Referent(
                key=e.entity_id or "name:" + fold(e.name),
                name=e.name,
                entity_id=e.entity_id,
                entity_type=e.entity_type,
                gender=e.gender.value if e.gender else None,
                number=e.number.value if e.number else None,
                salience=e.salience,
                order=i,
            )
            for i, e in enumerate(dialogue.entity_registry)
        ]
        context.known_names.update(fold(e.name) for e in dialogue.entity_registry)


def _current(last_mention: dict[str, tuple[int, Referent]]) -> list[Referent]:
    return [r for _, r in last_mention.values()]


def _with_order(referent: Referent, order: int) -> Referent:
    return replace(referent, order=order)


def _decayed(
    referent: Referent, now: int, last_mention: dict[str, tuple[int, Referent]], decay: DecayConfig
) -> Referent:
    turn, _ = last_mention[referent.key]
    salience = decay.salience_decay ** max(0, now - turn)
    return replace(referent, salience=salience)


def _topics(seen: dict[str, int], now: int, decay: DecayConfig) -> list[Topic]:
    """One topic per content stem still active: activation 0.9^(turns since last mention)."""
    topics = []
    for stem, turn in seen.items():
        activation = decay.topic_decay ** max(0, now - turn)
        if activation > decay.topic_floor:
            topics.append(Topic(label=stem, keywords=[stem], activation=round(activation, 6)))
    return topics


def _update_quds(stack: list[QUD], turn: Turn, form: QuestionForm, reading: ReadText) -> None:
    if turn.role == "user" and form.question_type != QuestionType.Statement:
        focus = reading.mentions[0].entity_id if reading.mentions else None
        cues = [lx for lx in reading.lexed.lexemes if lx.cat == "CUE"]
        stack.append(
            QUD(
                question_type=form.question_type,
                text=turn.text,
                wh_word=form.wh_word,
                focus_entity=focus,
                focus_attribute=cues[0].attributes[0] if cues else None,
                source_turn=turn.id,
            )
        )
    elif (
        turn.role == "assistant" and stack and any(lx.cat == "VAL" for lx in reading.lexed.lexemes)
    ):
        stack.pop()
