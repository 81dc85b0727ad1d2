"""Claim extraction: grammars/claims.lark over the lexer's lexemes, and its Transformer.

The grammar sees lexeme categories (ENT, CUE, VAL, ...), so it stays small and fast (LALR), and
this module turns its trees into claim drafts: a subject, a value, the cue phrases that name the
attribute, and negation. Which entity a subject is and which attribute a value fills is decided
afterwards, with the KB and the dialogue (text/attachment.py).
"""

from __future__ import annotations

import importlib.resources
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import lru_cache

from lark import Lark, Token, Transformer
from lark.exceptions import LarkError, UnexpectedInput
from lark.lexer import Lexer

from replyguard.errors import RuleError
from replyguard.models import ValueType
from replyguard.text.lexer import Lexeme


@dataclass
class Subject:
    kind: str  # entity | name | pronoun | self | addressee
    lexeme: Lexeme
    focus: tuple[str, ...] = ()  # attributes named with the subject: "John's email", "his dept"
    possessive: bool = False
    oblique: bool = False  # after a preposition ("the meeting with John"): not the clause subject
    topical: bool = False  # "in Chicago": where a clause's facts hold, when it names no subject
    predicative: bool = False  # after a verb of being: "the closest one is Sigona"
    negated: bool = False  # "X is not the author of Y"
    after_cue: bool = False  # right after a verb cue: "SA102 departs Aberdeen at 9:45"
    # the attributes of a verb cue just before it ("departs Aberdeen", "arrives in Kirkwall"):
    # a place the subject's value is said with, the value after it the cue's
    cue_before: tuple[str, ...] = ()
    verb_opens: bool = False  # that cue opens the clause: "... and arrives in Kirkwall at 3:45"


# A name right after one of these is a prepositional object, not what the clause is about.
PREPOSITIONS = frozenset(
    "with for to from about by at in on into onto near like than without "
    "between among against toward towards behind under over".split()
)


@dataclass
class ValuePhrase:
    value: Lexeme
    cues: tuple[str, ...]
    negated: bool
    copula: bool
    lead: list[Lexeme] = field(default_factory=list)  # the words before the value
    asserted: bool = True  # False after "avoid": "avoid any heavy traffic" claims none
    leading_cues: tuple[str, ...] = ()  # cues before the value ("works in X"), not after it


@dataclass
class Share:
    subject: Subject
    lead: list[Lexeme] = field(default_factory=list)


@dataclass
class Clause:
    items: list[Subject | ValuePhrase | Share] = field(default_factory=list)
    # how the clause opens when it names no KB subject first:
    #   "noun-phrase"  "the team might ...", "nothing is ...": a subject the KB does not name
    #   "existential"  "there is moderate traffic": no subject; the entity in focus is meant
    opener: str | None = None
    first_word: str = ""  # the clause's first word, lower-cased


@dataclass
class ClaimDraft:
    """A value attached to a subject by the grammar, before KB resolution."""

    subject: Subject | None  # None: no subject named ("there is moderate traffic")
    value: Lexeme
    cues: tuple[str, ...]
    negated: bool
    basis: str  # Cue | Focus | Bare: how the attribute is named in the text
    copula: bool = False  # "is at 2pm": the value is predicated of the subject
    shared: bool = False  # carried to this subject by "same ... as"
    direct: bool = False  # nothing but plain words between subject and value ("dinner, 5 PM")
    foreign: bool = False  # the clause is about an unnamed noun phrase ("the nearest rest stop")
    # the value phrase inside that noun phrase ("the nearest rest stop"), which may pick out
    # the entity it means
    description: ValuePhrase | None = None
    range_end: str | None = None  # "low" / "high": an end of a range ("80-100F", "60 to 70")
    low_lead: frozenset[str] = frozenset()  # a range's high end: the words before its low end
    lead_words: frozenset[str] = frozenset()  # the words just before the value ("opens at")
    # the attributes a cue before the value denies ("open" of closed_days): a claim on one of
    # them says the value is not the attribute's
    denied: tuple[str, ...] = ()


