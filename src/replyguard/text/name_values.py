"""Attributes whose values are names ("hall": "Linden Room", "performer": "Miriam Osei"), and
which of them an unknown name said in a value's place fills.

"Autumn Cello Night is at Cedar Hall" where the KB's hall is "Linden Room" swaps one name for
another: "Cedar Hall" is a value of `hall` (wrong, and corrected), not an invented entity. An
unknown name is read as an attribute's value when it stands where a value stands (after a
preposition: "at", "by", "from the", ...; after "a"/"an" for a class: "a Chamber Music
evening") and exactly one attribute of the KB fits it, judged only by the KB's own values:

- the attribute's values are written as names (capitalised, not a number or an address), all
  but one in five of them (a venue called "1720(tm)");
- a place name ("Perth", "Glasgow") fills only an attribute whose values are places, and an
  attribute of places only takes a place;
- a class (after "a"/"an") fills only an attribute of classes, one whose name says so
  (`class-word` in metta/lexicon.metta: "kind", "genre"), and is no longer than its values ("an
  Owls Vs Terrapins event" names the event, not its kind); a name after a preposition fills
  only an attribute of individuals;
- an attribute another word of the sentence already fills (a KB value, a cue's value) is taken;
- of several that remain, the one whose name the sentence says ("the series Silver Frost"), else
  the one whose values end in the name's last word ("Cedar Hall" beside "Oak Hall").

A name read so is still an unknown name when no claim takes it (stages/new_entities.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from replyguard.models import ValueType
from replyguard.text.lexicon import KBIndex, WordLists, phrase_key
from replyguard.text.places import place_at
from replyguard.text.words import stem

_AGENT_ENDINGS = ("ist", "er", "or")  # "artist", "performer", "director"
_MAX_WORDS = 8  # "Bobby Dodd Stadium at Historic Grant Field"
_ABBREVIATION = 3  # letters in a state's or country's abbreviation
_TEXTUAL = (ValueType.text, ValueType.enum)
# the share of an attribute's values written as names for it to hold names: a venue may be
# called "1720(tm)" among "Lodge Room" and "The Teragram Ballroom"
_NAMED_SHARE = 0.8


@dataclass(frozen=True)
class NameAttribute:
    attribute: str
    places: bool  # its values are place names
    classes: bool  # its values are classes ("genre", "workshop_kind")
    heads: frozenset[str]  # the last words of its values of two words or more
    longest: int  # words in its longest value


def _is_place(words: tuple[str, ...]) -> bool:
    """A place name, maybe with its state's or country's abbreviation ("San Diego, CA",
    "Washington D.C.")."""
    alpha = [w for w in words if any(c.isalpha() for c in w)]
    n = place_at(alpha, 0) if alpha else 0
    return n > 0 and all(len(w.replace(".", "")) <= _ABBREVIATION for w in alpha[n:])


def _written_as_name(value: str) -> bool:
    """Capitalised, short, opening with a letter and with no comma: "Brisbane, California 94005"
    and "261 Driggs Avenue, Brooklyn" are addresses."""
    words = value.split()
    if not words or len(words) > _MAX_WORDS or not value[:1].isalpha() or "," in value:
        return False
    first = words[1] if words[0].lower() == "the" and len(words) > 1 else words[0]
    return first[:1].isupper()


class NameValues:
    """The KB's name-valued attributes, built once per KB."""

    def __init__(self, index: KBIndex, words: WordLists) -> None:
        self.index = index
        self._words = words

    @cached_property
    def names_are_places(self) -> bool:
        """Whether the KB's entities are places (the weather of towns): then a place it lacks is
        one of its kind it does not hold, not only where something is."""
        names = [phrase_key(e.label) for e in self.index.entities.values()]
        return bool(names) and sum(_is_place(n) for n in names) * 2 >= len(names)

    @cached_property
    def makers(self) -> frozenset[str]:
        """The attributes whose values are people or bands: names of individuals, no places."""
        return frozenset(
            a for a, spec in self.attributes.items() if not (spec.places or spec.classes)
        )

    @cached_property
    def classes(self) -> frozenset[str]:
        """The attributes whose values are classes ("car_type": "Compact")."""
        return frozenset(a for a, spec in self.attributes.items() if spec.classes)

    @staticmethod
    def makers_of(attributes: tuple[str, ...]) -> tuple[str, ...]:
        """Of a value's attributes, the one after "by" means: one named for who does or makes
        the thing (an agent noun), when exactly one is; else all of them."""
        agents = tuple(a for a in attributes if _agent_noun(a))
        return agents if len(agents) == 1 else attributes

    def is_place(self, text: str) -> bool:
        """A place name ("Grand Rapids", "San Diego, CA"), by the list of places."""
        return _is_place(phrase_key(text))

    @cached_property
    def attributes(self) -> dict[str, NameAttribute]:
        values: dict[str, list[str]] = {}
        for entity in self.index.entities.values():
            for attribute in entity.attributes:
                if attribute in self.index.polar:
                    continue
                if self.index.attribute_type(attribute) not in _TEXTUAL:
                    continue
                values.setdefault(attribute, []).extend(
                    str(v) for v in entity.values_of(attribute)[0]
                )
        out = {}
        for attribute, held in values.items():
            if not held or sum(map(_written_as_name, held)) < _NAMED_SHARE * len(held):
                continue
            keys = [phrase_key(v) for v in held]
            classes = any(
                "class-word" in self._words.markers.get(p) for p in attribute.lower().split("_")
            )
            # a class is no place, whatever town shares its name ("Pop", "Country")
            places = not classes and sum(_is_place(k) for k in keys) * 2 >= len(keys)
            heads = frozenset(k[-1] for k in keys if len(k) > 1)
            longest = max(len(k) for k in keys)
            out[attribute] = NameAttribute(attribute, places, classes, heads, longest)
        return out

    def attribute_for(
        self,
        words: tuple[str, ...],
        *,
        after_article: bool,
        taken: Iterable[str],
        sentence_stems: frozenset[str],
        after_by: bool = False,
        cued: Iterable[str] = (),
    ) -> str | None:
        """The one attribute an unknown name (its folded words) fills, or None: of those it
        fits, the one a cue just before it names ("the album Hat Nhan"), else the one the
        sentence names, else the one whose values end in its last word; after "by", the one
        whose name says who does or makes the thing (an agent noun: "artist", "director")."""
        place = _is_place(words)
        blocked = set(taken)
        fits = [
            spec
            for spec in self.attributes.values()
            if spec.attribute not in blocked
            and spec.places == place
            and (spec.classes and len(words) <= spec.longest if after_article else not spec.classes)
        ]
        cued = set(cued)
        if cued:
            fits = [s for s in fits if s.attribute in cued]
        if len(fits) > 1:
            named = [s for s in fits if _named(s.attribute, sentence_stems)]
            fits = named or [s for s in fits if words and words[-1] in s.heads] or fits
        if len(fits) > 1 and after_by:
            agents = self.makers_of(tuple(s.attribute for s in fits))
            fits = [s for s in fits if s.attribute in agents]
        return fits[0].attribute if len(fits) == 1 else None


def _agent_noun(attribute: str) -> bool:
    """An attribute named for who does the thing: "artist", "director", "performer"."""
    last = attribute.lower().rsplit("_", 1)[-1]
    return len(last) > 4 and last.endswith(_AGENT_ENDINGS)


def _named(attribute: str, stems: frozenset[str]) -> bool:
    return any(part and stem(part) in stems for part in attribute.lower().split("_"))
