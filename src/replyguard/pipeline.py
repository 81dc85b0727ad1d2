"""The five stages run over one call (DESIGN §5), with per-stage timings.

Stages run in dependency order — reading, facts, coherence (its entity analyser uses the fact
verdicts), hallucinations, correction, scoring — and the result lists them in the seed's order.
The call's facts and verdicts are written to &dialogue and &reply before the recommendation is
decided (its rules read them), and the confidence and recommendation are added once decided, so
the spaces hold the same story as the result.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, TypeVar

from hyperon.atoms import Atom

from replyguard.atoms import clear_space, dialogue_atoms, outcome_atoms, reply_atoms
from replyguard.dialogue import DialogueContext
from replyguard.models import PostprocessedResponse, ValueType
from replyguard.stages.coherence import check_coherence
from replyguard.stages.context import CallContext, said_key, user_value_keys
from replyguard.stages.correction import correct_response
from replyguard.stages.facts import build_claims, validate_facts
from replyguard.stages.hallucination import detect_hallucinations
from replyguard.stages.new_entities import new_entities
from replyguard.stages.scoring import findings, recommend, score_confidence
from replyguard.text.attachment import AttachedClaim
from replyguard.text.passages import read_passages

if TYPE_CHECKING:
    from replyguard.engine import Engine

T = TypeVar("T")


def _taking_turns(
    run: Callable[..., PostprocessedResponse],
) -> Callable[..., PostprocessedResponse]:
    """Calls on one engine take turns (its host's lock): they share its spaces."""

    @functools.wraps(run)
    def serialised(engine: Engine, *args: object, **kwargs: object) -> PostprocessedResponse:
        with engine.host.lock:
            return run(engine, *args, **kwargs)

    return serialised


@_taking_turns
def run_pipeline(
    engine: Engine,
    response: str,
    query: str,
    dialogue: Callable[[], DialogueContext],
    reference: datetime,
    session_id: str | None,
    turn_id: str | None,
    style: str,
    passages: Sequence[str] = (),
) -> PostprocessedResponse:
    """One call. `dialogue` gives the dialogue state the reply is read in: derived from all
    turns for a one-off call, or a session's incrementally kept state."""
    timings: dict[str, float] = {}

    def timed(name: str, fn: Callable[[], T]) -> T:
        started = time.perf_counter()
        out = fn()
        timings[name] = round((time.perf_counter() - started) * 1000, 3)
        return out

    ctx = timed("analysis", lambda: _read(engine, response, query, dialogue, reference, passages))
    factual = timed("facts", lambda: validate_facts(engine, ctx))
    coherence = timed("coherence", lambda: check_coherence(engine, ctx))
    flags = timed(
        "hallucination",
        lambda: detect_hallucinations(engine, ctx, coherence.discourse_coherence.reply_act),
    )
    corrected = timed(
        "correction",
        lambda: (
            correct_response(engine, ctx, flags, style)
            if engine.setting("auto-correct") is True
            else None
        ),
    )

    def score():  # noqa: ANN202
        found = findings(engine, ctx, coherence, flags, corrected)
        atoms = reply_atoms(ctx, coherence, factual, flags, corrected, found.unread, found.atom())
        _record(engine, ctx, atoms)
        confidence, because = score_confidence(engine, coherence, factual, flags)
        return (
            found,
            confidence,
            recommend(
                engine, ctx, confidence, coherence, factual, flags, corrected, found, because
            ),
        )

    found, confidence, recommendation = timed("scoring", score)
    result = PostprocessedResponse(
        session_id=session_id,
        turn_id=turn_id,
        original=response,
        query=query,
        corrected=corrected,
        coherence=coherence,
        factual_validation=factual,
        hallucination_flags=flags,
        new_entities=new_entities(engine, ctx),
        unread_values=found.unread,
        confidence=confidence,
        recommendation=recommendation,
    )
    timed("atoms", lambda: _add(engine, outcome_atoms(result)))
    timings["total"] = round(sum(timings.values()), 3)
    result.timings_ms = timings
    return result


def _read(
    engine: Engine,
    response: str,
    query: str,
    dialogue: Callable[[], DialogueContext],
    reference: datetime,
    passages: Sequence[str],
) -> CallContext:
    context = dialogue()
    focus = engine.decay.salience_focus
    last = context.readings[-1].turn if context.readings else None
    question = query if query.strip() else (last.text if last and last.role == "user" else None)
    reply = engine.reader.read(response, reference, context.resolver(focus), question)
    query_reading = (
        context.readings[-1].reading
        if query.strip() and context.readings
        else engine.reader.read(query, reference, context.resolver(focus))
    )
    # a bare number the user gave, said back with nothing but its type to tie it to a column
    # ("at 9 she can join" beside a count of places), is theirs, not a claim on the KB
    users = user_value_keys(context)
    reply.claims = [c for c in reply.claims if not _users_number(c, users)]
    ctx = CallContext(
        response, query, reference, context, reply, query_reading, read_passages(passages)
    )
    ctx.claims = build_claims(engine, ctx)
    return ctx


def _users_number(claim: AttachedClaim, users: set[str]) -> bool:
    value = claim.value
    return (
        claim.basis == "Type"
        and value.value_type == ValueType.number
        and value.text.strip().isdigit()
        and said_key(value) in users
    )


def _record(engine: Engine, ctx: CallContext, reply: Iterable[Atom]) -> None:
    """Replace the per-call spaces' contents with this call's dialogue and reply atoms, before
    the recommendation is decided, so its rules read this call and not the previous one."""
    for name, atoms in (("&dialogue", dialogue_atoms(ctx)), ("&reply", reply)):
        clear_space(engine.host.spaces[name])
        _add(engine, atoms, name)


def _add(engine: Engine, atoms: Iterable[Atom], space: str = "&reply") -> None:
    for atom in atoms:
        engine.host.spaces[space].add_atom(atom)