_DETERMINERS = frozenset("the a an this that these those our your their his her its my".split())
# A clause opening with one of these has a subject of its own the KB does not name ("the team
# might ...", "there is a meeting ..."), so the previous clause's subject does not carry over.
_NOUN_PHRASE_OPENERS = _DETERMINERS | frozenset(
    "nothing nobody none no everything everyone something someone anything anyone".split()
)
_EXISTENTIAL_OPENERS = frozenset({"there", "here"})
# Words that may stand between a carried cue and its next value: "in Marketing and (in) Sales".
_CARRY_WORDS = frozenset("in at on for to the a an and or also".split())


def _before_modifier(words: list[str], last: bool, dated: bool = False) -> list[str]:
    """The words before a value, less an article just before it: in "costs £45 for a 90-minute
    session" the value is the modifier of the subject's own noun, said of it directly; "the"
    before a day (DATED) is the day's own ("with Rhiannon Vale on the 11th")."""
    articles = ("a", "an", "the") if dated else ("a", "an")
    return words[:-1] if last and words and words[-1] in articles else words


_CONJUNCTIONS = frozenset({"and", "or", "but"})


def _from_conjunction(lead: list[Lexeme]) -> list[Lexeme]:
    """The words just before a value, from the last conjunction on: in "£38 a day or £230 a
    week" the words before £230 are "or", "a day" being the first price's."""
    for k in range(len(lead) - 1, -1, -1):
        words = lead[k].text.lower().split()
        cut = max((j for j, word in enumerate(words) if word in _CONJUNCTIONS), default=-1)
        if cut >= 0:
            rest = " ".join(words[cut:])
            return [replace(lead[k], text=rest), *lead[k + 1 :]]
    return lead


def _preposition(text: str) -> str | None:
    """The preposition ending some words, before an optional determiner ("from the")."""
    words = text.lower().split()
    if words and words[-1] in _DETERMINERS:
        words = words[:-1]
    return words[-1] if words and words[-1] in PREPOSITIONS else None


def _after_preposition(text: str) -> bool:
    """ "with", "from the", "for our": the words before a name make it a prepositional object."""
    return _preposition(text) is not None


# "in Chicago", "at Stanford": a place a clause is about when it names nothing else.
_TOPICAL_PREPOSITIONS = frozenset({"in", "at"})


# Prepositions that, right after a cue, introduce the attribute's owner: "the price of X",
# "the phone for X", "check-in at X", "the discount on X".
_OWNER_PREPOSITIONS = frozenset({"for", "at", "on"})


def _names_owner(lexeme: Lexeme) -> bool:
    """ "of", "for", "at" or "on" (with an article) right after a cue: what follows owns the
    attribute ("the price of X", "check-in at the X")."""
    if lexeme.cat == "OF":
        return True
    words = lexeme.text.lower().split()
    if words and words[-1] in _DETERMINERS:
        words = words[:-1]
    return lexeme.cat == "W" and len(words) == 1 and words[0] in _OWNER_PREPOSITIONS


def _expletive(subject: Subject) -> bool:
    return subject.kind == "pronoun" and subject.lexeme.text.lower() == "it"


class _LexemeStream(Lexer):
    """Feeds pre-lexed lexemes to Lark; a token's start_pos is the lexeme's index."""

    def __init__(self, lexer_conf: object) -> None:
        del lexer_conf

    def lex(self, data: list[Lexeme]):  # noqa: ANN201 - Lark's Lexer interface
        for i, lexeme in enumerate(data):
            yield Token(lexeme.cat, lexeme.text, start_pos=i)


