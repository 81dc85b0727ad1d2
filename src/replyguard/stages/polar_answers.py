"""Yes/no answers checked against the KB: "Is the meeting at 3pm?" - "Yes" when the KB says 2pm.

A reply that opens with a direct answer (`direct-answer` and `punctuated-answer` words in
metta/lexicon.metta) takes a side on the question's own claim. The question's claims are read and
graded against the KB like a reply's; `(PolarAnswer ANSWER GRADE KB-CONFIDENCE MANY-VALUED)` in
metta/hallucination.metta decides whether the answer contradicts the KB.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from replyguard.metta_host import Sym
from replyguard.models import (
    Cardinality,
    HallucinationType,
    QuestionType,
    Span,
    ValueType,
)
from replyguard.stages.candidates import Candidate
from replyguard.stages.context import CallContext
from replyguard.stages.facts import grade_atom, kb_reading
from replyguard.text.analysis import ReadText
from replyguard.text.attachment import AttachedClaim
from replyguard.text.lexer import LexedText
from replyguard.text.questions import classify_question

if TYPE_CHECKING:
    from replyguard.engine import Engine

_STOPS = frozenset(",.!;:")


def direct_answer(lexed: LexedText) -> tuple[str, Span] | None:
    """("Yes" | "No", span) when the text opens with a direct answer: "Yes he was", "No, ...";
    a `punctuated-answer` ("Right", "Sure") counts only before a comma or stop ("Right now ..."
    answers nothing)."""
    text = lexed.text
    first = len(text) - len(text.lstrip(" \t\n\"'"))
    if any(m.start == first for m in lexed.markers_of("non-answer")):
        return None  # "No problem", "No worries"
    for marker in lexed.markers:
        if marker.start != first:
            continue
        kind, _, polarity = marker.kind.partition(":")
        after = text[marker.end : marker.end + 1]
        if kind == "direct-answer" and (not after or not after.isalnum()):
            return polarity, Span(start=marker.start, end=marker.end)
        if kind == "punctuated-answer" and (not after or after in _STOPS):
            return polarity, Span(start=marker.start, end=marker.end)
    return None


def polar_candidates(engine: Engine, ctx: CallContext) -> list[Candidate]:
    answer = direct_answer(ctx.reply.lexed)
    if answer is None:
        return []
    polarity, span = answer
    # "Will it drizzle? - Yes, drizzle tomorrow": a reply that states the asked value itself is
    # checked by that claim, which says which day or entity it means
    restated = {_value(c) for c in ctx.reply.claims}
    out = []
    for claim in _asked_claims(ctx.query_reading):
        # "Didn't he write it?" - "No": the answer is to the claim, negated or not; a subject the
        # question does not name ("Is there another one?") is not what it asks about
        if (
            claim.subject_id is None
            or claim.resolution in ("Implicit", "Unknown")
            or _value(claim) in restated
        ):
            continue
        spec = engine.index.schema.get(claim.predicate)
        vtype = spec.value_type if spec else ValueType.text
        found = kb_reading(
            engine,
            claim.subject_id,
            claim.predicate,
            vtype,
            claim.value.text,
            claim.value.temporal,  # "the 4th of this month" is compared as the day it names
            rows=claim.rows,
        )
        if found is None:
            continue
        many = spec is not None and spec.cardinality == Cardinality.many
        out.append(
            Candidate(
                HallucinationType.ContradictsFact,
                (
                    Sym("PolarAnswer"),
                    Sym(polarity),
                    grade_atom(found.grade),
                    found.confidence,
                    many,
                ),
                span,
                f"'{polarity}' to whether {claim.subject_text}'s {claim.predicate} is "
                f"'{claim.value.text}', and the knowledge base holds '{found.held}'",
                suggestion=f"Answer {'no' if polarity == 'Yes' else 'yes'}: "
                f"{claim.subject_text}'s {claim.predicate} is '{found.held}'",
                support=[found.evidence],
                atoms=found.atoms,
            )
        )
    return out


def _value(claim: AttachedClaim) -> str:
    return claim.value.value_key or claim.value.text.lower()


def _asked_claims(reading: ReadText) -> list[AttachedClaim]:
    """The claims a yes or no answers: those of the turn's last yes/no question ("Is it at
    3pm?"), else of its last statement ("I think he starred in it too." - "No, he didn't"),
    never those of its other questions ("When is it?"). A question asked after a statement
    is what the answer is to ("So it has a garden view. Can it sleep six?" - "No")."""
    lexed = reading.lexed
    polar, stated = [], []
    for s in lexed.sentences:
        text = lexed.text[s.start : s.end].rstrip()
        if not text.endswith("?"):
            stated.append((s.start, s.end))
        elif classify_question(text).question_type == QuestionType.YesNo:
            polar.append((s.start, s.end))
    asked = (polar or stated)[-1:]
    return [c for c in reading.claims if any(start <= c.value.start < end for start, end in asked)]
