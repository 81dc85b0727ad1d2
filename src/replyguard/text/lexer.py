"""The KB-aware lexer: marks names, pronouns, cues, typed values and discourse markers.

It produces two layers over the token stream. The *primary* layer gives every token exactly one
lexeme (an entity name, a value, a cue, a pronoun, a copula, ... or a plain word) and is what the
claim grammar parses. The *marker* layer records phrases that may overlap anything (hedges,
certainty markers, sourcing phrases, quantifiers) and is read by the detectors.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import cached_property

from replyguard.models import EntityType, ValueType
from replyguard.spelling.vocabulary import one_edit
from replyguard.text.class_values import class_attributes, class_complement_spans, class_value
from replyguard.text.lexicon import (
    MAX_VALUE_TOKENS,
    KBIndex,
    NameHit,
    WordLists,
    code_shape,
    mask_codes,
    mask_numbers,
    mixed_word,
    word_key,
)
from replyguard.text.name_values import NameValues
from replyguard.text.places import place_at
from replyguard.text.temporal import TemporalMention, find_temporal
from replyguard.text.titles import name_after_class, title_before_maker
from replyguard.text.tokens import Sentence, Token, is_initial, split_sentences, tokenize
from replyguard.text.words import content_stems, stem
from replyguard.values import (
    MONEY_WORDS,
    YEAR_RE,
    fold,
    is_short_code,
    measured,
    number_in_words,
    value_key,
    words_money_key,
)

_TOKEN_VALUE_TYPES = {
    "email": ValueType.email,
    "url": ValueType.url,
    "phone": ValueType.phone,
    "money": ValueType.money,
    "percent": ValueType.percent,
    "ident": ValueType.text,
}
_TEMPORAL_TYPES = {
    "time": ValueType.time,
    "date": ValueType.date,
    "weekday": ValueType.date,
    "year": ValueType.year,
    "month": ValueType.date,
    "relative_day": ValueType.date,
    "relative_weekday": ValueType.date,
    "relative_year": ValueType.year,
    "datetime": ValueType.datetime,
    "duration": ValueType.duration,
    "part_of_day": ValueType.time,
}
_UNITS = {
    "mile",
    "miles",
    "mi",
    "km",
    "kilometers",
    "kilometres",
    "f",
    "°f",
    "c",
    "°c",
    "degrees",
    "fahrenheit",
    "celsius",
    "feet",
    "ft",
    "meters",
    "metres",
    "m",
    "kg",
    "lbs",
    "pounds",
    "people",
    "percent",
    "hours",
    "minutes",
    "employees",
    "items",
    "units",
    "times",
    "mph",
    "kph",
}
# a unit joined to its number by a hyphen ("17-year-old", "a 3-night stay")
_JOINED_UNITS = ("year", "month", "week", "day", "night", "hour", "minute", "mile", "seat")
_SCALES = {"fahrenheit", "celsius", "f", "c"}  # of temperature, after "degrees"
_POSSESSIVE_PRONOUNS = {"his", "her", "its", "their"}
_OBJECT_PRONOUNS = {"it", "him", "her", "them"}
_NAME_CONNECTORS = {"of", "de", "du", "des", "di", "da", "van", "von", "der", "del", "la", "&"}


def _joined_unit(word: str) -> bool:
    """ "year-old" (folded "yearold"), "minute", "nights": a unit a number is joined to by a
    hyphen."""
    return word.startswith(_JOINED_UNITS)


def _closes_initial(tokens: list[Token], j: int) -> bool:
    """The dot after an initial or a saint inside a name: "J.K. Rowling", "J. R. R. Tolkien",
    "the Chapel of St. Brigid"."""
    return (
        tokens[j].text == "."
        and j > 0
        and (is_initial(tokens, j - 1) or tokens[j - 1].lower in _SAINTS)
    )


_SAINTS = frozenset({"st", "ste", "mt"})


_OF = {"of"}
# after "the class", words that go on to say which class it is: not the thing in focus
_DESCRIBED_AFTER = frozenset("of for with at in on to from by that which who".split())
_MIN_SHARED_STEM = 3  # "bed" of number_of_beds starts "bedroom"
# words after a number that count nothing of their own: the number is still a column's
# before a person's role said as what they are: "is our fleet manager", "is the head chef"
_ROLE_DETERMINERS = frozenset({"our", "the", "a", "an", "their", "my"})
_MAX_ROLE_WORDS = 3
_TIME_UNITS = frozenset(
    "year years month months week weeks day days night nights hour hours minute minutes".split()
)
_COUNT_FREE = frozenset({"and", "or", "to", "of", "in", "on", "at", "for", "with", "is", "are"})
_MAX_MAKER_WORDS = 4  # "songs by twenty one pilots"
# Opening words that are no name's, but may be a title's after its article ("The Last Dragon")
_TITLE_ADJECTIVES = frozenset("last next first great good best".split())
# How much likelier (ln) than a capitalised opening word a word one letter from it must be for
# the opening word to be read as that word misspelt
_MISSPELT_MARGIN = 6.0
# Capitalised words that start sentences or fill formulae without naming anything.
FUNCTION_WORDS = frozenset(
    "a an the this that these those there here it its i you he she we they my your our their his "
    "her is are was were be been will would shall could should can may might must do does did have "
    "has had if then so and but or nor yet for because although though while when where what which "
    "who whom whose why how yes no not please thanks thank sure ok okay hello hi hey by with from "
    "to in on at as of about after before during since until also however moreover furthermore "
    "meanwhile let all any each every some many most few both either neither one unfortunately "
    "fortunately great good sorry well just only also alright absolutely certainly definitely "
    "indeed actually now today tomorrow yesterday tonight next last first finally dear regards "
    "best mr mrs ms dr like maybe perhaps another".split()
)


@dataclass
class Lexeme:
    """One primary-layer unit: a token range with its category for the claim grammar."""

    cat: str  # ENT PRON PRON_POSS SELF ADDR POSS CUE VAL COP NEG SEP SAME OF NAME W
    start_tok: int
    end_tok: int
    start: int
    end: int
    text: str
    entity_ids: tuple[str, ...] = ()
    implicit_name: bool = False
    fuzzy: float = 0.0  # similarity of a misspelt name to its KB entity, 0 if exact
    similar_to: str | None = None
    new_name: bool = False  # a VAL that is also a name the KB does not know ("written by X")
    common_word: bool = False  # a one-word NAME that is a common English word ("Music")
    name_value: bool = False  # a VAL that is an unknown name read as a value ("at Cedar Hall")
    # a NAME opening with a short form of KB names ("Nationals Vs Rockies" beside "Nationals Vs
    # Braves"): a thing of their kind, not an attribute's value
    kin_name: bool = False
    # a bare number right before a noun no KB column is named for: a count of those things
    # ("I found 2 flights", "over 40 machines"), no column's value by its type alone
    counted: bool = False
    attributes: tuple[str, ...] = ()  # cue: attributes named; value: attributes holding it
    negates: bool = False  # a cue that says its attribute does not hold ("closed": not open)
    denies: tuple[str, ...] = ()  # a cue's opposite's attributes ("open": closed_days)
    value_type: ValueType | None = None
    value_key: str | None = None
    temporal: TemporalMention | None = None
    pronoun: str | None = None


@dataclass(frozen=True)
class Marker:
    kind: str
    start: int
    end: int
    text: str


@dataclass
class LexedText:
    text: str
    tokens: list[Token]
    sentences: list[Sentence]
    lexemes: list[Lexeme]
    markers: list[Marker]
    temporal: list[TemporalMention]
    sentence_lexemes: list[list[Lexeme]] = field(default_factory=list)
    _stems: list[str] | None = field(default=None, repr=False)

    @property
    def stems(self) -> list[str]:
        """Content stems of the whole text (see text/words.py), computed once."""
        if self._stems is None:
            self._stems = content_stems([t.text for t in self.tokens])
        return self._stems

    def markers_of(self, kind: str) -> list[Marker]:
        return [m for m in self.markers if m.kind == kind]


class Lexer:
    def __init__(
        self,
        index: KBIndex,
        words: WordLists,
        *,
        fuzzy_cutoff: float,
        word_prior: Callable[[str], float] | None = None,
        emphasis_prior: float = 0.0,
        opener_prior: float = 0.0,
        gerund_prior: float = 0.0,
        code_name_holders: int = 2,
    ) -> None:
        """`word_prior` is ln P(word); a capitalised word more frequent than `emphasis_prior`
        inside a sentence is emphasis, not a name ("Coffee places"); a sentence-opening word more
        frequent than `opener_prior` is not part of the name after it ("Ask Rebecca Stone"); an
        opening -ing word whose verb is more frequent than `gerund_prior` is a verb. A code
        shaped like the names of at least `code_name_holders` KB entities is a name."""
        self.index = index
        self.code_name_holders = code_name_holders
        self.words = words
        self.fuzzy_cutoff = fuzzy_cutoff
        prior = word_prior or (lambda w: float("-inf"))
        self._prior = prior
        self._emphasis = lambda w: prior(w) > emphasis_prior
        self._opener = lambda w: prior(w) > opener_prior
        self._verb = lambda w: prior(w) > gerund_prior
        self._owners: dict[int, tuple[tuple[NameHit, ...], tuple[str, ...], bool]] = {}
        self.name_values = NameValues(index, words)

    def lex(self, text: str, reference: datetime, asked: frozenset[str] = frozenset()) -> LexedText:
        """ASKED: the attributes of classes the question the text answers asks for
        (text/class_values.py)."""
        tokens = tokenize(text)
        sentences = split_sentences(text, tokens)
        temporal = find_temporal(text, reference)
        folded = [word_key(t.text) for t in tokens]
        starts = _temporal_starts(tokens, temporal)
        lexemes: list[Lexeme] = []
        sentence_lexemes: list[list[Lexeme]] = []
        for sentence in sentences:
            sentence_lexemes.append(self._lex_sentence(tokens, folded, sentence, starts, asked))
        if self._writes_names_lower(tokens, sentence_lexemes):
            sentence_lexemes = [self._lower_case_makers(tokens, row) for row in sentence_lexemes]
        for row in sentence_lexemes:
            lexemes.extend(row)
        markers = self._markers(tokens, folded)
        return LexedText(text, tokens, sentences, lexemes, markers, temporal, sentence_lexemes)

    # ------------------------------------------------------------------ primary layer

    def _lex_sentence(self, tokens, folded, sentence, temporal_starts, asked) -> list[Lexeme]:  # noqa: ANN001
        out: list[Lexeme] = []
        i = sentence.start_token
        end = sentence.end_token
        while i < end:
            lexeme = self._lexeme_at(tokens, folded, i, end, temporal_starts, out)
            out.append(lexeme)
            i = lexeme.end_tok
        out = self._capitalised_openers(tokens, out, sentence.start_token)
        out = self._names_past_short_forms(tokens, out)
        row = self._names_as_values(
            tokens, _numbered_names(tokens, self._pronouns_in_context(_merge_words(out)))
        )
        row = self._names_after_classes(tokens, folded, self._titles(tokens, folded, row))
        row = self._role_complements(
            tokens,
            folded,
            self._class_complements(
                tokens, folded, _between(_rate_units(tokens, _money_in_words(tokens, row))), asked
            ),
        )
        return self._counted_things(tokens, row)

    @cached_property
    def _role_attribute(self) -> str | None:
        """The one attribute the KB's people hold their roles in: textual, its values ending in
        a `role-noun` ("Operations Manager")."""
        found = {
            a
            for e in self.index.entities.values()
            if e.type == EntityType.Person
            for a, held in e.attributes.items()
            if a in self.index.schema
            and self.index.attribute_type(a) in (ValueType.text, ValueType.enum)
            and any(
                "role-noun" in self.words.markers.get(fold(str(v)).split()[-1])
                for v in (held if isinstance(held, list) else [held])
                if fold(str(v)).split()
            )
        }
        return next(iter(found)) if len(found) == 1 else None

    def _role_complements(
        self, tokens: list[Token], folded: list[str], row: list[Lexeme]
    ) -> list[Lexeme]:
        """A person's role said as what they are, in words the KB may not hold: "gemma is our
        fleet manager", "Ravi, our dispensing pharmacist, ...": after a person and a verb of
        being or a comma, "our", "the" or "a" and words ending in a `role-noun` are a value of
        the people's role attribute, checked against the person's own."""
        attribute = self._role_attribute
        if attribute is None:
            return row
        role = lambda w: "role-noun" in self.words.markers.get(w)  # noqa: E731
        spans = []
        for k, lexeme in enumerate(row[1:], start=1):
            if not (lexeme.cat == "COP" or lexeme.text.strip() == ",") or not self._a_person(
                row[k - 1]
            ):
                continue
            t = lexeme.end_tok
            if t >= len(tokens) or folded[t] not in _ROLE_DETERMINERS:
                continue
            j = t + 1
            while (
                j < len(tokens)
                and j - t <= _MAX_ROLE_WORDS
                and tokens[j].kind == "word"
                and folded[j] not in FUNCTION_WORDS
                and not role(folded[j])
            ):
                j += 1
            if j >= len(tokens) or not role(folded[j]):
                continue
            covered = [lx for lx in row if lx.end_tok > t + 1 and lx.start_tok <= j]
            if any(lx.cat not in ("W", "VAL") for lx in covered) or any(
                lx.cat == "VAL" and (lx.start_tok, lx.end_tok) == (t + 1, j + 1) for lx in covered
            ):
                continue  # a KB role said whole is a value already
            if any(lx.cat == "VAL" and attribute not in lx.attributes for lx in covered):
                continue
            said = {stem(w) for w in folded[t + 1 : j + 1]}
            if any(said <= own for own in self._roles_of(row[k - 1], attribute)):
                continue  # "Dan is the owner" of the Owner and Lead Engineer: part of his role
            spans.append((t + 1, j + 1))
        if not spans:
            return row
        return _respan(
            row, spans, lambda i, j: class_value(_lexeme(tokens, i, j, "W"), attribute), tokens
        )

    def _roles_of(self, lexeme: Lexeme, attribute: str) -> list[set[str]]:
        held = [self.index.entities[e].attributes.get(attribute) for e in lexeme.entity_ids]
        return [
            {stem(w) for w in fold(str(v)).split()}
            for h in held
            if h is not None
            for v in (h if isinstance(h, list) else [h])
        ]

    def _a_person(self, lexeme: Lexeme) -> bool:
        return lexeme.cat == "ENT" and any(
            self.index.entities[e].type == EntityType.Person for e in lexeme.entity_ids
        )

    def _counted_things(self, tokens: list[Token], row: list[Lexeme]) -> list[Lexeme]:
        """Marks a bare number right before a word naming no KB column (`Lexeme.counted`): "2
        flights" counts flights; "3 bedrooms" may be number_of_beds ("bed" starts "bedroom"),
        "for 2 people" (a `party-noun`) says how many come, and "15 years" is an age or a
        length: each may be a column of the KB's own."""
        for lexeme in row:
            if (
                lexeme.cat == "VAL"
                and lexeme.value_type == ValueType.number
                and lexeme.text.isdigit()
                and not YEAR_RE.fullmatch(lexeme.text)  # "a 2012 song": its year
                and lexeme.end_tok < len(tokens)
                and tokens[lexeme.end_tok].kind == "word"
                and tokens[lexeme.end_tok].start == lexeme.end + 1
            ):
                word = fold(tokens[lexeme.end_tok].text)
                noun = stem(word)
                kinds = [str(k) for k in self.words.markers.get(word)]
                # "for 2 people" counts who comes; "15 years old" is an age, "2 weeks" a length
                party = word in _TIME_UNITS or any(k.startswith("party-noun") for k in kinds)
                lexeme.counted = (
                    not party
                    and noun not in _COUNT_FREE
                    and not any(
                        noun.startswith(part) or part.startswith(noun)
                        for part in self._column_stems
                        if min(len(part), len(noun)) >= _MIN_SHARED_STEM
                    )
                )
        return row

    @cached_property
    def _column_stems(self) -> frozenset[str]:
        return frozenset(
            stem(p) for a in self.index.schema for p in a.lower().split("_") if p.isalpha()
        )

    @cached_property
    def class_attributes(self) -> frozenset[str]:
        return class_attributes(self.index, self.words)

    def _class_complements(
        self, tokens: list[Token], folded: list[str], row: list[Lexeme], asked: frozenset[str]
    ) -> list[Lexeme]:
        """A class said as what a thing is, where the reply answers for one ("It's a punk
        song" to "What kind of music is it?"; text/class_values.py)."""
        # a cue naming the class itself ("the genre", "ride type"), not only the thing ("ride")
        named = {
            a
            for lx in row
            if lx.cat == "CUE"
            and any("class-word" in self.words.markers.get(w) for w in lx.text.lower().split())
            for a in lx.attributes
            if a in self.class_attributes
        }
        wanted = named or asked
        if len(wanted) != 1:
            return row
        (attribute,) = wanted
        spans = class_complement_spans(
            tokens,
            folded,
            row,
            attribute,
            plain=FUNCTION_WORDS.__contains__,
            descriptive=lambda w: "descriptive-word" in self.words.markers.get(w),
            asked=attribute in asked,
        )
        if not spans:
            return row
        return _respan(
            row, spans, lambda i, j: class_value(_lexeme(tokens, i, j, "W"), attribute), tokens
        )

    def _names_after_classes(
        self, tokens: list[Token], folded: list[str], row: list[Lexeme]
    ) -> list[Lexeme]:
        """A thing's name said after its class ("a Compact Ridgeline car", text/titles.py): a
        name, the KB's or one it lacks, where the lexemes were words."""
        classes = self.name_values.classes
        spans: list[tuple[int, int]] = []
        end = row[-1].end_tok if row else 0
        for k, lexeme in enumerate(row):
            if lexeme.cat != "VAL" or not classes.intersection(lexeme.attributes):
                continue
            span = name_after_class(
                tokens,
                folded,
                lexeme.end_tok,
                end,
                common=self._emphasis,
                plain=lambda w: w in FUNCTION_WORDS or w in self.index.attribute_words,
            )
            covered = [
                lx
                for lx in row[k + 1 :]
                if span and lx.end_tok > span[0] and lx.start_tok < span[1]
            ]
            if span is None or not all(lx.cat in ("W", "NAME") for lx in covered):
                continue
            spans.append(
                (span[0], max([span[1], *(lx.end_tok for lx in covered if lx.cat == "NAME")]))
            )
        return _respan(row, spans, lambda i, j: self._title(tokens, i, j), tokens) if spans else row

    def _titles(self, tokens: list[Token], folded: list[str], row: list[Lexeme]) -> list[Lexeme]:
        """Titles said before their maker ("How about Hold Me Close by Wren Avery?",
        text/titles.py): a name, the KB's or one it lacks, where the lexemes were words."""
        makers = self.name_values.makers
        spans: list[tuple[int, int]] = []
        for k, lexeme in enumerate(row):
            if k == 0 or lexeme.cat != "VAL" or not makers.intersection(lexeme.attributes):
                continue
            if row[k - 1].cat != "W":
                continue
            span = title_before_maker(
                tokens,
                folded,
                row[0].start_tok,
                lexeme.start_tok - 1,
                lower_case=not tokens[lexeme.start_tok].text[:1].isupper(),
                function_word=FUNCTION_WORDS.__contains__,
                opener=lambda w: bool(
                    {"imperative-verb", "discourse-opener"} & set(self.words.markers.get(w))
                ),
                common=self._emphasis,
            )
            covered = [
                lx for lx in row[:k] if span and lx.end_tok > span[0] and lx.start_tok < span[1]
            ]
            if span is None or not all(_title_word(lx) for lx in covered):
                continue
            start = min([span[0], *(lx.start_tok for lx in covered if lx.cat == "NAME")])
            spans.append((start, span[1]))
        return _respan(row, spans, lambda i, j: self._title(tokens, i, j), tokens) if spans else row

    def _title(self, tokens: list[Token], i: int, j: int) -> Lexeme:
        """A name by its position is a name, common words and all ("Curious by Wren Avery")."""
        lexeme = self._name(tokens, i, j)
        lexeme.common_word = False
        return lexeme

    def _capitalised_openers(
        self, tokens: list[Token], row: list[Lexeme], start: int
    ) -> list[Lexeme]:
        """A capitalised "No", "It" or "You" inside a sentence, right before a name, opens that
        name ("from No More Hollywood Endings", "the album It Feel Good"): a title's own word,
        not a negation or a pronoun."""
        out: list[Lexeme] = []
        for lexeme in row:
            # "It Never Sleeps": each capitalised word before the name joins it in turn
            while out and _opens_title(tokens, out[-1], lexeme, start):
                lexeme = self._title(tokens, out.pop().start_tok, lexeme.end_tok)
            out.append(lexeme)
        return out

    def _writes_names_lower(self, tokens: list[Token], rows: list[list[Lexeme]]) -> bool:
        """Whether the text writes in lower case a KB name the KB capitalises ("how about
        buzzcut season"): its names cannot be told by their capitals."""
        for row in rows:
            for lx in row:
                if lx.cat == "ENT" and not any(
                    t.is_capitalised for t in tokens[lx.start_tok : lx.end_tok]
                ):
                    label = self.index.entities[lx.entity_ids[0]].label
                    if any(c.isupper() for c in label):
                        return True
        return False

    def _lower_case_makers(self, tokens: list[Token], row: list[Lexeme]) -> list[Lexeme]:
        """In a text that writes names in lower case, the words after "by" up to the next
        function word or stop ("buzzcut season by ciara from the album ...", "2 songs by super
        sako.") are a name in a value's place: the value of the KB's one name-valued attribute
        of who makes the thing (text/name_values.py), a claim to check."""
        out: list[Lexeme] = []
        taken = {a for lx in row if lx.cat == "VAL" for a in lx.attributes}
        for lexeme in row:
            span = self._maker_span(tokens, lexeme) if lexeme.cat == "W" else None
            attribute = None
            if span is not None:
                words = tuple(word_key(t.text) for t in tokens[span[0] : span[1]])
                attribute = self.name_values.attribute_for(
                    words,
                    after_article=False,
                    taken=taken,
                    sentence_stems=frozenset(),
                    after_by=True,
                )
            if span is None or attribute is None:
                out.append(lexeme)
                continue
            i, j = span
            if lexeme.start_tok < i:
                out.append(_lexeme(tokens, lexeme.start_tok, i, "W"))
            value = _lexeme(tokens, i, j, "VAL")
            value.value_type, value.attributes, value.name_value = (
                ValueType.text,
                (attribute,),
                True,
            )
            value.value_key = value_key(ValueType.text, value.text)
            out.append(value)
            taken.add(attribute)
            if j < lexeme.end_tok:
                out.append(_lexeme(tokens, j, lexeme.end_tok, "W"))
        return out

    def _maker_span(self, tokens: list[Token], lexeme: Lexeme) -> tuple[int, int] | None:
        """The lower-case words right after "by" in a run of other words, up to a function
        word or a stop (at most `_MAX_MAKER_WORDS`)."""
        for k in range(lexeme.start_tok, lexeme.end_tok - 1):
            if tokens[k].lower != "by":
                continue
            j = k + 1
            while (
                j < lexeme.end_tok
                and j - k <= _MAX_MAKER_WORDS
                and tokens[j].kind == "word"
                and tokens[j].text.islower()
                and fold(tokens[j].text) not in FUNCTION_WORDS
                and fold(tokens[j].text) not in _LOCATIVES
            ):
                j += 1
            return (k + 1, j) if j > k + 1 and j - k <= _MAX_MAKER_WORDS else None
        return None

    def _names_past_short_forms(self, tokens: list[Token], row: list[Lexeme]) -> list[Lexeme]:
        """A short form of KB names (a first or last word that only names them implicitly,
        "Nationals" of "Nationals Vs Braves") that runs straight on into capitalised words the
        KB does not know opens a longer name: "Nationals Vs Rockies" is one unknown name, of the
        kind they name (no value of theirs: `_names_as_values`)."""
        out: list[Lexeme] = []
        for lexeme in row:
            before = out[-1] if out else None
            numbered = (
                # "Fibre 2000" beside "Fibre 100" and "Fibre 900": a number the KB's names of
                # this kind end in, another one
                lexeme.cat == "VAL"
                and lexeme.value_type == ValueType.number
                and lexeme.text.isdigit()
                and before is not None
                and fold(before.text) in self._numbered_name_heads
            )
            if (
                before is not None
                and before.cat == "ENT"
                and (before.implicit_name or numbered)
                and (lexeme.cat == "NAME" or numbered)
                and before.end_tok == lexeme.start_tok
            ):
                out[-1] = self._name(tokens, before.start_tok, lexeme.end_tok)
                out[-1].kin_name = out[-1].cat == "NAME"
                continue
            out.append(lexeme)
        return out

    @cached_property
    def _numbered_name_heads(self) -> frozenset[str]:
        """The words KB names of two or more end in a number after ("fibre" of "Fibre 100",
        "Fibre 300")."""
        heads = Counter(
            fold(" ".join(words[:-1]))
            for e in self.index.entities.values()
            for n in e.names
            if len(words := n.split()) > 1 and words[-1].isdigit()
        )
        return frozenset(h for h, count in heads.items() if count > 1)

    def _names_as_values(self, tokens: list[Token], row: list[Lexeme]) -> list[Lexeme]:
        """Unknown names where a value stands ("at Cedar Hall", "by Ana Lindqvist", "a Brass
        Ensemble evening", by a cue: "the album Hat Nhan", "the Hat Nhan album"): the value of
        the one name-valued attribute of the KB they fit (text/name_values.py), a claim to
        check, not an invented entity. Not after another unknown name: the value may be that
        one's."""
        taken = {a for lx in row if lx.cat == "VAL" for a in lx.attributes}
        stems = frozenset(
            stem(w) for lx in row if lx.cat in ("W", "CUE") for w in lx.text.lower().split()
        )
        out: list[Lexeme] = []
        for k, lexeme in enumerate(row):
            before = out[-1] if out else None
            words = before.text.lower().split() if before is not None else []
            article = words[-1:] in (["a"], ["an"])
            cued = before.attributes if before is not None and before.cat == "CUE" else ()
            after = row[k + 1] if k + 1 < len(row) else None
            if not cued and words[-1:] == ["the"] and after is not None and after.cat == "CUE":
                cued = after.attributes  # "from the Hat Nhan album": the cue after the name
            located = (
                bool(_VALUE_PREPOSITIONS & set(words[-2:]))
                and bool(words)
                and words[-1] in _AFTER_PREPOSITION
                and words[-1] != "by"
            )
            if lexeme.cat == "VAL" and words[-1:] == ["by"] and len(lexeme.attributes) > 1:
                # "by Narsha", a value of both album and artist: who made the thing
                lexeme.attributes = self.name_values.makers_of(lexeme.attributes)
            if (
                lexeme.cat != "NAME"
                # a capitalised word after "by" is its maker's name ("by Future"), not emphasis
                or (lexeme.common_word and words[-1:] != ["by"])
                # "Nationals Vs Rockies" beside "Nationals Vs Braves" is a name of their kind,
                # but "at Nationals Park" stands where a venue does
                or (lexeme.kin_name and not located)
                or any(lx.cat == "NAME" for lx in out)  # "Ana Ruiz at the office in Perth"
                or before is None
                or not (cued or before.cat == "W" and (article or located or words[-1:] == ["by"]))
            ):
                out.append(lexeme)
                continue
            attribute = self.name_values.attribute_for(
                tuple(word_key(w) for w in lexeme.text.split()),
                after_article=article,
                taken=taken,
                sentence_stems=stems,
                after_by=words[-1:] == ["by"],
                cued=cued,
            )
            if attribute is None:
                out.append(lexeme)
                continue
            if tokens[lexeme.start_tok - 1].text == "The":
                # "at The Old Mill": a capital "The" inside a sentence is the name's own
                out.pop()
                if before.start_tok < lexeme.start_tok - 1:
                    out.append(_lexeme(tokens, before.start_tok, lexeme.start_tok - 1, "W"))
                lexeme = _lexeme(tokens, lexeme.start_tok - 1, lexeme.end_tok, "NAME")
            lexeme.cat, lexeme.value_type, lexeme.attributes = "VAL", ValueType.text, (attribute,)
            lexeme.name_value = True
            lexeme.value_key = value_key(ValueType.text, lexeme.text)
            taken.add(attribute)
            out.append(lexeme)
        return out

    def _pronouns_in_context(self, row: list[Lexeme]) -> list[Lexeme]:
        """Pronouns their neighbours re-read: "she didn't write it" (after a relation's cue,
        "it" is the value, an entity the reader resolves); "its 6 miles away" ("it's" typed
        without its apostrophe); "cost you" (the cue's object)."""
        for before, lexeme in zip(row, row[1:], strict=False):
            if (
                lexeme.cat == "PRON"
                and lexeme.pronoun in _OBJECT_PRONOUNS
                and before.cat == "CUE"
                and any(self.index.attribute_type(a) == ValueType.entity for a in before.attributes)
            ):
                lexeme.cat, lexeme.value_type = "VAL", ValueType.entity
            elif lexeme.cat == "VAL" and before.cat == "PRON_POSS" and before.pronoun == "its":
                before.cat, before.pronoun = "PRON", "it"
            elif lexeme.cat == "ADDR" and fold(lexeme.text) == "you" and before.cat == "CUE":
                lexeme.cat = "W"  # "it would cost you $108": the verb's object, no new subject
            if (
                before.cat == "PRON"
                and before.pronoun == "it"
                and lexeme.cat == "W"
                and "empty-it-verb" in self.words.markers.get(fold(lexeme.text.split()[0]))
            ):
                before.cat, before.pronoun = "W", None  # "if it helps": "it" stands for nothing
        return row

    def _lexeme_at(self, tokens, folded, i, end, temporal_starts, previous) -> Lexeme:  # noqa: ANN001, C901
        tok = tokens[i]
        mention = temporal_starts.get(i)
        known = self.index.values.longest(folded[:end], i)
        if known is None and tok.kind == "num":
            # "16 Quay Street" where the KB has "14 Quay Street": that value, with other numbers
            known = self.index.numbered_values.longest(mask_numbers(folded[:end]), i)
        if known is None and mention is None and mixed_word(folded[i]):
            # "HF3 7WL" where the KB's postcode is "HF3 7LW": a code of that value's shape
            window = folded[i : min(end, i + MAX_VALUE_TOKENS)]  # no value is longer
            known = self.index.shaped_values.longest(mask_codes(window), 0)
            if known is not None and known[0] == 1:
                return self._known_value(tokens, i, i + 1, known[1])
        if (
            known is not None
            and known[0] > 1
            and (mention is None or _token_end(tokens, mention.end, i, end) - i < known[0])
            and not self._names_subject(folded[:end], i, known[0], previous)
            and not _function_words_only(tokens, i, i + known[0])
        ):
            # a KB value longer than any shape found here: "200 Alester Ave", "5 miles"
            return self._known_value(tokens, i, i + known[0], known[1])
        if mention is not None and not self._longer_name(folded[:end], i, mention, tokens, end):
            j = _token_end(tokens, mention.end, i, end)
            return self._value(
                tokens, i, j, _TEMPORAL_TYPES.get(mention.kind, ValueType.date), temporal=mention
            )
        if tok.kind in _TOKEN_VALUE_TYPES:
            name = self.index.names.longest(folded[:end], i) if tok.kind == "ident" else None
            if name is not None and not _expects_value(previous):
                # "TR7075 leaves at 05:00": a code that names a KB entity
                ids, implicit = self._name_owners(name[1])
                if not implicit:
                    return _lexeme(tokens, i, i + name[0], "ENT", entity_ids=ids)
            if (
                tok.kind == "ident"
                and name is None
                and not _expects_value(previous)
                and self.index.code_name_shapes.get(code_shape(tok.text), 0)
                >= self.code_name_holders
            ):
                # "SA219 leaves at 18:30" where the KB's flights are SA101, SA215: a name of
                # theirs the KB lacks (codes are never a near spelling of one another)
                return _lexeme(tokens, i, i + 1, "NAME")
            return self._value(tokens, i, i + 1, _TOKEN_VALUE_TYPES[tok.kind])
        if tok.kind == "num":
            name = self.index.names.longest(folded[:end], i)
            if name is not None:  # "76 is at 550 Alester Ave": a gas station called 76
                ids, implicit = self._name_owners(name[1])
                if not implicit:
                    return _lexeme(tokens, i, i + name[0], "ENT", entity_ids=ids)
            street = self._street(tokens, folded, i, end) or self._bare_street(tokens, i, end)
            if street:  # "383 Miller Avenue": an address, its words no name
                return self._value(tokens, i, street, ValueType.text)
            j = i + 1
            joined = j + 1 < end and folded[j] == "-" and tokens[j + 1].start == tokens[j].end
            noun = folded[j + joined] if j + joined < end else ""
            # a unit of two letters counts only joined to its number ("60GB", not "60 gb")
            short = 0 < len(noun) < 3 and tokens[j].start != tok.end
            counted = self.index.counted_by(noun) if noun and not short else ()
            if counted and tokens[j].start == tok.end and joined:
                j += 2  # "a 3-bed house": the count and its noun joined
            elif joined and tokens[j].start == tok.end and _joined_unit(folded[j + 1]):
                j += 2  # "a 17-year-old", "a 45-minute lesson": a measure, never a price
            elif (
                j < end
                and (folded[j] in _UNITS or folded[j] in self.index.value_units or counted)
                and tokens[j].start - tok.end <= 1
            ):
                j += 1
                if j < end and folded[j] in _SCALES and folded[j - 1] == "degrees":
                    j += 1  # "59 degrees Fahrenheit": the scale is part of the measure
            if j == i + 1 and joined:
                counted = ()
            if not counted and j > i + 1:
                counted = self.index.measured_by.get(folded[i + 1], ())
            lexeme = self._value(tokens, i, j, ValueType.number)
            # "3 bedrooms": the noun a number column counts names that column; "9 degrees": the
            # unit, the column it measures
            lexeme.attributes = counted
            return lexeme
        words = folded[:end]
        if self._booked_thing(words, i) or self._described_thing(words, i):
            # "your reservation is $210", "the class is an hour long": the thing in focus, as
            # "it" would be
            return _lexeme(tokens, i, i + 2, "PRON", pronoun="it")
        candidates = []
        for table, cat in (
            (self.index.names, "ENT"),
            (self.index.values, "VAL"),
            (self.index.cues, "CUE"),
        ):
            hit = table.longest(words, i)
            if hit is not None and not (
                cat == "ENT" and self._owner_before_value(words, i, hit[0])
            ):
                candidates.append((hit[0], cat, hit[1]))
        marker = self.words.primary.longest(words, i)
        if marker is not None:
            candidates.append((marker[0], "MARK", marker[1]))
        opposite = self._opposite_cue(tokens, words, i)
        if opposite is not None and not any(c[0] >= opposite.end_tok - i for c in candidates):
            return opposite
        if candidates:
            best = max(candidates, key=lambda c: (c[0], -_CAT_ORDER.index(c[1])))
            n, cat, payload = best
            lexeme = self._from_table(tokens, i, i + n, cat, payload, candidates, previous)
            if lexeme is not None and opposite is not None and lexeme.cat == "CUE":
                # "open" beside closed_days: a cue for the opening hours that denies the
                # closed days (not the closing times, the other end of the opening ones' range)
                lexeme.denies = tuple(
                    a
                    for a in opposite.attributes
                    if not any(self.index.bound_pair(a, b) for b in lexeme.attributes)
                )
            if lexeme is not None:
                return lexeme
        word = folded[i]
        if not tok.is_capitalised and _after_locative(previous):
            # "the weather in danville": a place name written in lower case
            n = place_at(folded[:end], i)
            if n and (n > 1 or not self._emphasis(word)):  # "in reading" is no place
                return self._name(tokens, i, i + n)
        if word in self.words.pronouns:
            cat = "PRON_POSS" if word in _POSSESSIVE_PRONOUNS else "PRON"
            return _lexeme(tokens, i, i + 1, cat, pronoun=word)
        if word in _DEMONSTRATIVES and i + 1 < end and folded[i + 1] in _SINGULAR_IS:
            # "That's a great movie", "This is the one": a thing already named, like "it"
            return _lexeme(tokens, i, i + 1, "PRON", pronoun="it")
        if tok.kind == "clitic" and word in ("'s", "’s"):
            # "it's", "that's", "there's": a contracted "is"; "John's": a possessive
            before = folded[i - 1] if i > 0 else ""
            return _lexeme(tokens, i, i + 1, "COP" if before in _IS_CONTRACTORS else "POSS")
        if word in _OF:
            return _lexeme(tokens, i, i + 1, "OF")
        if is_short_code(tok.text) and any(
            lx.cat == "CUE" and any(self.index.holds_codes(a) for a in lx.attributes)
            for lx in previous
        ):
            return self._value(tokens, i, i + 1, ValueType.text)  # "its code is KWL"
        if tok.is_capitalised:
            cue = _governing_cue(previous)
            if cue is not None and any(
                self.index.attribute_type(a) in _TEXT_TYPES for a in cue.attributes
            ):
                # "works in Legal": a value the KB does not list, not a new entity
                j = i + 1
                while j < end and tokens[j].is_capitalised:
                    j += 1
                return self._value(tokens, i, j, ValueType.text)
            # a clause after a colon starts like a sentence ("Please confirm: Booking 2 ...")
            opens = not previous or previous[-1].text.rstrip().endswith(":")
            name = self._proper_name(
                tokens, folded, i, end, at_start=opens, heads=_heads_noun(previous, i)
            )
            if (
                name is not None
                and name.cat == "NAME"
                and cue is not None
                and any(self.index.attribute_type(a) == ValueType.entity for a in cue.attributes)
            ):
                # "written by J.K. Rowling": an unknown name that is the value of a relation
                name.cat, name.new_name = "VAL", True
                name.value_type = ValueType.entity
                name.value_key = value_key(ValueType.entity, name.text)
            if name is not None:
                return name
        return _lexeme(tokens, i, i + 1, "W")

    def _from_table(self, tokens, i, j, cat, payload, candidates, previous) -> Lexeme | None:  # noqa: ANN001
        if cat == "ENT":
            ids, implicit = self._name_owners(payload)
            if implicit and not tokens[i].is_capitalised:
                return None
            value_hit = next((c for c in candidates if c[1] == "VAL" and c[0] == j - i), None)
            if value_hit is not None and _expects_value(previous) and not self._owner(previous):
                return self._known_value(tokens, i, j, value_hit[2])
            if (
                j - i == 1
                and not tokens[i].is_capitalised
                and fold(tokens[i].text) in FUNCTION_WORDS
            ):
                return None
            return _lexeme(tokens, i, j, "ENT", entity_ids=ids, implicit_name=implicit)
        if cat == "VAL":
            if j - i == 1 and len(tokens[i].text) == 1 and tokens[i].text.islower():
                return None  # "a garden": the article, not a letter code ("band A")
            if _function_words_only(tokens, i, j):
                return None
            return self._known_value(tokens, i, j, payload)
        if cat == "CUE":
            return _lexeme(tokens, i, j, "CUE", attributes=tuple(dict.fromkeys(payload)))
        kinds: list[str] = payload
        for kind, lex_cat in _MARKER_CATEGORIES:
            if kind in kinds:
                if lex_cat == "SEP" and previous and previous[-1].cat == "COP":
                    return None  # "is also a museum": an adverb of the clause, joining none
                return _lexeme(tokens, i, j, lex_cat)
        return None

    def _owner(self, previous: list[Lexeme]) -> bool:
        """After "the code for", "the price of": the name owns the attribute the cue names,
        unless the cue is a relation's ("works at X": X is the value)."""
        if len(previous) < 2 or previous[-2].cat != "CUE" or previous[-1].cat not in ("W", "OF"):
            return False
        words = [w for w in previous[-1].text.lower().split() if w not in ("the", "a", "an")]
        return words in (["of"], ["for"], ["at"], ["on"]) and not any(
            self.index.attribute_type(a) == ValueType.entity for a in previous[-2].attributes
        )

    def _longer_name(self, words, i, mention, tokens, end) -> bool:  # noqa: ANN001
        """A KB name that starts with a time or day and goes on past it ("Morning Session",
        "Saturday Club"): the name, not the time."""
        name = self.index.names.longest(words, i)
        if name is None and words[i] in ("a", "an") and i + 1 < len(words):
            # "a day pass": the article opens the mention "a day", but the name follows it
            after = self.index.names.longest(words, i + 1)
            name = None if after is None else (after[0] + 1, after[1])
        return name is not None and name[0] > _token_end(tokens, mention.end, i, end) - i

    def _opposite_cue(self, tokens: list[Token], words: list[str], i: int) -> Lexeme | None:
        """ "closed" where the KB has an attribute "open" names and none "closed" names: a cue
        for that attribute that denies it (`opposite-cue` in metta/lexicon.metta)."""
        hit = self.words.opposite_cues.longest(words, i)
        if hit is None:
            return None
        n, cues = hit
        attributes = tuple(dict.fromkeys(a for cue in cues for a in self.index.cues.get(str(cue))))
        if not attributes:
            return None
        return _lexeme(tokens, i, i + n, "CUE", attributes=attributes, negates=True)

    def _name_owners(self, hits: tuple[NameHit, ...]) -> tuple[tuple[str, ...], bool]:
        """Entity ids sharing a name, and whether it is only ever an implicit first/last name.
        Remembered per phrase: a first name can be shared by thousands of people."""
        cached = self._owners.get(id(hits))
        if cached is None or cached[0] is not hits:
            ids = tuple(dict.fromkeys(h.entity_id for h in hits))
            cached = self._owners[id(hits)] = (hits, ids, all(h.implicit for h in hits))
        return cached[1], cached[2]

    def _known_value(self, tokens, i, j, payload) -> Lexeme:  # noqa: ANN001
        attributes = tuple(payload)
        lexeme = self._value(tokens, i, j, self.index.attribute_type(attributes[0]))
        lexeme.attributes = attributes
        return lexeme

    def _value(self, tokens, i, j, vtype, temporal=None) -> Lexeme:  # noqa: ANN001
        lexeme = _lexeme(tokens, i, j, "VAL", value_type=vtype, temporal=temporal)
        lexeme.value_key = temporal.value if temporal is not None else value_key(vtype, lexeme.text)
        return lexeme

    def _booked_thing(self, words: list[str], i: int) -> bool:
        """ "your" before a `booking-noun` that names no KB thing ("your suite" may), and not
        before what is booked ("your reservation for 4 tickets for ...": the request)."""
        return (
            words[i] == "your"
            and i + 1 < len(words)
            and "booking-noun" in self.words.markers.get(words[i + 1])
            and self.index.names.longest(words, i) is None
            and (i + 2 >= len(words) or words[i + 2] != "for")
        )

    def _described_thing(self, words: list[str], i: int) -> bool:
        """ "the" before a `focus-noun` ("the class", "the show") that names no KB thing, value or
        column, and that no "of"/"for" phrase goes on to name ("the tour of the castle")."""
        if words[i] != "the" or i + 2 >= len(words):
            return False
        noun = words[i + 1]
        # "the theater is at 2230 Shattuck Avenue": the thing a name column (theater_name) of
        # the row in focus names, as a focus-noun is
        named = f"{noun}_name" in self.index.schema
        return (
            ("focus-noun" in self.words.markers.get(noun) or named)
            and self.index.names.longest(words, i) is None
            and self.index.names.longest(words, i + 1) is None
            and self.index.values.longest(words, i + 1) is None
            and (named or self.index.cues.longest(words, i + 1) is None)
            and words[i + 2] not in _DESCRIBED_AFTER
        )

    def _owner_before_value(self, words: list[str], i: int, n: int) -> bool:
        """ "our practice manager": a KB value starting after our/your/the runs past the name
        the n words at i form ("our practice" of "the practice"); "our" owns the value."""
        if n < 2 or words[i] not in ("our", "your", "the"):
            return False
        value = self.index.values.longest(words, i + 1)
        return value is not None and value[0] > n - 1

    def _names_subject(self, words: list[str], i: int, n: int, previous: list[Lexeme]) -> bool:
        """Whether the n words at i, a KB value, are as well the name of an entity and stand
        where a subject does ("The Wonderful Wizard of Oz was released in 1900", a book that is
        also the value of its author's "wrote"), or begin a longer name."""
        name = self.index.names.longest(words, i)
        return name is not None and (
            name[0] > n  # "There is the Harbour Jazz Night": the longer name, not "Harbour"
            or (name[0] == n and (not _expects_value(previous) or self._owner(previous)))
        )

    def _street(self, tokens, folded, i, end) -> int:  # noqa: ANN001
        """The end of a street address opening with the house number at i ("1422 Southwest 11th
        Avenue", "27 harbour row", "52-19 Flushing Avenue"): up to four words, the last a
        `street-word`, then what `_street_tail` adds; 0 for none."""
        if (
            i + 2 < end
            and folded[i + 1] == "-"
            and tokens[i + 2].kind == "num"
            and tokens[i].end == tokens[i + 1].start
            and tokens[i + 1].end == tokens[i + 2].start
        ):
            i += 2  # a house number of two parts, "52-19"
        for j in range(i + 2, min(end, i + 6)):
            word = tokens[j - 1]
            if word.kind not in ("word", "num") or folded[j - 1] in FUNCTION_WORDS:
                return 0
            if word.kind == "num" and not word.text[-2:].isalpha():
                return 0  # "11th" may name a street, "4 5" is no street
            if j - i > 2 and "street-word" in self.words.markers.get(folded[j - 1]):
                return self._street_tail(tokens, folded, j, end)
        return 0

    def _street_tail(self, tokens, folded, j, end) -> int:  # noqa: ANN001
        """The end of a street address whose street word ends at j: a compass point after it
        ("1 AMB Drive Northwest": `street-direction`), and, where the KB writes its addresses
        with their town ("261 Driggs Avenue, Brooklyn"), a comma and one or two capitalised
        words that end the clause."""
        if j < end and "street-direction" in self.words.markers.get(folded[j]):
            j += 1
        if not (self._towns_after_streets and j + 1 < end and folded[j] == ","):
            return j
        k = j + 1
        while k < end and k - j <= 2 and tokens[k].kind == "word" and tokens[k].is_capitalised:
            k += 1
        closed = k == end or (tokens[k].kind == "punct" and folded[k] != "-")
        return k if k > j + 1 and closed else j

    @cached_property
    def _towns_after_streets(self) -> bool:
        """Whether the KB's street addresses go on past the street's word with a comma and a
        town ("261 Driggs Avenue, Brooklyn")."""
        for entity in self.index.entities.values():
            for values in entity.attributes.values():
                for value in values if isinstance(values, list) else [values]:
                    text = str(value).replace(",", " , ")
                    street = self.street_word_at(text)
                    if street is not None and "," in text.split()[street + 1 :]:
                        return True
        return False

    def street_word_at(self, text: str) -> int | None:
        """Where a text shaped like a street address (a house number, then words one of which
        is a `street-word`: "261 Driggs Avenue, Brooklyn") has its street word, by word; None
        for a text of another shape."""
        words = [w.strip(",.;").lower() for w in text.split()]
        if len(words) < 2 or not any(c.isdigit() for c in words[0]):
            return None
        return next(
            (k for k, w in enumerate(words) if k and "street-word" in self.words.markers.get(w)),
            None,
        )

    def _bare_street(self, tokens: list[Token], i: int, end: int) -> int:
        """The end of an address with no street word ("820 East El Camino Real?"): a house
        number of two digits or more, not a year, then two to four capitalised words that end
        the clause; 0 for none."""
        number = tokens[i].text
        if not (number.isdigit() and len(number) >= 2) or YEAR_RE.fullmatch(number):
            return 0
        j = i + 1
        while j < end and j - i <= 4 and tokens[j].is_capitalised:
            j += 1
        closed = j == end or tokens[j].kind == "punct"
        return j if j - i >= 3 and closed else 0

    def _column_word(self, word: str) -> bool:
        """A word of the KB's own attribute names or cues, in the singular or the plural
        ("Stalls", "Concessions" of `stalls_price`, `concession_price`): a word of the domain."""
        words = self.index.attribute_words
        return word in words or (word.endswith("s") and word[:-1] in words)

    def _not_a_name(self, word: str) -> bool:
        kinds = self.words.markers.get(word)
        return "discourse-opener" in kinds or "not-a-name" in kinds

    def _common_plural(self, word: str) -> bool:
        """The plural of a common word ("teens", "toddlers", "classes")."""
        singulars = (word[:-1], word[:-2]) if word.endswith("es") else (word[:-1],)
        return (
            word.endswith("s")
            and not word.endswith("ss")
            and any(len(s) >= 3 and self._emphasis(s) for s in singulars)
        )

    def _adverb(self, word: str) -> bool:
        """A word in -ly made from a common word ("alternatively", "happily", "possibly")."""
        if not word.endswith("ly") or len(word) < 6:
            return False
        stems = (word[:-3] + "y",) if word.endswith("ily") else (word[:-2], word[:-1] + "e")
        return any(self._verb(s) for s in stems)

    def _gerund(self, word: str) -> bool:
        """A word in -ing whose verb is a common word ("navigating", "plotting", "displaying");
        "Irving" and "Fleming" have no such verb and stay names."""
        if not word.endswith("ing") or len(word) < 6:
            return False
        stem = word[:-3]
        verbs = (stem, stem + "e", stem[:-1] if len(stem) > 2 and stem[-1] == stem[-2] else "")
        return any(v and self._verb(v) for v in verbs)

    def _misspelt_opener(self, tokens: list[Token], folded: list[str], i: int) -> bool:
        """A sentence's first word, followed by a lower-case word or "I", that is no English word
        but one letter away from a very common one ("Wher would", "Hsve fun", "Cna I"): the
        word misspelt, not a name ("Inna is playing": "inn" is not that common)."""
        word = folded[i]
        after = tokens[i + 1] if i + 1 < len(tokens) else None
        if (
            after is not None
            and after.kind == "word"
            and after.is_capitalised
            and after.text != "I"
        ):
            return False  # "Inna Kovacs is ...", but "Cna I help?"
        if self._emphasis(word) or not word.isalpha():
            return False
        own = self._prior(word)
        return any(
            self._opener(e) and self._prior(e) - own >= _MISSPELT_MARGIN for e in one_edit(word)
        )

    def _proper_name(self, tokens, folded, i, end, *, at_start: bool, heads: bool) -> Lexeme | None:  # noqa: ANN001, E501
        """Capitalised words the KB does not know. A single capitalised word opening a sentence
        is a name only if it is not an English word ("Noted.", "Sure," are not names); nor is
        one right after a name or a number (HEADS: "the Shakey Graves Concert", "1 Ticket"),
        the noun of the thing named or counted."""
        if (
            folded[i] in FUNCTION_WORDS
            and not (
                folded[i] in _TITLE_ADJECTIVES
                and i > 0
                and folded[i - 1] == "the"
                and i + 1 < end
                and tokens[i + 1].is_capitalised
            )
            and not self._titled_article(tokens, folded, i, end, at_start=at_start)
        ):
            return None  # "The Budget Review": the name starts after the article
        j = i
        while j < end and (
            tokens[j].is_capitalised
            or (
                (folded[j] in _NAME_CONNECTORS or _closes_initial(tokens, j))
                and j + 1 < end
                and tokens[j + 1].is_capitalised
                and j > i
            )
        ):
            inside = tokens[j].is_capitalised and j + 1 < end and tokens[j + 1].is_capitalised
            if j > i and not inside and self.words.primary.longest(folded[:end], j) is not None:
                break  # "Ana and", but "Pizza My Heart": a capitalised word inside a name
            if j > i and self._kb_name_at(folded[:end], j):
                break  # "Cedar Hall of Autumn Cello Night": the unknown name ends at the KB's
            j += 1
        while j > i and folded[j - 1] in _NAME_CONNECTORS:
            j -= 1
        if j - i == 1 and (
            folded[i] in FUNCTION_WORDS
            # a common word: emphasis ("Coffee places", "Chinese restaurants"), unless it
            # stands alone mid-sentence ("Directions to Shell are ...", "is Shell at ...")
            or (
                self._emphasis(folded[i])
                and (at_start or heads or not _stands_alone(tokens, folded, i))
            )
            or (at_start and self._common_plural(folded[i]))  # "Teens can join ...": a word
            or self._not_a_name(folded[i])  # "Oh, ...", "Interestingly, ...", "Im sure"
            or tokens[i].text.isupper()  # "GPS", "ETA": an acronym, not someone's name
            or (at_start and self._gerund(folded[i]))  # "Navigating to Stanford": a verb
            or (at_start and self._misspelt_opener(tokens, folded, i))  # "Wher would you"
            or self._adverb(folded[i])  # "Alternatively, ...", "Frankly": not "Emily", "Holly"
            or self._column_word(folded[i])  # "Stalls are £20" of `stalls_price`: the domain's
        ):
            return None
        if (
            j - i >= 2
            and at_start
            and self._opener(folded[i])
            and (
                folded[i].endswith("ing") or "imperative-verb" in self.words.markers.get(folded[i])
            )
        ):
            return None  # "Ask Rebecca Stone", "Setting GPS": the name starts after the verb
        if j == i or self.index.inside_value(folded[i:j]):
            return None  # "Station Road" of the KB's "Unit 4B, Riverside Retail Park, Station Road"
        return self._name(tokens, i, j)

    def _titled_article(self, tokens, folded, i, end, *, at_start: bool) -> bool:  # noqa: ANN001
        """A capital "The" inside a sentence before capitalised words the KB does not know
        begins their name ("How's The Long Night sound?"); not before a KB name or value."""
        return (
            not at_start
            and tokens[i].text == "The"
            and i + 1 < end
            and tokens[i + 1].is_capitalised
            and self.index.names.longest(folded[:end], i + 1) is None
            and self.index.values.longest(folded[:end], i + 1) is None
        )

    def _kb_name_at(self, words: list[str], j: int) -> bool:
        """Whether a KB name of two words or more starts at j, or after a connector at j."""
        k = j + 1 if words[j] in _NAME_CONNECTORS else j
        hit = self.index.names.longest(words, k) if k < len(words) else None
        return hit is not None and hit[0] >= 2 and not self._name_owners(hit[1])[1]

    def _name(self, tokens, i, j) -> Lexeme:  # noqa: ANN001
        """A name the KB does not list as written: a near spelling of one it does, or new."""
        lexeme = _lexeme(tokens, i, j, "NAME")
        lexeme.common_word = j - i == 1 and self._emphasis(fold(tokens[i].text))
        fuzzy = self.index.fuzzy_name(lexeme.text, self.fuzzy_cutoff)
        if fuzzy is not None:
            name, owners, score = fuzzy
            lexeme.cat = "ENT"
            lexeme.entity_ids = tuple(owners)
            lexeme.fuzzy = score
            lexeme.similar_to = self.index.entities[owners[0]].label
        return lexeme

    # ------------------------------------------------------------------ marker layer

    def _markers(self, tokens, folded) -> list[Marker]:  # noqa: ANN001
        markers: list[Marker] = []
        for i in range(len(tokens)):
            hit = self.words.markers.longest(folded, i)
            if hit is None:
                continue
            n, kinds = hit
            start, end = tokens[i].start, tokens[i + n - 1].end
            text = "".join(_span_text(tokens, i, i + n))
            markers.extend(Marker(kind, start, end, text) for kind in kinds)
        for i in range(len(tokens)):
            for n in (3, 2):
                key = tuple(folded[i : i + n])
                if len(key) == n and key in self.words.generic_phrases:
                    markers.append(
                        Marker(
                            "generic-phrase", tokens[i].start, tokens[i + n - 1].end, " ".join(key)
                        )
                    )
        return markers


