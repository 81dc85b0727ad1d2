"""What an engine result says, read the same way by every dataset's scoring.

A result states its verdicts twice over: per claim in the fact validation (Contradicted,
HistoryConflict, …) and per span in the hallucination flags (ContradictsFact, ContradictsPrior,
…). Scoring asks questions across both — "is there a contradiction over this span?", "would a
caller treat this reply as hallucinated?" — so this module flattens them into one list of
`Verdict`s and answers those questions once.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from difflib import SequenceMatcher
from typing import Literal

from replyguard.evaluation.scene import norm
from replyguard.models import HallucinationType, PostprocessedResponse, RecommendationKind
from replyguard.text.temporal import normalise_date

# A flag at or above this confidence is "high-confidence": the recommendation bands only list
# flags below 0.8 as acceptable-with-flags, so from 0.8 on a caller should not deliver the reply.
HIGH_CONFIDENCE = 0.8

# Recommendations a caller would not deliver as they stand.
BELOW_ACCEPT_WITH_FLAGS = frozenset(
    {
        RecommendationKind.CorrectAndDeliver,
        RecommendationKind.Regenerate,
        RecommendationKind.HumanReview,
    }
)

CONTRADICTION_STATUSES = frozenset({"Contradicted", "HistoryConflict"})
# Flags that say the reply disagrees with something known, as opposed to saying something
# unknown (FabricatedFact, NonexistentEntity, UnsupportedClaim). HaluEval's "right" responses
# often say more than the knowledge, so only this family separates the two responses cleanly.
CONTRADICTION_FLAGS = frozenset(
    {
        HallucinationType.ContradictsFact,
        HallucinationType.ContradictsPrior,
        HallucinationType.WrongAttribute,
        HallucinationType.LogicalInconsistency,
        HallucinationType.TemporalError,
    }
)
# What a correct KVRET gold turn must not draw (issue 3's false-alarm definition).
ALARM_FLAGS = frozenset(
    {
        HallucinationType.ContradictsFact,
        HallucinationType.ContradictsPrior,
        HallucinationType.NonexistentEntity,
        HallucinationType.TemporalError,
    }
)

Mode = Literal["contradiction", "all"]


@dataclass(frozen=True)
class Verdict:
    """One claim status or flag, with the reply span it covers and how sure the engine is.

    A status without a confidence of its own (HistoryConflict) takes its claim's confidence.
    """

    source: Literal["claim", "flag"]
    kind: str
    start: int
    end: int
    confidence: float


def verdicts(result: PostprocessedResponse) -> list[Verdict]:
    claims = {c.id: c for c in result.factual_validation.claims}
    out = []
    for validation in result.factual_validation.claim_validations:
        claim = claims.get(validation.claim_id)
        if claim is None:
            continue
        status = validation.status
        confidence = getattr(status, "confidence", claim.confidence)
        out.append(Verdict("claim", status.kind, claim.span.start, claim.span.end, confidence))
    for flag in result.hallucination_flags:
        out.append(
            Verdict(
                "flag",
                str(flag.hallucination_type),
                flag.span.start,
                flag.span.end,
                flag.confidence,
            )
        )
    return out


def overlaps(start: int, end: int, spans: Iterable[tuple[int, int]]) -> bool:
    """Whether [start, end) shares a character with a span; an empty range counts at its point."""
    for s, e in spans:
        if max(start, s) < min(end, e):
            return True
        if start == end and s <= start < e or s == e and start <= s < end:
            return True
    return False


def fires_at(
    result: PostprocessedResponse,
    spans: Iterable[tuple[int, int]],
    statuses: frozenset[str],
    flags: frozenset[HallucinationType],
) -> bool:
    """Whether a verdict of the given statuses or flag types covers one of ``spans``."""
    spans = list(spans)
    return any(
        overlaps(v.start, v.end, spans)
        for v in verdicts(result)
        if (v.source == "claim" and v.kind in statuses) or (v.source == "flag" and v.kind in flags)
    )


def alarms(result: PostprocessedResponse) -> list[str]:
    """Why a reply that should have passed did not: contradicted claims, alarm flags, and a
    recommendation below AcceptWithFlags, each named once."""
    reasons = {
        v.kind
        for v in verdicts(result)
        if (v.source == "claim" and v.kind in CONTRADICTION_STATUSES)
        or (v.source == "flag" and v.kind in ALARM_FLAGS)
    }
    if result.recommendation.kind in BELOW_ACCEPT_WITH_FLAGS:
        reasons.add(str(result.recommendation.kind))
    return sorted(reasons)


def contradiction_confidences(result: PostprocessedResponse) -> list[float]:
    return [
        v.confidence
        for v in verdicts(result)
        if (v.source == "claim" and v.kind in CONTRADICTION_STATUSES)
        or (v.source == "flag" and v.kind in CONTRADICTION_FLAGS)
    ]


def judged_hallucinated(
    result: PostprocessedResponse, mode: Mode, high: float = HIGH_CONFIDENCE
) -> bool:
    """The yes/no judgement HaluEval scores.

    "all": the recommendation is below AcceptWithFlags or any flag reaches ``high``.
    "contradiction": a contradicted claim or contradiction-family flag reaches ``high``.
    """
    if mode == "all":
        return result.recommendation.kind in BELOW_ACCEPT_WITH_FLAGS or any(
            f.confidence >= high for f in result.hallucination_flags
        )
    return any(c >= high for c in contradiction_confidences(result))


def trust_score(result: PostprocessedResponse, mode: Mode) -> float:
    """Higher means more trustworthy: the confidence, or 1 − the strongest contradiction."""
    if mode == "all":
        return result.confidence
    return 1.0 - max(contradiction_confidences(result), default=0.0)


def corrected_in_place(
    perturbed: str,
    corrected: str,
    start: int,
    end: int,
    original: str,
    reference: datetime | None = None,
) -> bool:
    """Whether ``corrected`` holds ``original`` where ``perturbed[start:end]`` was: the same text,
    or, given the conversation's reference time, the same day ("March 1" for "today" on March 1,
    or for the KB's "2019-03-01")."""
    region = corrected_region(perturbed, corrected, start, end)
    if norm(region) == norm(original):
        return True
    if reference is None:
        return False
    day = normalise_date(region, reference)
    return day is not None and day == normalise_date(original, reference)


