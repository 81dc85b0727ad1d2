"""Shared fixtures: the seed's John Smith knowledge base and one engine built over it."""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime

import pytest
from hypothesis import HealthCheck, settings

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase, Turn

REFERENCE = datetime(2026, 11, 30, 9, 0)  # a Monday

# Property tests (marked fuzz): a few fixed examples each in the default run, many random ones
# with `pytest -m fuzz` (add --hypothesis-seed=N to repeat a deep run).
_SLOW_IS_FINE = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example]
settings.register_profile(
    "quick", max_examples=8, derandomize=True, database=None, deadline=None,
    suppress_health_check=_SLOW_IS_FINE, print_blob=True,
)  # fmt: skip
settings.register_profile(
    "fuzz", max_examples=300, deadline=None, suppress_health_check=_SLOW_IS_FINE, print_blob=True
)


def pytest_configure(config: pytest.Config) -> None:
    marks = config.getoption("markexpr") or ""
    deep = "fuzz" in marks.split() and "not" not in marks.split()
    settings.load_profile("fuzz" if deep else "quick")


SEED_KB = {
    "entities": [
        {
            "id": "E42",
            "name": "John Smith",
            "type": "Person",
            "aliases": ["John"],
            "gender": "Masculine",
            "attributes": {
                "email": {"value": "john.smith@company.com", "confidence": 1.0},
                "phone": "617-555-0100",
                "join_date": {"value": 2020, "confidence": 0.95, "source": "HR record"},
                "department": {"value": "Engineering", "confidence": 1.0},
            },
        },
        {
            "id": "E43",
            "name": "Sarah Johnson",
            "type": "Person",
            "aliases": ["Sarah"],
            "gender": "Feminine",
            "attributes": {
                "email": "sarah.johnson@company.com",
                "join_date": 2018,
                "department": "Marketing",
            },
        },
        {
            "id": "E44",
            "name": "Emily Chen",
            "type": "Person",
            "aliases": ["Emily"],
            "gender": "Feminine",
            "attributes": {
                "email": "emily.chen@company.com",
                "join_date": 2021,
                "department": "Finance",
            },
        },
        {
            "id": "E50",
            "name": "Acme Corp",
            "type": "Organization",
            "aliases": ["Acme"],
            "attributes": {"headquarters": "Boston", "industry": "Software"},
        },
        {
            "id": "E60",
            "name": "Budget Review",
            "type": "Event",
            "attributes": {"date": "2026-12-01", "time": "14:00", "room": "Room 4"},
        },
    ],
    "schema": {
        "email": {"value_type": "email", "cues": ["email", "e-mail", "email address"]},
        "join_date": {"value_type": "year", "cues": ["joined", "join date", "started"]},
        "department": {"value_type": "enum", "cues": ["works in", "department", "dept"]},
        "phone": {"value_type": "phone", "cues": ["phone", "phone number"]},
        "date": {"value_type": "date", "cues": ["on"]},
        "time": {"value_type": "time", "cues": ["at"]},
    },
}


@pytest.fixture(scope="session")
def seed_kb() -> KnowledgeBase:
    return KnowledgeBase.model_validate(SEED_KB)


@pytest.fixture(scope="session")
def engine(seed_kb: KnowledgeBase) -> Engine:
    return Engine(seed_kb)


@pytest.fixture
def seed_history() -> list[Turn]:
    return [
        Turn(id="T1", speaker="user", text="I joined in 2020, same year as John."),
        Turn(id="T2", speaker="assistant", text="Good to know."),
        Turn(id="T3", speaker="user", text="John works in Engineering."),
        Turn(id="T4", speaker="assistant", text="Thanks, I have noted that."),
    ]


def engine_of(entities: list[dict]) -> Engine:
    """An engine over a KB of these entities (a test's own small domain)."""
    return Engine(KnowledgeBase.model_validate({"entities": entities}))


def verdicts(result) -> dict[str, str]:  # noqa: ANN001
    """ "attribute=claimed value" -> the verdict of each claim of a result."""
    status = {v.claim_id: v.status.kind for v in result.factual_validation.claim_validations}
    return {f"{c.predicate}={c.object}": status[c.id] for c in result.factual_validation.claims}


def flagged(result, kind: str) -> list[str]:  # noqa: ANN001
    """The reply text of each hallucination flag of this type ("NonexistentEntity")."""
    return [f.content for f in result.hallucination_flags if f.hallucination_type == kind]


def check(engine: Engine, response: str, query: str = "", turns: list[Turn] | None = None):
    return engine.postprocess(response, query, turns or [], reference_time=REFERENCE)


def run_cli(
    *args: str, cwd: object = None, input: str | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """The installed command line, run as a user would: `python -m replyguard.cli ARGS`."""
    return subprocess.run(
        [sys.executable, "-m", "replyguard.cli", *args],
        cwd=cwd,
        input=input,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
