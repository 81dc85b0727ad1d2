"""The public contract: every input and output of replyguard as a pydantic model.

Inputs forbid unknown fields so a misspelt key in a case file is an error that names the field,
not a silently ignored setting. Outputs serialise to JSON with a schema version and validate back.
"""

from __future__ import annotations

import re
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

SCHEMA_VERSION = "1.0"

Scalar = str | int | float | bool
# Entity ids and attribute names become MeTTa symbols, so they may not hold spaces or brackets.
SYMBOL_PATTERN = r"^[\w][\w.:\-]*$"


_SURROGATE = re.compile("[\ud800-\udfff]")
# Opaque fields (a case's metadata and expect) are JSON a user writes; deeper than this is not.
MAX_NESTING = 64
# Starts a model-level error that belongs to one field, so its path can name the field.
TEXT_FIELD_MARK = "field "


def text_problem(value: object) -> str | None:
    """Why a value cannot be carried as Unicode text, or None: a lone surrogate (which a JSON
    "\\ud800" escape or a Python string can hold, but UTF-8 cannot) anywhere in its strings,
    or nesting deeper than MAX_NESTING. Models are not entered: they check their own fields."""
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if not item.isascii() and (found := _SURROGATE.search(item)):
                return (
                    f"holds a lone surrogate (U+{ord(found.group()):04X} at character "
                    f"{found.start()}), which is not Unicode text"
                )
        elif isinstance(item, list | tuple | dict):
            if depth >= MAX_NESTING:
                return f"nested more than {MAX_NESTING} levels deep"
            children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return None


class _Input(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False, populate_by_name=True)

    @model_validator(mode="after")
    def _unicode_text(self) -> _Input:
        """Every input string must be text a result can carry (results always serialise)."""
        for name, value in self.__dict__.items():
            if isinstance(value, str):
                if value.isascii() or not _SURROGATE.search(value):
                    continue
            elif not isinstance(value, list | dict):
                continue
            problem = text_problem(value)
            if problem:
                raise ValueError(f"{TEXT_FIELD_MARK}{name}: {problem}")
        return self


class _InputEnum(StrEnum):
    """An enum read from what users write: any case, spaces or dashes, and the usual synonyms
    (`_SYNONYMS`). A value it does not know gets pydantic's error listing the members."""

    @classmethod
    def _missing_(cls, value: object) -> _InputEnum | None:
        if not isinstance(value, str):
            return None
        key = _enum_key(value)
        for member in cls:
            if _enum_key(member.value) == key:
                return member
        synonym = _SYNONYMS.get(cls.__name__, {}).get(key)
        return cls(synonym) if synonym else None


def _enum_key(text: str) -> str:
    return re.sub(r"[\s_\-.]+", "", text).casefold()


