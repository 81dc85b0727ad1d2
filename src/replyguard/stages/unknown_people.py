"""People the KB lacks, said as LLMs say them: in lower case ("just ask for megan at the desk",
"tom carter alongside zoe pike"), or by a role no one holds ("she's our events coordinator").

Capitalised names are noticed by the lexer; these are found by where they stand, in a KB that
lists people:
- after our + a role (`role-noun` in metta/hallucination.metta, "coordinator", "instructor"):
  the role's last word must be a word of some KB person's values ("our head mechanic" of the
  Lead Mechanic); a lower-case word after the role, or before a comma before "our" ("ask jo,
  our cook"), is a name, and must be a KB person's ("our instructor tom");
- after a `person-slot` phrase ("ask for", "speak to") or beside a KB person ("tom carter and
  zoe pike"): a lower-case word there that no KB name, value or column holds and that is rare in
  English (below `emphasis-word-log-prior`: "megan", not "help" or "directions") is a name, and
  with it the next such word (a surname).
The rules judge each (`UnknownPerson` in metta/hallucination.metta).
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from replyguard.metta_host import Sym
from replyguard.models import EntityType, Evidence, HallucinationType, Span, ValueType
from replyguard.spelling.lexicon import english
from replyguard.stages.candidates import Candidate
from replyguard.stages.context import CallContext
from replyguard.stages.known_phrases import column_words, names_known_thing
from replyguard.text.lexer import FUNCTION_WORDS
from replyguard.text.lexicon import KBIndex, phrase_key
from replyguard.text.words import stem

if TYPE_CHECKING:
    from replyguard.engine import Engine

_ROLE_OPENERS = frozenset({"our"})
_MAX_ROLE_WORDS = 3
_BESIDE = frozenset({"and", "with", "or"})


class _People:
    """The KB's people: their ids, and the stems of each one's short textual values (a role, a
    speciality)."""

    def __init__(self, index: KBIndex) -> None:
        people = [e for e in index.entities.values() if e.type == EntityType.Person]
        self.ids = tuple(e.id for e in people)
        self.roles = tuple(
            frozenset(stem(w) for w in phrase_key(str(value)) if w.isalnum())
            for entity in people
            for attribute in entity.attributes
            if index.attribute_type(attribute) in (ValueType.text, ValueType.enum)
            for value in entity.values_of(attribute)[0]
        )


_PEOPLE: WeakKeyDictionary[KBIndex, _People] = WeakKeyDictionary()


def _people(index: KBIndex) -> _People:
    """The KB's people; once per KB."""
    found = _PEOPLE.get(index)
    if found is None:
        found = _PEOPLE[index] = _People(index)
    return found


