"""A hallucination candidate: what the detectors found, before the rules judge it."""

from __future__ import annotations

from dataclasses import dataclass, field

from replyguard.models import Evidence, HallucinationType, Span


@dataclass
class Candidate:
    type: HallucinationType
    evidence: object  # the symbolic evidence passed to `flag-verdict`
    span: Span
    reason: str
    suggestion: str | None = None
    support: list[Evidence] = field(default_factory=list)
    atoms: list[str] = field(default_factory=list)  # what the evidence was read from
