"""Whether common words name something the KB holds, as a whole: "our youth theatre session"
names the Youth Theatre, "our wheelchair spaces" a column of the organisation, "our junior
stylists" a KB value (the role Junior Stylist); but "our theatre tour" names nothing when
"theatre" is only a word of other names (the Youth Theatre, the Lantern Theatre), nor "a sports
massage" when "sports" is a word of the Sports Injury Clinic.

A phrase's last word is its head ("tour"), the words before it its modifiers ("theatre"). The
phrase names a KB thing when every word is a word of the KB's attribute names and cues (a part
of the business its columns describe: "our opening hours"); when one entity's names hold every
modifier, and either the head too or, in its place, every distinctive word of that entity's
names ("our swimming class" of the Swimming Activity: the kind said in other words); when it
stands inside a KB value; or when one short value holds its words, the head among them (columns'
words may join them). One word alone names a thing when it is a word of any name, value or
column. Words the caller knows otherwise (the dialogue's, the passages') count as known.

The vocabulary is derived from the KB alone, once per KB index.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from weakref import WeakKeyDictionary

from replyguard.models import EntityType, Evidence, ValueType
from replyguard.stages.context import CallContext
from replyguard.text.lexer import FUNCTION_WORDS, Lexeme
from replyguard.text.lexicon import KBIndex, phrase_key
from replyguard.text.words import stem
from replyguard.values import fold, value_key


@dataclass(frozen=True)
class _Vocabulary:
    by_stem: dict[str, frozenset[str]]  # a stem of a name's word -> the entities so named
    names: dict[str, frozenset[str]]  # entity id -> the stems of its names' words
    distinctive: dict[str, frozenset[str]]  # entity id -> its names' stems but their heads
    columns: frozenset[str]  # stems of the words of attribute names and cues
    values: frozenset[str]  # stems of the words of short textual values
    value_sets: dict[str, tuple[frozenset[str], ...]]  # a stem -> the short values holding it


_VOCABULARIES: WeakKeyDictionary[KBIndex, _Vocabulary] = WeakKeyDictionary()
_MAX_VALUE_WORDS = 4


def _vocabulary(index: KBIndex) -> _Vocabulary:
    found = _VOCABULARIES.get(index)
    if found is not None:
        return found
    by_stem: dict[str, set[str]] = defaultdict(set)
    names: dict[str, frozenset[str]] = {}
    distinctive: dict[str, frozenset[str]] = {}
    values: set[str] = set()
    value_sets: dict[str, set[frozenset[str]]] = defaultdict(set)
    for entity in index.entities.values():
        own: set[str] = set()
        heads: set[str] = set()
        for name in entity.names:
            words = [w for w in phrase_key(name) if w.isalnum() and w != "the"]
            own.update(stem(w) for w in words)
            if len(words) >= 2:
                heads.add(stem(words[-1]))
        for s in own:
            by_stem[s].add(entity.id)
        names[entity.id] = frozenset(own)
        distinctive[entity.id] = frozenset(own - heads)
        for attribute in entity.attributes:
            if index.attribute_type(attribute) not in (ValueType.text, ValueType.enum):
                continue
            for value in entity.values_of(attribute)[0]:
                words = phrase_key(str(value))
                if len(words) <= _MAX_VALUE_WORDS:
                    stems = frozenset(stem(w) for w in words if w.isalnum())
                    values.update(stems)
                    for s in stems:
                        value_sets[s].add(stems)
    found = _Vocabulary(
        by_stem={s: frozenset(ids) for s, ids in by_stem.items()},
        names=names,
        distinctive=distinctive,
        columns=frozenset(stem(w) for w in index.attribute_words),
        values=frozenset(values),
        value_sets={s: tuple(sets) for s, sets in value_sets.items()},
    )
    _VOCABULARIES[index] = found
    return found


def column_words(index: KBIndex, words: Sequence[str]) -> bool:
    """ "our minimum driver age is 21": words that, with the one after them, are all words of
    one attribute's name (minimum_driver_age) name that attribute, no thing of a kind and no
    person."""
    said = {stem(fold(w)) for w in words}
    return any(said <= {stem(p) for p in a.lower().split("_")} for a in index.schema)


def names_known_thing(
    index: KBIndex, words: Sequence[str], known: Callable[[str], bool] = lambda w: False
) -> bool:
    """Whether the content words of a phrase (generic words already left out) name a KB thing
    as a whole (module doc); `known` says of a word whether the caller knows it otherwise."""
    if not words:
        return True
    vocab = _vocabulary(index)
    stems = [stem(fold(w)) for w in words]
    other = [known(w) for w in words]
    if len(stems) == 1:
        s = stems[0]
        return other[0] or s in vocab.by_stem or s in vocab.columns or s in vocab.values
    if all(s in vocab.columns or o for s, o in zip(stems, other, strict=True)):
        return True
    if index.inside_value([fold(w) for w in words]) or any(
        all(s in held or s in vocab.columns or o for s, o in zip(stems, other, strict=True))
        for held in vocab.value_sets.get(stems[-1], ())
    ):
        return True  # "our junior stylists" of the role Junior Stylist
    head, modifiers = stems[-1], stems[:-1]
    # the modifiers a name must hold: those no column or caller knows; the entities whose names
    # hold them all (an intersection, small however large the KB)
    needed = [s for s, o in zip(modifiers, other, strict=False) if s not in vocab.columns and not o]
    if needed:
        sets = sorted((vocab.by_stem.get(s, frozenset()) for s in needed), key=len)
        candidates = set(sets[0]).intersection(*sets[1:])
    else:
        candidates = set().union(*(vocab.by_stem.get(s, frozenset()) for s in modifiers))
    if not candidates:
        return False
    if head in vocab.columns or other[-1] or candidates & vocab.by_stem.get(head, frozenset()):
        return True
    return any(vocab.distinctive[e] and vocab.distinctive[e] <= set(modifiers) for e in candidates)


_HELD: WeakKeyDictionary[KBIndex, dict[tuple[ValueType, str], frozenset[str]]] = WeakKeyDictionary()


_DESCRIBING_VALUES = 2


def _held_values(index: KBIndex) -> dict[tuple[ValueType, str], frozenset[str]]:
    """(type, comparison key) of every KB value -> the entities holding it; once per KB."""
    found = _HELD.get(index)
    if found is None:
        held: dict[tuple[ValueType, str], set[str]] = defaultdict(set)
        for entity in index.entities.values():
            for attribute in entity.attributes:
                vtype = index.attribute_type(attribute)
                for value in entity.values_of(attribute)[0]:
                    held[(vtype, value_key(vtype, str(value)))].add(entity.id)
        found = _HELD[index] = {k: frozenset(ids) for k, ids in held.items()}
    return found


def described_by_values(
    index: KBIndex, ctx: CallContext, phrase: Lexeme, kind: Collection[str] = ()
) -> bool:
    """Whether one KB entity holds every value the phrase's sentence states after it: "our
    drama workshop for 11-16s meets on Tuesdays at 5:30pm" describes the Youth Theatre in
    other words, when the Youth Theatre is on Tuesdays at 5:30pm. Two values at least: one
    alone ("at 8pm") is held by many things by chance. A phrase ending in a KIND's word (the
    entities whose names end in it) describes one of that kind only: "a cholesterol test for
    £20 that takes 15 minutes" is no description of a £20, 15-minute consultation when the KB's
    tests are others."""
    held = _held_values(index)
    _, end = ctx.sentence_of(phrase.start)
    common: frozenset[str] | None = None
    said = 0
    for lexeme in ctx.reply.lexed.lexemes:
        if lexeme.cat != "VAL" or not phrase.end <= lexeme.start <= end:
            continue
        if lexeme.value_type is None or lexeme.value_key is None:
            return False
        said += 1
        holders = held.get((lexeme.value_type, lexeme.value_key), frozenset())
        common = holders if common is None else common & holders
        if not common:
            return False
    if common and kind:
        common = common & frozenset(kind)
    return said >= _DESCRIBING_VALUES and bool(common)


_UNTELLING = frozenset({ValueType.number, ValueType.percent, ValueType.text, ValueType.enum})
_ALTERNATIVES: WeakKeyDictionary[KBIndex, dict[frozenset[ValueType], tuple[str, ...]]] = (
    WeakKeyDictionary()
)


def alternatives(index: KBIndex, ctx: CallContext, phrase: Lexeme, most: int) -> list[Evidence]:
    """The KB things an invented one stands in for: those, neither people nor organisations,
    holding a value of every kind the phrase's sentence states of it (a day, a time, a price:
    the workshops and shows beside "our street dance workshop meets on Thursdays at 6pm for
    £7"), at most `most` of them. Remembered per KB and set of kinds."""
    _, end = ctx.sentence_of(phrase.start)
    said = frozenset(
        lx.value_type
        for lx in ctx.reply.lexed.lexemes
        if lx.cat == "VAL"
        and lx.value_type is not None
        and lx.value_type not in _UNTELLING
        and phrase.end <= lx.start <= end
    )
    if not said:
        return []
    known = _ALTERNATIVES.setdefault(index, {})
    if said not in known:
        known[said] = tuple(
            e.id
            for e in index.entities.values()
            if e.type not in (EntityType.Person, EntityType.Organization)
            and e.name
            and said <= {index.attribute_type(a) for a in e.attributes}
        )
    return [Evidence(kind="kb", entity_id=e) for e in known[said][:most]]


def part_of_a_named(index: KBIndex, ctx: CallContext, name: Lexeme) -> bool:
    """A name made of words of the name of a KB entity the reply names in full ("entry to the
    Minster" after "York Minster and the Shambles"): that entity's part, no new one."""
    words = {fold(w) for w in name.text.split()} - FUNCTION_WORDS
    if not words:
        return False
    return any(
        words <= {fold(w) for n in index.entities[e].names for w in n.split()}
        for lx in ctx.reply.lexed.lexemes
        if lx.cat == "ENT" and lx is not name
        for e in lx.entity_ids
    )
