"""ContradictsPrior for a value of another kind than the one the user said they are (or have):
where an entity's attributes tell kinds apart by their first word beside a common last word
(`senior_price` and `price`, `small_dog_price` and `large_dog_price`, `member_price`), a user
statement that names one of those kinds ("I'm a member", "we're both pensioners", "she's a
large breed") against a reply that gives the same entity's value of another kind (its `price`,
its `small_dog_price`) and none of the user's kind. Only prices count: other columns that share a
last word (`event_location` beside `address_of_location`) name no kinds of customer.

A user word names a kind by its stem or through `kind-words` (metta/hallucination.metta:
"pensioner" is the `senior` kind). Only statements count (a question or a denial states no
kind), and only verified claims of the reply: a value of the user's kind read as another's
is the claim check's to correct, not a contradiction of the user.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from replyguard.kb import name_words
from replyguard.models import ValueType
from replyguard.stages.user_said import Found
from replyguard.stages.user_said import plain_sentences as _plain
from replyguard.text.words import stem

if TYPE_CHECKING:
    from replyguard.dialogue import TurnReading
    from replyguard.engine import Engine
    from replyguard.models import Entity
    from replyguard.stages.context import CallContext


def kind_candidates(engine: Engine, ctx: CallContext, users: list[TurnReading]) -> list[Found]:
    """The reply's values of another kind than the user's, on an entity that has the user's
    kind of that value (module doc)."""
    said = _kinds_said(engine, users)
    if not said:
        return []
    claimed: dict[str, set[str]] = {}
    for record in ctx.claims:
        if record.model.subject_id:
            claimed.setdefault(record.model.subject_id, set()).add(record.model.predicate)
    out: list[Found] = []
    for record in ctx.claims:
        entity = engine.index.entities.get(record.model.subject_id or "")
        attribute = record.model.predicate
        if (
            entity is None
            or record.status != "Verified"
            or engine.index.attribute_type(attribute) != ValueType.money
        ):
            continue  # kinds of customer are told apart by what they pay
        theirs = _theirs(entity, attribute, said)
        if theirs is None or attribute == theirs[0] or theirs[0] in claimed[entity.id]:
            continue
        if _kind_of(entity, attribute) in said:
            continue  # the reply gives the user's own kind too ("members pay £9")
        user_attribute, reading = theirs
        reason = (
            f"says the user is of the {_kind_of(entity, user_attribute)} kind, and the reply "
            f"gives {entity.label}'s {attribute}, not its {user_attribute}"
        )
        fix = f"Give {entity.label}'s {user_attribute}"
        out.append(Found("OtherKind", reading, record.span, reason, fix))
    return out


def _kind_of(entity: Entity, attribute: str) -> str | None:
    """The kind an attribute's first word tells apart, when another attribute of the entity
    ends in the same word: "senior" of senior_price beside price; None for the plain one."""
    words = name_words(attribute)
    if len(words) < 2:
        return None
    last = words[-1]
    if not any(a != attribute and name_words(a)[-1:] == [last] for a in entity.attributes):
        return None
    return stem(words[0])


def _theirs(
    entity: Entity, attribute: str, said: dict[str, TurnReading]
) -> tuple[str, TurnReading] | None:
    """The entity's attribute of the user's kind that ends as `attribute` does, with the
    turn that said the kind."""
    last = name_words(attribute)[-1:]
    for other in entity.attributes:
        kind = _kind_of(entity, other)
        if kind in said and name_words(other)[-1:] == last:
            return other, said[kind]
    return None


def _kinds_said(engine: Engine, users: list[TurnReading]) -> dict[str, TurnReading]:
    """The stems of the words of the users' statements, and the kinds `kind-words` gives for
    them, each with the latest turn that said it."""
    pairs = (p.split(":", 1) for p in str(engine.setting("kind-words")).split())
    synonyms = {stem(word): kind for word, kind in pairs}
    out: dict[str, TurnReading] = {}
    for reading in users:
        lexed = reading.reading.lexed
        for a, b in _plain(lexed, user=True):
            for token in lexed.tokens:
                if a <= token.start < b and token.kind == "word":
                    word = stem(token.lower)
                    out[word] = reading
                    if word in synonyms:
                        out[stem(synonyms[word])] = reading
    return out