# Aligned stretches shorter than this are no anchor: difflib matches a stray "2." or "n " of the
# wrong value with the right value's own characters ("$49.22." against "$12.57.").
_ANCHOR_CHARS = 3


def corrected_region(perturbed: str, corrected: str, start: int, end: int) -> str:
    """What ``corrected`` holds where ``perturbed[start:end]`` was.

    The place is found by aligning the two texts (difflib) and taking the stretch of the corrected
    text between the last aligned stretch before ``start`` and the first aligned stretch from
    ``end`` on, so edits elsewhere in the reply (a fixed typo, a capital) do not move it. Only
    stretches of `_ANCHOR_CHARS` or more anchor it.
    """
    blocks = SequenceMatcher(None, perturbed, corrected, autojunk=False).get_matching_blocks()
    new_start, new_end = 0, len(corrected)
    for a, b, size in blocks:
        if size < _ANCHOR_CHARS:
            continue
        if a < start:
            new_start = b + min(size, start - a)
        if a + size > end:
            new_end = b + max(0, end - a)
            break
    # the reply's own text before or after the place, kept whole at the corrected text's ends, is
    # not part of it, even when too short to anchor ("12 noon." corrected to "11am.")
    head, tail = perturbed[:start], perturbed[end:]
    if new_start < len(head) and corrected.startswith(head):
        new_start = len(head)
    if tail and new_end > len(corrected) - len(tail) and corrected.endswith(tail):
        new_end = max(new_start, len(corrected) - len(tail))
    # a place at a word's edge in the reply is at one in the correction ("a Safeway" corrected to
    # "an Aldi" does not put the article's "n" into the value)
    if start > 0 and not perturbed[start - 1].isalnum():
        while 0 < new_start < len(corrected) and corrected[new_start - 1 : new_start + 1].isalnum():
            new_start += 1
    if end < len(perturbed) and not perturbed[end].isalnum():
        while 0 < new_end < len(corrected) and corrected[new_end - 1 : new_end + 1].isalnum():
            new_end -= 1
    return corrected[new_start:new_end] if new_start <= new_end else ""
