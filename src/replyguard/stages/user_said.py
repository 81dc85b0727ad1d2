"""What the stages that judge a reply against what the user said of themselves share
(stages/user_needs.py, stages/user_bounds.py): what a reply says against a user turn, and the
sentences that state something (ask nothing, deny nothing)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from replyguard.dialogue import TurnReading
    from replyguard.engine import Engine
    from replyguard.models import Entity
    from replyguard.stages.context import CallContext
    from replyguard.text.lexer import LexedText, Lexeme
    from replyguard.text.tokens import Sentence, Token


class Spanned(Protocol):
    start: int
    end: int


DENIALS = frozenset({"negation", "absence-marker"})
# a reply's regret ("I'm afraid ...") gives no offer either; a user's is a manner of speaking
_REGRETS = DENIALS | {"negative-marker"}


@dataclass(frozen=True)
class Found:
    """What the reply says against a user turn: the kind (OnlyDays, Need, ...), the turn, the
    reply's words (anything with a start and an end), why, and what to do instead."""

    kind: str
    turn: TurnReading
    at: Spanned
    reason: str
    fix: str


def asks(lexed: LexedText, sentence: Sentence) -> bool:
    """Whether the sentence is a question: it states nothing of the user or offers nothing."""
    return lexed.text[sentence.start : sentence.end + 1].rstrip().endswith("?")


def plain_sentences(
    lexed: LexedText, *, user: bool = False, questions: bool = False
) -> list[tuple[int, int]]:
    """(start, end) of the sentences that ask nothing (unless `questions`) and deny (or, in a
    reply, regret) nothing: a user's question states no need ("is it free or is there a
    fee?"), though it may say an age ("I'm 15, which gigs can I go to?")."""
    kinds = DENIALS if user else _REGRETS
    negative = [m.start for m in lexed.markers if m.kind in kinds]
    negative += [lx.start for lx in lexed.lexemes if lx.cat == "NEG"]
    return [
        (s.start, s.end + 1)
        for s in lexed.sentences
        if (questions or not asks(lexed, s)) and not any(s.start <= m <= s.end for m in negative)
    ]


def within(spans: list[tuple[int, int]], position: int) -> bool:
    return any(a <= position < b for a, b in spans)


def offered(engine: Engine, ctx: CallContext) -> list[tuple[Lexeme, Entity]]:
    """The KB entities the reply offers: each named alone (one entity for the words) in a
    sentence that asks and regrets nothing. Every check of an offer against what the user said
    of themselves (what they have none of, need, chose, their ages, their party) reads these."""
    plain = plain_sentences(ctx.reply.lexed)
    return [
        (lexeme, engine.index.entities[lexeme.entity_ids[0]])
        for lexeme in ctx.reply.lexed.lexemes
        if lexeme.cat == "ENT" and len(lexeme.entity_ids) == 1 and within(plain, lexeme.start)
    ]


def voiced(engine: Engine, ctx: CallContext) -> list[tuple[Token, Entity]]:
    """The organisation the reply speaks for ("we", "our": the one that qualifies), with the
    first of its voice's words in a sentence that asks and regrets nothing: what it says it
    does, it offers itself."""
    if len(engine.organisations) != 1:
        return []
    voice = {str(w) for (w,) in engine.host.facts("organisation-voice")}
    plain = plain_sentences(ctx.reply.lexed)
    for token in ctx.reply.lexed.tokens:
        if token.lower in voice and within(plain, token.start):
            return [(token, engine.index.entities[engine.organisations[0]])]
    return []
