"""A corrected value reads whole (issue 11, correction accuracy): a compass point left after a
street goes with the street it follows; a tail of the KB value the reply already says right
after the wrong value (", Easton", " Northeast", " pm") is not put in twice."""

from __future__ import annotations

from datetime import datetime

import pytest

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase

KB = {
    "entities": [
        {
            "id": "hall",
            "name": "Alder Hall",
            "type": "Organization",
            "attributes": {"address": "48 Marsh Lane Northeast", "opens": "17:30"},
        },
        {
            "id": "library",
            "name": "Pennick Library",
            "type": "Organization",
            "attributes": {"address": "9 Kiln Road, Easton", "opens": "09:15"},
        },
    ],
    "schema": {"opens": {"value_type": "time"}},
}


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(KnowledgeBase.model_validate(KB))


def _corrected(engine: Engine, reply: str) -> str:
    result = engine.postprocess(reply, "", [], reference_time=datetime(2026, 5, 4, 9))
    assert result.corrected is not None
    return result.corrected.corrected


def test_a_tail_the_reply_already_says_is_not_repeated(engine: Engine) -> None:
    fixed = _corrected(engine, "The address of Pennick Library is 31 Orchard Road, Easton.")
    assert fixed == "The address of Pennick Library is 9 Kiln Road, Easton."
    fixed = _corrected(engine, "The address of Alder Hall is 12 Ferry Road Northeast.")
    assert fixed == "The address of Alder Hall is 48 Marsh Lane Northeast."


def test_a_compass_point_after_a_street_is_replaced_with_it(engine: Engine) -> None:
    fixed = _corrected(engine, "Pennick Library is located at 31 Orchard Row Southwest.")
    assert fixed == "Pennick Library is located at 9 Kiln Road, Easton."


def test_a_time_read_without_its_am_or_pm_keeps_the_one_written(engine: Engine) -> None:
    # no space after the full stop: the reader takes "6:45" and leaves "pm.See" beside it
    reply = "Alder Hall opens at 6:45 pm.See you there!"
    result = engine.postprocess(reply, "", [], reference_time=datetime(2026, 5, 4, 9))
    assert result.corrected is not None
    assert result.corrected.corrected == "Alder Hall opens at 5:30 pm.See you there!"


def test_a_wrong_relative_weekday_is_corrected_in_the_same_words() -> None:
    market = Engine(
        KnowledgeBase.model_validate(
            {
                "entities": [
                    {
                        "id": "fair",
                        "name": "Tollcross Craft Fair",
                        "attributes": {"held": "2026-05-14"},
                    }
                ],
                "schema": {"held": {"value_type": "date"}},
            }
        )
    )
    monday = datetime(2026, 5, 11, 9)  # the fair is this Thursday
    result = market.postprocess(
        "Tollcross Craft Fair is this Friday.", "", [], reference_time=monday
    )
    assert result.corrected is not None
    assert result.corrected.corrected == "Tollcross Craft Fair is this Thursday."
    # three weeks on, no "this <weekday>" means it: the date is written out
    later = datetime(2026, 4, 20, 9)
    result = market.postprocess(
        "Tollcross Craft Fair is this Friday.", "", [], reference_time=later
    )
    assert result.corrected is not None
    assert "this" not in result.corrected.corrected
