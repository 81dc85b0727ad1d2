"""New things of a kind the KB lists, named by common words: "the orchard room, which seats 20"
when the rooms are the Cedar Room and the Loft Room, "our chess club meets on Fridays at 6 pm"
beside the Film Club and the Knitting Club.

A kind is the last word that two-word names end in (`KBIndex.name_heads`: "room", "club"). A
phrase of one or two words before such a word, after "the", "our", "your" or "this" (not a
superlative or a generic word: "the nearest hotel", "the next class"), names a
KB entity of that kind when its words are all words of that entity's names ("the loft room",
"the film club"); a KB name said by one of its words before others ("our oak sensory room"
beside the Oak Room) is a word of the phrase. When they are no entity's, and the sentence
says what it offers (a time, a day, a price, a length of time, a number), it is a new one,
judged by the rules (`UnknownOfKind` in metta/hallucination.metta). The passages may name it;
the user asking for one does not make it exist.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from replyguard.metta_host import Sym
from replyguard.models import HallucinationType, Span, ValueType
from replyguard.stages.candidates import Candidate
from replyguard.stages.context import CallContext
from replyguard.text.lexer import FUNCTION_WORDS, Lexeme
from replyguard.text.lexicon import WHEN_TYPES
from replyguard.text.words import stem
from replyguard.values import fold

if TYPE_CHECKING:
    from replyguard.engine import Engine

_OPENERS = frozenset("the our your this".split())
_MAX_MODIFIERS = 2
_OFFERED_TYPES = WHEN_TYPES | {ValueType.money, ValueType.duration, ValueType.number}


def kind_of(engine: Engine, word: str) -> list[str]:
    """The KB entities whose names end in this word, in the singular or the plural."""
    key = fold(word)
    for form in (
        key,
        key[:-1] if key.endswith("s") else "",
        key[:-2] if key.endswith("es") else "",
    ):
        if form and engine.index.name_heads.get(form):
            return engine.index.name_heads[form]
    return []


def new_of_kind(engine: Engine, words: list[str]) -> bool:
    """Whether words ending in a kind's word ("chess club") name none of that kind: some
    word before the kind's word is in no name of an entity of the kind."""
    if len(words) < 2:
        return False
    ids = kind_of(engine, words[-1])
    if not ids:
        return False
    modifiers = {stem(fold(w)) for w in words[:-1]}
    for entity_id in ids:
        entity = engine.index.entities[entity_id]
        named = {stem(w) for n in entity.names for w in _name_words(n)}
        if modifiers <= named:
            return False
    return True


def unknown_kind_candidates(engine: Engine, ctx: CallContext) -> list[Candidate]:
    if not engine.index.name_heads:
        return []
    lexed = ctx.reply.lexed
    tokens = lexed.tokens
    covered = {
        k
        for lx in lexed.lexemes
        if lx.cat in ("ENT", "NAME", "VAL") and not _part_of_a_name(engine, lx)
        for k in range(lx.start_tok, lx.end_tok)
    }
    generic = engine.words.markers.get
    out = []
    for h, token in enumerate(tokens):
        if token.kind != "word" or h in covered or not kind_of(engine, token.lower):
            continue
        k = h - 1
        while (
            k >= 0
            and h - k <= _MAX_MODIFIERS
            and tokens[k].kind == "word"
            and k not in covered
            and tokens[k].lower not in FUNCTION_WORDS
            and "generic-detail" not in generic(tokens[k].lower)
            and not _superlative(tokens[k].lower)
        ):
            k -= 1
        if k < 0 or k == h - 1 or tokens[k].lower not in _OPENERS:
            continue
        start, end = tokens[k + 1].start, token.end
        text = ctx.response[start:end]
        words = [t.lower for t in tokens[k + 1 : h + 1]]
        # the user asking for one ("do you have a chess club?") does not make it exist
        if not new_of_kind(engine, words) or ctx.passages.mentions(text) or not _offered(ctx, end):
            continue
        cutoff = float(engine.setting("similar-name-cutoff"))
        similar = engine.index.fuzzy_name(text, cutoff) is not None
        out.append(
            Candidate(
                HallucinationType.NonexistentEntity,
                (Sym("UnknownOfKind"), tokens[k].lower != "the", similar),
                Span(start=start, end=end),
                f"'{text}' is no {words[-1]} the knowledge base or the dialogue names",
                suggestion="Check the name against the knowledge base",
            )
        )
    return out


def _name_words(name: str) -> list[str]:
    return [w for w in fold(name).replace("-", " ").split() if w != "the"]


def _part_of_a_name(engine: Engine, lexeme: Lexeme) -> bool:
    """An entity said by fewer words than any of its names ("oak" of the Oak Room): before
    other words and a kind's word ("our oak sensory room") it is a word of a new thing's name,
    judged with the rest of it, not the entity."""
    if lexeme.cat != "ENT" or len(lexeme.entity_ids) != 1:
        return False
    said = len(_name_words(lexeme.text))
    names = engine.index.entities[lexeme.entity_ids[0]].names
    return all(len(_name_words(n)) > said for n in names)


def _superlative(word: str) -> bool:
    """ "the nearest hotel", "the largest room": which one of the kind, not a new one."""
    return len(word) >= 4 and word.endswith("est")


def _offered(ctx: CallContext, after: int) -> bool:
    """The rest of the sentence says what the thing offers: a time, a day, a price, a length or
    a number ("which seats 20", "meets on Fridays")."""
    _, end = ctx.sentence_of(after)
    return any(
        lx.cat == "VAL" and lx.value_type in _OFFERED_TYPES and after <= lx.start <= end
        for lx in ctx.reply.lexed.lexemes
    )
