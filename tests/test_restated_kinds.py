"""Issue 11, decisions: a reply contradicts the user when it offers another kind of thing than
the one asked for ("a manual bike" after "an electric bike"), but a word that judges the thing
("2 suitable bikes", `judgement-word` in metta/lexicon.metta) names no kind, and words a cue joins
("contact number" for the "phone number" asked for) name a column, not a kind of number.

A bike hire of our own; the verdicts were written before the code was run.
"""

from __future__ import annotations

from datetime import datetime

import pytest

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase, Turn

REFERENCE = datetime(2026, 12, 2, 12, 0)
KB = {
    "entities": [
        {
            "id": "hire",
            "name": "Fellside Cycles",
            "type": "Organization",
            "attributes": {"phone_number": "017687 555 210", "address": "2 Lake Road, Keswick"},
        },
        {
            "id": "ebike",
            "name": "Trail E-Bike",
            "type": "Object",
            "attributes": {"day_price": "£45", "bike_type": "electric"},
        },
    ]
}
ASKED = [Turn(id="T1", speaker="user", text="I need an electric bike for Saturday.")]


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(KnowledgeBase.model_validate(KB))


def _prior(engine: Engine, reply: str, turns: list[Turn]) -> list[str]:
    result = engine.postprocess(reply, turns[-1].text, turns, reference_time=REFERENCE)
    return [
        f.content for f in result.hallucination_flags if f.hallucination_type == "ContradictsPrior"
    ]


def test_another_kind_contradicts_the_user(engine: Engine) -> None:
    assert _prior(engine, "I have found a manual bike for Saturday.", ASKED) == ["manual"]


@pytest.mark.parametrize(
    "reply",
    ["I have found 2 suitable bikes for Saturday.", "I have found a great bike for Saturday."],
)
def test_a_judgement_names_no_kind(engine: Engine, reply: str) -> None:
    assert _prior(engine, reply, ASKED) == []


def test_a_cue_phrase_names_no_kind(engine: Engine) -> None:
    turns = [
        Turn(id="T1", speaker="user", text="Please also get me their phone number for my records.")
    ]
    assert _prior(engine, "Yes, the contact number is 017687 555 210.", turns) == []
