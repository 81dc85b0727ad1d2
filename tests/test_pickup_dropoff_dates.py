"""Two date columns that bound a stay (`pickup_*` / `dropoff_*`, a `range-bounds` pair of
metta/lexicon.metta), said with no cue: a date is read against the range as other bounded pairs
are ("low"/"high", "open"/"close"). The bound it equals verifies it; a date outside the range is
a wrong value of the nearer bound; a date inside it is no claim unless the words before it say
an end, the compound said apart included ("pick up on ..." names `pickup`)."""

from __future__ import annotations

from datetime import datetime

import pytest
from row_verdicts import claim_verdicts

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase

REFERENCE = datetime(2026, 6, 1, 9, 0)

# camper-van hires a booking search returned: picked up first, dropped off after
VANS = [("Coastline Four", "$35"), ("Nomad Two", "$24")]
KB = {
    "entities": [
        {
            "id": f"hire_{i}",
            "attributes": {
                "van": van,
                "pickup_date": "2026-06-04",
                "dropoff_date": "2026-06-09",
                "daily_rate": rate,
            },
        }
        for i, (van, rate) in enumerate(VANS, start=1)
    ],
    "schema": {"daily_rate": {"value_type": "money"}},
}


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(KnowledgeBase.model_validate(KB))


def _date_verdicts(engine: Engine, reply: str) -> dict:
    verdicts = claim_verdicts(engine, reply, REFERENCE)
    return {k[1:]: v.kind for k, v in verdicts.items() if k[1].endswith("_date")}


def test_a_date_before_the_hire_is_a_wrong_pickup(engine: Engine) -> None:
    assert _date_verdicts(engine, "The Coastline Four is free on June 2nd for $35 a day.") == {
        ("pickup_date", "June 2nd"): "Contradicted"
    }


def test_a_date_after_the_hire_is_a_wrong_dropoff(engine: Engine) -> None:
    assert _date_verdicts(engine, "The Nomad Two at $24 a day is free on June 12th.") == {
        ("dropoff_date", "June 12th"): "Contradicted"
    }


def test_a_bound_said_is_verified(engine: Engine) -> None:
    assert _date_verdicts(engine, "The Coastline Four is $35 a day, free on June 4th.") == {
        ("pickup_date", "June 4th"): "Verified"
    }


def test_a_date_inside_the_hire_is_no_claim_without_an_end_named(engine: Engine) -> None:
    assert _date_verdicts(engine, "The Coastline Four is $35 a day, free on June 6th.") == {}


def test_the_end_said_apart_picks_its_bound(engine: Engine) -> None:
    reply = "The Coastline Four is $35 a day; you can drop off on June 6th."
    assert _date_verdicts(engine, reply) == {("dropoff_date", "June 6th"): "Contradicted"}
