"""A percent said with no column word (issue 11, value swaps): against a row holding two percent
columns, "a 15% chance of rain" is the precipitation's (`cue-word-synonym` in
metta/lexicon.metta), not the humidity's, and is checked and corrected as that."""

from __future__ import annotations

from datetime import datetime

import pytest

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase

KB = {
    "entities": [
        {
            "id": "pass_forecast",
            "type": "Event",
            "attributes": {"precipitation": "15", "humidity": "62", "wind": "24"},
        }
    ],
    "schema": {
        "precipitation": {"value_type": "percent"},
        "humidity": {"value_type": "percent"},
    },
}


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(KnowledgeBase.model_validate(KB))


def _check(engine: Engine, reply: str):  # noqa: ANN202 - a PostprocessedResponse
    return engine.postprocess(reply, "", [], reference_time=datetime(2026, 1, 9, 7))


def _read(result) -> list[tuple[str, str]]:  # noqa: ANN001
    fv = result.factual_validation
    status = {v.claim_id: v.status.kind for v in fv.claim_validations}
    return [(c.predicate, status[c.id]) for c in fv.claims]


@pytest.mark.parametrize(
    "reply", ["Expect a 15% chance of rain on the pass.", "There is a 15 percent chance of rain."]
)
def test_a_chance_of_rain_is_the_precipitation(engine: Engine, reply: str) -> None:
    assert _read(_check(engine, reply)) == [("precipitation", "Verified")]


def test_a_wrong_chance_of_rain_is_corrected_with_the_precipitation(engine: Engine) -> None:
    result = _check(engine, "The forecast gives a 62% chance of rain tonight.")
    assert _read(result) == [("precipitation", "Contradicted")]
    assert result.corrected is not None
    assert result.corrected.corrected == "The forecast gives a 15% chance of rain tonight."
