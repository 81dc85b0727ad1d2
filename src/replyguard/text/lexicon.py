"""What the lexer knows: phrase tables built once from the rule files' word lists and the KB.

Built once per engine (word lists) and once per KB (names, aliases, values, cues), so that lexing a
reply is a handful of dictionary lookups per token. Phrases are keyed by the same tokenizer the
reply goes through, so "John Smith's" and the KB name "John Smith" line up token for token.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TypeVar

from rapidfuzz import fuzz, process
from rapidfuzz.distance import Levenshtein

from replyguard.kb import name_words
from replyguard.models import EntityType, KnowledgeBase, ValueType
from replyguard.rules import RuleForm
from replyguard.text.inflection import WordPrior, cue_variants
from replyguard.text.temporal import NUMBER_WORDS, WEEKDAYS
from replyguard.text.tokens import tokenize
from replyguard.text.words import content_stems, stem
from replyguard.values import (
    FREE_WORDS,
    UNIT_NUMBER_RE,
    fold,
    is_short_code,
    money_key,
    value_head,
)

PhraseKey = tuple[str, ...]
# Value types the lexer recognises by their shape (regexes, temporal grammar), not by lookup.
SHAPED_TYPES = {
    ValueType.email,
    ValueType.phone,
    ValueType.url,
    ValueType.money,
    ValueType.percent,
    ValueType.number,
    ValueType.year,
    ValueType.date,
    ValueType.time,
    ValueType.datetime,
    ValueType.duration,
}
_OWNERS = ("our", "your")
_WEEKDAY_STEMS = frozenset(stem(d) for d in WEEKDAYS)
# Whole numbers a KB holds as counts ("sleeps": 4) are said as words too ("sleeps four"); "one"
# is left out, as it stands for a thing as often as for a count ("the one with a hot tub").
_SPELLED = {n: w for w, n in NUMBER_WORDS.items() if 2 <= n <= 20}
MAX_VALUE_TOKENS = 16  # a full address: "Unit 4B, Riverside Retail Park, Station Road, Dunmore"
_CODE_NAME = re.compile(r"[A-Z]{1,4}-?\d{2,}[A-Z0-9]*")  # the tokenizer's "ident"


def past_openers(
    words: Sequence[str], kinds: Callable[[str], tuple[object, ...]], start: int = 0
) -> int:
    """The index of the first word from `start` on that is neither punctuation nor a discourse
    opener ("Okay, great, I am scheduling ..."); `words` are lower-cased, `kinds` gives a
    word's word-list kinds."""
    i = start
    while i < len(words) and (not words[i][:1].isalnum() or "discourse-opener" in kinds(words[i])):
        i += 1
    return i


def code_shape(text: str) -> str:
    """The shape of a code: letters as "A", digits as "9" ("SA101" -> "AA999")."""
    return re.sub(r"\d", "9", re.sub(r"[^\W\d_]", "A", text.upper()))


_RANGE_JOINS = frozenset({"-", "–", "—", "to", "until", "till"})


def mixed_word(word: str) -> bool:
    """A word of letters and digits both ("hf3", "7lw", "sa101")."""
    return any(c.isdigit() for c in word) and any(c.isalpha() for c in word)


def mask_codes(words: Sequence[str]) -> PhraseKey:
    """The words as the shape of a code: each of letters and digits, of digits, or of three
    letters at most, by its shape ("hf3 7 lw", a postcode split by the tokenizer -> "AA9 9
    AA")."""
    return tuple(
        code_shape(w) if mixed_word(w) or w.isdigit() or (w.isalpha() and len(w) <= 3) else w
        for w in words
    )


def mask_numbers(words: Sequence[str]) -> PhraseKey:
    """The words with each one holding a digit as "#", and a range's join as "-": "14 quay
    street" -> "# quay street", "3 to 5 working days" -> "# - # working days"."""
    masked = ["#" if any(c.isdigit() for c in w) else w for w in words]
    for k in range(1, len(masked) - 1):
        if masked[k] in _RANGE_JOINS and masked[k - 1] == "#" == masked[k + 1]:
            masked[k] = "-"
    return tuple(masked)


_INNER_HYPHEN = re.compile(r"(?<=\w)-(?=\w)")


@lru_cache(maxsize=1 << 16)
def word_key(text: str) -> str:
    """A token as the phrase tables compare it: folded, one apostrophe, and a hyphen inside a
    word dropped ("Check-in" is the "checkin" of checkin_closes)."""
    return _INNER_HYPHEN.sub("", fold(text).replace("’", "'"))


def _spoken_ranges(key: PhraseKey) -> tuple[PhraseKey, ...]:
    """The other ways a range of two numbers is written ("5 to 7", "5 – 7" for "5-7"); none
    for any other value."""
    if mask_numbers(key) != ("#", "-", "#"):
        return ()
    return tuple((key[0], join, key[2]) for join in sorted(_RANGE_JOINS) if join != key[1])