@lru_cache(maxsize=4)
def claim_parser(grammar_path: str | None = None) -> Lark:
    """The claim parser for a grammar file (the shipped one by default), built once."""
    if grammar_path is None:
        source = (importlib.resources.files("replyguard.grammars") / "claims.lark").read_text()
        origin = "grammars/claims.lark"
    else:
        origin = grammar_path
        with open(grammar_path, encoding="utf-8") as fh:
            source = fh.read()
    try:
        return Lark(source, parser="lalr", lexer=_LexemeStream)
    except LarkError as exc:
        raise RuleError(f"{origin}: {str(exc).splitlines()[0]}") from None


class ClaimTransformer(Transformer):
    """One method per grammar rule; terminals are mapped back to their lexemes."""

    def __init__(
        self,
        lexemes: list[Lexeme],
        kinds: Callable[[str], tuple] = lambda word: (),
        fits: Callable[[Lexeme, tuple[str, ...]], bool] = lambda value, attributes: True,
    ) -> None:
        """`kinds` gives a word's word-list kinds (metta/lexicon.metta): after "the" a
        `report-noun` ("forecast", "route") states a fact of the entity in focus; a value after
        a `non-assertive` word ("avoid heavy traffic") is not claimed. `fits` says whether a
        value may be one of some attributes' (a cue that denies its attribute denies only the
        values that attribute takes)."""
        super().__init__()
        self._lexemes = lexemes
        self._kinds = kinds
        self._fits = fits

    def _lx(self, token: Token) -> Lexeme:
        return self._lexemes[token.start_pos]

    # subjects
    def entity_subject(self, items: list[Token]) -> Subject:
        return Subject("entity", self._lx(items[0]))

    def name_subject(self, items: list[Token]) -> Subject:
        return Subject("name", self._lx(items[0]))

    def pronoun_subject(self, items: list[Token]) -> Subject:
        return Subject("pronoun", self._lx(items[0]))

    def self_subject(self, items: list[Token]) -> Subject:
        return Subject("self", self._lx(items[0]))

    def addressee_subject(self, items: list[Token]) -> Subject:
        return Subject("addressee", self._lx(items[0]))

    def possessive_subject(self, items: list[Token]) -> Subject:
        owner = self._lx(items[0])
        focus = self._lx(items[2]).attributes if len(items) > 2 else ()
        return Subject("entity" if owner.cat == "ENT" else "name", owner, focus, possessive=True)

    def pronoun_possessive_subject(self, items: list[Token]) -> Subject:
        return Subject("pronoun", self._lx(items[0]), self._lx(items[1]).attributes, True)

    # phrases
    def words(self, items: list[Token]) -> list[Lexeme]:
        return [self._lx(t) for t in items]

    def subject_phrase(self, items: list) -> Subject:
        *lead, subject = items
        words: list[Lexeme] = lead[0] if lead else []
        if len(words) >= 2 and words[-2].cat == "CUE" and _names_owner(words[-1]):
            subject.focus = words[-2].attributes  # "the email of John", "the phone for X"
        elif words and _after_preposition(words[-1].text):
            subject.oblique = True
            subject.topical = _preposition(words[-1].text) in _TOPICAL_PREPOSITIONS
        subject.after_cue = bool(words) and words[-1].cat == "CUE"
        if subject.after_cue:
            subject.cue_before = words[-1].attributes
            subject.verb_opens = len(words) == 1
        elif len(words) >= 2 and words[-2].cat == "CUE" and _preposition(words[-1].text):
            subject.cue_before = words[-2].attributes
            subject.verb_opens = len(words) == 2
        subject.predicative = any(w.cat == "COP" for w in words)
        subject.negated = any(w.cat == "NEG" for w in words)
        return subject

    def value_phrase(self, items: list) -> ValuePhrase:
        words: list[Lexeme] = items[0] if isinstance(items[0], list) else []
        rest = items[1:] if isinstance(items[0], list) else items
        value = self._lx(rest[0])
        cues = [a for w in words if w.cat == "CUE" for a in w.attributes]
        leading = tuple(dict.fromkeys(cues))
        if len(rest) > 1:
            cues.extend(self._lx(rest[1]).attributes)
        return ValuePhrase(
            value,
            tuple(dict.fromkeys(cues)),
            # "not open", "closed" (a cue that denies), "not closed"; "open until 8pm" denies
            # no closing day: the time is not a value of the attribute the cue denies
            negated=sum(
                w.cat == "NEG" or (w.cat == "CUE" and w.negates and self._fits(value, w.attributes))
                for w in words
            )
            % 2
            == 1,
            copula=any(w.cat == "COP" for w in words),
            lead=words,
            leading_cues=leading,
            asserted=not any(
                "non-assertive" in self._kinds(word)
                for w in words
                if w.cat == "W"
                for word in w.text.lower().split()
            ),
        )

    def share_phrase(self, items: list) -> Share:
        return Share(items[-1], items[0] if isinstance(items[0], list) else [])

    def clause(self, items: list) -> Clause:
        lead = items[0] if items and isinstance(items[0], list) else []
        if not lead and items and isinstance(items[0], ValuePhrase | Share):
            lead = items[0].lead
        opener = None
        if lead and lead[0].cat in ("W", "PRON_POSS"):  # "their team ...": not about the subject
            first_words = lead[0].text.lower().split()
            names_attribute = len(first_words) == 1 and len(lead) > 1 and lead[1].cat == "CUE"
            if first_words[0] in _NOUN_PHRASE_OPENERS and not names_attribute:
                # "the nearest rest stop is", not "the address is" or "the forecast is"
                reports = any("report-noun" in self._kinds(w) for w in first_words[1:])
                opener = "existential" if reports else "noun-phrase"
            elif first_words[0] in _EXISTENTIAL_OPENERS or names_attribute:
                opener = "existential"
        first = lead[0].text.lower().split()[:1] if lead else []
        return Clause([i for i in items if not isinstance(i, list)], opener, "".join(first))

    def start(self, items: list) -> list[ClaimDraft]:
        """Attach each value to the subject in force: the clause's, else the previous clause's."""
        drafts: list[ClaimDraft] = []
        subject: Subject | None = None
        last_cues: tuple[str, ...] = ()
        last_negated = False  # whether the value the last cues were said with was denied
        last_denied: tuple[str, ...] = ()  # the attributes the last cues deny ("open")
        previous_clause: list[ClaimDraft] = []
        separator: Token | None = None
        named_last: Subject | None = None  # a name that ended the previous clause
        for clause in items:
            if not isinstance(clause, Clause):
                separator = clause
                continue
            current: list[ClaimDraft] = []
            named = False  # has this clause named its own subject yet?
            foreign = False  # is the clause about something the KB does not name?
            starts_with_subject = any(
                isinstance(i, Subject) and not i.oblique for i in clause.items[:1]
            )
            opener = _possessive_apposition(clause, separator, named_last)
            if opener is not None or _apposition(clause, separator, named_last):
                subject = named_last  # "Try Olive Tree, a cheap greek place in the centre"
            elif clause.opener is not None and not starts_with_subject:
                subject = None  # "... that the team might reorganise next year"
                foreign = clause.opener == "noun-phrase"
            last = clause.items[-1] if clause.items else None
            named_last = last if isinstance(last, Subject) and last.kind in _NAMED else None
            if isinstance(last, ValuePhrase) and last.value.value_type == ValueType.entity:
                named_last = Subject("entity", last.value)  # "taught by Ana Ruiz, our ..."
            topic = next((i for i in clause.items if isinstance(i, Subject) and i.topical), None)
            description: ValuePhrase | None = None  # "the nearest rest stop": names the kind
            carried: tuple[str, ...] = ()  # a verb cue said before a place: "departs Aberdeen"
            for item in clause.items:
                if item is opener:
                    continue  # "our" of "Ana Ruiz, our head baker": Ana is what it describes
                if isinstance(item, Subject):
                    if item.oblique:
                        if item.cue_before and subject is not None and (named or item.verb_opens):
                            # "(SA216) ... and arrives in Kirkwall at 3:45 pm": the clause's
                            # verb is the subject's, the value after the place its cue's
                            carried = item.cue_before
                        elif not named:
                            subject = None  # "the meeting with John is at 2pm": not about John
                        continue
                    # "... for pickup at 12 pm, and return it on March 10th": a subject said
                    # anew comes with a verb of its own; the last value's cue does not carry
                    last_cues = ()
                    if _expletive(item):
                        continue  # "it will rain in Chicago": "it" names nothing
                    if item.after_cue and named and subject is not None and not item.focus:
                        carried = item.cue_before
                        continue  # "SA102 departs Aberdeen at 9:45": the flight departs
                    modifier = (
                        foreign
                        and item.kind == "entity"
                        and bool(current)
                        and 0 <= item.lexeme.start - current[-1].value.end <= 1
                    )
                    if modifier:
                        # "the free harbour tour": a value right before a name modifies it
                        current[-1].subject, current[-1].foreign = item, False
                        current[-1].direct = True
                    elif foreign and item.predicative and item.kind == "entity":
                        # "the closest coffee place is Sigona": the description is Sigona's
                        for draft in current:
                            draft.subject, draft.foreign = item, False
                    if item.predicative and named and subject is not None:
                        # "Marissa Meyer is the author of Scarlet": Scarlet's author is she;
                        # "the author of Scarlet is J.K. Rowling": a name as the value
                        owner, value = (item, subject) if item.focus else (subject, item)
                        if owner.focus and value.kind in ("entity", "name"):
                            current.append(
                                ClaimDraft(
                                    owner, value.lexeme, owner.focus, item.negated, "Focus", True
                                )
                            )
                            continue
                    subject, named, foreign = item, True, False
                elif isinstance(item, Share):
                    shared = list(previous_clause or current)  # a copy: current grows below
                    current.extend(
                        ClaimDraft(
                            item.subject, d.value, d.cues, d.negated, d.basis, d.copula, shared=True
                        )
                        for d in shared
                    )
                elif item.asserted:
                    cues, carried = item.cues or carried, ()
                    negated = item.negated
                    denied = tuple(a for w in item.lead if w.cat == "CUE" for a in w.denies)
                    if cues:
                        basis = "Cue"
                    elif subject is not None and subject.focus:
                        cues, basis = subject.focus, "Focus"
                    elif last_cues and all(
                        word in _CARRY_WORDS for w in item.lead for word in w.text.lower().split()
                    ):
                        # "in Marketing and Sales"; "open Monday to Saturday": the denial too
                        cues, basis = last_cues, "Cue"
                        negated = negated or last_negated
                        denied = denied or last_denied
                    else:
                        basis = "Bare"
                    last_negated, last_denied = negated, denied
                    # a cue before the value carries on ("in Marketing and Sales"); one after
                    # it does not ("indian food in the north")
                    last_cues = item.leading_cues if item.cues else cues
                    lead = _from_conjunction(item.lead)
                    direct = not any(
                        word in _DETERMINERS
                        for w in lead
                        if w.cat == "W"
                        for word in _before_modifier(
                            w.text.lower().split(),
                            w is lead[-1],
                            item.value.temporal is not None,
                        )
                    )
                    current.append(
                        ClaimDraft(
                            subject if subject is not None or foreign else topic,
                            item.value,
                            cues,
                            negated,
                            basis,
                            copula=item.copula,
                            direct=direct,
                            foreign=foreign,
                            description=description if foreign else None,
                            lead_words=frozenset(
                                word for w in lead for word in w.text.lower().split()
                            ),
                            denied=denied,
                        )
                    )
                    if foreign and description is None and not item.copula:
                        description = item
                    _mark_range(current, item.lead)
            drafts.extend(current)
            previous_clause = current or previous_clause
        return drafts


