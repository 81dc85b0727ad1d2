"""The public contract: every input and output of replyguard as a pydantic model.

Inputs forbid unknown fields so a misspelt key in a case file is an error that names the field,
not a silently ignored setting. Outputs serialise to JSON with a schema version and validate back.
"""

from __future__ import annotations

import re
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

SCHEMA_VERSION = "1.0"

Scalar = str | int | float | bool
# Entity ids and attribute names become MeTTa symbols, so they may not hold spaces or brackets.
SYMBOL_PATTERN = r"^[\w][\w.:\-]*$"


class _Input(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False, populate_by_name=True)


class _Output(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


# --------------------------------------------------------------------------- knowledge base


class EntityType(StrEnum):
    Person = "Person"
    Organization = "Organization"
    Location = "Location"
    Event = "Event"
    Object = "Object"
    Time = "Time"
    Abstract = "Abstract"
    Unknown = "Unknown"


class Gender(StrEnum):
    Masculine = "Masculine"
    Feminine = "Feminine"
    Neuter = "Neuter"
    Unknown = "Unknown"


class GrammaticalNumber(StrEnum):
    Singular = "Singular"
    Plural = "Plural"


class ValueType(StrEnum):
    text = "text"
    enum = "enum"
    email = "email"
    phone = "phone"
    url = "url"
    date = "date"
    time = "time"
    datetime = "datetime"
    year = "year"
    number = "number"
    money = "money"
    percent = "percent"
    duration = "duration"
    entity = "entity"


class Cardinality(StrEnum):
    one = "one"
    many = "many"


class AttributeValue(_Input):
    """A KB value with its provenance; a bare scalar or list in the KB means confidence 1.0."""

    value: Scalar | list[Scalar]
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    source: str | None = None


class Entity(_Input):
    id: str = Field(min_length=1, pattern=SYMBOL_PATTERN)
    # None for a row known only by its values (a flight or a car a search returned): it cannot
    # be mentioned by name, and reports show its id.
    name: str | None = Field(default=None, min_length=1)
    type: EntityType = EntityType.Unknown
    aliases: list[str] = Field(default_factory=list)
    gender: Gender | None = None
    number: GrammaticalNumber | None = None
    attributes: dict[str, Scalar | list[Scalar] | AttributeValue] = Field(default_factory=dict)

    @field_validator("attributes")
    @classmethod
    def _attribute_names(cls, value: dict[str, object]) -> dict[str, object]:
        for name in value:
            if not re.match(SYMBOL_PATTERN, name):
                raise ValueError(f"attribute name {name!r} may hold only letters, digits, _ . : -")
        return value

    @property
    def label(self) -> str:
        """How reports show the entity: its name, else its id."""
        return self.name or self.id

    @property
    def names(self) -> tuple[str, ...]:
        """The name and aliases the entity can be mentioned by."""
        return (self.name, *self.aliases) if self.name else tuple(self.aliases)

    def attribute(self, name: str) -> AttributeValue | None:
        raw = self.attributes.get(name)
        if raw is None:
            return None
        return raw if isinstance(raw, AttributeValue) else AttributeValue(value=raw)

    def values_of(self, name: str) -> tuple[list[Scalar], float, str | None]:
        """(values, confidence, source) of an attribute, without building a model per call."""
        raw = self.attributes.get(name)
        if isinstance(raw, AttributeValue):
            value, confidence, source = raw.value, raw.confidence, raw.source
        else:
            value, confidence, source = raw, 1.0, None
        if value is None:
            return [], confidence, source
        return (value if isinstance(value, list) else [value]), confidence, source


class AttributeSchema(_Input):
    value_type: ValueType = ValueType.text
    cardinality: Cardinality = Cardinality.one
    cues: list[str] = Field(default_factory=list)
    # the attribute stating the same relation from the other end ("written_by" for "wrote")
    inverse: str | None = None


class KnowledgeBase(_Input):
    entities: list[Entity] = Field(default_factory=list)
    attribute_schema: dict[str, AttributeSchema] = Field(default_factory=dict, alias="schema")
    # "closed": the KB lists every entity and fact of its domain, so what it lacks does not
    # exist; "open": it is drawn from a partial source, so what it lacks is only unknown.
    world: Literal["closed", "open"] = "closed"
    # the id of the entity the reply speaks for ("we open at 9", "our branch"): the business
    # the assistant works for; when None, it is inferred (metta/entities.metta)
    organization: str | None = None

    @model_validator(mode="after")
    def _unique_ids(self) -> KnowledgeBase:
        seen: set[str] = set()
        for i, entity in enumerate(self.entities):
            if entity.id in seen:
                raise ValueError(f"entities.{i}.id: duplicate entity id {entity.id!r}")
            seen.add(entity.id)
        if self.organization is not None and self.organization not in seen:
            raise ValueError(f"organization: no entity with id {self.organization!r}")
        return self


# --------------------------------------------------------------------------- dialogue


class Turn(_Input):
    id: str | None = None
    speaker: str = Field(min_length=1)
    text: str
    act: str | None = None
    timestamp: datetime | None = None

    @property
    def role(self) -> Literal["user", "assistant", "system"]:
        """A named speaker is a human participant, so it counts as a user."""
        s = self.speaker.lower()
        if s in ("assistant", "system"):
            return s  # type: ignore[return-value]
        return "user"


class QuestionType(StrEnum):
    YesNo = "YesNo"
    Wh = "Wh"
    How = "How"
    Alternative = "Alternative"
    Statement = "Statement"


class QUD(_Input):
    """A question under discussion: what was asked, about whom, expecting what kind of answer."""

    question_type: QuestionType
    text: str = ""
    wh_word: str | None = None
    focus_entity: str | None = None
    focus_attribute: str | None = None
    expected: str | None = None
    source_turn: str | None = None


class Topic(_Input):
    label: str
    keywords: list[str] = Field(default_factory=list)
    entities: list[str] = Field(default_factory=list)
    activation: float = Field(default=1.0, ge=0.0, le=1.0)


class RegistryEntry(_Input):
    entity_id: str | None = None
    name: str
    salience: float = Field(default=1.0, ge=0.0, le=1.0)
    gender: Gender | None = None
    number: GrammaticalNumber | None = None
    entity_type: EntityType = EntityType.Unknown
    last_turn: str | None = None


class DialogueState(_Input):
    turns: list[Turn] = Field(default_factory=list)
    qud_stack: list[QUD] | None = None
    topics: list[Topic] | None = None
    entity_registry: list[RegistryEntry] | None = None

    @model_validator(mode="after")
    def _turn_ids(self) -> DialogueState:
        for i, turn in enumerate(self.turns):
            if turn.id is None:
                turn.id = f"T{i + 1}"
        ids = [t.id for t in self.turns]
        if len(set(ids)) != len(ids):
            raise ValueError("turns: turn ids must be unique")
        return self


class Case(_Input):
    """One check: the reply, the question it answers, the dialogue so far and the KB."""

    kb: KnowledgeBase | str
    dialogue: DialogueState = Field(default_factory=DialogueState)
    query: str
    response: str
    passages: list[str] = Field(default_factory=list)
    reference_time: datetime | None = None
    session_id: str | None = None
    turn_id: str | None = None

    @field_validator("dialogue", mode="before")
    @classmethod
    def _turn_list(cls, value: object) -> object:
        return {"turns": value} if isinstance(value, list) else value


# --------------------------------------------------------------------------- results


class Span(_Output):
    start: int = Field(ge=0)
    end: int = Field(ge=0)

    @model_validator(mode="after")
    def _ordered(self) -> Span:
        if self.end < self.start:
            raise ValueError("span end before start")
        return self


class Evidence(_Output):
    """What a verdict rests on: a KB fact, an earlier turn or a passage given with the call."""

    kind: Literal["kb", "turn", "passage"]
    entity_id: str | None = None
    attribute: str | None = None
    value: str | None = None
    confidence: float | None = None
    source: str | None = None
    turn_id: str | None = None
    text: str | None = None


class Explanation(_Output):
    """Why a verdict is what it is: the rule call that decided it, the clauses of the rule files
    that matched the call, and the atoms (KB facts, turns, claims) the evidence came from."""

    rule: str
    result: str
    clauses: list[str] = Field(default_factory=list)  # "metta/facts.metta:14"
    atoms: list[str] = Field(default_factory=list)
    because: list[Explanation] = Field(default_factory=list)


class Claim(_Output):
    id: str
    claim_type: Literal["Attribute", "Relation"] = "Attribute"
    subject: str
    subject_id: str | None = None
    predicate: str
    object: str
    span: Span
    subject_span: Span | None = None
    negated: bool = False
    confidence: float


class Verified(_Output):
    kind: Literal["Verified"] = "Verified"
    confidence: float


class Contradicted(_Output):
    kind: Literal["Contradicted"] = "Contradicted"
    kb_value: str
    confidence: float


class Unverifiable(_Output):
    kind: Literal["Unverifiable"] = "Unverifiable"


class HistoryConflict(_Output):
    kind: Literal["HistoryConflict"] = "HistoryConflict"
    conflicting_turn: str


class ValidationError_(_Output):
    kind: Literal["Error"] = "Error"
    reason: str


ValidationStatus = Annotated[
    Verified | Contradicted | Unverifiable | HistoryConflict | ValidationError_,
    Field(discriminator="kind"),
]


class ClaimValidation(_Output):
    claim_id: str
    status: ValidationStatus
    kb_evidence: Evidence | None = None
    history_evidence: list[Evidence] = Field(default_factory=list)
    suggestion: str | None = None
    explanation: Explanation | None = None


class ValidationStats(_Output):
    claims_checked: int = 0
    claims_verified: int = 0
    claims_contradicted: int = 0
    claims_unverifiable: int = 0
    claims_history_conflict: int = 0


class FactualValidationResult(_Output):
    score: float
    claims: list[Claim] = Field(default_factory=list)
    claim_validations: list[ClaimValidation] = Field(default_factory=list)
    stats: ValidationStats = Field(default_factory=ValidationStats)


class CoherenceIssueType(StrEnum):
    QUDNotAddressed = "QUDNotAddressed"
    QUDPartiallyAddressed = "QUDPartiallyAddressed"
    TopicDrift = "TopicDrift"
    TopicUnrelated = "TopicUnrelated"
    EntityMismatch = "EntityMismatch"
    EntityUnknown = "EntityUnknown"
    DiscourseBreak = "DiscourseBreak"
    UnexpectedSpeechAct = "UnexpectedSpeechAct"
    AmbiguousReference = "AmbiguousReference"
    InconsistentPronoun = "InconsistentPronoun"


class CoherenceIssue(_Output):
    issue_type: CoherenceIssueType
    span: Span | None = None
    description: str
    severity: float
    suggestion: str | None = None
    evidence: list[Evidence] = Field(default_factory=list)
    explanation: Explanation | None = None


class QUDRelevanceResult(_Output):
    score: float
    question_type: QuestionType
    wh_word: str | None = None
    expected_answer: str | None = None
    answer_coverage: float
    semantic_relevance: float
    addresses_qud: bool
    issues: list[CoherenceIssue] = Field(default_factory=list)


class TopicConsistencyResult(_Output):
    score: float
    drift_detected: bool
    active_topics: list[str] = Field(default_factory=list)
    issues: list[CoherenceIssue] = Field(default_factory=list)


class EntityConsistencyResult(_Output):
    score: float
    references_checked: int
    mismatches: int
    issues: list[CoherenceIssue] = Field(default_factory=list)


class DiscourseCoherenceResult(_Output):
    score: float
    expected_acts: list[str] = Field(default_factory=list)
    reply_act: str
    issues: list[CoherenceIssue] = Field(default_factory=list)


class PronounResolution(_Output):
    pronoun: str
    span: Span
    candidates: list[str] = Field(default_factory=list)
    resolved_to: str | None = None


class ReferenceConsistencyResult(_Output):
    score: float
    pronouns: list[PronounResolution] = Field(default_factory=list)
    issues: list[CoherenceIssue] = Field(default_factory=list)


class CoherenceResult(_Output):
    score: float
    qud_relevance: QUDRelevanceResult
    topic_consistency: TopicConsistencyResult
    entity_consistency: EntityConsistencyResult
    discourse_coherence: DiscourseCoherenceResult
    reference_consistency: ReferenceConsistencyResult
    issues: list[CoherenceIssue] = Field(default_factory=list)


class HallucinationType(StrEnum):
    FabricatedFact = "FabricatedFact"
    NonexistentEntity = "NonexistentEntity"
    WrongAttribute = "WrongAttribute"
    ContradictsFact = "ContradictsFact"
    ContradictsPrior = "ContradictsPrior"
    UnsupportedClaim = "UnsupportedClaim"
    TemporalError = "TemporalError"
    LogicalInconsistency = "LogicalInconsistency"


class HallucinationFlag(_Output):
    hallucination_type: HallucinationType
    span: Span
    content: str
    confidence: float
    suggestion: str | None = None
    reason: str = ""
    evidence: list[Evidence] = Field(default_factory=list)
    explanation: Explanation | None = None


class CorrectionType(StrEnum):
    Grammar = "Grammar"
    Factual = "Factual"
    Annotation = "Annotation"
    Removal = "Removal"


class AnnotationType(StrEnum):
    Unverified = "Unverified"
    Uncertain = "Uncertain"
    PossibleHallucination = "PossibleHallucination"
    ExternalSource = "ExternalSource"
    NeedsVerification = "NeedsVerification"


class ResponseCorrection(_Output):
    correction_type: CorrectionType
    original: str
    replacement: str | None = None
    span: Span
    corrected_span: Span | None = None
    confidence: float
    source: str | None = None
    annotation_type: AnnotationType | None = None
    message: str | None = None
    tier: str | None = None
    alternatives: list[str] = Field(default_factory=list)


class RejectedCorrection(_Output):
    """A spelling or grammar change the corrector refused, and why (it would have changed a KB
    name or value, a number, a date, an email, ...)."""

    original: str
    replacement: str
    span: Span
    reason: str
    rule: str | None = None


class CorrectedResponse(_Output):
    original: str
    corrected: str
    annotated: str
    annotation_style: Literal["plain", "markdown", "html"] = "plain"
    corrections: list[ResponseCorrection] = Field(default_factory=list)
    rejected: list[RejectedCorrection] = Field(default_factory=list)


class NewEntity(_Output):
    name: str
    span: Span
    guessed_type: EntityType = EntityType.Unknown
    similar_to: str | None = None


class RecommendationKind(StrEnum):
    Accept = "Accept"
    AcceptWithFlags = "AcceptWithFlags"
    CorrectAndDeliver = "CorrectAndDeliver"
    Regenerate = "Regenerate"
    HumanReview = "HumanReview"


class Severity(StrEnum):
    Low = "Low"
    Medium = "Medium"
    High = "High"


class Recommendation(_Output):
    kind: RecommendationKind
    flags: list[Span] = Field(default_factory=list)
    severity: Severity | None = None
    corrections: list[ResponseCorrection] = Field(default_factory=list)
    guidance: str | None = None
    reason: str | None = None
    explanation: Explanation | None = None


class PostprocessedResponse(_Output):
    schema_version: str = SCHEMA_VERSION
    session_id: str | None = None
    turn_id: str | None = None
    original: str
    query: str
    corrected: CorrectedResponse | None = None
    coherence: CoherenceResult
    factual_validation: FactualValidationResult
    hallucination_flags: list[HallucinationFlag] = Field(default_factory=list)
    new_entities: list[NewEntity] = Field(default_factory=list)
    confidence: float
    recommendation: Recommendation
    timings_ms: dict[str, float] = Field(default_factory=dict)
