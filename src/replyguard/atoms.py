"""Encoding KB, dialogue and reply facts as atoms (DESIGN §4), and reading KB facts back.

Atom shapes (strings are MeTTa strings, names in capitals are symbols):
  &kb        (entity E42 Person) (name E42 "John Smith") (alias E42 "John")
             (gender E42 Masculine) (attr E42 email "john.smith@company.com")
             (held-by email v:john.smith@company.com E42)  ; by normalised key: who holds it
             (attr-confidence E42 join_date 0.95) (attr-source E42 join_date "HR record")
             (attr-type email email) (cardinality department one) (cue department "works in")
  &dialogue  (turn T3 user "John works in Engineering.")
             (turn-claim T3 E42 department "Engineering" "engineering")
  &reply     (claim C1 E42 email "john.s@company.org" (Span 22 40) Cue Direct)
             (validation C1 (Contradicted 1.0)) (corrected C1 "john.smith@company.com")
             (flag F1 ContradictsFact 0.95 (Span 22 40)) (unread-value "$180" money (Span 9 13))
Typed values are normalised in Python before they become keys, so rules compare like with like.
A key is a symbol (`v:` and the key, percent-encoded where a symbol cannot hold a character)
because hyperon indexes symbols but compares strings one by one: looking a value up by a symbol
key stays fast however large the KB.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from hyperon import E, GroundingSpaceRef, S, V, ValueAtom
from hyperon.atoms import Atom

from replyguard.metta_host import from_atom, sym, to_atom
from replyguard.models import (
    AttributeSchema,
    CoherenceResult,
    CorrectedResponse,
    CorrectionType,
    FactualValidationResult,
    HallucinationFlag,
    KnowledgeBase,
    PostprocessedResponse,
    UnreadValue,
)

if TYPE_CHECKING:
    from replyguard.stages.context import CallContext, ClaimRecord
    from replyguard.text.attachment import AttachedClaim
from replyguard.values import value_key

_SYMBOL_SAFE = re.compile(r"[^A-Za-z0-9._:@+\-]")


def key_symbol(key: str) -> Atom:
    """A comparison key as an indexable symbol: "john smith" -> v:john%20smith."""
    encoded = _SYMBOL_SAFE.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode()), key)
    return S("v:" + encoded)


def _fact(head: str, *args: object) -> Atom:
    return E(S(head), *(to_atom(a) for a in args))


def kb_atoms(kb: KnowledgeBase) -> Iterator[Atom]:
    holders: dict[tuple[str, str], int] = {}
    attribute_symbols: dict[str, Atom] = {}
    for attribute, spec in kb.attribute_schema.items():
        yield _fact("attr-type", sym(attribute), S(spec.value_type.value))
        yield _fact("cardinality", sym(attribute), S(spec.cardinality.value))
        for cue in spec.cues:
            yield _fact("cue", sym(attribute), cue)
    for entity in kb.entities:
        eid = sym(entity.id)
        yield _fact("entity", eid, S(entity.type.value))
        if entity.name is not None:
            yield _fact("name", eid, entity.name)
        for alias in entity.aliases:
            yield _fact("alias", eid, alias)
        if entity.gender is not None:
            yield _fact("gender", eid, S(entity.gender.value))
        if entity.number is not None:
            yield _fact("number", eid, S(entity.number.value))
        for attribute in entity.attributes:
            values, confidence, source = entity.values_of(attribute)
            value_type = kb.attribute_schema[attribute].value_type
            symbol = attribute_symbols.setdefault(attribute, sym(attribute))
            for v in values:
                text = str(v)
                key = value_key(value_type, text)
                yield _fact("attr", eid, symbol, text)
                yield _fact("held-by", symbol, key_symbol(key), eid)
                holders[(attribute, key)] = holders.get((attribute, key), 0) + 1
            if confidence != 1.0:
                yield _fact("attr-confidence", eid, symbol, confidence)
            if source:
                yield _fact("attr-source", eid, symbol, source)
    for (attribute, key), count in holders.items():
        if count > 1:  # one holder is the default: no atom for each of 100k unique emails
            yield _fact("holders", sym(attribute), key_symbol(key), count)


def load_kb_space(space: GroundingSpaceRef, kb: KnowledgeBase) -> int:
    count = 0
    for atom in kb_atoms(kb):
        space.add_atom(atom)
        count += 1
    return count


def clear_space(space: GroundingSpaceRef) -> None:
    for atom in space.get_atoms():
        space.remove_atom(atom)


def _bound(space: GroundingSpaceRef, pattern: Atom, var: str) -> list[object]:
    out = []
    for bindings in space.query(pattern):
        atom = bindings[var]
        if atom is not None:
            out.append(from_atom(atom))
    return out


def kb_values(space: GroundingSpaceRef, entity_id: str, attribute: str) -> list[str]:
    """The KB's values of an attribute of an entity, as stated (all of them if multi-valued)."""
    return [
        str(v) for v in _bound(space, E(S("attr"), sym(entity_id), sym(attribute), V("v")), "v")
    ]


def kb_confidence(space: GroundingSpaceRef, entity_id: str, attribute: str) -> float:
    found = _bound(space, E(S("attr-confidence"), sym(entity_id), sym(attribute), V("c")), "c")
    return float(found[0]) if found else 1.0  # type: ignore[arg-type]


def kb_source(space: GroundingSpaceRef, entity_id: str, attribute: str) -> str | None:
    found = _bound(space, E(S("attr-source"), sym(entity_id), sym(attribute), V("s")), "s")
    return str(found[0]) if found else None