_NAMED = ("entity", "name")
_RELATIVE_PRONOUNS = frozenset({"which", "who"})
_APPOSITION_ARTICLES = frozenset({"a", "an", "the"})


def _apposition(clause: Clause, separator: Token | None, named: Subject | None) -> bool:
    """ "X, a cheap greek place ...": a noun phrase set off by a comma right after a name
    describes that name; so does a relative clause ("You should look at Alcatraz, which is a
    tourist attraction")."""
    return (
        named is not None
        and separator is not None
        and separator.value.strip() == ","
        and (
            clause.opener == "noun-phrase"
            and clause.first_word in _APPOSITION_ARTICLES
            or clause.first_word in _RELATIVE_PRONOUNS
        )
    )


def _possessive_apposition(
    clause: Clause, separator: Token | None, named: Subject | None
) -> Subject | None:
    """ "Ana Ruiz, our head baker": a noun phrase opened by our/my, set off by a comma right
    after a name, describes that name; the our/my that opens it, or None."""
    first = clause.items[0] if clause.items else None
    if (
        named is None
        or separator is None
        or separator.value.strip() != ","
        or not isinstance(first, Subject)
        or first.kind != "self"
        or first.lexeme.text.lower() not in _DETERMINERS
        or (len(clause.items) > 1 and not isinstance(clause.items[1], ValuePhrase))
    ):
        return None  # "Megan Hale, our hygienist, is ...": the words may be no value too
    return first


