"""Request and response bodies of the check and session routes (for validation and the
OpenAPI schema)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from replyguard.models import Case, KnowledgeBase, PostprocessedResponse, RecommendationKind, Turn


class CheckRequest(Case):
    """A case in the case-file format; `kb` inline, or left out to check against the served KB."""

    kb: KnowledgeBase | None = None  # type: ignore[assignment]


class CheckSummary(BaseModel):
    """NeMo Guardrails' /v1/checks convention: passed (delivered as written), modified (the
    corrected text is delivered), blocked (nothing is; regenerate or a person reviews)."""

    status: Literal["passed", "modified", "blocked"]
    text: str | None = Field(description="the text to deliver; null when blocked")
    recommendation: RecommendationKind


class CheckResponse(CheckSummary):
    result: PostprocessedResponse


class TurnsRequest(BaseModel):
    model_config = {"extra": "forbid"}
    turns: list[Turn] = Field(min_length=1, description="turns or OpenAI chat messages, in order")


class TurnsResponse(BaseModel):
    id: str
    turns: int
    added: list[Turn]


class SessionCheckRequest(BaseModel):
    """Session.check's arguments: the reply, and what to check it against."""

    model_config = {"extra": "forbid"}
    response: str
    query: str | None = Field(default=None, description="default: the latest user turn")
    reference_time: datetime | None = None
    turn_id: str | None = None
    annotation_style: Literal["plain", "markdown", "html"] | None = None
    passages: list[str] = Field(default_factory=list)
    tool_results: list[Any] = Field(
        default_factory=list,
        description="what the agent's tools returned (parsed JSON), checked as knowledge over "
        "the KB, after the session's own tool turns",
    )


class SessionInfo(BaseModel):
    id: str
    created: str
    touched: str
    expires_at: str
    turns: list[Turn]
    state: dict[str, object] = Field(description="the DialogueState: registry, topics, QUDs")
