"""Attachment: which KB entity a claim is about, and which attribute its value fills.

The grammar says *that* a value belongs to a subject; this module says *which* attribute, by
evidence in a fixed order: a cue phrase in the text that names a type-compatible attribute, then
an attribute the KB already holds this value under, then the only attribute of the subject whose
type fits the value. The basis is kept on the claim because the rules weigh it (a cue is firmer
evidence than a type guess).
"""

from __future__ import annotations

from dataclasses import dataclass

from replyguard.models import ValueType
from replyguard.text.claims import ClaimDraft
from replyguard.text.lexer import Lexeme
from replyguard.text.lexicon import KBIndex

_TEXTUAL = {ValueType.text, ValueType.enum, ValueType.entity}
_COMPATIBLE: dict[ValueType, set[ValueType]] = {
    ValueType.time: {ValueType.time, ValueType.datetime},
    ValueType.date: {ValueType.date, ValueType.datetime},
    ValueType.datetime: {ValueType.date, ValueType.datetime, ValueType.time},
    ValueType.year: {ValueType.year, ValueType.date, ValueType.datetime},
    ValueType.number: {ValueType.number, ValueType.money, ValueType.percent, ValueType.duration},
    ValueType.duration: {ValueType.duration, ValueType.number},
    ValueType.money: {ValueType.money, ValueType.number},
    ValueType.percent: {ValueType.percent, ValueType.number},
    ValueType.email: {ValueType.email},
    ValueType.phone: {ValueType.phone},
    ValueType.url: {ValueType.url},
}


def compatible(value_type: ValueType | None, attribute_type: ValueType) -> bool:
    if value_type is None or value_type in _TEXTUAL:
        return attribute_type in _TEXTUAL
    return attribute_type in _COMPATIBLE.get(value_type, {value_type})


@dataclass
class AttachedClaim:
    """A claim ready for the atom space: subject resolved, attribute chosen, value normalised."""

    draft: ClaimDraft
    subject_text: str
    subject_id: str | None
    resolution: str  # Direct | Fuzzy | Pronoun | AmbiguousPronoun | Unknown
    predicate: str
    basis: str  # Cue | Focus | ValueOwner | Type
    value: Lexeme

    @property
    def negated(self) -> bool:
        return self.draft.negated


def choose_attribute(
    draft: ClaimDraft, subject_id: str | None, index: KBIndex
) -> tuple[str, str] | None:
    """(attribute, basis) for the draft's value, or None when nothing in the text or KB fits."""
    value = draft.value
    vtype = value.value_type
    entity = index.entities.get(subject_id) if subject_id else None
    held = set(entity.attributes) if entity else set()

    def fits(attribute: str) -> bool:
        if attribute not in index.schema:
            return True  # an attribute no entity has ("founded"): any value may claim it
        return compatible(vtype, index.attribute_type(attribute))

    cued = [a for a in draft.cues if fits(a)]
    if cued:
        preferred = [a for a in cued if a in held] or cued
        return preferred[0], draft.basis if draft.basis != "Bare" else "Cue"
    owners = [a for a in value.attributes if fits(a)]
    if owners:
        preferred = [a for a in owners if a in held] or owners
        return preferred[0], "ValueOwner"
    if entity is not None and draft.copula:  # "X is at 2pm": the only time X has
        typed = [
            a
            for a in entity.attributes
            if a in index.schema and fits(a) and index.attribute_type(a) not in _TEXTUAL
        ]
        if len(typed) == 1:
            return typed[0], "Type"
    return None