class _Output(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


# --------------------------------------------------------------------------- knowledge base


class EntityType(_InputEnum):
    Person = "Person"
    Organization = "Organization"
    Location = "Location"
    Event = "Event"
    Object = "Object"
    Time = "Time"
    Abstract = "Abstract"
    Unknown = "Unknown"


class Gender(_InputEnum):
    Masculine = "Masculine"
    Feminine = "Feminine"
    Neuter = "Neuter"
    Unknown = "Unknown"


class GrammaticalNumber(_InputEnum):
    Singular = "Singular"
    Plural = "Plural"


class ValueType(_InputEnum):
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


class Cardinality(_InputEnum):
    one = "one"
    many = "many"


# What users write for an enum value, by enum: key (folded as `_enum_key` does) -> member.
_SYNONYMS: dict[str, dict[str, str]] = {
    "EntityType": {
        **dict.fromkeys(["people", "human", "individual"], "Person"),
        **dict.fromkeys(
            ["organisation", "org", "company", "business", "institution", "agency"],
            "Organization",
        ),
        **dict.fromkeys(["place", "loc", "venue", "area", "region", "city"], "Location"),
        **dict.fromkeys(["thing", "item", "product"], "Object"),
        **dict.fromkeys(["concept", "idea"], "Abstract"),
    },
    "Gender": {
        **dict.fromkeys(["male", "m", "man", "masc"], "Masculine"),
        **dict.fromkeys(["female", "f", "woman", "fem"], "Feminine"),
        **dict.fromkeys(["neutral", "n", "it"], "Neuter"),
        **dict.fromkeys(["nonbinary", "other", "unspecified", "x", "they"], "Unknown"),
    },
    "GrammaticalNumber": {
        **dict.fromkeys(["sg", "sing", "single", "one"], "Singular"),
        **dict.fromkeys(["pl", "plur", "many"], "Plural"),
    },
    "ValueType": {
        **dict.fromkeys(["string", "str"], "text"),
        **dict.fromkeys(["int", "integer", "float", "decimal", "numeric"], "number"),
        **dict.fromkeys(["currency", "price"], "money"),
        **dict.fromkeys(["telephone", "tel"], "phone"),
        **dict.fromkeys(["mail", "emailaddress"], "email"),
        **dict.fromkeys(["link", "uri"], "url"),
        **dict.fromkeys(["reference", "ref"], "entity"),
    },
    "Cardinality": {
        **dict.fromkeys(["single", "1"], "one"),
        **dict.fromkeys(["multiple", "list", "multi"], "many"),
    },
}


def enum_hint(expected: str) -> str:
    """What else an enum accepts, for the error that lists its members (`expected`)."""
    for enum in _InputEnum.__subclasses__():
        if all(f"'{member.value}'" in expected for member in enum):
            synonyms = ", ".join(_SYNONYMS.get(enum.__name__, {}))
            return f" (in any case{'; also ' + synonyms if synonyms else ''})"
    return ""


class AttributeValue(_Input):
    """A KB value with its provenance; a bare scalar or list in the KB means confidence 1.0."""

    value: Scalar | list[Scalar]
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    source: str | None = None


ALIAS_SEPARATORS = re.compile(r"[|;]")


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

    @field_validator("aliases", mode="before")
    @classmethod
    def _one_alias(cls, value: object) -> object:
        # Aliases may be written as one string, several separated by "|" or ";" as in a CSV cell.
        if isinstance(value, str):
            return [a.strip() for a in ALIAS_SEPARATORS.split(value) if a.strip()]
        return value

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
    # the values a column may take, held by a row or not ("Economy", "Flexible" of a fare class):
    # one said that no row holds is still this attribute's, so it contradicts the row's own
    values: list[str] = Field(default_factory=list)


class KnowledgeBase(_Input):
    entities: list[Entity] = Field(default_factory=list)
    attribute_schema: dict[str, AttributeSchema] = Field(default_factory=dict, alias="schema")
    # "closed": the KB lists every entity and fact of its domain, so what it lacks does not
    # exist; "open": it is drawn from a partial source, so what it lacks is only unknown.
    world: Literal["closed", "open"] = "closed"
    # the id of the entity the reply speaks for ("we open at 9", "our branch"): the business
    # the assistant works for; when None, it is inferred (metta/entities.metta)
    organization: str | None = None
    # the weekday a table calls today (its `today` column): its weekday columns count from it
    today: str | None = None

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


# Speakers that name a role rather than a person; any other speaker is a human participant.
_ROLES: dict[str, Literal["user", "assistant", "system"]] = {
    **dict.fromkeys(["assistant", "bot", "ai", "model", "chatbot"], "assistant"),
    **dict.fromkeys(["system", "developer", "tool", "function"], "system"),
}
# Fields of an OpenAI chat message that say nothing a check reads.
_CHAT_MESSAGE_EXTRAS = ("name", "tool_calls", "tool_call_id", "function_call", "refusal")


class Turn(_Input):
    """A message: `speaker`/`text`, or an OpenAI chat message (`role`/`content`, roles system,
    developer, user, assistant, tool; content a string, null or a list of text parts)."""

    id: str | None = None
    speaker: str = Field(min_length=1)
    text: str
    act: str | None = None
    timestamp: datetime | None = None

    @model_validator(mode="before")
    @classmethod
    def _chat_message(cls, value: object) -> object:
        if not isinstance(value, dict) or "role" not in value or "speaker" in value:
            return value
        message = {k: v for k, v in value.items() if k not in _CHAT_MESSAGE_EXTRAS}
        message["speaker"] = message.pop("role")
        content = message.pop("content", None)
        if "text" not in message:
            message["text"] = _content_text(content)
        return message

    @field_validator("speaker")
    @classmethod
    def _named(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("empty; give a role (user, assistant, system) or a name")
        return value

    @property
    def role(self) -> Literal["user", "assistant", "system"]:
        """A named speaker is a human participant, so it counts as a user; tool output is part
        of the system's side, not something a user said."""
        return _ROLES.get(self.speaker.strip().casefold(), "user")


def _content_text(content: object) -> object:
    """An OpenAI message's content as text: a string, no content (a tool call) or text parts."""
    if content is None:
        return ""
    if isinstance(content, list) and all(
        isinstance(part, dict) and part.get("type") == "text" for part in content
    ):
        return "\n".join(str(part.get("text", "")) for part in content)
    return content


class QuestionType(_InputEnum):
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
    # The user's own labels, carried through batch and eval unread by the engine: a case id,
    # any metadata, and what the user expects (read by `replyguard eval cases`).
    id: str | None = None
    metadata: dict[str, Any] | None = None
    expect: dict[str, Any] | None = None
    dialogue: DialogueState = Field(default_factory=DialogueState)
    query: str
    response: str
    passages: list[str] = Field(default_factory=list)
    # what the agent's tools returned (parsed JSON), checked as knowledge over the KB
    tool_results: list[Any] = Field(default_factory=list)
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
    # the question asks for an attribute (or a kind of value) and the reply claims others instead
    answers_another_question: bool = False
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


class UnreadValue(_Output):
    """A value of one of the KB's value types (or one the KB lists) that the reply states and no
    claim checked: the reply is not verified on its strength."""

    text: str
    span: Span
    value_type: ValueType


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
    # the reply to deliver: the corrected text for CorrectAndDeliver, the reply as written for
    # Accept and AcceptWithFlags; None when it is not to be delivered
    deliver: str | None = None
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
    unread_values: list[UnreadValue] = Field(default_factory=list)
    confidence: float
    recommendation: Recommendation
    timings_ms: dict[str, float] = Field(default_factory=dict)