def holder_count(space: GroundingSpaceRef, attribute: str, key: str) -> int:
    """How many entities hold this value of the attribute (a `holders` atom, else 0 or 1)."""
    found = _bound(space, E(S("holders"), sym(attribute), key_symbol(key), V("n")), "n")
    if found:
        return int(found[0])  # type: ignore[call-overload]
    return len(value_holders(space, attribute, key))


def value_holders(space: GroundingSpaceRef, attribute: str, key: str) -> list[str]:
    """Entities whose attribute holds a value with this comparison key."""
    pattern = E(S("held-by"), sym(attribute), key_symbol(key), V("e"))
    return [str(e) for e in _bound(space, pattern, "e")]


def attributes_holding(
    space: GroundingSpaceRef, entity_id: str, key: str, schema: dict[str, AttributeSchema]
) -> list[str]:
    """Attributes of an entity that hold a value with this comparison key."""
    found = []
    for bindings in space.query(E(S("attr"), sym(entity_id), V("a"), V("v"))):
        attribute = str(bindings["a"])
        spec = schema.get(attribute)
        value = str(from_atom(bindings["v"]))
        if spec is not None and value_key(spec.value_type, value) == key:
            found.append(attribute)
    return found


def span_atom(start: int, end: int) -> Atom:
    """(Span START END) with whole-number offsets."""
    return E(S("Span"), ValueAtom(start, "Number"), ValueAtom(end, "Number"))


def claim_atom(record: ClaimRecord) -> Atom:
    claim = record.model
    subject = sym(claim.subject_id) if claim.subject_id else claim.subject
    span = span_atom(claim.span.start, claim.span.end)
    return _fact(
        "claim",
        S(claim.id),
        subject,
        sym(claim.predicate),
        claim.object,
        span,
        S(record.attached.basis),
        S(record.attached.resolution),
    )


def turn_claim_atom(turn_id: str | None, claim: AttachedClaim) -> Atom:
    subject = sym(claim.subject_id) if claim.subject_id else claim.subject_text
    return _fact(
        "turn-claim",
        S(_safe_id(turn_id)),
        subject,
        sym(claim.predicate),
        claim.value.text,
        claim.value.value_key or claim.value.text,
    )


def kb_fact_atoms(
    entity_id: str, attribute: str, values: list[str], confidence: float, source: str | None
) -> list[Atom]:
    """The &kb atoms stating an entity's attribute (as loaded by kb_atoms), from its parts."""
    eid, attr = sym(entity_id), sym(attribute)
    out = [_fact("attr", eid, attr, v) for v in values]
    if confidence != 1.0:
        out.append(_fact("attr-confidence", eid, attr, confidence))
    if source:
        out.append(_fact("attr-source", eid, attr, source))
    return out


def dialogue_atoms(ctx: CallContext) -> Iterator[Atom]:
    for reading in ctx.dialogue.readings:
        turn = reading.turn
        yield _fact("turn", S(_safe_id(turn.id)), sym(turn.role), turn.text)
        for claim in reading.reading.claims:
            yield turn_claim_atom(turn.id, claim)


def reply_atoms(
    ctx: CallContext,
    coherence: CoherenceResult,
    factual: FactualValidationResult,
    flags: list[HallucinationFlag],
    corrected: CorrectedResponse | None,
    unread: list[UnreadValue],
    findings: Atom,
) -> Iterator[Atom]:
    """The reply's claims and every verdict on it, written before the recommendation is decided
    so its rules (and a user's) see this call's atoms; for the REPL and the trace too."""
    fixes = {
        (c.span.start, c.span.end): c.replacement
        for c in (corrected.corrections if corrected else [])
        if c.correction_type == CorrectionType.Factual and c.replacement is not None
    }
    for record in ctx.claims:
        yield claim_atom(record)
        if record.model.negated:
            yield _fact("negated", S(record.id))
        if record.verdict_inputs is not None:
            yield _fact("claim-evidence", S(record.id), *record.verdict_inputs)
        if record.validation is not None:
            status = record.validation.status
            fields = (to_atom(v) for k, v in status.model_dump().items() if k != "kind")
            yield _fact("validation", S(record.id), E(S(status.kind), *fields))
        fix = fixes.get((record.span.start, record.span.end))
        if fix is not None:
            yield _fact("corrected", S(record.id), fix)
    for i, flag in enumerate(flags, start=1):
        span = span_atom(flag.span.start, flag.span.end)
        yield _fact(
            "flag",
            S(f"F{i}"),
            S(flag.hallucination_type.value),
            flag.confidence,
            span,
            flag.content,
        )
    for i, issue in enumerate(coherence.issues, start=1):
        yield _fact("coherence-issue", S(f"I{i}"), S(issue.issue_type.value), issue.severity)
    for value in unread:
        span = span_atom(value.span.start, value.span.end)
        yield _fact("unread-value", value.text, S(value.value_type.value), span)
    yield _fact("coherence", coherence.score)
    yield _fact("factual", factual.score)
    yield _fact("findings", findings)


def outcome_atoms(result: PostprocessedResponse) -> Iterator[Atom]:
    """The call's confidence and recommendation, added to &reply once they are decided."""
    yield _fact("confidence", result.confidence)
    yield _fact("recommendation", S(result.recommendation.kind.value))


def _safe_id(turn_id: str | None) -> str:
    return re.sub(r"[^A-Za-z0-9_.:-]", "_", turn_id or "_")