def _rate_units(tokens: list[Token], row: list[Lexeme]) -> list[Lexeme]:
    """ "£15 an hour", "$90 a night", "50GB of data a month": the length after a price or an
    amount (and what it is of) is the unit it comes by, part of it, not a length of time
    stated ("£15 for an hour" states one)."""
    out = list(row)
    for k in range(1, len(out)):
        unit = out[k]
        if not (
            unit.cat == "VAL"
            and unit.value_type == ValueType.duration
            and tokens[unit.start_tok].lower in ("a", "an")
        ):
            continue
        j = k - 1
        if j >= 2 and out[j].cat == "W" and out[j - 1].cat == "OF":
            j -= 2  # "of data"
        amount = out[j]
        counted = (
            j >= 1
            and amount.cat in ("W", "ENT")
            and amount.text.replace(" ", "").isalpha()
            and out[j - 1].cat == "VAL"
            and out[j - 1].value_type == ValueType.number
        )
        if counted:
            amount = out[j - 1]  # "15 funded hours a week", "3 sessions a month"
        if amount.cat == "VAL" and (
            amount.value_type == ValueType.money
            or (amount.value_type == ValueType.number and (counted or measured(amount.text)))
        ):
            out[k] = _lexeme(tokens, unit.start_tok, unit.end_tok, "W")
    return out


