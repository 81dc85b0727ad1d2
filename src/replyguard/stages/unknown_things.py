"""Things the KB lacks, of a kind it has, named by common words: "the orchard room, which seats
20" beside the Cedar Room, "our rooftop pool is open from 8 am", "your tennis activity is at 11
am" in a calendar, "balcony seats for the glass orchard are £12" when its prices are stalls,
circle and concession.

One mechanism: a phrase of common words stands where a thing is said to exist, the rest of its
sentence says what the thing offers (a time, a day, a price, a length, a number), and the words
are none of what the KB holds of that kind; the phrase is then an invented thing, judged by one
rule (`UnknownThing` in metta/hallucination.metta). Where the phrase stands says how firmly it
is said (`Owned`, `Offered`, `Definite`) and what it is measured against:
- before a kind's word (the last word KB names and aliases of two words end in,
  `KBIndex.kind_heads`: "room",
  "club") after "the", "our", "your" or "this", one or two words that are no name of an entity
  of that kind (`new_of_kind`); a superlative or generic word picks one of the kind ("the
  nearest hotel");
- after an `event-opener` ("your", "you have a") in a KB that lists dated things, a phrase
  (text/details.py) whose clause gives a date or time and no word of the KB or the dialogue;
- after a `facility-opener` ("our", "we host a") or as a sentence's subject ("The gold
  membership costs £30"), where an organisation speaks, a phrase naming no KB thing as a whole
  (stages/known_phrases.py) nor described by one entity's values;
- before a `generic-detail` word ("seats") in a sentence naming one entity whose money columns
  share a name's end (`stalls_price`, `circle_price`), a word that is none of its bands with a
  price after it none of its prices.
The passages may name a thing; the user asking for one does not make it exist.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from replyguard.metta_host import Sym
from replyguard.models import EntityType, Evidence, HallucinationType, Span, ValueType
from replyguard.stages.candidates import Candidate
from replyguard.stages.context import CallContext
from replyguard.stages.known_phrases import (
    alternatives,
    column_words,
    described_by_values,
    names_known_thing,
)
from replyguard.text.details import phrase_after
from replyguard.text.lexer import FUNCTION_WORDS, LexedText, Lexeme
from replyguard.text.lexicon import WHEN_TYPES, KBIndex
from replyguard.text.words import stem
from replyguard.values import fold, value_key

if TYPE_CHECKING:
    from replyguard.engine import Engine

# what a thing is said to offer: "which seats 20", "meets on Fridays", "costs £80", "lets you
# paddle for two hours", "saves you 5%"
_OFFERED_TYPES = WHEN_TYPES | {
    ValueType.money,
    ValueType.duration,
    ValueType.number,
    ValueType.percent,
}
# values that are nouns a phrase may qualify ("our dispensing pharmacist"), unlike a price
_NOUN_VALUES = frozenset({ValueType.text, ValueType.enum, ValueType.entity})
# what a diary's entry is said to have, in its own clause: "your dinner is at 5pm"
_DATED_TYPES = WHEN_TYPES | {ValueType.money}


@dataclass
class _Said:
    """A phrase naming a thing the KB lacks, how firmly it is said, and what to tell."""

    phrase: Lexeme
    standing: str  # Owned | Offered | Definite
    reason: str
    suggestion: str
    support: list[Evidence] = field(default_factory=list)


def unknown_thing_candidates(engine: Engine, ctx: CallContext) -> list[Candidate]:
    cutoff = float(engine.setting("similar-name-cutoff"))
    return [
        Candidate(
            HallucinationType.NonexistentEntity,
            (
                Sym("UnknownThing"),
                Sym(said.standing),
                engine.index.fuzzy_name(said.phrase.text, cutoff) is not None,
            ),
            Span(start=said.phrase.start, end=said.phrase.end),
            said.reason,
            suggestion=said.suggestion,
            support=said.support,
        )
        for said in (*_of_kind(engine, ctx), *_opened(engine, ctx), *_bands(engine, ctx))
    ]


def _offers(ctx: CallContext, phrase: Lexeme, types: frozenset[ValueType], *, clause: bool) -> bool:
    """The rest of the phrase's sentence (or clause, up to a separator) states a value of one
    of these types; or, for a sentence (not a clause), the next one does when a pronoun opens
    it ("we offer the chickenpox vaccine. It's two doses at £65")."""
    _, end = ctx.sentence_of(phrase.start)
    if not clause:
        rows = ctx.reply.lexed.sentence_lexemes
        after = [row for row in rows if row and row[0].start > end]
        if after and after[0][0].cat == "PRON":
            end = after[0][-1].end
    for lexeme in ctx.reply.lexed.lexemes:
        if lexeme.start < phrase.end or lexeme.start > end:
            continue
        if clause and lexeme.cat == "SEP":
            return False
        if lexeme.cat == "VAL" and lexeme.value_type in types:
            return True
    return False


# ---------------------------------------------------------------- before a kind's word

_KIND_OPENERS = frozenset("the our your this".split())
_MAX_MODIFIERS = 2


def kind_of(engine: Engine, word: str) -> list[str]:
    """The KB entities whose names end in this word, in the singular or the plural."""
    key = fold(word)
    for form in (
        key,
        key[:-1] if key.endswith("s") else "",
        key[:-2] if key.endswith("es") else "",
    ):
        if form and engine.index.kind_heads.get(form):
            return engine.index.kind_heads[form]
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


def _of_kind(engine: Engine, ctx: CallContext) -> Iterator[_Said]:
    if not engine.index.kind_heads:
        return
    lexed = ctx.reply.lexed
    tokens = lexed.tokens
    covered = {
        k
        for lx in lexed.lexemes
        if lx.cat in ("ENT", "NAME", "VAL") and not _part_of_a_name(engine, lx)
        for k in range(lx.start_tok, lx.end_tok)
    }
    generic = engine.words.markers.get
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
        if k < 0 or k == h - 1 or tokens[k].lower not in _KIND_OPENERS:
            continue
        start, end = tokens[k + 1].start, token.end
        phrase = Lexeme("DETAIL", k + 1, h + 1, start, end, ctx.response[start:end])
        words = [t.lower for t in tokens[k + 1 : h + 1]]
        if (
            new_of_kind(engine, words)
            and not column_words(engine.index, [*words, *(t.lower for t in tokens[h + 1 : h + 2])])
            and not ctx.passages.mentions(phrase.text)
            and _offers(ctx, phrase, _OFFERED_TYPES, clause=False)
            and not (tokens[k].lower == "our" and _told_of_speaker(engine, ctx, phrase))
        ):
            yield _Said(
                phrase,
                "Definite" if tokens[k].lower == "the" else "Owned",
                f"'{phrase.text}' is no {words[-1]} the knowledge base or the dialogue names",
                "Check the name against the knowledge base",
            )


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


# ---------------------------------------------------------------- after an opener, as a subject


def _opened(engine: Engine, ctx: CallContext) -> Iterator[_Said]:
    """Events after an `event-opener` in a calendar, and parts of the organisation that speaks
    after a `facility-opener` ("our rooftop pool is open from 8 am") or opening a sentence
    ("The gold membership costs £30")."""
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
        found = [
            (p, k)
            for p, k in found
            if k == "event"
            or not (
                _names_own_column(engine, lexed, p)
                or _modifies_value(lexed, p)
                or _a_time(lexed, p, kinds)
                or _told_of_speaker(engine, ctx, p)
                or _equated_with_known(lexed, p)
            )
        ]
    most = int(engine.setting("guidance-alternatives"))
    seen: set[tuple[int, int]] = set()
    for phrase, kind in found:
        # the user asking for a pool does not make the organisation have one
        told = kind == "event"
        if (
            (phrase.start, phrase.end) in seen
            or not _offers(ctx, phrase, _DATED_TYPES if told else _OFFERED_TYPES, clause=told)
            or _known(engine, ctx, phrase, told)
            or (
                not told
                and described_by_values(
                    engine.index,
                    ctx,
                    phrase,
                    kind_of(engine, lexed.tokens[phrase.end_tok - 1].lower),
                )
            )
        ):
            continue
        seen.add((phrase.start, phrase.end))
        yield _Said(
            phrase,
            "Offered",
            f"'{phrase.text}' is no {kind} the knowledge base or the dialogue names",
            f"Check the {kind} against the knowledge base",
            [] if told else alternatives(engine.index, ctx, phrase, most),
        )


def _a_time(lexed: LexedText, phrase: Lexeme, kinds: Callable[[str], tuple[object, ...]]) -> bool:
    """ "Thursday, our late night", "our busiest day": a `time-noun` after only words that say
    which time (`time-adjective`, superlatives) is a time, no part of the organisation ("a glaze
    night" is an event)."""
    words = [t.lower for t in lexed.tokens[phrase.start_tok : phrase.end_tok]]
    return (
        len(words) >= 2
        and "time-noun" in kinds(words[-1])
        and all("time-adjective" in kinds(w) or _superlative(w) for w in words[:-1])
    )


def _equated_with_known(lexed: LexedText, phrase: Lexeme) -> bool:
    """ "Our cheapest option is Basic Cover": a phrase said to be a KB entity names which one it
    is, not a thing the KB lacks."""
    after = [lx for lx in lexed.lexemes if lx.start_tok >= phrase.end_tok][:3]
    if len(after) >= 2 and after[0].cat == "COP" and after[1].cat == "W":
        after = [after[0], *after[2:]]  # "is the ..."
    return len(after) >= 2 and after[0].cat == "COP" and after[1].cat == "ENT"


def _modifies_value(lexed: LexedText, phrase: Lexeme) -> bool:
    """ "Ravi is our dispensing pharmacist": words run straight on into a value the KB holds
    qualify that value; they name no part of the organisation."""
    return any(
        lx.cat == "VAL" and lx.start_tok == phrase.end_tok and lx.value_type in _NOUN_VALUES
        for lx in lexed.lexemes
    )


def _told_of_speaker(engine: Engine, ctx: CallContext, phrase: Lexeme) -> bool:
    """ "our customer service line is open this Saturday from 9 to 1": what the rest of the
    sentence says is the organisation's own (every claim after the phrase is on it, one at
    least its value), so the phrase is a name for it or a part of it, not a thing it lacks."""
    start, end = ctx.sentence_of(phrase.start)
    said = [r for r in ctx.claims if phrase.end <= r.span.start <= end]
    return (
        bool(said)
        and all(r.attached.subject_id in engine.organisations for r in said)
        and any(r.status == "Verified" for r in said)
    )


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
        end = j if read.get(j) in ("COP", "CUE") else j - 1  # "costs" read as a cue
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
        or ctx.dialogue.mentions(w)
        or ctx.passages.mentions(w)
        for w in words
    )


