"""Stage 5, confidence and recommendation (metta/scoring.metta decides; this module assembles).

Guidance goes back to an LLM, so every piece of reply text placed in it is quoted as data:
collapsed to one line, shortened, escaped and wrapped in <reply-quote> tags it cannot close.
"""

from __future__ import annotations

import html
import json
from typing import TYPE_CHECKING

from replyguard.metta_host import Sym
from replyguard.models import (
    CoherenceResult,
    CorrectedResponse,
    CorrectionType,
    Explanation,
    FactualValidationResult,
    HallucinationFlag,
    Recommendation,
    RecommendationKind,
    Severity,
    Span,
)
from replyguard.stages.context import CallContext

if TYPE_CHECKING:
    from replyguard.engine import Engine

_QUOTE_LIMIT = 160


def quote_for_llm(text: str) -> str:
    """Reply text as inert data inside guidance: one line, bounded, escaped, tagged."""
    line = " ".join(text.split())
    if len(line) > _QUOTE_LIMIT:
        line = line[: _QUOTE_LIMIT - 1] + "…"
    return f"<reply-quote>{html.escape(line, quote=False)}</reply-quote>"


def _literal(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def score_confidence(
    engine: Engine,
    coherence: CoherenceResult,
    factual: FactualValidationResult,
    flags: list[HallucinationFlag],
) -> tuple[float, Explanation]:
    """The confidence, and its explanation (the score's rule call and the penalty's)."""
    burdens = tuple(
        float(
            engine.host.value(  # type: ignore[arg-type]
                "flag-burden", Sym(f.hallucination_type.value), f.confidence
            )
        )
        for f in flags
    )
    contradictions = tuple(
        v.status.confidence
        for v in factual.claim_validations  # type: ignore[union-attr]
        if v.status.kind == "Contradicted"
    )
    penalty_args = (
        tuple(i.severity for i in coherence.issues),
        contradictions,
        tuple(f.confidence for f in flags),
    )
    penalty = engine.host.value("severity-penalty", *penalty_args)
    score_args = (
        coherence.score,
        factual.score,
        burdens,
        coherence.entity_consistency.score,
        penalty,
    )
    confidence = engine.host.value("confidence-score", *score_args)
    explanation = engine.host.explain(
        "confidence-score",
        *score_args,
        because=[engine.host.explain("severity-penalty", *penalty_args)],
    )
    return round(float(confidence), 4), explanation  # type: ignore[arg-type]


def recommend(
    engine: Engine,
    ctx: CallContext,
    confidence: float,
    coherence: CoherenceResult,
    factual: FactualValidationResult,
    flags: list[HallucinationFlag],
    corrected: CorrectedResponse | None,
    because: Explanation,
) -> Recommendation:
    recommendation = _recommend(engine, ctx, confidence, coherence, factual, flags, corrected)
    recommendation.explanation = engine.host.explain(
        "recommendation", confidence, because=[because]
    )
    return recommendation


def _recommend(
    engine: Engine,
    ctx: CallContext,
    confidence: float,
    coherence: CoherenceResult,
    factual: FactualValidationResult,
    flags: list[HallucinationFlag],
    corrected: CorrectedResponse | None,
) -> Recommendation:
    kind = RecommendationKind(
        engine.host.choice("recommendation", (k.value for k in RecommendationKind), confidence)
    )
    messages = {str(k): str(t) for k, t in engine.host.facts("message")}
    factual_fixes = [
        c
        for c in (corrected.corrections if corrected else [])
        if c.correction_type == CorrectionType.Factual
    ]
    if kind == RecommendationKind.Accept:
        return Recommendation(kind=kind)
    if kind == RecommendationKind.AcceptWithFlags:
        spans = [r.span for r in ctx.claims if r.status == "Unverifiable"]
        spans += [
            f.span for f in flags if engine.host.value("flag-for-review", f.confidence) is True
        ]
        spans = sorted({(s.start, s.end) for s in spans})
        severity = Severity(
            engine.host.choice("review-severity", (s.value for s in Severity), len(spans))
        )
        return Recommendation(
            kind=kind, flags=[Span(start=a, end=b) for a, b in spans], severity=severity
        )
    if kind == RecommendationKind.CorrectAndDeliver:
        return Recommendation(kind=kind, corrections=factual_fixes)
    guidance = _guidance(engine, ctx, coherence, factual, flags, messages)
    if kind == RecommendationKind.Regenerate:
        return Recommendation(kind=kind, guidance=guidance, corrections=factual_fixes)
    reasons = engine.host.value(
        "review-reasons",
        confidence,
        coherence.score,
        len(coherence.issues),
        factual.stats.claims_contradicted,
        tuple(f.confidence for f in flags),
    )
    parts = []
    for item in reasons:  # type: ignore[union-attr]
        if isinstance(item, tuple) and item[0] == "Reason":
            number = item[2]
            n = int(number) if float(number).is_integer() else number
            parts.append(messages[str(item[1])].format(n=n))
    return Recommendation(
        kind=kind, reason=". ".join(parts), guidance=guidance, corrections=factual_fixes
    )


def _guidance(
    engine: Engine,
    ctx: CallContext,
    coherence: CoherenceResult,
    factual: FactualValidationResult,
    flags: list[HallucinationFlag],
    messages: dict[str, str],
) -> str:
    parts = []
    if not coherence.qud_relevance.addresses_qud:
        parts.append(messages["AddressQuestion"])
    claims = {c.id: c for c in factual.claims}
    for v in factual.claim_validations:
        if v.status.kind == "Contradicted":
            claim = claims[v.claim_id]
            parts.append(
                messages["CorrectValue"].format(
                    subject=claim.subject,
                    attribute=claim.predicate.replace("_", " "),
                    value=_literal(v.status.kb_value),
                )
            )  # type: ignore[union-attr]
    corrected_spans = [
        claims[v.claim_id].span
        for v in factual.claim_validations
        if v.status.kind == "Contradicted"
    ]
    for flag in flags:
        if any(s.start < flag.span.end and flag.span.start < s.end for s in corrected_spans):
            continue  # its correct value is already stated above
        if engine.host.value("guidance-for-flag", flag.confidence) is True:
            parts.append(messages["VerifyOrRemove"].format(content=quote_for_llm(flag.content)))
    return " ".join(parts)