def _opens_title(tokens: list[Token], before: Lexeme, name: Lexeme, start: int) -> bool:
    """A capitalised one-word negation, pronoun or function word inside the sentence, right
    before a name ("in Only Love")."""
    return (
        name.cat == "NAME"
        and (
            before.cat in ("NEG", "PRON")
            or (before.cat == "W" and fold(tokens[before.start_tok].text) in FUNCTION_WORDS)
        )
        and before.end_tok == before.start_tok + 1 == name.start_tok
        and before.start_tok > start
        and tokens[before.start_tok].text[:1].isupper()
        and tokens[before.start_tok].text != "I"
    )


_CAT_ORDER = ["ENT", "VAL", "CUE", "MARK"]
_MARKER_CATEGORIES = (
    ("negation", "NEG"),
    ("copula", "COP"),
    ("same-as", "SAME"),
    ("self-reference", "SELF"),
    ("addressee", "ADDR"),
    ("clause-separator", "SEP"),
)


_TEXT_TYPES = {ValueType.text, ValueType.enum}
_DEMONSTRATIVES = frozenset({"that", "this"})
_SINGULAR_IS = frozenset({"'s", "’s", "is", "was"})
# Words whose "'s" is "is" (or "has"), never a possessive
_IS_CONTRACTORS = frozenset("it he she that this there here what who where when how which".split())
# Words that may stand between a cue and the value it introduces: "works in [the] X", "X as Y".
# Not "of", "for" or "to": "the address for X" names X's address, X is not an address.
_LINKING_WORDS = {"in", "the", "a", "an", "at", "as"}
_MAX_LINKING = 6


