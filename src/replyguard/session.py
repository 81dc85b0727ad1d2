"""Sessions: a dialogue fed turn by turn, with its state kept up to date.

A chat backend calls `add_turn` as messages arrive and `check` for each LLM reply. The session's
tracker reads each turn once (salience, topics, QUD stack, the facts each turn states), so a check
costs the same at turn 200 as at turn 2, and gives the same result as a one-off
`Engine.postprocess` over all the turns.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext
from datetime import datetime
from typing import TYPE_CHECKING

from pydantic import ValidationError

from replyguard.dialogue import DialogueContext, DialogueTracker
from replyguard.errors import InputError, describe_validation_error
from replyguard.models import (
    DialogueState,
    PostprocessedResponse,
    RegistryEntry,
    Turn,
    text_problem,
)
from replyguard.pipeline import run_pipeline
from replyguard.tool_knowledge import knowing

if TYPE_CHECKING:
    from replyguard.engine import Engine


class Session:
    def __init__(self, engine: Engine, session_id: str | None = None) -> None:
        if session_id is not None and (
            not isinstance(session_id, str) or not session_id or text_problem(session_id)
        ):
            problem = text_problem(session_id) or "expected non-empty text"
            raise InputError(f"session_id: {problem}")
        self.engine = engine
        self.session_id = session_id
        self._tracker = DialogueTracker(engine.reader, datetime.now(), engine.decay)
        self._rules_version = engine.rules_version

    @property
    def turns(self) -> list[Turn]:
        return [r.turn for r in self._tracker.readings]

    def add_turn(
        self,
        speaker: str,
        text: str,
        *,
        id: str | None = None,  # noqa: A002 - the turn's field name
        timestamp: datetime | None = None,
        act: str | None = None,
    ) -> Turn:
        """Record a message; its time defaults to now, so relative dates in it stay fixed.

        A bad argument (a speaker that is not a non-empty string, text that is not Unicode text,
        an id already used) is an InputError naming it, and the session is left as it was."""
        turn_id = f"T{len(self._tracker.readings) + 1}" if id is None else id
        try:
            turn = Turn(
                id=turn_id,
                speaker=speaker,
                text=text,
                act=act,
                timestamp=timestamp or datetime.now(),
            )
        except ValidationError as exc:
            raise InputError(describe_validation_error(exc)) from None
        if any(t.id == turn.id for t in self.turns):
            raise InputError(f"id: turn {turn.id!r} is already in this session")
        self._tracker.add(turn)
        return turn

    def check(
        self,
        response: str,
        query: str | None = None,
        *,
        reference_time: datetime | None = None,
        turn_id: str | None = None,
        annotation_style: str | None = None,
        passages: Sequence[str] = (),
        tool_results: Sequence[object] | None = None,
    ) -> PostprocessedResponse:
        """Check a reply to the latest user message (or to `query`), against `passages` and
        what the agent's tools returned (`tool_results`, parsed JSON, checked as knowledge over
        the KB) when given (see Engine.postprocess)."""
        if self._rules_version != self.engine.rules_version:
            raise InputError(
                "rules or KB were replaced since this session started; start a new one"
            )
        if query is None:
            users = [t for t in self.turns if t.role == "user"]
            query = users[-1].text if users else ""
        self.engine.validate_call(
            response, query, annotation_style, passages, (self.session_id, turn_id), reference_time
        )
        with knowing(self.engine, tool_results) if tool_results else nullcontext():
            return run_pipeline(
                self.engine,
                response,
                query,
                lambda: self._context(query),
                reference_time or datetime.now(),
                self.session_id,
                turn_id,
                annotation_style or self.engine.annotation_style,
                passages,
            )

    def _context(self, query: str) -> DialogueContext:
        readings = self._tracker.readings
        if not query.strip() or (
            readings and readings[-1].turn.role == "user" and readings[-1].turn.text == query
        ):
            return self._tracker.context()
        trial = self._tracker.fork()
        trial.add(Turn(id=f"T{len(readings) + 1}-query", speaker="user", text=query))
        return trial.context()

    def state(self) -> DialogueState:
        """The dialogue so far with its derived registry, topics and QUD stack."""
        context = self._tracker.context()
        registry = [
            RegistryEntry(
                entity_id=r.entity_id,
                name=r.name,
                salience=round(r.salience, 6),
                entity_type=r.entity_type,
            )
            for r in sorted(context.referents, key=lambda r: -r.order)
        ]
        return DialogueState(
            turns=self.turns,
            qud_stack=context.qud_stack,
            topics=context.topics,
            entity_registry=registry,
        )
