"""A suggestion of what the user said they already have contradicts the user: "I already have
the Island Pass" -> "I'd recommend the Island Pass" is written again. Sentences of a ferry
company's shop, written for these tests."""

from __future__ import annotations

from datetime import datetime

import pytest

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase, Turn

KB = {
    "entities": [
        {"id": "P1", "name": "Island Pass", "attributes": {"price": "£48", "crossings": "10"}},
        {"id": "P2", "name": "Bike Carriage Pass", "attributes": {"price": "£12"}},
    ]
}


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(KnowledgeBase.model_validate(KB))


def _flags(engine: Engine, said: str, reply: str) -> tuple[list[str], str]:
    turns = [
        Turn(id="T1", speaker="user", text=said),
        Turn(id="T2", speaker="assistant", text="Good to know."),
        Turn(id="T3", speaker="user", text="What else would you suggest for the summer?"),
    ]
    result = engine.postprocess(
        reply, turns[-1].text, turns, reference_time=datetime(2026, 6, 1, 9, 0)
    )
    found = [
        f.content for f in result.hallucination_flags if f.hallucination_type == "ContradictsPrior"
    ]
    return found, str(result.recommendation.kind)


def test_suggesting_what_the_user_has_contradicts_them(engine: Engine) -> None:
    found, recommendation = _flags(
        engine,
        "I already have the Island Pass for this summer.",
        "I'd recommend the Island Pass, it covers 10 crossings for £48.",
    )
    assert found == ["Island Pass"] and recommendation == "Regenerate"


@pytest.mark.parametrize(
    ("said", "reply"),
    [
        (
            "I already have the Island Pass for this summer.",
            "I'd recommend the Bike Carriage Pass, it is £12.",
        ),
        (
            "I never bought the Island Pass, it looked dear.",
            "I'd recommend the Island Pass, it covers 10 crossings for £48.",
        ),
    ],
)
def test_another_thing_or_a_denied_purchase_is_no_contradiction(
    engine: Engine, said: str, reply: str
) -> None:
    assert _flags(engine, said, reply)[0] == []