def _governing_cue(previous: list[Lexeme]) -> Lexeme | None:
    """The cue a name completes: "works in [the] X", "the genre is X" (only linking words or a
    copula in between, a few at most: a sentence of ten thousand "the"s is read in linear
    time)."""
    for lexeme in reversed(previous[-_MAX_LINKING:]):
        if lexeme.cat == "CUE":
            return lexeme
        if lexeme.cat == "COP":
            continue
        if lexeme.cat == "W" and all(
            w in _LINKING_WORDS or not w.isalnum() for w in lexeme.text.lower().split()
        ):
            continue
        return None
    return None


# Words that may stand between a relation word and its value: "is not a Romantic comedy".
_BEFORE_VALUE = frozenset("a an the actually really also just truly".split())


def _function_words_only(tokens: list[Token], i: int, j: int) -> bool:
    """A KB value of function words alone written in lower case: "cast the song for you" says
    no album "For You"."""
    return all(fold(t.text) in FUNCTION_WORDS for t in tokens[i:j]) and not all(
        t.is_capitalised for t in tokens[i:j]
    )


def _heads_noun(previous: list[Lexeme], i: int) -> bool:
    """Whether the word at token i directly follows a KB name or a number: a noun it heads. A
    short form of names ("Ford" of "Ford Fusion") is not a whole name: "Ford Escape" is one."""
    before = previous[-1] if previous else None
    return (
        before is not None
        and before.end_tok == i
        and (
            (before.cat == "ENT" and not before.implicit_name)
            or before.value_type == ValueType.number
        )
    )