_RANGE_JOINS = frozenset({"-", "–", "to", "until", "till", "through"})
_RANGED_TYPES = (ValueType.number, ValueType.time)


def _mark_range(drafts: list[ClaimDraft], lead: list[Lexeme]) -> None:
    """Two numbers or times joined by "-", "to" or "until" ("80-100F", "from 8:00 until 16:00"),
    or by "and" after "between"
    are the low and the high end of a range; `lead` is the words before the second, which is
    said of what the first is ("open from 8:00 until 16:00")."""
    if len(drafts) < 2 or len(lead) != 1:
        return
    first, second = drafts[-2], drafts[-1]
    join = lead[0].text.strip().lower()
    if join not in _RANGE_JOINS and not (join == "and" and "between" in first.lead_words):
        return  # "between 6:15 pm and 7 pm" is a range too
    kind = first.value.value_type
    if kind in _RANGED_TYPES and second.value.value_type == kind:
        first.range_end, second.range_end = "low", "high"
        second.low_lead = first.lead_words
        if not second.cues:
            second.cues, second.basis = first.cues, first.basis


# Words that may stand between a relation's cue and the entity it names: "works at the X".
_RELATION_LINKS = frozenset("the a an at in as by".split())


def _relation_values(
    lexemes: list[Lexeme], relation: Callable[[tuple[str, ...]], bool]
) -> list[Lexeme]:
    """A KB entity named right after the cue of a relation ("works at Marrow and Vine") is the
    relation's value, not a new subject, whether or not the KB lists it under that relation."""
    out = list(lexemes)
    cue: Lexeme | None = None
    for k, lexeme in enumerate(out):
        if lexeme.cat == "ENT" and cue is not None and relation(cue.attributes):
            out[k] = replace(lexeme, cat="VAL", value_type=ValueType.entity)
        if lexeme.cat == "CUE":
            cue = lexeme
        elif not (lexeme.cat == "W" and set(lexeme.text.lower().split()) <= _RELATION_LINKS):
            cue = None
    return out