class _Finder:
    """Where the people of one reply are named, and which lower-case words there are names."""

    def __init__(self, engine: Engine, ctx: CallContext) -> None:
        self.index = engine.index
        self.ctx = ctx
        lexed = ctx.reply.lexed
        self.tokens = lexed.tokens
        self.read = {
            k for lx in lexed.lexemes if lx.cat != "W" for k in range(lx.start_tok, lx.end_tok)
        }
        self.persons = {
            lx.start_tok: lx
            for lx in lexed.lexemes
            if lx.cat == "ENT"
            and any(self.index.entities[e].type == EntityType.Person for e in lx.entity_ids)
        }
        self.rare = float(engine.setting("emphasis-word-log-prior"))
        self.markers = engine.words.markers.get

    def a_name(self, k: int) -> bool:
        """A lower-case word of a name no dictionary knows well ("sophie")."""
        word = self.tokens[k].lower
        vocabulary = english()
        return self.a_word_of_a_name(k) and (
            word not in vocabulary or vocabulary.prior(word, 0.3) < self.rare
        )

    def name_at(self, k: int) -> tuple[int, int] | None:
        """The token range of a lower-case name at k (with the next such word, a surname)."""
        if k >= len(self.tokens) or not self.a_name(k):
            return None
        return k, k + 2 if k + 1 < len(self.tokens) and self.a_name(k + 1) else k + 1

    def name_before(self, k: int) -> tuple[int, int] | None:
        """The token range of a lower-case name before ", " at k ("by jo lane, our cook"), with
        the word before it when that is a name too (a first name)."""
        if k < 2 or self.tokens[k - 1].text != "," or not self.a_name(k - 2):
            return None
        return (k - 3 if k >= 3 and self.a_name(k - 3) else k - 2), k - 1

    def name_apart(self, k: int) -> tuple[int, int] | None:
        """A lower-case name set off by a comma after a role at k ("our claims handler, sophie
        barnes, deals with ..."), when a comma or the sentence's end follows it too."""
        tokens = self.tokens
        if k >= len(tokens) or tokens[k].text != ",":
            return None
        named = self.name_at(k + 1)
        if (
            named is None
            and k + 2 < len(tokens)
            and all(self.a_word_of_a_name(i) for i in (k + 1, k + 2))
        ):
            named = (k + 1, k + 3)  # "jack reed": two words set off after a role are a name
        if named is None:
            return None
        after = tokens[named[1]] if named[1] < len(tokens) else None
        return named if after is None or after.text in (",", ".", "!", "?") else None

    def a_word_of_a_name(self, k: int) -> bool:
        """A lower-case word that may be a name's, common word or not ("jack reed")."""
        token = self.tokens[k]
        return (
            token.kind == "word"
            and not token.is_capitalised
            and k not in self.read
            and token.lower.isalpha()
            and token.lower not in FUNCTION_WORDS
            and not names_known_thing(self.index, [token.lower])
            and not self.ctx.dialogue.mentions(token.lower)
        )

    def role_after(self, k: int) -> tuple[int, int, str] | None:
        """After "our" at k: a role's words ending in a `role-noun`, then maybe a name. A
        lower-case name after the role that is no KB person's is invented (Named); so is the
        role when no KB person's values hold its last word (Role: "our head mechanic" of the
        Lead Mechanic is the kind of person the KB has, "our access coordinator" is not)."""
        tokens = self.tokens
        j = k + 1
        while (
            j < len(tokens)
            and j - k <= _MAX_ROLE_WORDS
            and tokens[j].kind == "word"
            and tokens[j].lower not in FUNCTION_WORDS
            and j not in self.persons
            and "role-noun" not in self.markers(tokens[j].lower)
        ):
            j += 1
        if j >= len(tokens) or "role-noun" not in self.markers(tokens[j].lower):
            return None
        if j + 1 in self.persons:
            return None  # "our box office manager Tomasz Wilk": a KB person
        if column_words(self.index, [t.lower for t in tokens[k + 1 : j + 2]]):
            return None  # "our minimum driver age is 21": an attribute's name
        named = self.name_at(j + 1) or self.name_before(k) or self.name_apart(j + 1)
        if named:
            return (*named, "Named")
        if any(stem(tokens[j].lower) in role for role in _people(self.index).roles):
            return None
        return k + 1, j + 1, "Role"


def unknown_people_candidates(engine: Engine, ctx: CallContext) -> list[Candidate]:
    people = _people(engine.index).ids
    if not people:
        return []
    cap = int(engine.setting("guidance-alternatives"))
    finder = _Finder(engine, ctx)
    tokens = finder.tokens
    found: list[tuple[int, int, str] | None] = [
        finder.role_after(k) for k, t in enumerate(tokens) if t.lower in _ROLE_OPENERS
    ]
    for marker in ctx.reply.lexed.markers_of("person-slot"):
        k = next((i for i, t in enumerate(tokens) if t.start >= marker.end), len(tokens))
        named = finder.name_at(k)
        found.append((*named, "Named") if named else None)
    for person in finder.persons.values():
        k = person.end_tok
        if k < len(tokens) and tokens[k].lower in _BESIDE:
            named = finder.name_at(k + 1)
            found.append((*named, "Named") if named else None)
    candidates = []
    seen: set[int] = set()
    for i, j, how in filter(None, found):
        start, end = tokens[i].start, tokens[j - 1].end
        text = ctx.response[start:end]
        if i in seen or ctx.passages.mentions(text):
            continue
        seen.add(i)
        candidates.append(
            Candidate(
                HallucinationType.NonexistentEntity,
                (Sym("UnknownPerson"), Sym(how)),
                Span(start=start, end=end),
                f"'{text}' is no one the knowledge base or the dialogue names"
                if how == "Named"
                else f"no one the knowledge base lists is the '{text}'",
                suggestion="Name only the people the knowledge base lists",
                support=[Evidence(kind="kb", entity_id=e) for e in people[:cap]],
            )
        )
    return candidates