def _stands_alone(tokens: list[Token], folded: list[str], i: int) -> bool:
    """A word followed by punctuation, the end or a function word: not a modifier of the noun
    after it."""
    return i + 1 >= len(tokens) or tokens[i + 1].kind != "word" or folded[i + 1] in FUNCTION_WORDS


# Where a name is a value: "at Cedar Hall", "by Ana Lindqvist", "from the Early Light series"
_VALUE_PREPOSITIONS = frozenset("at in by from on off".split())
_AFTER_PREPOSITION = _VALUE_PREPOSITIONS | {"the"}
_LOCATIVES = frozenset("in for at near to from around outside".split())


def _after_locative(previous: list[Lexeme]) -> bool:
    """Right after "in", "for", "near" ...: where a place is named."""
    if not previous or previous[-1].cat != "W":
        return False
    words = previous[-1].text.lower().split()
    return bool(words) and words[-1] in _LOCATIVES


def _expects_value(previous: list[Lexeme]) -> bool:
    """A name right after a relation word ("is", "works in", "from", "is not a") is a value,
    not a subject."""
    for k in range(len(previous) - 1, -1, -1):
        lexeme = previous[k]
        if lexeme.cat == "NEG" and k == 0 and lexeme.text.lower().endswith(("n't", "n’t")):
            return False  # "Didn't P.D. Eastman write ...?": an auxiliary, then the subject
        if lexeme.cat in ("CUE", "COP", "NEG"):
            return True
        if lexeme.cat != "W":
            return False
        words = lexeme.text.lower().split()
        if words and all(w in _BEFORE_VALUE for w in words):
            continue
        return words[-1] in {"in", "from", "at", "with", "to", "for", "by"}
    return False