_THIRD_PERSON = frozenset({"ENT", "NAME", "PRON"})


def _objects_as_words(lexemes: list[Lexeme], kinds: Callable[[str], tuple]) -> list[Lexeme]:
    """An `object-pronoun` ("them") after a verb, in a clause whose subject is already named
    ("Rosa does them on Tuesdays", "she teaches them on Fridays"), is a plain word: the values
    after it are the subject's, not the pronoun's."""
    out = list(lexemes)
    named = False
    for k, lexeme in enumerate(out):
        if lexeme.cat == "SEP":
            named = False
        elif (
            lexeme.cat == "PRON"
            and named
            and k > 0
            and out[k - 1].cat == "W"
            and "object-pronoun" in kinds(lexeme.text.lower())
        ):
            out[k] = replace(lexeme, cat="W")
        elif lexeme.cat in _THIRD_PERSON:
            named = True
    return out


def extract_drafts(
    sentence_lexemes: list[Lexeme],
    parser: Lark | None = None,
    kinds: Callable[[str], tuple] = lambda word: (),
    relation: Callable[[tuple[str, ...]], bool] = lambda attributes: False,
    fits: Callable[[Lexeme, tuple[str, ...]], bool] = lambda value, attributes: True,
) -> list[ClaimDraft]:
    """The claim drafts of one sentence; `relation` says whether a cue names an attribute whose
    values are KB entities, `fits` whether a value may be one of some attributes'."""
    lexemes = _objects_as_words(_relation_values(sentence_lexemes, relation), kinds)
    pairs = zip(lexemes, lexemes[1:], strict=False)
    if not any(lx.cat == "VAL" for lx in lexemes) and not any(
        a.cat == "CUE" and b.cat == "OF" for a, b in pairs
    ):
        return []  # no value, and no "the author of X" to say one of
    parser = parser or claim_parser()
    while True:
        try:
            tree = parser.parse(lexemes)
        except UnexpectedInput as exc:
            # A lexeme where the grammar expects none ("like the ...": a same-as phrase with no
            # subject after it) is read as a plain word, so every sentence parses.
            if not _demote(lexemes, getattr(exc, "token", None)):
                return []
            continue
        return _named_after(ClaimTransformer(lexemes, kinds, fits).transform(tree), lexemes, kinds)


