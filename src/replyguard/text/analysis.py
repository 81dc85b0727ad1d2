"""Reading a text once: lexemes, resolved references and attached claims (the shared document).

Like a spaCy pipeline over one Doc, every stage reads this one analysis of the reply instead of
re-tokenising. Reading goes left to right with a reference resolver, so a pronoun sees exactly the
entities in focus at its position, and each claim's subject is resolved where it stands.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from lark import Lark

from replyguard.models import EntityType
from replyguard.text.attachment import AttachedClaim, choose_attribute
from replyguard.text.claims import ClaimDraft, extract_drafts
from replyguard.text.lexer import LexedText, Lexeme, Lexer, Marker
from replyguard.text.lexicon import KBIndex, WordLists
from replyguard.text.references import ReferenceResolver, Referent
from replyguard.text.words import stem
from replyguard.values import fold

_ORG_WORDS = {
    "inc",
    "corp",
    "ltd",
    "llc",
    "company",
    "team",
    "department",
    "group",
    "university",
    "bank",
    "agency",
    "institute",
    "association",
    "foundation",
    "club",
    "committee",
}
_PLACE_PREPOSITIONS = {"in", "at", "near", "to", "from"}
_LEX_CACHE_SIZE = 4096


@dataclass
class EntityMention:
    lexeme: Lexeme
    entity_id: str
    resolution: str  # Direct | Fuzzy


@dataclass
class PronounReading:
    lexeme: Lexeme
    candidates: list[Referent]

    @property
    def resolved(self) -> Referent | None:
        return self.candidates[0] if self.candidates else None


@dataclass
class ReadText:
    lexed: LexedText
    mentions: list[EntityMention] = field(default_factory=list)
    pronouns: list[PronounReading] = field(default_factory=list)
    names: list[Lexeme] = field(default_factory=list)  # proper names the KB does not know
    claims: list[AttachedClaim] = field(default_factory=list)

    @property
    def text(self) -> str:
        return self.lexed.text


_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def _sentence_days(lexed: LexedText, row: list[Lexeme], periods: list[Marker]) -> set[str]:
    """The weekdays a sentence speaks of: its dates', or all of them for "this week"."""
    start, end = row[0].start, row[-1].end
    if any(start <= m.start < end for m in periods):
        return set(_WEEKDAYS)
    return {
        m.date.strftime("%A").lower()
        for m in lexed.temporal
        if start <= m.start < end and m.date is not None
    }


def _sentence_words(lexed: LexedText, row: list[Lexeme], days: set[str]) -> frozenset[str]:
    """Content stems of a sentence plus the weekdays it speaks of."""
    start, end = row[0].start, row[-1].end
    return frozenset({stem(t.text) for t in lexed.tokens if start <= t.start < end} | days)


def guess_type(lexeme: Lexeme, previous: Lexeme | None) -> EntityType:
    """A new name's likely type, from its words and what precedes it."""
    words = [w.lower() for w in lexeme.text.split()]
    if words and words[-1] in _ORG_WORDS:
        return EntityType.Organization
    if previous is not None and previous.cat == "W":
        last = previous.text.lower().split()[-1]
        if last in _PLACE_PREPOSITIONS and len(words) == 1:
            return EntityType.Location
        if last in ("the",):
            return EntityType.Organization
    if len(words) >= 2:
        return EntityType.Person
    return EntityType.Unknown