# What a title's words may have been read as: words, pronouns, "be", "no", a name
_TITLE_WORDS = frozenset({"W", "PRON", "PRON_POSS", "SELF", "ADDR", "COP", "NEG", "NAME"})


def _title_word(lexeme: Lexeme) -> bool:
    """Words a title may be made of: plain words, pronouns, "be", "no", a name, or a day or a
    time the KB does not hold ("Thursday", "One Day")."""
    if lexeme.cat == "VAL":
        return lexeme.temporal is not None and not lexeme.attributes
    return lexeme.cat in _TITLE_WORDS


_VAGUE_AMOUNTS = frozenset("couple few lot lots bit handful hundreds thousands dozens".split())


def _money_in_words(tokens: list[Token], row: list[Lexeme]) -> list[Lexeme]:
    """ "eighty-nine quid", "twenty pounds", "a tenner": money said in words, among words, is a
    money value (`words_money_key`)."""
    words = {
        k
        for lx in row
        # a number word the KB holds ("twelve" of a 12) may be the amount ("twelve pounds")
        if lx.cat == "W" or (lx.cat == "VAL" and lx.value_type == ValueType.number)
        for k in range(lx.start_tok, lx.end_tok)
    }
    spans: list[tuple[int, int]] = []
    for k in sorted(words):
        parts = tokens[k].lower.split("-")
        if len(parts) > 1 and parts[-1] in MONEY_WORDS and words_money_key(" ".join(parts)):
            spans.append((k, k + 1))  # "a ten-pound deposit": one word, amount and currency
            continue
        if tokens[k].lower not in MONEY_WORDS and tokens[k].lower not in ("tenner", "fiver"):
            continue
        i = k
        while (
            i - 1 in words
            and tokens[i - 1].kind == "word"
            and (number_in_words([tokens[i - 1].lower]) is not None or tokens[i - 1].lower == "and")
        ):
            i -= 1
        if i < k and tokens[i].lower == "and":
            i += 1
        if i > 1 and tokens[i - 1].lower == "of" and tokens[i - 2].lower in _VAGUE_AMOUNTS:
            continue  # "a couple of hundred pounds": vague, no value ("a fee of twenty pounds" is)
        j = k + 1
        if j in words and number_in_words([tokens[j].lower]) is not None:
            j += 1  # "twelve pounds fifty"
        if i < k and words_money_key(" ".join(t.text for t in tokens[i:j])) is None:
            j = k + 1
        if i < k and words_money_key(" ".join(t.text for t in tokens[i:j])) is not None:
            spans.append((i, j))
    if not spans:
        return row

    def money(i: int, j: int) -> Lexeme:
        value = _lexeme(tokens, i, j, "VAL", value_type=ValueType.money)
        value.value_key = value_key(ValueType.money, value.text)
        return value

    return _respan(row, spans, money, tokens)