def _spoken_bounds(key: PhraseKey) -> tuple[PhraseKey, ...]:
    """The ways an open or a from-nothing range of ages is said: "65+" as "65 and over" or
    "over 65s", "0-4" as "4 and under", "up to age 4" or "under 5s"; none for any other value."""
    masked = mask_numbers(key)
    if masked == ("#", "+"):
        low = key[0]
        forms = [f"{low} and {w}" for w in ("over", "above", "older", "up")]
        forms += [f"{low} or {w}" for w in ("over", "older")]
        forms += [f"over {low}s", f"over-{low}s", f"{low} plus"]
    elif masked == ("#", "-", "#") and key[0] == "0" and key[2].isdigit():
        high, above = key[2], int(key[2]) + 1
        forms = [f"{high} and {w}" for w in ("under", "younger", "below")]
        forms += [f"up to age {high}", f"under {above}s", f"under-{above}s"]
    else:
        return ()
    return tuple(phrase_key(f) for f in forms)


@lru_cache(maxsize=1 << 16)
def phrase_key(phrase: str) -> PhraseKey:
    return tuple(word_key(t.text) for t in tokenize(phrase))


class PhraseTable:
    """Longest-match lookup of token sequences; each phrase maps to a list of payloads.

    `canonical` maps words that mean the same in a name or value ("avenue" -> "ave") so that
    "583 Alester Avenue" finds the KB's "583 Alester Ave"."""

    def __init__(self, canonical: Mapping[str, str] | None = None) -> None:
        # payloads as insertion-ordered dict keys: adding stays O(1) when thousands of entities
        # share a phrase (a first name, a department)
        self._entries: dict[PhraseKey, dict[object, None]] = defaultdict(dict)
        self._frozen: dict[PhraseKey, tuple[object, ...]] = {}
        self._max_len: dict[str, int] = {}
        self._canonical = dict(canonical or {})

    def _canon(self, words: Sequence[str]) -> PhraseKey:
        if not self._canonical:
            return tuple(words)
        return tuple(self._canonical.get(w, w) for w in words)

    def add(self, phrase: str | PhraseKey, payload: object) -> None:
        key = self._canon(phrase_key(phrase) if isinstance(phrase, str) else phrase)
        if not key:
            return
        self._entries[key][payload] = None
        self._frozen.pop(key, None)
        if self._max_len.get(key[0], 0) < len(key):
            self._max_len[key[0]] = len(key)

    def _payloads(self, key: PhraseKey) -> tuple[object, ...]:
        frozen = self._frozen.get(key)
        if frozen is None:
            frozen = self._frozen[key] = tuple(self._entries.get(key, ()))
        return frozen

    def starting_at(self, words: Sequence[str], i: int) -> Iterator[tuple[int, tuple[object, ...]]]:
        """Every phrase that starts at word i, longest first, as (length, payloads)."""
        first = self._canonical.get(words[i], words[i])
        longest = self._max_len.get(first)
        if longest is None:
            return
        for n in range(min(longest, len(words) - i), 0, -1):
            key = self._canon(words[i : i + n])
            if key in self._entries:
                yield n, self._payloads(key)

    def longest(self, words: Sequence[str], i: int) -> tuple[int, tuple[object, ...]] | None:
        return next(self.starting_at(words, i), None)

    def get(self, phrase: str) -> tuple[object, ...]:
        return self._payloads(self._canon(phrase_key(phrase)))

    def __contains__(self, phrase: str) -> bool:
        return self._canon(phrase_key(phrase)) in self._entries


@dataclass(frozen=True)
class PronounInfo:
    gender: str
    number: str
    animacy: str


# Word-list facts whose phrases are lexemes the claim grammar sees (NEG, COP, SAME, SELF, ...).
PRIMARY_KINDS = ("negation", "copula", "same-as", "self-reference", "addressee", "clause-separator")
# Word-list facts whose phrases are markers the detectors read; `(KIND PHRASE)`.
MARKER_KINDS = (
    "hedge",
    "not-a-name",
    "certainty-marker",
    "sourcing-phrase",
    "speculation",
    "additive-marker",
    "affirmative-marker",
    "negative-marker",
    "reason-marker",
    "location-marker",
    "universal-quantifier",
    "exception-marker",
    "drift-marker",
    "request-marker",
    "greeting-marker",
    "thanks-marker",
    "past-event-marker",
    "planning-verb",
    "event-start-verb",
    "event-end-verb",
    "order-before",
    "order-after",
    "period-phrase",
    "imperative-verb",
    "report-noun",
    "hypothetical-marker",
    "non-answer",
    "event-opener",
    "facility-opener",
    "person-slot",
    "role-noun",
    "late-request-marker",
    "generic-detail",
    "judgement-word",
    "non-assertive",
    "discourse-opener",
    "event-confirming",
    "absence-marker",
    "street-word",
    "street-direction",
    "instance-request",
    "duration-word",
    "class-word",
    "descriptive-word",
    "naming-word",
    "booking-noun",
    "focus-noun",
    "time-noun",
    "time-adjective",
    "money-word",
    "owned-phrase",
    "suggestion-phrase",
    "object-pronoun",
    "empty-it-verb",
)
# Facts `(KIND PHRASE CLASS)`: the marker kind is "KIND:CLASS" ("act-marker:Confirmation").
CLASSED_KINDS = (
    "act-marker",
    "late-act-marker",
    "state-verb",
    "detail-phrase",
    "place-cue",
    "party-noun",
    "direct-answer",
    "punctuated-answer",
)