# ---------------------------------------------------------------- before what a band is sold as


class _BandIndex:
    """Per entity, the money columns that form bands, the bands' words (stems) and prices."""

    def __init__(self, index: KBIndex) -> None:
        self.columns: dict[str, list[str]] = {}
        self.words: dict[str, frozenset[str]] = {}
        self.prices: dict[str, frozenset[str]] = {}
        self.column_words = frozenset(stem(w) for w in index.attribute_words)
        for entity in index.entities.values():
            groups: dict[str, list[tuple[str, str]]] = defaultdict(list)
            for attribute in entity.attributes:
                first, _, rest = attribute.partition("_")
                if rest and index.attribute_type(attribute) == ValueType.money:
                    groups[rest].append((first, attribute))
            banded = [pair for pairs in groups.values() if len(pairs) >= 2 for pair in pairs]
            if not banded:
                continue
            self.columns[entity.id] = [a for _, a in banded]
            self.words[entity.id] = frozenset(stem(fold(first)) for first, _ in banded)
            self.prices[entity.id] = frozenset(
                value_key(ValueType.money, str(v))
                for _, a in banded
                for v in entity.values_of(a)[0]
            )


_BANDS: WeakKeyDictionary[KBIndex, _BandIndex] = WeakKeyDictionary()


def _bands(engine: Engine, ctx: CallContext) -> Iterator[_Said]:
    """A word before what a band is sold as ("balcony seats"), in a sentence naming one banded
    entity, that is no band of it, nor a word of the KB's columns or names, nor a comparison
    ("cheaper seats", "the best seats"), with a price after it (the first) none of its prices."""
    index = engine.index
    bands = _BANDS.get(index)
    if bands is None:
        bands = _BANDS[index] = _BandIndex(index)
    if not bands.columns:
        return
    lexed = ctx.reply.lexed
    tokens = lexed.tokens
    read = {k for lx in lexed.lexemes if lx.cat != "W" for k in range(lx.start_tok, lx.end_tok)}
    kinds = engine.words.markers.get
    for row, sentence in zip(lexed.sentence_lexemes, lexed.sentences, strict=False):
        named = [e for lx in row if lx.cat == "ENT" for e in lx.entity_ids if e in bands.columns]
        if len(set(named)) != 1:
            continue
        entity_id = named[0]
        prices = [lx for lx in row if lx.cat == "VAL" and lx.value_type == ValueType.money]
        inside = [k for k, t in enumerate(tokens) if sentence.start <= t.start < sentence.end]
        for k in inside[1:]:
            noun, word = tokens[k], tokens[k - 1]
            w = word.lower
            if (
                "generic-detail" not in kinds(noun.lower)
                or word.kind != "word"
                or k - 1 in read
                or w in FUNCTION_WORDS
                or "generic-detail" in kinds(w)
                or w.endswith(("er", "est"))
                or stem(w) in bands.words[entity_id]
                or stem(w) in bands.column_words
                or fold(w) in index.name_words
            ):
                continue
            after = next((p for p in prices if p.start > noun.end), None)
            if after is None or after.value_key in bands.prices[entity_id]:
                continue
            text = ctx.response[word.start : noun.end]
            yield _Said(
                Lexeme("DETAIL", k - 1, k + 1, word.start, noun.end, text),
                "Owned",
                f"'{text}' is no price band of {index.entities[entity_id].label}",
                "Quote only the price bands the knowledge base lists",
                [
                    Evidence(kind="kb", entity_id=entity_id, attribute=a)
                    for a in bands.columns[entity_id]
                ],
            )
