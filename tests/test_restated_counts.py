"""A confirmation restates how many of a thing the user asked for: "book 3 passes" confirmed as
"2 passes" contradicts the user, "three passes" or "3 passes" does not; "please confirm" and "to
confirm" mark a confirmation, and a part of the day is restated by any time in it."""

from __future__ import annotations

from datetime import datetime

import pytest

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase, Turn

REFERENCE = datetime(2026, 8, 3, 11, 0)
# a lido's swim sessions, names of our own
KB = {
    "entities": [
        {"id": "L1", "name": "Sunrise Lengths", "attributes": {"pool": "Tarn Lido", "lane": "2"}}
    ]
}
TURNS = [
    Turn(id="T1", speaker="user", text="Book Sunrise Lengths at Tarn Lido in the morning."),
    Turn(id="T2", speaker="assistant", text="How many passes do you need?"),
    Turn(id="T3", speaker="user", text="Please book 3 passes."),
]


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(KnowledgeBase.model_validate(KB))


def _prior_flags(engine: Engine, reply: str) -> list[str]:
    result = engine.postprocess(reply, TURNS[-1].text, TURNS, reference_time=REFERENCE)
    return [
        f.content for f in result.hallucination_flags if f.hallucination_type == "ContradictsPrior"
    ]


def test_a_different_count_contradicts_the_user(engine: Engine) -> None:
    assert _prior_flags(engine, "Please confirm: 2 passes for Sunrise Lengths at Tarn Lido.") == [
        "2"
    ]


@pytest.mark.parametrize(
    "reply",
    [
        "Please confirm: 3 passes for Sunrise Lengths at Tarn Lido.",
        "To confirm, that is three passes for Sunrise Lengths.",
    ],
)
def test_the_same_count_restates_the_request(engine: Engine, reply: str) -> None:
    assert _prior_flags(engine, reply) == []


def test_a_count_of_another_thing_is_no_restatement(engine: Engine) -> None:
    assert _prior_flags(engine, "Please confirm: 3 passes for lane 2 with 1 towel.") == []


def test_a_part_of_the_day_is_restated_by_a_time(engine: Engine) -> None:
    assert _prior_flags(engine, "Please confirm: 3 passes for Sunrise Lengths at 7 am.") == []


# issue 11: the user changed how many in other words ("3 passes", then "there will be 4 of us"):
# the latest count is theirs, and a confirmation of it restates the request
CHANGED = [
    *TURNS,
    Turn(id="T4", speaker="assistant", text="Please confirm: 3 passes for Sunrise Lengths."),
    Turn(id="T5", speaker="user", text="Sorry, can you make that a booking for 4 people?"),
]


def _prior_after_change(engine: Engine, reply: str) -> list[str]:
    result = engine.postprocess(reply, CHANGED[-1].text, CHANGED, reference_time=REFERENCE)
    return [
        f.content for f in result.hallucination_flags if f.hallucination_type == "ContradictsPrior"
    ]


def test_a_count_the_user_gave_since_in_other_words_is_theirs(engine: Engine) -> None:
    assert _prior_after_change(engine, "Please confirm: 4 passes for Sunrise Lengths.") == []
    assert _prior_after_change(engine, "Please confirm: 5 passes for Sunrise Lengths.") == ["5"]
