"""The organisation the reply speaks for: the subject of "we", "our" and "us" ("we open at 9 on
Saturdays", "our branch is on Mill Lane").

Declared in the KB (`organization`, the entity's id), else inferred: the rules
(`speaks-for-us` in metta/entities.metta) decide from how many Organization entities the KB has
and whether the one holds an address and opening hours (attributes whose names hold an
`organisation-detail` word).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from replyguard.models import EntityType, KnowledgeBase
from replyguard.text.lexicon import phrase_key


def speaking_organisation(
    kb: KnowledgeBase,
    details: Iterable[tuple[str, str]],
    decide: Callable[[int, bool, bool], bool],
) -> str | None:
    """The id of the entity "we" is, or None. `details` are (kind, word) facts: kind `address`
    or `hours`; `decide(organisations, holds_address, holds_hours)` is the rules' verdict."""
    if kb.organization is not None:
        return kb.organization
    organisations = [e for e in kb.entities if e.type == EntityType.Organization]
    if not organisations:
        return None
    words: dict[str, set[str]] = {}
    for kind, word in details:
        words.setdefault(kind, set()).add(word.lower())
    only = organisations[0]
    named = {w for attribute in only.attributes for w in phrase_key(attribute.replace("_", " "))}
    holds_address = bool(named & words.get("address", set()))
    holds_hours = bool(named & words.get("hours", set()))
    return only.id if decide(len(organisations), holds_address, holds_hours) else None
