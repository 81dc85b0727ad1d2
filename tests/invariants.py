"""What every result must satisfy whatever the reply held: spans inside the text and equal to
what they name, corrections that rebuild the corrected text, a JSON round trip.

Shared by the regression tests of single inputs and the property suite (test_properties*.py).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

from replyguard.engine import Engine
from replyguard.errors import InputError, RuleError
from replyguard.models import PostprocessedResponse, ResponseCorrection, Span

KB_QUERIES = ["(attr $e $a $v)", "(name $e $n)", "(alias $e $n)", "(held-by $a $k $e)"]


def kb_answers(engine: Engine) -> tuple[list[str], list[list[dict[str, object]]]]:
    """Everything in the KB space, and what the KB queries return."""
    atoms = sorted(str(a) for a in engine.host.kb.get_atoms())
    answers = [sorted(engine.host.query("&kb", q), key=repr) for q in KB_QUERIES]
    return atoms, answers


def checked(engine: Engine, **call: object) -> PostprocessedResponse | None:
    """`engine.postprocess(**call)`, checked by :func:`sound`."""
    return sound(engine, lambda: engine.postprocess(**call))  # type: ignore[arg-type]


def sound(engine: Engine, run: Callable[[], PostprocessedResponse]) -> PostprocessedResponse | None:
    """The result of a check with every invariant checked, or None when it refused the input
    with a one-line error; either way the KB space is as it was."""
    before = kb_answers(engine)
    try:
        result = run()
    except (InputError, RuleError) as exc:
        assert "\n" not in str(exc) and str(exc), repr(exc)
        result = None
    else:
        check_result(result)
    assert kb_answers(engine) == before, "the call changed the KB space"
    return result


def inside(span: Span | None, text: str) -> bool:
    return span is None or 0 <= span.start <= span.end <= len(text)


def check_result(result: PostprocessedResponse) -> None:
    check_spans(result)
    check_corrections(result)
    check_round_trip(result)


def check_spans(result: PostprocessedResponse) -> None:
    """Every span lies in the reply; the ones that quote the reply quote it exactly."""
    text = result.original
    for claim in result.factual_validation.claims:
        assert inside(claim.span, text), claim
        assert inside(claim.subject_span, text), claim
    for flag in result.hallucination_flags:
        assert inside(flag.span, text), flag
        assert text[flag.span.start : flag.span.end] == flag.content, flag
    for entity in result.new_entities:
        assert inside(entity.span, text), entity
    for pronoun in result.coherence.reference_consistency.pronouns:
        assert inside(pronoun.span, text), pronoun
        assert text[pronoun.span.start : pronoun.span.end] == pronoun.pronoun, pronoun
    issues = [
        *result.coherence.issues,
        *result.coherence.qud_relevance.issues,
        *result.coherence.topic_consistency.issues,
        *result.coherence.entity_consistency.issues,
        *result.coherence.discourse_coherence.issues,
        *result.coherence.reference_consistency.issues,
    ]
    for issue in issues:
        assert inside(issue.span, text), issue
    for span in result.recommendation.flags:
        assert inside(span, text), span


def check_corrections(result: PostprocessedResponse) -> None:
    """Each correction quotes the reply at its span; the edits among them, applied to the reply,
    give exactly the corrected text, and each edit's corrected span holds its replacement."""
    corrected = result.corrected
    if corrected is None:
        return
    text = corrected.original
    assert text == result.original
    for c in [*corrected.corrections, *result.recommendation.corrections]:
        assert inside(c.span, text), c
        assert text[c.span.start : c.span.end] == c.original, c
        assert inside(c.corrected_span, corrected.corrected), c
        if c.replacement is not None:
            assert c.corrected_span is not None, c
            got = corrected.corrected[c.corrected_span.start : c.corrected_span.end]
            assert got == c.replacement, c
    for r in corrected.rejected:
        assert inside(r.span, text), r
        assert text[r.span.start : r.span.end] == r.original, r
    edits = [c for c in corrected.corrections if c.replacement is not None]
    assert rebuild(text, edits) == corrected.corrected
    if corrected.annotation_style == "html":  # escaped whole: only the marks are markup
        marks = re.sub(r'<mark class="[^"<>]*" title="[^"<>]*">|</mark>', "", corrected.annotated)
        assert "<" not in marks and ">" not in marks, corrected.annotated
        assert html.unescape(marks) == corrected.corrected


def rebuild(text: str, edits: list[ResponseCorrection]) -> str:
    """The edits applied left to right (at one offset an insertion first), each one checked to
    start where the one before it ended or later and to land at its corrected span."""
    out: list[str] = []
    cursor = 0
    for c in sorted(edits, key=lambda c: (c.span.start, c.span.end)):
        assert c.span.start >= cursor, f"edits overlap at {c.span}"
        out.append(text[cursor : c.span.start])
        at = sum(len(piece) for piece in out)
        assert c.corrected_span == Span(start=at, end=at + len(c.replacement or "")), c
        out.append(c.replacement or "")
        cursor = c.span.end
    out.append(text[cursor:])
    return "".join(out)


def check_round_trip(result: PostprocessedResponse) -> None:
    again = PostprocessedResponse.model_validate_json(result.model_dump_json())
    assert again == result
