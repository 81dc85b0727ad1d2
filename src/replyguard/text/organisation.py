"""The organisation the reply speaks for: the subject of "we", "our" and "us" ("we open at 9 on
Saturdays", "our branch is on Mill Lane").

Declared in the KB (`organization`, the entity's id), else inferred: the one Organization entity
the rules (`speaks-for-us` in metta/entities.metta) accept from what it holds (an address or
contact details, opening hours: attributes whose names hold an `organisation-detail` word). When
no Organization, or more than one, qualifies, "we" is nobody the KB holds; but when several
qualify (a library's branches) an organisation still speaks, and "our X" is still a part of it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from replyguard.models import EntityType, KnowledgeBase
from replyguard.text.lexicon import phrase_key
from replyguard.text.temporal import day_words


def qualifying_organisations(
    kb: KnowledgeBase,
    details: Iterable[tuple[str, str]],
    qualifies: Callable[[bool, bool], bool],
) -> list[str]:
    """The ids of the entities that may be "we": the declared one, else every Organization the
    rules accept. `details` are (kind, word) facts, kind `contact` or `hours`;
    `qualifies(holds_contact, holds_hours)` is the rules' verdict on one entity."""
    if kb.organization is not None:
        return [kb.organization]
    words: dict[str, set[str]] = {}
    for kind, word in details:
        # a weekday's short forms ("tue_open") are the temporal grammar's, not listed in the rules
        words.setdefault(kind, set()).update(day_words(word.lower()))
    found = []
    for entity in kb.entities:
        if entity.type != EntityType.Organization:
            continue
        named = {w for a in entity.attributes for w in phrase_key(a.replace("_", " "))}
        if qualifies(
            bool(named & words.get("contact", set())), bool(named & words.get("hours", set()))
        ):
            found.append(entity.id)
    return found
