"""A user's labels beside a case: the `expect` field of a labelled case line.

`replyguard eval cases` reads JSONL files of ordinary cases whose ``id``, ``metadata`` and
``expect`` fields are the user's labels (the engine never reads them). A case keeps ``expect`` as
the user wrote it; this module is its format (what a right result looks like), checked when
the cases are read.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError
from pydantic_core import PydanticCustomError

from replyguard.errors import InputError, describe_validation_error
from replyguard.models import Case, CoherenceIssueType, HallucinationType, RecommendationKind

# The verdicts in the order the confusion table lists them, from best to worst for the reply.
BANDS: tuple[RecommendationKind, ...] = tuple(RecommendationKind)
# What a flag expectation may name: a hallucination flag type or a coherence issue type.
FLAG_NAMES: dict[str, str] = {
    name.lower(): name for name in (*HallucinationType, *CoherenceIssueType)
}


def _canonical(names: dict[str, str], what: str) -> BeforeValidator:
    """A validator spelling a name as in ``names`` whatever its case; an unknown name is an
    error that lists what is accepted."""

    def canonical(value: object) -> object:
        if not isinstance(value, str):
            return value
        try:
            return names[value.strip().lower()]
        except KeyError:
            raise PydanticCustomError(
                "unknown_name",
                "unknown {what} {value} (expected one of {names})",
                {"what": what, "value": repr(value), "names": ", ".join(names.values())},
            ) from None

    return BeforeValidator(canonical)


def _one_or_many(value: object) -> object:
    return [value] if isinstance(value, str) else value


Verdict = Annotated[
    RecommendationKind,
    _canonical({kind.value.lower(): kind.value for kind in RecommendationKind}, "recommendation"),
]
FlagName = Annotated[str, _canonical(FLAG_NAMES, "flag type")]


class ExpectedContradiction(BaseModel):
    """A wrong value the reply states (as written in it) and the KB value that should replace
    it; ``correct`` may list several spellings of the right value, any of which counts."""

    model_config = ConfigDict(extra="forbid")

    value: str = Field(min_length=1)
    correct: str | list[str] | None = None

    @property
    def corrections(self) -> list[str]:
        if self.correct is None:
            return []
        return [self.correct] if isinstance(self.correct, str) else list(self.correct)


class Expect(BaseModel):
    """What a right result of one case looks like; every key is optional.

    ``recommendation`` is one verdict or a list of acceptable ones (the first is the one the
    confusion table files the case under); ``contradicted`` the wrong values the engine must find
    (and correct, where ``correct`` is given); ``flags`` flag or issue types that must be raised and
    ``no_flags`` types that must not be.
    """

    model_config = ConfigDict(extra="forbid")

    recommendation: Annotated[list[Verdict], BeforeValidator(_one_or_many)] = Field(
        default_factory=list
    )
    contradicted: list[ExpectedContradiction] = Field(default_factory=list)
    flags: Annotated[list[FlagName], BeforeValidator(_one_or_many)] = Field(default_factory=list)
    no_flags: Annotated[list[FlagName], BeforeValidator(_one_or_many)] = Field(default_factory=list)
    note: str | None = None

    @property
    def band(self) -> RecommendationKind | None:
        """The expected band of the confusion table: the first acceptable verdict."""
        return self.recommendation[0] if self.recommendation else None


def read_expect(case: Case, origin: str) -> Expect:
    """The case's ``expect`` as an `Expect`, checked against the case it labels.

    ``origin`` ("FILE: line N") prefixes every error: an unknown key or name, a type both
    required and forbidden, a contradicted value the response does not contain.
    """
    try:
        expect = Expect.model_validate(case.expect or {})
    except ValidationError as exc:
        raise InputError(f"{origin}: expect.{describe_validation_error(exc)}") from None
    both = set(expect.flags) & set(expect.no_flags)
    if both:
        raise InputError(f"{origin}: expect: {', '.join(sorted(both))} in both flags and no_flags")
    for i, c in enumerate(expect.contradicted):
        if c.value.lower() not in case.response.lower():
            raise InputError(
                f"{origin}: expect.contradicted.{i}.value: {c.value!r} does not occur in "
                "the response"
            )
    return expect
