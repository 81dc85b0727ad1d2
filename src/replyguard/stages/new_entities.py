"""New entities (DESIGN §5.6): proper names the reply introduces that neither the dialogue nor
the KB knows, listed apart from the NonexistentEntity judgement. A misspelt KB name is listed too,
with the name it most resembles."""

from __future__ import annotations

from typing import TYPE_CHECKING

from replyguard.models import NewEntity, Span
from replyguard.stages.context import CallContext
from replyguard.text.analysis import guess_type
from replyguard.text.lexer import Lexeme

if TYPE_CHECKING:
    from replyguard.engine import Engine


def unclaimed_name_values(ctx: CallContext) -> list[Lexeme]:
    """Unknown names read as an attribute's value ("at Cedar Hall", text/name_values.py) that
    no claim took: the names they are."""
    spans = [r.model.span for r in ctx.claims]
    return [
        lexeme
        for lexeme in ctx.reply.lexed.lexemes
        if lexeme.name_value
        and not any(s.start <= lexeme.start and lexeme.end <= s.end for s in spans)
    ]


def reply_names(ctx: CallContext) -> list[Lexeme]:
    """The names of the reply no KB entity has, in order."""
    return sorted([*ctx.reply.names, *unclaimed_name_values(ctx)], key=lambda lx: lx.start)


def new_entities(engine: Engine, ctx: CallContext) -> list[NewEntity]:
    out = []
    unclaimed = {id(lx) for lx in unclaimed_name_values(ctx)}
    for row in ctx.reply.lexed.sentence_lexemes:
        previous = None
        for lexeme in row:
            unknown = (lexeme.cat == "NAME" or id(lexeme) in unclaimed) and not (
                ctx.dialogue.mentions(lexeme.text)
            )
            misspelt = lexeme.cat == "ENT" and lexeme.fuzzy > 0
            if unknown or misspelt:
                guessed = (
                    engine.index.entities[lexeme.entity_ids[0]].type
                    if misspelt
                    else guess_type(lexeme, previous)
                )
                out.append(
                    NewEntity(
                        name=lexeme.text,
                        span=Span(start=lexeme.start, end=lexeme.end),
                        guessed_type=guessed,
                        similar_to=lexeme.similar_to,
                    )
                )
            previous = lexeme
    return out