# How many arguments each word-list fact takes (metta/lexicon.metta documents each shape).
WORD_LIST_ARITY: dict[str, int] = {
    "equivalent-word": 2,
    **dict.fromkeys(PRIMARY_KINDS, 1),
    **dict.fromkeys(MARKER_KINDS, 1),
    **dict.fromkeys(CLASSED_KINDS, 2),
    "pronoun": 4,
    "cue-synonym": 2,
    "cue-value-type": 2,
    "generic-phrase": 1,
    "opposite-state": 2,
    "common-attribute": 1,
    "dwelling-noun": 1,
    "verb-forms": 3,
    "superlative": 3,
    "range-bounds": 2,
    "range-start-word": 1,
    "polar-word": 2,
    "opposite-cue": 2,
    "cue-word-synonym": 2,
    "unit-measures": 2,
}


def word_list_problems(forms: Iterable[RuleForm]) -> list[tuple[RuleForm, str]]:
    """Word-list facts with the wrong number of arguments, each with what it should take."""
    out = []
    for form in forms:
        want = WORD_LIST_ARITY.get(form.head or "")
        if want is None or form.lhs is not None:
            continue
        got = len(form.atom.get_children()) - 1
        if got != want:
            out.append((form, f"({form.head} ...) takes {want} argument(s), not {got}"))
    return out


# The value types that place something in time.
WHEN_TYPES = frozenset({ValueType.date, ValueType.time, ValueType.datetime})
_REMEMBERED = 20_000
T = TypeVar("T")


@dataclass
class WordLists:
    """The rule files' word lists (metta/lexicon.metta and user additions) as phrase tables."""

    primary: PhraseTable = field(default_factory=PhraseTable)  # payload: word-list kind
    markers: PhraseTable = field(default_factory=PhraseTable)  # payload: marker kind
    pronouns: dict[str, PronounInfo] = field(default_factory=dict)
    cue_synonyms: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    # the type of the values of a column the lexicon's cues name: "hired" names join_date, a date
    cue_value_types: dict[str, ValueType] = field(default_factory=dict)
    generic_phrases: set[PhraseKey] = field(default_factory=set)
    opposite_states: set[tuple[str, str]] = field(default_factory=set)
    equivalents: dict[str, str] = field(default_factory=dict)  # "avenue" -> "ave"
    common_attributes: set[str] = field(default_factory=set)
    dwelling_nouns: set[str] = field(default_factory=set)  # "house": "jills house" is Jill's
    irregular_verbs: dict[str, tuple[str, str, str]] = field(default_factory=dict)  # any form
    range_bounds: set[tuple[str, str]] = field(default_factory=set)  # ("low", "high")
    range_starts: set[str] = field(default_factory=set)  # "available": says a range's low end
    polar_words: dict[str, bool] = field(default_factory=dict)  # "yes" -> True, "false" -> False
    opposite_cues: PhraseTable = field(default_factory=PhraseTable)  # "closed" -> "open"
    cue_word_synonyms: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    # "mph" -> ["wind", "speed"]: the stems of the words naming a column a unit measures
    unit_measures: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    # what was read off a turn's text with these lists, by (reading, text): a dialogue's turns
    # come back with every call
    _readings: dict[tuple[str, str], object] = field(default_factory=dict)

    def remember(self, reading: str, text: str, read: Callable[[str], T]) -> T:
        """`read(text)`, computed once per text (the memory is emptied when it grows large)."""
        key = (reading, text)
        if key not in self._readings:
            if len(self._readings) >= _REMEMBERED:
                self._readings.clear()
            self._readings[key] = read(text)
        return self._readings[key]  # type: ignore[return-value]

    # "nearest" -> [("distance", "Min")]: which attribute a superlative orders by, which way
    superlatives: dict[str, list[tuple[str, str]]] = field(
        default_factory=lambda: defaultdict(list)
    )

    @classmethod
    def from_facts(cls, facts: Mapping[str, Iterable[Sequence[str]]]) -> WordLists:
        lists = cls()
        for kind in PRIMARY_KINDS:
            for phrase, *_rest in facts.get(kind, ()):
                lists.primary.add(phrase, kind)
                lists.markers.add(phrase, kind)
        for kind in MARKER_KINDS:
            for phrase, *_rest in facts.get(kind, ()):
                lists.markers.add(phrase, kind)
        for kind in CLASSED_KINDS:
            for phrase, cls_name in facts.get(kind, ()):
                lists.markers.add(phrase, f"{kind}:{cls_name}")
        lists.opposite_states = {(str(a), str(b)) for a, b in facts.get("opposite-state", ())}
        lists.equivalents = {
            fold(str(a)): fold(str(b)) for a, b in facts.get("equivalent-word", ())
        }
        lists.common_attributes = {str(a) for (a,) in facts.get("common-attribute", ())}
        lists.dwelling_nouns = {fold(str(a)) for (a,) in facts.get("dwelling-noun", ())}
        lists.range_bounds = {
            (fold(str(a)), fold(str(b))) for a, b in facts.get("range-bounds", ())
        }
        lists.range_starts = {fold(str(a)) for (a,) in facts.get("range-start-word", ())}
        lists.polar_words = {fold(str(w)): str(p) == "True" for w, p in facts.get("polar-word", ())}
        for phrase, cue in facts.get("opposite-cue", ()):
            lists.opposite_cues.add(str(phrase), str(cue))
        for word, phrase in facts.get("cue-word-synonym", ()):
            lists.cue_word_synonyms[stem(fold(str(word)))].append(str(phrase))
        for unit, word in facts.get("unit-measures", ()):
            lists.unit_measures[fold(str(unit))].append(stem(fold(str(word))))
        for word, cue, order in facts.get("superlative", ()):
            lists.superlatives[fold(str(word))].append((str(cue), str(order)))
        for forms in facts.get("verb-forms", ()):
            entry = tuple(fold(str(f)) for f in forms)
            for form in reversed(entry):  # a base that is also a past ("read") stays a base
                lists.irregular_verbs[form] = entry  # type: ignore[assignment]
        for form, gender, number, animacy in facts.get("pronoun", ()):
            lists.pronouns[fold(form)] = PronounInfo(gender, number, animacy)
        for attribute, phrase in facts.get("cue-synonym", ()):
            lists.cue_synonyms[attribute].append(phrase)
        for attribute, vtype in facts.get("cue-value-type", ()):
            lists.cue_value_types[str(attribute)] = ValueType(str(vtype))
        lists.generic_phrases = {phrase_key(p) for (p, *_r) in facts.get("generic-phrase", ())}
        return lists