def _between(row: list[Lexeme]) -> list[Lexeme]:
    """ "between 6:15 pm and 7 pm": the "and" joins a range's two ends, no two clauses."""
    for before, low, join, high in zip(row, row[1:], row[2:], row[3:], strict=False):
        if (
            before.cat == "W"
            and before.text.lower().split()[-1:] == ["between"]
            and low.cat == high.cat == "VAL"
            and low.value_type == high.value_type
            and join.cat == "SEP"
            and join.text.strip().lower() == "and"
        ):
            join.cat = "W"
    return row


def _numbered_names(tokens: list[Token], row: list[Lexeme]) -> list[Lexeme]:
    """ "at Century 16", "AMC Bay Street 16": a bare number of a few digits right after a name
    the KB does not know is part of it (a multiplex, a pier, a studio), not a value."""
    out: list[Lexeme] = []
    for lexeme in row:
        before = out[-1] if out else None
        if (
            before is not None
            and before.cat == "NAME"
            and lexeme.cat == "VAL"
            and lexeme.value_type == ValueType.number
            and lexeme.text.isdigit()
            and len(lexeme.text) <= 3
            and lexeme.start - before.end == 1
        ):
            out[-1] = replace(
                before,
                end_tok=lexeme.end_tok,
                end=lexeme.end,
                text="".join(_span_text(tokens, before.start_tok, lexeme.end_tok)),
                common_word=False,  # "Century 16" is no common word, whatever "century" is
            )
            continue
        out.append(lexeme)
    return out


