"""Class 13 of issue 11: a yes or no answers the question asked, not a statement the user made
before it in the same turn, nor anything said earlier."""

from __future__ import annotations

from datetime import datetime

import pytest

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase, Turn

REFERENCE = datetime(2026, 7, 1, 9, 0)

KB = {
    "entities": [
        {
            "id": "cabin",
            "name": "Heron Cabin",
            "type": "Object",
            "attributes": {"outlook": "lake view", "heating": "wood stove"},
        },
        {
            "id": "lodge",
            "name": "Alder Lodge",
            "type": "Object",
            "attributes": {"outlook": "forest view", "heating": "underfloor heating"},
        },
    ]
}


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(KnowledgeBase.model_validate(KB))


def _polar_flags(engine: Engine, reply: str, query: str, turns: list[Turn] | None = None):
    result = engine.postprocess(reply, query, turns or [], reference_time=REFERENCE)
    return [
        f
        for f in result.hallucination_flags
        if f.hallucination_type == "ContradictsFact" and f.content in ("Yes", "No")
    ]


def test_no_answers_the_question_not_the_statement_before_it(engine: Engine) -> None:
    query = "So the Alder Lodge has a forest view. Does the Heron Cabin have underfloor heating?"
    assert _polar_flags(engine, "No, it has a wood stove.", query) == []


def test_yes_to_the_question_is_still_checked(engine: Engine) -> None:
    query = "So the Alder Lodge has a forest view. Does the Heron Cabin have underfloor heating?"
    (flag,) = _polar_flags(engine, "Yes, it does.", query)
    assert "heating" in flag.reason


def test_of_two_questions_the_answer_is_to_the_last(engine: Engine) -> None:
    query = "Does the Alder Lodge have a forest view? And does the Heron Cabin have a wood stove?"
    assert _polar_flags(engine, "Yes, it does.", query) == []


def test_a_statement_alone_is_what_a_no_answers(engine: Engine) -> None:
    (flag,) = _polar_flags(engine, "No.", "I think the Alder Lodge has a forest view.")
    assert "outlook" in flag.reason


def test_an_earlier_turns_question_is_not_what_the_answer_is_to(engine: Engine) -> None:
    turns = [
        Turn(id="T1", speaker="user", text="Does the Heron Cabin have a lake view?"),
        Turn(id="T2", speaker="assistant", text="Yes, the Heron Cabin has a lake view."),
    ]
    query = "What heating does the Alder Lodge have?"
    assert _polar_flags(engine, "No, the Alder Lodge has underfloor heating.", query, turns) == []