def _plural(word: str) -> str:
    """A regular English plural ("tickets", "classes", "galleries")."""
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and word[-2:-1] not in ("a", "e", "i", "o", "u"):
        return word[:-1] + "ies"
    return word + "s"


@dataclass(frozen=True)
class NameHit:
    entity_id: str
    implicit: bool  # a first name or surname read off a person's full name, not a listed alias


def _whole(value: object) -> int | None:
    """A KB value that is a whole number (4, "4"), or None."""
    text = str(value).strip()
    return int(text) if text.isdigit() else None


def _word_for_word(said: str, name: str) -> bool:
    """Whether a name said is its KB name misspelt word by word: of as many words, each within
    one slip per three letters of the one in its place ("Okafer", "Prof Okafor"); a name run
    together or split apart is judged whole."""
    a, b = said.split(), name.split()
    return len(a) != len(b) or all(
        Levenshtein.distance(x, y) <= max(1, len(y) // 3) for x, y in zip(a, b, strict=True)
    )


def _digits(text: str) -> str:
    return "".join(c for c in text if c.isdigit())


class KBIndex:
    """Names, aliases, values and cue phrases of one KB, for the lexer and the fuzzy matcher."""

    def __init__(
        self,
        kb: KnowledgeBase,
        words: WordLists,
        is_rare: Callable[[str], bool] | None = None,
        word_prior: WordPrior | None = None,
    ) -> None:
        """`is_rare` says whether a word is uncommon enough in English to stand for a name on
        its own ("Ravenswood" for "Ravenswood Shopping Center", not "Home" for "Home Depot");
        `word_prior` gives an English word's log prior (None for no word), to inflect the verb
        cues of relations ("directed" -> "did not direct")."""
        self.kb = kb
        self._is_rare = is_rare or (lambda w: False)
        self._dwellings = set(words.dwelling_nouns)
        self.entities = {e.id: e for e in kb.entities}
        self.schema = kb.attribute_schema
        self.names = PhraseTable(words.equivalents)
        self.values = PhraseTable(words.equivalents)  # payload: the attributes holding the value
        # values with their numbers masked ("# quay street"): "16 Quay Street" is said of the
        # KB's "14 Quay Street", and contradicts it
        self.numbered_values = PhraseTable(words.equivalents)
        # values that are codes, by their shape ("hf3 7lw" -> "AA9 9AA"): "HF3 7WL" is said of
        # the KB's postcode, and contradicts it (codes are never a near spelling of one another)
        self.shaped_values = PhraseTable(words.equivalents)
        self.cues = PhraseTable(words.equivalents)  # payload: attribute
        self._fuzzy_blocks: dict[str, list[str]] = defaultdict(list)
        self._fuzzy_owner: dict[str, list[str]] = defaultdict(list)
        self._descriptors: dict[tuple[str, int], tuple[str, ...]] = {}
        self.name_words: set[str] = set()  # every word of every name and alias, folded
        # the shapes of names that are codes ("SA101" -> "AA999"), with how many entities bear one
        self.code_name_shapes: dict[str, int] = defaultdict(int)
        # the last word of names of two words or more ("suite" of "Lighthouse Suite") -> entities
        self.name_heads: dict[str, list[str]] = defaultdict(list)
        # the same of names and aliases alike ("vaccine" of the alias "rabies vaccine"): the
        # kinds of thing the KB has, for a thing of that kind it lacks (stages/unknown_things.py)
        self.kind_heads: dict[str, list[str]] = defaultdict(list)
        # every word of every attribute's name and cue ("reception" of reception_hours)
        self.attribute_words = {
            w for a, spec in self.schema.items() for c in [a, *spec.cues] for w in name_words(c)
        }
        # a calendar: events, and dates or times to hold them
        self.lists_events = any(e.type == EntityType.Event for e in kb.entities) and any(
            s.value_type in WHEN_TYPES for s in kb.attribute_schema.values()
        )
        self.range_bounds = words.range_bounds
        self.range_starts = words.range_starts
        self.cue_value_types = words.cue_value_types
        # number columns named for a stretch of time ("wait_time", "trip_length"): they hold
        # durations written without their unit
        self.timed = frozenset(
            a
            for a, spec in self.schema.items()
            if spec.value_type == ValueType.number
            and any("duration-word" in words.markers.get(p) for p in a.lower().split("_"))
        )
        # the nouns counted by a number column, singular and plural ("stops" of number_stops),
        # with the columns counting them: "with 1 stop" is that column's number, said with its
        # unit, which names the column as a cue does
        self.count_nouns: dict[str, tuple[str, ...]] = defaultdict(tuple)
        for a, spec in self.schema.items():
            noun = fold(a.split("_")[-1])
            if spec.value_type != ValueType.number or a in self.timed:
                continue
            if noun.isalpha() and len(noun) > 1:  # "gb" of data_gb: only joined ("60GB")
                for form in (noun, noun.removesuffix("s"), noun + "s"):
                    if a not in self.count_nouns[form]:
                        self.count_nouns[form] += (a,)
        self.count_nouns = dict(self.count_nouns)
        # the number columns a unit measures, by a word of their names (`unit-measures`): "9
        # degrees" is the temperature's, "40 mph" the wind_speed's
        self.measured_by = {
            unit: tuple(
                a
                for a, spec in self.schema.items()
                if spec.value_type == ValueType.number
                and set(named) & {stem(fold(p)) for p in a.split("_")}
            )
            for unit, named in words.unit_measures.items()
        }
        # the units the KB writes its numbers in ("gb" of a ram column's "16GB"): a number said
        # with one joined or after it is a measure, one value ("16GB of RAM")
        numbers = {a for a, spec in self.schema.items() if spec.value_type == ValueType.number}
        self.value_units = frozenset(
            fold(m["u"]).rstrip(".")
            for e in kb.entities
            for a in e.attributes
            if a in numbers
            for v in e.values_of(a)[0]
            if (m := UNIT_NUMBER_RE.fullmatch(str(v).strip())) is not None
        )
        self._counted: dict[str, tuple[str, ...]] = {}
        self._holders: dict[tuple[str, str], list[str]] | None = None
        self._value_runs: dict[str, list[PhraseKey]] | None = None
        self._attribute_holders: dict[str, list[str]] | None = None
        self._codes: dict[str, bool] = {}
        self._weekday_columns: dict[str, bool] = {}
        self._currency: dict[str, bool] = {}
        self.polar_words = words.polar_words
        self.polar = self._polar_attributes()
        # textual columns some of whose values are bare numbers ("15" among "12A" and "PG" of
        # age_rating): a number said after words naming one is that column's
        self.numbered_text = frozenset(
            a
            for e in self.entities.values()
            for a in e.attributes
            if self.attribute_type(a) in (ValueType.text, ValueType.enum)
            and any(str(v).strip().isdigit() for v in e.values_of(a)[0])
        )
        for entity in kb.entities:
            self._index_entity(entity)
        for attribute, spec in self.schema.items():  # a declared value no row holds
            for v in () if spec.value_type in SHAPED_TYPES else spec.values:
                key = phrase_key(v)
                if 0 < len(key) <= MAX_VALUE_TOKENS:
                    self.values.add(key, attribute)
        self._index_name_words(words)
        for attribute, spec in self.schema.items():
            for cue in spec.cues:
                self.cues.add(cue, attribute)
                if word_prior is not None and spec.value_type == ValueType.entity:
                    for variant in cue_variants(cue, words.irregular_verbs, word_prior):
                        self.cues.add(variant, attribute)
        for attribute in self.schema:  # "arrives" is said "lands" (`cue-word-synonym`)
            for word in name_words(attribute):
                for phrase in words.cue_word_synonyms.get(stem(word), ()):
                    self.cues.add(phrase, attribute)
        # Synonyms name attributes even where this KB has none: a claim about a missing attribute
        # ("Acme was founded in 1999") is what FabricatedFact is about.
        for attribute, phrases in words.cue_synonyms.items():
            for cue in phrases:
                self.cues.add(cue, attribute)

    def _polar_attributes(self) -> dict[str, frozenset[str]]:
        """Yes/no attributes (every value a `polar-word`: True, "no", ...), each with the content
        stems of its name: "pets_allowed" is said by a sentence with "pets" and "allowed"."""
        seen: dict[str, bool] = {}
        for entity in self.entities.values():
            for attribute in entity.attributes:
                values = entity.values_of(attribute)[0]
                polar = bool(values) and all(fold(str(v)) in self.polar_words for v in values)
                seen[attribute] = seen.get(attribute, True) and polar
        out = {}
        for attribute, polar in seen.items():
            stems = frozenset(content_stems(name_words(attribute)))
            if polar and stems:
                out[attribute] = stems
        return out

    def polarity(self, value: object) -> bool | None:
        """True or False for a yes/no value ("yes", True, "false"), None for any other."""
        return self.polar_words.get(fold(str(value)))

    def polar_label(self, attribute: str, polarity: bool) -> str:
        """How this KB writes a yes or a no for an attribute ("True", "yes"): a claim read from
        words ("pets are not allowed") is compared with the KB's values in their own spelling."""
        held = [str(v) for e in self.entities.values() for v in e.values_of(attribute)[0]]
        same = next((v for v in held if self.polarity(v) is polarity), None)
        if same is not None:
            return same
        # the KB writes only the other polarity: its partner in the word list ("no" -> "yes")
        words = {p: [w for w, q in self.polar_words.items() if q is p] for p in (True, False)}
        other = fold(held[0]) if held else ""
        pairs = dict(zip(words[not polarity], words[polarity], strict=False))
        if other not in pairs:
            return str(polarity)
        partner = pairs[other]
        return partner.capitalize() if held[0][:1].isupper() else partner

    def bound_pair(self, a: str, b: str) -> bool:
        """Whether two attributes are the two ends of one range: named alike but for the
        words of a `range-bounds` pair ("saturday_open", "saturday_close")."""
        first, second = a.lower().split("_"), b.lower().split("_")
        differ = [(x, y) for x, y in zip(first, second, strict=False) if x != y]
        return (
            len(first) == len(second)
            and len(differ) == 1
            and (differ[0] in self.range_bounds or differ[0][::-1] in self.range_bounds)
        )

    def counted_by(self, word: str) -> tuple[str, ...]:
        """The number columns a folded noun said after a number counts: their own noun ("stops"
        of number_stops), or one of a compound's parts standing for it, the stem of one opening
        the other ("2 beds" of `bedrooms`, "3 bedrooms" of `number_of_beds`)."""
        hit = self._counted.get(word)
        if hit is None:
            hit = self.count_nouns.get(word, ())
            stem = word.removesuffix("s")
            if not hit and word.isalpha() and len(stem) > 2:
                hit = tuple(
                    dict.fromkeys(
                        a
                        for noun, columns in self.count_nouns.items()
                        if noun.startswith(stem) or stem.startswith(noun)
                        for a in columns
                    )
                )
            self._counted[word] = hit
        return hit

    def holders_of(self, attribute: str) -> list[str]:
        """The ids of the entities that hold an attribute at all (built on first use)."""
        if self._attribute_holders is None:
            self._attribute_holders = defaultdict(list)
            for entity in self.entities.values():
                for name in entity.attributes:
                    self._attribute_holders[name].append(entity.id)
        return self._attribute_holders.get(attribute, [])

    def holders(self, attribute: str, value: str) -> list[str]:
        """The ids of the entities holding a value of an attribute (folded comparison); the
        table is built on first use."""
        if self._holders is None:
            self._holders = defaultdict(list)
            for entity in self.entities.values():
                for name in entity.attributes:
                    for held in entity.values_of(name)[0]:
                        self._holders[(name, fold(str(held)))].append(entity.id)
        return self._holders.get((attribute, fold(value)), [])

    def inside_value(self, words: Sequence[str]) -> bool:
        """Whether the folded words stand together inside a longer textual KB value ("Station
        Road" in "Unit 4B, Riverside Retail Park, Station Road"); the table is built on first
        use."""
        if self._value_runs is None:
            self._value_runs = defaultdict(list)
            for entity in self.entities.values():
                for attribute in entity.attributes:
                    if self.attribute_type(attribute) not in (ValueType.text, ValueType.enum):
                        continue
                    for v in entity.values_of(attribute)[0]:
                        key = phrase_key(str(v))
                        for word in set(key):
                            self._value_runs[word].append(key)
        n = len(words)
        return bool(words) and any(
            len(key) > n and any(key[k : k + n] == tuple(words) for k in range(len(key) - n + 1))
            for key in self._value_runs.get(words[0], ())
        )

    def _index_entity(self, entity) -> None:  # noqa: ANN001 - models.Entity
        codes = {n for n in entity.names if _CODE_NAME.fullmatch(n) and any(c.isdigit() for c in n)}
        for shape in {code_shape(n) for n in codes}:
            self.code_name_shapes[shape] += 1
        if entity.name and len(entity.name.split()) >= 2:
            self.name_heads[fold(entity.name.split()[-1])].append(entity.id)
        for name in entity.names:
            self.names.add(name, NameHit(entity.id, implicit=False))
            if len(name.split()) >= 2 and entity.id not in self.kind_heads[fold(name.split()[-1])]:
                self.kind_heads[fold(name.split()[-1])].append(entity.id)
            key = phrase_key(name)
            if len(key) > 1 and key[0] == "the":
                # "the restaurant" is also "our restaurant", "your suite"
                for owner in _OWNERS:
                    self.names.add((owner, *key[1:]), NameHit(entity.id, implicit=False))
            folded = fold(name)
            self.name_words.update(folded.split())
            if folded:
                self._fuzzy_blocks[folded[0]].append(folded)
                self._fuzzy_owner[folded].append(entity.id)
        parts = entity.name.split() if entity.name else []
        if entity.type == EntityType.Person and len(parts) >= 2:
            for part in (parts[0], parts[-1]):
                self.names.add(part, NameHit(entity.id, implicit=True))
            surname = fold(parts[-1])
            if len(surname) >= 5 and surname not in self._fuzzy_owner:
                # "Dr. Valtonan": a misspelt surname after a title is the person
                self._fuzzy_blocks[surname[0]].append(surname)
            if len(surname) >= 5:
                self._fuzzy_owner[surname].append(entity.id)
        elif len(parts) >= 2:
            self._index_place_name(entity.id, parts)
        for attribute in entity.attributes:
            spec = self.schema.get(attribute)
            shaped = spec is not None and spec.value_type in SHAPED_TYPES
            if attribute in self.polar:
                continue  # a yes/no value is said by the attribute's words, not as "true"
            for v in entity.values_of(attribute)[0]:
                if shaped and spec.value_type == ValueType.number and _whole(v) in _SPELLED:
                    self.values.add(_SPELLED[_whole(v)], attribute)  # 4 said as "four"
                if shaped and not (
                    spec.value_type == ValueType.money and fold(str(v)) in FREE_WORDS
                ):
                    continue  # read by its shape; a price of nothing is said as a word ("free")
                head = value_head(str(v))  # "head baker" names "Head Baker - Sourdough"
                for key in (phrase_key(str(v)), phrase_key(head) if head else ()):
                    if 0 < len(key) <= MAX_VALUE_TOKENS:
                        self.values.add(key, attribute)
                    for spoken in _spoken_ranges(key):  # "5-7" said "5 to 7"
                        self.values.add(spoken, attribute)
                    for spoken in _spoken_bounds(key):  # "65+" said "65 and over", or "60 and over"
                        self.values.add(spoken, attribute)
                        self.numbered_values.add(mask_numbers(spoken), attribute)
                    if any(mixed_word(w) for w in key) and len(key) <= MAX_VALUE_TOKENS:
                        self.shaped_values.add(mask_codes(key), attribute)
                    masked = mask_numbers(key)
                    # a range of numbers alone ("5-16": "# - #") fits every range said
                    ranged = "-" in masked and set(masked) <= {"#", "-"}
                    if 1 < len(key) <= MAX_VALUE_TOKENS and masked != key and not ranged:
                        self.numbered_values.add(masked, attribute)

    def _index_name_words(self, words: WordLists) -> None:
        """Shorter ways to name things of one kind. Of two-word names that end alike ("Adult
        Ticket", "Child Ticket"), the first word tells each apart, and names it alone or in
        the plural ("adults pay £9"); a name's last word no other name ends with names it after
        the/our/your ("the masterclass" of "Fresh Pasta Masterclass"). A thing's name in the
        plural names it too ("two manicures"). Never a word that is
        already another name, a KB value or a word of one, or a word of the word lists."""

        def free(word: str, entity_id: str | None = None) -> bool:
            # a `focus-noun` ("session") stands for the thing in focus only where no KB name
            # ends in it: the KB's own name comes first
            listed = [k for k in words.markers.get(word) if k != "focus-noun"]
            return (
                all(h.entity_id == entity_id for h in self.names.get(word))  # type: ignore[attr-defined]
                and word not in self.values
                and not self.inside_value([word])  # "ballet" of the role "Ballet Teacher"
                and not (words.primary.get(word) or listed)
            )

        for head, ids in self.name_heads.items():
            entities = [
                e
                for e in (self.entities[i] for i in dict.fromkeys(ids))
                if e.type != EntityType.Person
            ]
            if len(entities) == 1 and len(ids) == 1:
                others = [fold(w) for w in entities[0].name.split()[:-1]]
                # not a head the name also starts with: "the United" opens "the United Vs United"
                if head.isalpha() and head not in others and free(head, entities[0].id):
                    for owner in ("the", *_OWNERS):
                        self.names.add((owner, head), NameHit(entities[0].id, implicit=False))
                continue
            firsts = [fold(e.name.split()[0]) for e in entities if len(e.name.split()) == 2]
            for entity in entities:
                parts = entity.name.split()
                first = fold(parts[0])
                if len(parts) != 2 or firsts.count(first) != 1 or not first.isalpha():
                    continue
                for form in {first, _plural(first)}:
                    if len(form) >= 3 and free(form):
                        self.names.add(form, NameHit(entity.id, implicit=False))
        named = Counter(fold(n) for e in self.entities.values() for n in set(e.names))
        for entity in self.entities.values():  # "two manicures", "45-minute lessons"
            if entity.type == EntityType.Person:
                continue
            for name in dict.fromkeys(fold(n) for n in entity.names):
                parts = name.split()
                if not parts or not parts[-1].isalpha() or named[name] > 1:
                    continue  # "three yoga activities" of three rows so named: the group
                plural = " ".join([*parts[:-1], _plural(parts[-1])])
                if not parts[-1].endswith("s") and free(plural):
                    self.names.add(plural, NameHit(entity.id, implicit=False))

    def _index_place_name(self, entity_id: str, parts: list[str]) -> None:
        """Shorter ways to name a place: a distinctive first or last word ("Ravenswood" for
        "Ravenswood Shopping Center", "Chicago" for "downtown chicago"), the owner of a
        dwelling ("Jill" for "jills house"), and possessives written with an apostrophe
        ("P.F. Chang's" for "P.F. Changs", "Jill's house" for "jills house")."""
        first, last = fold(parts[0]), fold(parts[-1])
        owner = first.removesuffix("'s") if first.endswith("'s") else first.removesuffix("s")
        if len(parts) == 2 and last in self._dwellings and owner != first:
            self.names.add(owner, NameHit(entity_id, implicit=True))
        for word in {first, last}:
            if word.isalpha() and self._is_rare(word) and word not in self._dwellings:
                self.names.add(word, NameHit(entity_id, implicit=True))
        for k in {0, len(parts) - 1}:
            word = parts[k]
            if len(word) >= 4 and word[-1] in "sS" and word[-2].isalpha():
                variant = [*parts[:k], word[:-1] + "'s", *parts[k + 1 :]]
                self.names.add(" ".join(variant), NameHit(entity_id, implicit=False))

    def fuzzy_name(self, text: str, cutoff: float) -> tuple[str, list[str], float] | None:
        """The KB name most like text (a likely misspelling), its owners, and the similarity."""
        folded = fold(text)
        if not folded:
            return None
        block = self._fuzzy_blocks.get(folded[0], [])
        digits = _digits(folded)
        hits = process.extract(folded, block, scorer=fuzz.ratio, score_cutoff=cutoff, limit=8)
        # digits are never fuzzy: "SA219" is no misspelling of "SA215"; nor is a whole word
        # put for another: "Riverside Vs Thornbury" is no misspelling of "Riverside Vs Harbour"
        hit = next(
            (h for h in hits if _digits(h[0]) == digits and _word_for_word(folded, h[0])), None
        )
        if hit is None:
            return None
        name, score, _ = hit
        return name, self._fuzzy_owner[name], score / 100.0

    def descriptors(self, entity_id: str, max_words: int) -> tuple[str, ...]:
        """Content stems of an entity's short free-text values: what the KB says it is ("chinese
        restaurant", "Engineering"), so a reply naming P.F. Changs speaks of restaurants."""
        key = (entity_id, max_words)
        cached = self._descriptors.get(key)
        if cached is None:
            entity = self.entities[entity_id]
            words: list[str] = []
            for attribute in entity.attributes:
                if self.attribute_type(attribute) != ValueType.text:
                    continue
                for v in entity.values_of(attribute)[0]:
                    tokens = [t.text for t in tokenize(str(v)) if t.kind == "word"]
                    if 0 < len(tokens) <= max_words:
                        words.extend(tokens)
            cached = self._descriptors[key] = tuple(content_stems(words))
        return cached

    def holds_codes(self, attribute: str) -> bool:
        """Whether every value of an attribute is a short code ("KOI", "E27"): a code said
        after its cue is its value, not a name or an acronym."""
        if attribute not in self._codes:
            values = [str(v) for e in self.entities.values() for v in e.values_of(attribute)[0]]
            self._codes[attribute] = bool(values) and all(is_short_code(v) for v in values)
        return self._codes[attribute]

    def writes_currency(self, attribute: str) -> bool:
        """Whether every value of a money column is written with its currency ("£24", "24
        pounds", "free"): then a bare number ("over 60") is none of its prices."""
        if attribute not in self._currency:
            values = [str(v) for e in self.entities.values() for v in e.values_of(attribute)[0]]
            self._currency[attribute] = bool(values) and all(
                money_key(v) is not None for v in values
            )
        return self._currency[attribute]

    def holds_weekdays_only(self, attribute: str) -> bool:
        """Whether every value of a column is a weekday ("Monday", "Fridays"): a year or a
        clock time is none of them ("one of the best dramas we've shown this year")."""
        if attribute not in self._weekday_columns:
            values = [str(v) for e in self.entities.values() for v in e.values_of(attribute)[0]]
            self._weekday_columns[attribute] = bool(values) and all(
                stem(v.strip().lower()) in _WEEKDAY_STEMS for v in values
            )
        return self._weekday_columns[attribute]

    def attribute_type(self, attribute: str) -> ValueType:
        spec = self.schema.get(attribute)
        return spec.value_type if spec else ValueType.text
