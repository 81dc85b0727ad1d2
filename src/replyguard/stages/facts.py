"""Stage 2, fact validation: gather each claim's KB and history evidence, ask the rules.

Evidence is gathered by direct queries of &kb and the dialogue's claims; the verdict is
`(claim-status KB HISTORY NEGATED)` in metta/facts.metta.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from replyguard.atoms import (
    claim_atom,
    kb_confidence,
    kb_fact_atoms,
    kb_source,
    kb_values,
    turn_claim_atom,
)
from replyguard.metta_host import Sym
from replyguard.models import (
    Cardinality,
    Claim,
    ClaimValidation,
    Contradicted,
    Evidence,
    FactualValidationResult,
    HistoryConflict,
    Span,
    Unverifiable,
    ValidationStats,
    ValueType,
    Verified,
)
from replyguard.stages.context import CallContext, ClaimRecord
from replyguard.text.attachment import AttachedClaim
from replyguard.text.lexer import LexedText
from replyguard.text.lexicon import KBIndex
from replyguard.text.temporal import TemporalMention, day_as_held, normalise_time
from replyguard.values import Grade, grade, in_named_unit

if TYPE_CHECKING:
    from replyguard.engine import Engine

# free-text attribute types: a value of one is told by its shape, not parsed
_TEXTUAL = (ValueType.text, ValueType.enum)
_GRADE_ORDER = {"Exact": 0, "Normalised": 1, "Compatible": 2, "Fuzzy": 3, "Mismatch": 4}


def build_claims(engine: Engine, ctx: CallContext) -> list[ClaimRecord]:
    records = []
    for i, attached in enumerate(ctx.reply.claims, start=1):
        sibling = fitting_sibling(engine.index, attached)
        if sibling is not None:
            attached = ctx.reply.claims[i - 1] = replace(attached, predicate=sibling)
        value = attached.value
        subject = attached.draft.subject
        vtype = (
            engine.index.attribute_type(attached.predicate)
            if attached.predicate in engine.index.schema
            else (value.value_type or ValueType.text)
        )
        confidence = float(
            engine.host.value(  # type: ignore[arg-type]
                "extraction-confidence", Sym(attached.basis), Sym(attached.resolution)
            )
        )
        model = Claim(
            id=f"C{i}",
            subject=attached.subject_text,
            subject_id=attached.subject_id,
            predicate=attached.predicate,
            object=value.text,
            span=Span(start=value.start, end=value.end),
            subject_span=(
                Span(start=subject.lexeme.start, end=subject.lexeme.end)
                if subject is not None
                else None
            ),
            negated=attached.negated,
            confidence=round(confidence, 4),
        )
        records.append(ClaimRecord(f"C{i}", attached, model, vtype.value))
    return records


def _has_digit(text: str) -> bool:
    return any(c.isdigit() for c in text)


def fitting_sibling(index: KBIndex, attached: AttachedClaim) -> str | None:
    """The attribute a value is of when the one it was read under never holds its shape: "the
    venue is at 14 Quay Street" is the venue's address (`venue_address`, whose values hold
    digits as the value does), not its name (`venue`, whose values hold none). The sibling is
    the subject's one other free-text attribute whose name shares a word with the attribute
    read and whose every value agrees with the value said on holding digits; else None."""
    entity = index.entities.get(attached.subject_id or "")
    if entity is None or attached.predicate not in entity.attributes:
        return None
    digits = _has_digit(attached.value.text)

    def agrees(attribute: str) -> bool | None:
        held = [str(v) for v in entity.values_of(attribute)[0]]
        if not held or index.attribute_type(attribute) not in _TEXTUAL:
            return None
        return all(_has_digit(v) == digits for v in held)

    if agrees(attached.predicate) is not False:
        return None
    words = set(attached.predicate.lower().split("_"))
    siblings = [
        a
        for a in entity.attributes
        if a != attached.predicate and words & set(a.lower().split("_")) and agrees(a) is True
    ]
    return siblings[0] if len(siblings) == 1 else None


def best_grade(
    vtype: ValueType, claimed: str, kb_values_: list[str], equivalents: Mapping[str, str]
) -> tuple[Grade, str]:
    """The closest KB value (multi-valued attributes match by membership)."""
    graded = [(grade(vtype, claimed, kv, equivalents), kv) for kv in kb_values_]
    return min(graded, key=lambda g: (_GRADE_ORDER[g[0].kind], g[0].distance))


def grade_atom(g: Grade) -> object:
    return (Sym("Fuzzy"), g.distance) if g.kind == "Fuzzy" else Sym(g.kind)


def history_evidence(
    engine: Engine, ctx: CallContext, record: ClaimRecord
) -> list[tuple[Evidence, bool]]:
    """Earlier turns (within the window) that state the same subject's same attribute."""
    attached = record.attached
    subject_key = attached.subject_id or "name:" + attached.subject_text.casefold()
    window = int(engine.setting("history-window"))
    readings = ctx.dialogue.readings
    last = len(readings) - 1
    vtype = ValueType(record.value_type)
    out = []
    for reading in readings:
        if last - reading.index >= window:
            continue
        for claim in reading.reading.claims:
            key = claim.subject_id or "name:" + claim.subject_text.casefold()
            if key != subject_key or claim.predicate != attached.predicate or claim.negated:
                continue
            if _asked(reading.reading.lexed, claim.value.start):
                continue  # "Will it be stormy on Friday?", "... if it is stormy" state nothing
            g = grade(vtype, attached.value.text, claim.value.text, engine.words.equivalents)
            agrees = engine.host.value("value-accepted", grade_atom(g)) is True
            record.evidence_atoms.append(str(turn_claim_atom(reading.turn.id, claim)))
            out.append(
                (
                    Evidence(
                        kind="turn",
                        turn_id=reading.turn.id,
                        text=reading.turn.text,
                        entity_id=claim.subject_id,
                        attribute=claim.predicate,
                        value=claim.value.text,
                    ),
                    agrees,
                )
            )
    return out


