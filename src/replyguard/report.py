"""The human-readable report of one result (`replyguard check`), with highlighted spans."""

from __future__ import annotations

from replyguard.models import Evidence, Explanation, PostprocessedResponse, Span

_COLOURS = {
    "red": "31",
    "green": "32",
    "yellow": "33",
    "blue": "34",
    "magenta": "35",
    "cyan": "36",
    "bold": "1",
    "dim": "2",
}
_STATUS_COLOUR = {
    "Verified": "green",
    "Contradicted": "red",
    "HistoryConflict": "magenta",
    "Unverifiable": "yellow",
    "Error": "red",
}
_KIND_COLOUR = {
    "Accept": "green",
    "AcceptWithFlags": "yellow",
    "CorrectAndDeliver": "cyan",
    "Regenerate": "magenta",
    "HumanReview": "red",
}


class _Style:
    def __init__(self, colour: bool) -> None:
        self.colour = colour

    def __call__(self, text: str, *names: str) -> str:
        if not self.colour or not names:
            return text
        codes = ";".join(_COLOURS[n] for n in names)
        return f"\x1b[{codes}m{text}\x1b[0m"


def highlight(text: str, spans: list[tuple[Span, str]], style: _Style) -> str:
    """text with each span coloured (or, without colour, bracketed as [[...]])."""
    out = []
    cursor = 0
    for span, colour in sorted(spans, key=lambda s: s[0].start):
        if span.start < cursor:
            continue
        out.append(text[cursor : span.start])
        piece = text[span.start : span.end]
        out.append(style(piece, colour, "bold") if style.colour else f"[[{piece}]]")
        cursor = span.end
    out.append(text[cursor:])
    return "".join(out)


def explanation_lines(e: Explanation, style: _Style, indent: str) -> list[str]:
    """A verdict's rule call, result, matching clauses and atoms, nested for its reasons."""
    where = f"  [{', '.join(e.clauses)}]" if e.clauses else ""
    lines = [style(f"{indent}rule: {e.rule} -> {e.result}{where}", "dim")]
    lines += [style(f"{indent}  from {atom}", "dim") for atom in e.atoms]
    for reason in e.because:
        lines += explanation_lines(reason, style, indent + "  ")
    return lines


def render_report(
    result: PostprocessedResponse, *, colour: bool = False, explain: bool = False
) -> str:
    s = _Style(colour)
    rec = result.recommendation
    lines = [
        s(f"Recommendation: {rec.kind.value}", _KIND_COLOUR[rec.kind.value], "bold")
        + f"   confidence {result.confidence:.2f}",
    ]
    if rec.reason:
        lines.append(f"  reason: {rec.reason}")
    if rec.guidance:
        lines.append(f"  guidance: {rec.guidance}")
    if rec.deliver is not None and rec.deliver != result.original:
        lines.append(f"  deliver: {rec.deliver}")
    if rec.severity:
        lines.append(
            f"  {len(rec.flags)} span(s) flagged for the reader, severity {rec.severity.value}"
        )
    if explain and rec.explanation:
        lines.extend(explanation_lines(rec.explanation, s, "  "))
    coh = result.coherence
    lines += [
        "",
        s("Coherence", "bold") + f" {coh.score:.2f}  (QUD {coh.qud_relevance.score:.2f}, "
        f"topic {coh.topic_consistency.score:.2f}, entity {coh.entity_consistency.score:.2f}, "
        f"discourse {coh.discourse_coherence.score:.2f}, "
        f"reference {coh.reference_consistency.score:.2f})",
    ]
    for issue in coh.issues:
        where = f" @{issue.span.start}-{issue.span.end}" if issue.span else ""
        lines.append(
            f"  - {issue.issue_type.value} ({issue.severity:.2f}){where}: {issue.description}"
        )
        if explain and issue.explanation:
            lines.extend(explanation_lines(issue.explanation, s, "      "))
    fv = result.factual_validation
    lines += [
        "",
        s("Claims", "bold") + f"  factual score {fv.score:.2f}  ({fv.stats.claims_verified}"
        f" verified, {fv.stats.claims_contradicted} contradicted, "
        f"{fv.stats.claims_unverifiable} unverifiable, "
        f"{fv.stats.claims_history_conflict} history conflicts)",
    ]
    validations = {v.claim_id: v for v in fv.claim_validations}
    for claim in fv.claims:
        v = validations.get(claim.id)
        status = v.status.kind if v else "?"
        neg = "not " if claim.negated else ""
        lines.append(
            f"  {claim.id} {claim.subject} · {claim.predicate} = {neg}{claim.object!r} "
            + s(status, _STATUS_COLOUR.get(status, "bold"))
            + f"  (extraction {claim.confidence:.2f})"
        )
        if v and v.kb_evidence:
            src = f", {v.kb_evidence.source}" if v.kb_evidence.source else ""
            lines.append(
                f"      KB: {v.kb_evidence.value!r} (confidence {v.kb_evidence.confidence}{src})"
            )
        for e in v.history_evidence if v else []:
            lines.append(f"      turn {e.turn_id}: {e.text!r}")
        if explain and v and v.explanation:
            lines.extend(explanation_lines(v.explanation, s, "      "))
    lines += ["", s("Hallucination flags", "bold") + f"  {len(result.hallucination_flags)}"]
    for f in result.hallucination_flags:
        lines.append(
            f"  - {f.hallucination_type.value} {f.confidence:.2f} "
            f"@{f.span.start}-{f.span.end} {f.content!r}: {f.reason}"
        )
        if explain:
            lines.extend(f"      evidence: {_evidence(e)}" for e in f.evidence)
            if f.explanation:
                lines.extend(explanation_lines(f.explanation, s, "      "))
    if result.new_entities:
        lines += ["", s("New entities", "bold")]
        for n in result.new_entities:
            like = f" (like {n.similar_to})" if n.similar_to else ""
            lines.append(f"  - {n.name} [{n.guessed_type.value}]{like}")
    if result.unread_values:
        lines += ["", s("Unread values", "bold") + "  (stated, checked by no claim)"]
        for u in result.unread_values:
            lines.append(f"  - {u.text!r} [{u.value_type.value}] @{u.span.start}-{u.span.end}")
    spans = [
        (c.span, "red")
        for c in (result.corrected.corrections if result.corrected else [])
        if c.replacement is not None
    ]
    spans += [(f.span, "yellow") for f in result.hallucination_flags]
    spans += [(u.span, "cyan") for u in result.unread_values]
    lines += ["", s("Reply", "bold"), "  " + highlight(result.original, spans, s)]
    if result.corrected:
        fixed = [
            (c.corrected_span, "green")
            for c in result.corrected.corrections
            if c.replacement is not None and c.corrected_span is not None
        ]
        lines += [
            s("Corrected", "bold"),
            "  " + highlight(result.corrected.corrected, fixed, s),
            s("Annotated", "bold"),
            "  " + result.corrected.annotated,
        ]
    timing = ", ".join(f"{k} {v:.1f}" for k, v in result.timings_ms.items())
    lines += ["", s(f"timings (ms): {timing}", "dim")]
    return "\n".join(lines)


def _evidence(e: Evidence) -> str:
    """One line for what a verdict rests on."""
    if e.kind == "kb":
        return f"KB {e.entity_id} {e.attribute} = {e.value!r}"
    where = f"turn {e.turn_id}" if e.kind == "turn" else (e.source or "passage")
    return f"{where}: {e.text!r}"
