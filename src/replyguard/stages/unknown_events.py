"""Events the KB lacks, named by common nouns: "Your tennis activity is at 11 am" when the
calendar holds no tennis activity.

Capitalised names need no help to be noticed; calendar entries are named by ordinary words
("dinner", "lab appointment"), so they are found by where they stand: after an `event-opener`
("your", "you have a", metta/lexicon.metta) in a clause that gives a date or a time, in a KB
that lists events with dates or times. A phrase the KB, the dialogue or the passages name, or one
made only of `generic-detail` words ("your next appointment"), names nothing new. The rules judge
the candidate like any unknown name (`Unresolved` in metta/hallucination.metta).
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from replyguard.metta_host import Sym
from replyguard.models import EntityType, HallucinationType, Span, ValueType
from replyguard.stages.candidates import Candidate
from replyguard.stages.context import CallContext
from replyguard.stages.known_phrases import (
    alternatives,
    described_by_values,
    names_known_thing,
)
from replyguard.stages.unknown_kinds import new_of_kind
from replyguard.text.details import phrase_after
from replyguard.text.lexer import FUNCTION_WORDS, LexedText, Lexeme
from replyguard.text.lexicon import WHEN_TYPES, KBIndex
from replyguard.text.words import stem

if TYPE_CHECKING:
    from replyguard.engine import Engine

_STATED_TYPES = WHEN_TYPES | {ValueType.money}  # "our spa day costs £80"
# what a part of the organisation is said to offer: "our kayak hire lets you paddle for two hours",
# "our guided walk takes up to 12 people", "our bonus card saves you 5%"
_FACILITY_TYPES = _STATED_TYPES | {ValueType.duration, ValueType.number, ValueType.percent}


def unknown_event_candidates(engine: Engine, ctx: CallContext) -> list[Candidate]:
    """Events after an `event-opener` in a calendar, and parts of the organisation that speaks
    after a `facility-opener` ("our rooftop pool is open from 8 am") or opening a sentence
    ("The gold membership costs £30"), that the KB lacks."""
    openers = [("event-opener", "event")] if _lists_events(engine) else []
    speaks = engine.host.value("organisation-speaks", len(engine.organisations)) is True
    if speaks:
        openers.append(("facility-opener", "facility"))
    lexed = ctx.reply.lexed
    kinds = engine.words.markers.get
    found: list[tuple[Lexeme, str]] = []
    for opener, kind in openers:
        for marker in lexed.markers_of(opener):
            i = next((k for k, t in enumerate(lexed.tokens) if t.start >= marker.end), None)
            phrase = phrase_after(lexed, i, kinds) if i is not None else None
            if phrase is not None:
                found.append((phrase, kind))
    if speaks:
        found.extend((phrase, "facility") for phrase in _subject_phrases(ctx))
    if speaks:
        found = [(p, k) for p, k in found if not _names_own_column(engine, lexed, p)]
    out = []
    most = int(engine.setting("guidance-alternatives"))
    seen: set[tuple[int, int]] = set()
    for phrase, kind in found:
        # the user asking for a pool does not make the organisation have one
        told = kind == "event"
        if (
            (phrase.start, phrase.end) in seen
            or not _dated(lexed, phrase, ctx, facility=not told)
            or _known(engine, ctx, phrase, told)
            or (not told and described_by_values(engine.index, ctx, phrase))
        ):
            continue
        seen.add((phrase.start, phrase.end))
        cutoff = float(engine.setting("similar-name-cutoff"))
        similar = engine.index.fuzzy_name(phrase.text, cutoff)
        out.append(
            Candidate(
                HallucinationType.NonexistentEntity,
                (Sym("Unresolved"), False, True, similar is not None, False),
                Span(start=phrase.start, end=phrase.end),
                f"'{phrase.text}' is no {kind} the knowledge base or the dialogue names",
                suggestion=f"Check the {kind} against the knowledge base",
                support=[] if told else alternatives(engine.index, ctx, phrase, most),
            )
        )
    return out


def _names_own_column(engine: Engine, lexed: LexedText, phrase: Lexeme) -> bool:
    """ "our standard call-out fee is £45": a phrase ending in a cue for a column of the
    organisation that speaks names what it charges or keeps, not a part of it."""
    own = {a for o in engine.organisations for a in engine.index.entities[o].attributes}
    return any(
        lx.cat == "CUE" and lx.start_tok < phrase.end_tok <= lx.end_tok and own & set(lx.attributes)
        for lx in lexed.lexemes
    )


_MAX_SUBJECT_WORDS = 3


def _subject_phrases(ctx: CallContext) -> list[Lexeme]:
    """Common words opening a sentence as its subject, with no KB name in the sentence: "The
    gold membership costs £30 a year", "Singing lessons run on Mondays at 6pm". The words run
    from the sentence's start (past "the") to the first word the lexer read, function word or
    punctuation; said before a verb of being they are all the subject ("The family ticket is
    £50"), else the last is the verb ("costs", "run"). Two words at least (one is a kind:
    "The show starts at 7"); without "the" the subject is a plural ("lessons")."""
    lexed = ctx.reply.lexed
    tokens = lexed.tokens
    read = {
        k: lx.cat for lx in lexed.lexemes if lx.cat != "W" for k in range(lx.start_tok, lx.end_tok)
    }
    out = []
    for row, sentence in zip(lexed.sentence_lexemes, lexed.sentences, strict=False):
        if any(lx.cat in ("ENT", "NAME") for lx in row):
            continue
        i = next((k for k, t in enumerate(tokens) if t.start >= sentence.start), len(tokens))
        definite = i < len(tokens) and tokens[i].lower == "the"
        i += definite
        j = i
        while (
            j < len(tokens)
            and tokens[j].start < sentence.end
            and tokens[j].kind == "word"
            and j not in read
            and tokens[j].lower not in FUNCTION_WORDS
            and j - i <= _MAX_SUBJECT_WORDS
        ):
            j += 1
        if j >= len(tokens) or j - i > _MAX_SUBJECT_WORDS:
            continue
        end = j if read.get(j) == "COP" else j - 1
        if end - i < 2:
            continue
        head = tokens[end - 1].lower
        if not definite and not (head.endswith("s") and not head.endswith("ss")):
            continue
        text = lexed.text[tokens[i].start : tokens[end - 1].end]
        out.append(Lexeme("DETAIL", i, end, tokens[i].start, tokens[end - 1].end, text))
    return out


_DATED_ROWS: WeakKeyDictionary[KBIndex, bool] = WeakKeyDictionary()


def _lists_events(engine: Engine) -> bool:
    """A calendar: it lists events with dates or times, or its rows, whatever their type, are
    each dated things and no one (the entries a calendar search returned)."""
    if engine.index.lists_events:
        return True
    kb, index = engine.kb, engine.index
    if index not in _DATED_ROWS:
        dated = {a for a, spec in kb.attribute_schema.items() if spec.value_type in WHEN_TYPES}
        _DATED_ROWS[index] = bool(kb.entities) and all(
            e.type != EntityType.Person and dated.intersection(e.attributes) for e in kb.entities
        )
    return _DATED_ROWS[index]


def _dated(lexed: LexedText, phrase: Lexeme, ctx: CallContext, *, facility: bool) -> bool:
    """A date or time follows the phrase in its clause: "your dinner is at 5pm", not "your
    booking is complete, the train leaves at 5". What the organisation's own part offers is
    said in the rest of its sentence, a length of time or a number included ("our sauna serves
    drinks and snacks until 9pm", "our kayak hire lets you paddle for two hours")."""
    _, end = ctx.sentence_of(phrase.start)
    types = _FACILITY_TYPES if facility else _STATED_TYPES
    for lexeme in lexed.lexemes:
        if lexeme.start < phrase.end or lexeme.start > end:
            continue
        if lexeme.cat == "SEP" and not facility:
            return False
        if lexeme.cat == "VAL" and lexeme.value_type in types:
            return True
    return False


def _known(engine: Engine, ctx: CallContext, phrase: Lexeme, by_dialogue: bool) -> bool:
    """The KB, the dialogue (`by_dialogue`) or the passages name it, in full, by a near spelling
    or, for an event, by one of its words that is not generic ("your medicine" for "taking
    medicine"); a part of the organisation is named as a whole (stages/known_phrases.py)."""
    if any(
        lx.cat in ("ENT", "NAME") and phrase.start < lx.end and lx.start < phrase.end
        for lx in ctx.reply.lexed.lexemes
    ):
        return True  # a name the lexer read: judged as a name
    if engine.index.fuzzy_name(phrase.text, float(engine.setting("fuzzy-name-cutoff"))):
        return True
    words = [
        w
        for w in phrase.text.lower().split()
        if "generic-detail" not in engine.words.markers.get(w) and w not in FUNCTION_WORDS
    ]
    if not words:
        return True  # "your refund of": generic words and a preposition name nothing
    if new_of_kind(engine, words):
        return False  # "our chess club" beside the Film Club: a club, but a new one
    if not by_dialogue:
        # a part of the organisation is named as a whole: "our theatre tour" is no part of the
        # Lantern Theatre
        return names_known_thing(engine.index, words, ctx.passages.mentions)
    known = engine.index.name_words | engine.index.attribute_words
    return any(
        w in known
        or engine.index.inside_value([w])  # "your standard car" of a car whose type is Standard
        or stem(w) in {stem(k) for k in known}  # "our saunas", "our reception" (reception_hours)
        or (by_dialogue and ctx.dialogue.mentions(w))
        or ctx.passages.mentions(w)
        for w in words
    )