def _named_after(
    drafts: list[ClaimDraft], lexemes: list[Lexeme], kinds: Callable[[str], tuple]
) -> list[ClaimDraft]:
    """ "New Delhi has a theme park named Adventure Island", "a sports venue called Mercado
    Jamaica": a value right before a naming word (`naming-word` in metta/lexicon.metta) and a
    name is that name's, whatever the clause's subject; so is a value between a determiner and
    a KB name, which it modifies ("You have a 7 pm Hairdresser appointment"; not "this Standard
    Car", a capitalised word no KB thing is called)."""
    at = {id(lx): k for k, lx in enumerate(lexemes)}
    for draft in drafts:
        k = at.get(id(draft.value))
        name = None if k is None or draft.negated else _name_owning(lexemes, k, kinds)
        if name is not None:
            draft.subject = Subject("entity" if name.cat == "ENT" else "name", name)
            draft.direct = True
    return drafts


def _name_owning(lexemes: list[Lexeme], k: int, kinds: Callable[[str], tuple]) -> Lexeme | None:
    """The name the value at k is said of: a KB name right after it with a determiner before
    it, or a name after a naming word right after it; None otherwise."""
    after = lexemes[k + 1 : k + 3]
    if after and after[0].cat == "ENT" and k > 0 and _determines(lexemes[k - 1]):
        return after[0]
    if len(after) < 2:
        return None
    word, name = after
    if word.cat != "W" or name.cat not in ("ENT", "NAME"):
        return None
    return name if "naming-word" in kinds(word.text.lower().strip()) else None


def _determines(lexeme: Lexeme) -> bool:
    """Whether the lexeme ends with a determiner ("have a", "your")."""
    words = lexeme.text.lower().split()
    return (
        lexeme.cat in ("W", "ADDR", "SELF", "PRON_POSS")
        and bool(words)
        and (words[-1] in _DETERMINERS)
    )


def _demote(lexemes: list[Lexeme], token: Token | None) -> bool:
    """Turn the offending lexeme, or the nearest one before it that is not a plain word, into
    a plain word; False when there is nothing left to demote."""
    end = len(lexemes) - 1 if token is None or token.start_pos is None else token.start_pos
    for k in range(min(end, len(lexemes) - 1), -1, -1):
        if lexemes[k].cat != "W":
            lexemes[k] = replace(lexemes[k], cat="W")
            return True
    return False