def _respan(
    row: list[Lexeme],
    spans: list[tuple[int, int]],
    make: Callable[[int, int], Lexeme],
    tokens: list[Token],
) -> list[Lexeme]:
    """The row with each token span (over words, pronouns and names) made one lexeme by `make`,
    the words left over on either side kept as words."""
    out: list[Lexeme] = []
    for lexeme in row:
        cuts = [s for s in spans if s[0] < lexeme.end_tok and lexeme.start_tok < s[1]]
        if not cuts:
            out.append(lexeme)
            continue
        at = lexeme.start_tok
        for i, j in cuts:
            if at < i:
                out.append(_lexeme(tokens, at, i, "W"))
            if lexeme.start_tok <= i:
                out.append(make(i, j))
            at = max(at, j)
        if at < lexeme.end_tok:
            out.append(_lexeme(tokens, at, lexeme.end_tok, "W"))
    return out


def _lexeme(tokens: list[Token], i: int, j: int, cat: str, **extra: object) -> Lexeme:
    return Lexeme(
        cat, i, j, tokens[i].start, tokens[j - 1].end, "".join(_span_text(tokens, i, j)), **extra
    )  # type: ignore[arg-type]


def _span_text(tokens: list[Token], i: int, j: int) -> list[str]:
    parts = []
    for k in range(i, j):
        if k > i and tokens[k].start > tokens[k - 1].end:
            parts.append(" ")
        parts.append(tokens[k].text)
    return parts


def _merge_words(lexemes: list[Lexeme]) -> list[Lexeme]:
    """Runs of plain words become one W lexeme: the grammar never needs to see them one by one."""
    out: list[Lexeme] = []
    for lexeme in lexemes:
        prev = out[-1] if out else None
        if lexeme.cat == "W" and prev is not None and prev.cat == "W":
            gap = " " if lexeme.start > prev.end else ""
            out[-1] = Lexeme(
                "W",
                prev.start_tok,
                lexeme.end_tok,
                prev.start,
                lexeme.end,
                prev.text + gap + lexeme.text,
            )
        else:
            out.append(lexeme)
    return out


def _temporal_starts(
    tokens: list[Token], temporal: list[TemporalMention]
) -> dict[int, TemporalMention]:
    starts: dict[int, TemporalMention] = {}
    k = 0
    for mention in temporal:
        while k < len(tokens) and tokens[k].end <= mention.start:
            k += 1
        if k < len(tokens) and tokens[k].start >= mention.start and tokens[k].end <= mention.end:
            starts[k] = mention
    return starts


def _token_end(tokens: list[Token], char_end: int, i: int, limit: int) -> int:
    j = i + 1
    while j < limit and tokens[j].end <= char_end:
        j += 1
    return j
