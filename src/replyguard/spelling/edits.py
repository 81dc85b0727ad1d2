"""Corrections as span edits on the original text, and the log of corrections refused.

Every edit names a span of the *original* reply, so the factual corrections and annotations of
later steps can be placed beside it; :func:`apply_edits` applies any non-overlapping set of them
right to left, which keeps each span valid while the text changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Tier = Literal["lexical", "syntactic", "semantic"]


class TextEdit(BaseModel):
    """Replace ``original`` (``text[start:end]``) with ``replacement``; ``start == end`` inserts."""

    model_config = ConfigDict(frozen=True)

    tier: Tier
    original: str
    replacement: str
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    confidence: float = Field(ge=0.0, le=1.0)
    alternatives: list[str] = Field(default_factory=list)
    rule: str | None = None
    reason: str = ""


class Rejection(BaseModel):
    """A correction tier 3 refused, and why (it would have changed a protected span)."""

    model_config = ConfigDict(frozen=True)

    tier: Tier
    original: str
    replacement: str
    start: int
    end: int
    rule: str | None = None
    reason: str


def apply_edits(text: str, edits: Sequence[TextEdit]) -> str:
    """``text`` with every edit applied; edits must not overlap (an insertion may touch one)."""
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    for before, after in zip(ordered, ordered[1:], strict=False):
        if after.start < before.end or (after.start == before.start and after.end == before.end):
            raise ValueError(
                f"overlapping edits at {before.start}-{before.end} and {after.start}-{after.end}"
            )
    for edit in ordered:
        if text[edit.start : edit.end] != edit.original or edit.end > len(text):
            raise ValueError(
                f"edit {edit.start}-{edit.end} expects {edit.original!r}, text has "
                f"{text[edit.start : edit.end]!r}"
            )
    for edit in reversed(ordered):
        text = text[: edit.start] + edit.replacement + text[edit.end :]
    return text