def _asked(lexed: LexedText, position: int) -> bool:
    """Whether a position lies in a question (a sentence ending in "?") or after an "if" or
    "whether" in its sentence ("I want to know if it is raining" states no rain)."""
    for sentence in lexed.sentences:
        if sentence.start <= position < sentence.end + 1:
            return lexed.text[sentence.start : sentence.end].rstrip().endswith("?") or any(
                sentence.start <= m.start < position
                for m in lexed.markers_of("hypothetical-marker")
            )
    return False


def validate_facts(engine: Engine, ctx: CallContext) -> FactualValidationResult:
    validations = []
    for record in ctx.claims:
        validations.append(_validate(engine, ctx, record))
    stats = ValidationStats(
        claims_checked=len(validations),
        claims_verified=sum(v.status.kind == "Verified" for v in validations),
        claims_contradicted=sum(v.status.kind == "Contradicted" for v in validations),
        claims_unverifiable=sum(v.status.kind == "Unverifiable" for v in validations),
        claims_history_conflict=sum(v.status.kind == "HistoryConflict" for v in validations),
    )
    score = float(
        engine.host.value(
            "factual-score",
            stats.claims_checked,  # type: ignore[arg-type]
            stats.claims_verified,
        )
    )
    return FactualValidationResult(
        score=round(score, 4),
        claims=[r.model for r in ctx.claims],
        claim_validations=validations,
        stats=stats,
    )


def _validate(engine: Engine, ctx: CallContext, record: ClaimRecord) -> ClaimValidation:
    attached = record.attached
    vtype = ValueType(record.value_type)
    kb_evidence = None
    kb_atom: object = Sym("NoKbValue")
    found = (
        kb_reading(
            engine,
            attached.subject_id,
            attached.predicate,
            vtype,
            attached.value.text,
            attached.value.temporal,
            rows=attached.rows,
        )
        if attached.subject_id is not None
        else None
    )
    if found is not None:
        record.kb_values = found.values
        record.best_kb_value = found.held
        record.kb_confidence = found.confidence
        spec = engine.index.schema.get(attached.predicate)
        if spec is not None and spec.cardinality == Cardinality.many:
            kb_atom = (
                Sym("ListKbGrade"),
                grade_atom(found.grade),
                found.confidence,
                _adds_value(ctx, record),
                Sym(engine.kb.world),
            )
        else:
            kb_atom = (Sym("KbGrade"), grade_atom(found.grade), found.confidence)
        record.evidence_atoms.extend(found.atoms)
        kb_evidence = found.evidence
    record.history = history_evidence(engine, ctx, record)
    history_atom = Sym("NoHistory")
    if record.history:
        latest_agrees = record.history[-1][1]
        history_atom = Sym("HistoryAgrees" if latest_agrees else "HistoryDisagrees")
    record.verdict_inputs = (kb_atom, history_atom)
    verdict = engine.host.value("claim-status", kb_atom, history_atom, attached.negated)
    status, suggestion = _status(verdict, record)
    explanation = engine.host.explain(
        "claim-status",
        kb_atom,
        history_atom,
        attached.negated,
        atoms=[str(claim_atom(record)), *record.evidence_atoms],
    )
    validation = ClaimValidation(
        claim_id=record.id,
        status=status,
        kb_evidence=kb_evidence,
        history_evidence=[e for e, _ in record.history],
        suggestion=suggestion,
        explanation=explanation,
    )
    record.validation = validation
    return validation