class Reader:
    """Reads texts against one KB with the rule files' word lists."""

    def __init__(
        self,
        index: KBIndex,
        words: WordLists,
        *,
        fuzzy_cutoff: float,
        word_prior: Callable[[str], float] | None = None,
        priors: tuple[float, float, float] = (0.0, 0.0, 0.0),
        claim_grammar: Lark | None = None,
    ) -> None:
        self.index = index
        self.words = words
        self.lexer = Lexer(
            index,
            words,
            fuzzy_cutoff=fuzzy_cutoff,
            word_prior=word_prior,
            emphasis_prior=priors[0],
            opener_prior=priors[1],
            gerund_prior=priors[2],
        )
        self._grammar = claim_grammar
        self._cache: OrderedDict[tuple[str, str], tuple[LexedText, list[list[ClaimDraft]]]] = (
            OrderedDict()
        )
        self._id_sets: dict[int, tuple[tuple[str, ...], frozenset[str]]] = {}

    def parse(self, text: str, reference: datetime) -> tuple[LexedText, list[list[ClaimDraft]]]:
        """Lexemes and each sentence's claim drafts. They depend only on the text and the day
        (not on what is in focus), so a turn seen before costs a dictionary lookup."""
        key = (text, reference.date().isoformat())
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
            return hit
        lexed = self.lexer.lex(text, reference)
        parsed = (
            lexed,
            [
                extract_drafts(row, self._grammar, self.words.markers.get)
                for row in lexed.sentence_lexemes
            ],
        )
        self._cache[key] = parsed
        if len(self._cache) > _LEX_CACHE_SIZE:
            self._cache.popitem(last=False)
        return parsed

    def referent_for(self, entity_id: str) -> Referent:
        entity = self.index.entities[entity_id]
        return Referent(
            key=entity_id,
            name=entity.name,
            entity_id=entity_id,
            entity_type=entity.type,
            gender=entity.gender.value if entity.gender else None,
            number=entity.number.value if entity.number else None,
            salience=1.0,
            order=0,
        )

    def name_referent(self, lexeme: Lexeme, previous: Lexeme | None) -> Referent:
        return Referent(
            key="name:" + fold(lexeme.text),
            name=lexeme.text,
            entity_id=None,
            entity_type=guess_type(lexeme, previous),
            gender=None,
            number=None,
            salience=1.0,
            order=0,
        )

    def read(self, text: str, reference: datetime, resolver: ReferenceResolver) -> ReadText:
        lexed, drafts = self.parse(text, reference)
        out = ReadText(lexed)
        chosen: dict[int, Referent] = {}  # id(lexeme) -> the referent its subject means
        periods = lexed.markers_of("period-phrase")
        last_days: set[str] = set()
        for row, row_drafts in zip(lexed.sentence_lexemes, drafts, strict=True):
            previous: Lexeme | None = None
            for lexeme in row:
                self._observe(lexeme, previous, resolver, out, chosen)
                previous = lexeme
            ambiguous = {id(p.lexeme) for p in out.pronouns if len(p.candidates) > 1}
            # a sentence naming no day speaks of the last one named, or of today
            days = _sentence_days(lexed, row, periods) if row else set()
            days = days or last_days or {reference.strftime("%A").lower()}
            last_days = days
            words = _sentence_words(lexed, row, days) if row else frozenset()
            for draft in row_drafts:
                claim = self._attach(draft, chosen, ambiguous, resolver, words)
                if claim is not None:
                    out.claims.append(claim)
        return out

    def _observe(
        self,
        lexeme: Lexeme,
        previous: Lexeme | None,
        resolver: ReferenceResolver,
        out: ReadText,
        chosen: dict[int, Referent],
    ) -> None:
        if lexeme.cat == "ENT":
            entity_id = self._pick_entity(lexeme, resolver)
            if entity_id is None:
                return  # "John" among many Johns, none in focus: who is meant is unknown
            referent = self.referent_for(entity_id)
            resolver.observe(referent)
            chosen[id(lexeme)] = referent
            out.mentions.append(
                EntityMention(lexeme, entity_id, "Fuzzy" if lexeme.fuzzy else "Direct")
            )
        elif lexeme.cat == "NAME":
            referent = self.name_referent(lexeme, previous)
            resolver.observe(referent)
            chosen[id(lexeme)] = referent
            out.names.append(lexeme)
        elif lexeme.cat in ("PRON", "PRON_POSS") and lexeme.pronoun is not None:
            info = self.words.pronouns[lexeme.pronoun]
            candidates = resolver.candidates(info)
            out.pronouns.append(PronounReading(lexeme, candidates))
            if candidates:
                chosen[id(lexeme)] = candidates[0]

    def _pick_entity(self, lexeme: Lexeme, resolver: ReferenceResolver) -> str | None:
        """Of several entities sharing a name, the one most in focus; None when none is (a
        claim about an unknown one of many people would be checked against the wrong one)."""
        if len(lexeme.entity_ids) == 1:
            return lexeme.entity_ids[0]
        ids = self._id_set(lexeme.entity_ids)
        focused = [r for r in resolver.in_focus() if r.key in ids]
        if not focused:
            return None
        return max(focused, key=lambda r: (r.salience, r.order)).key

    def _attach_implicit(
        self, draft: ClaimDraft, resolver: ReferenceResolver, words: frozenset[str]
    ) -> AttachedClaim | None:
        """A KB value with no subject named ("there is moderate traffic") is about the entity in
        focus that holds that attribute. Only values the KB itself lists qualify: a bare time or
        number could belong to anything."""
        owners = draft.value.attributes
        if not owners or draft.negated or draft.foreign:
            return None
        for referent in sorted(resolver.in_focus(), key=lambda r: (-r.salience, -r.order)):
            entity = self.index.entities.get(referent.entity_id or "")
            if entity is not None and any(a in entity.attributes for a in owners):
                picked = choose_attribute(draft, entity.id, self.index, words)
                if picked is None:
                    return None
                return AttachedClaim(
                    draft, entity.name, entity.id, "Implicit", picked[0], picked[1], draft.value
                )
        return None

    def _id_set(self, ids: tuple[str, ...]) -> frozenset[str]:
        """The ids sharing a name as a set, kept per tuple (a first name may have thousands)."""
        cached = self._id_sets.get(id(ids))
        if cached is None or cached[0] is not ids:
            cached = self._id_sets[id(ids)] = (ids, frozenset(ids))
        return cached[1]

    def _attach(
        self,
        draft: ClaimDraft,
        chosen: dict[int, Referent],
        ambiguous: set[int],
        resolver: ReferenceResolver,
        words: frozenset[str],
    ) -> AttachedClaim | None:
        subject = draft.subject
        if subject is None:
            return self._attach_implicit(draft, resolver, words)
        if subject.kind in ("self", "addressee"):
            # "we're going to 145 Amherst St": a KB value is the destination's, not ours
            return self._attach_implicit(draft, resolver, words)
        referent = chosen.get(id(subject.lexeme))
        if subject.kind == "pronoun":
            if referent is None:
                return None
            resolution = "AmbiguousPronoun" if id(subject.lexeme) in ambiguous else "Pronoun"
        elif subject.kind == "entity":
            if referent is None:
                return None  # an ambiguous name
            resolution = "Fuzzy" if subject.lexeme.fuzzy else "Direct"
        else:
            resolution = "Unknown"
        subject_id = referent.entity_id if referent is not None else None
        picked = choose_attribute(draft, subject_id, self.index, words)
        if picked is None:
            return None
        attribute, basis = picked
        name = referent.name if referent is not None else subject.lexeme.text
        return AttachedClaim(draft, name, subject_id, resolution, attribute, basis, draft.value)
