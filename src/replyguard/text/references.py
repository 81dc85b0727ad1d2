"""Reference resolution: which salient entity a third-person pronoun can mean.

Candidates are the entities in focus (dialogue salience at or above the focus threshold, and
everything already mentioned in the reply) that agree with the pronoun in gender, number and
animacy. The resolver only measures; whether several candidates make a reference ambiguous is
decided by the rules (metta/coherence.metta).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from replyguard.models import EntityType
from replyguard.text.lexicon import PronounInfo

_ANIMATE_TYPES = {EntityType.Person, EntityType.Unknown}
_GROUP_TYPES = {EntityType.Organization}


@dataclass(frozen=True)
class Referent:
    key: str  # entity id, or "name:<folded name>" for a name the KB does not know
    name: str
    entity_id: str | None
    entity_type: EntityType
    gender: str | None  # Masculine | Feminine | Neuter | None (unknown)
    number: str | None  # Singular | Plural | None
    salience: float
    order: int  # larger is more recent


def _plural_name(name: str) -> bool:
    """A thing named in the plural ("Varifocal Lenses", "Life Jackets") may be "they"."""
    last = name.lower().split()[-1:] if name else []
    return bool(last) and last[0].endswith("s") and not last[0].endswith(("ss", "us"))


def agrees(info: PronounInfo, r: Referent) -> bool:
    if info.animacy == "Animate" and r.entity_type not in _ANIMATE_TYPES:
        return False
    if info.animacy == "Inanimate" and r.entity_type == EntityType.Person:
        return False
    if info.number == "Plural":
        # "call them at ...": a KB entity of unknown kind and number may be a business
        unknown = r.entity_id is not None and r.entity_type == EntityType.Unknown and not r.number
        return (
            r.number == "Plural"
            or r.entity_type in _GROUP_TYPES
            or unknown
            or (r.number is None and r.entity_type != EntityType.Person and _plural_name(r.name))
        )
    if r.number == "Plural":
        return False
    if info.gender in ("Masculine", "Feminine"):
        return r.gender in (None, "Unknown", info.gender)
    return True


class ReferenceResolver:
    """Tracks what is in focus while the reply is read left to right."""

    def __init__(self, registry: list[Referent], focus_threshold: float) -> None:
        self._focus = focus_threshold
        self._referents = {r.key: r for r in registry if r.salience >= focus_threshold}
        self._order = max((r.order for r in registry), default=0)

    def observe(self, referent: Referent) -> None:
        """A mention in the reply: fully salient and the most recent."""
        self._order += 1
        self._referents[referent.key] = replace(referent, salience=1.0, order=self._order)

    def in_focus(self) -> list[Referent]:
        return list(self._referents.values())

    def candidates(self, info: PronounInfo) -> list[Referent]:
        """Agreeing referents in focus, most salient and most recent first."""
        found = [r for r in self._referents.values() if agrees(info, r)]
        return sorted(found, key=lambda r: (-r.salience, -r.order))