@dataclass(frozen=True)
class KbReading:
    """What the KB holds for an entity's attribute, graded against a claimed value."""

    values: list[str]
    grade: Grade
    held: str  # the KB value the claim comes closest to, or the first when none is close
    confidence: float
    evidence: Evidence
    atoms: list[str]  # the &kb atoms it was read from


def kb_reading(
    engine: Engine,
    entity_id: str,
    attribute: str,
    vtype: ValueType,
    claimed: str,
    said: TemporalMention | None = None,
    rows: tuple[str, ...] = (),
) -> KbReading | None:
    """`said` is the claimed value's temporal mention: a day it names is compared resolved
    ("tomorrow" against the weekday or date the KB holds). ROWS: the entities sharing the
    subject's name that a claim is checked against together (resolution Several): their values
    all count, and the value held is every one of them ("2019-03-01 or 2019-03-05")."""
    values = kb_values(engine.host.kb, entity_id, attribute)
    for other in rows:
        values += [v for v in kb_values(engine.host.kb, other, attribute) if v not in values]
    if not values:
        return None
    claimed = day_as_held(said, values) or claimed
    if engine.index.attribute_type(attribute) == ValueType.number:
        claimed = in_named_unit(attribute, claimed) or claimed  # "2 years" of contract_months
    # "7.30" of "from 7.30 until 10 am" is 07:30: its range says so; a time read as it is
    # written keeps its words ("half past seven" may be 7:30 pm)
    timed = said is not None and said.kind == "time" and vtype == ValueType.time
    if timed and normalise_time(claimed) != said.value:
        claimed = said.value
    g, closest = best_grade(vtype, claimed, values, engine.words.equivalents)
    held = closest if g.kind != "Mismatch" else values[0]
    if g.kind == "Mismatch" and rows:
        held = " or ".join(values)
    confidence = kb_confidence(engine.host.kb, entity_id, attribute)
    source = kb_source(engine.host.kb, entity_id, attribute)
    evidence = Evidence(
        kind="kb",
        entity_id=entity_id,
        attribute=attribute,
        value=held,
        confidence=confidence,
        source=source,
    )
    atoms = [str(a) for a in kb_fact_atoms(entity_id, attribute, values, confidence, source)]
    return KbReading(values, g, held, confidence, evidence, atoms)


def _adds_value(ctx: CallContext, record: ClaimRecord) -> bool:
    """The claim adds a value to the others ("he also directed Insomnia"): an additive word in
    its clause ("closed on Fridays, but open every other day" adds nothing to Fridays)."""
    position = record.attached.value.start
    start, end = ctx.sentence_of(position)
    for row in ctx.reply.lexed.sentence_lexemes:
        for lexeme in row:
            if lexeme.cat == "SEP" and start <= lexeme.start < end:
                if lexeme.end <= position:  # a clause starts at its separator ("and also")
                    start = lexeme.start
                elif lexeme.start > position:
                    end = min(end, lexeme.start)
    return any(start <= m.start < end for m in ctx.reply.lexed.markers_of("additive-marker"))


def _status(verdict: object, record: ClaimRecord):  # noqa: ANN202 - a ValidationStatus
    kind = verdict[0] if isinstance(verdict, tuple) else verdict
    if kind == "Verified":
        return Verified(confidence=float(verdict[1])), None  # type: ignore[index]
    if kind == "Contradicted":
        kb_value = record.best_kb_value or ""
        return (
            Contradicted(kb_value=kb_value, confidence=float(verdict[1])),  # type: ignore[index]
            f"Replace '{record.model.object}' with '{kb_value}'",
        )
    if kind == "HistoryConflict":
        conflicting = [e for e, agrees in record.history if not agrees]
        turn = conflicting[-1].turn_id if conflicting else record.history[-1][0].turn_id
        return HistoryConflict(conflicting_turn=turn or ""), None
    return Unverifiable(), None
