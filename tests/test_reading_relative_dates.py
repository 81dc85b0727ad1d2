"""Class 9 of issue 11: relative dates ("today", "tonight", "tomorrow", "this Friday, the 9th")
are resolved against the reference time before they are compared with the weekday or the date
the KB holds; a correct relative date is never a contradiction."""

from __future__ import annotations

from datetime import datetime

import pytest

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase
from replyguard.text.temporal import find_temporal

REFERENCE = datetime(2026, 10, 6, 9, 0)  # a Tuesday

KB = {
    "entities": [
        {
            "id": "choir",
            "name": "choir practice",
            "type": "Event",
            "attributes": {"weekday": "tuesday", "starts": "6:30pm"},
        },
        {
            "id": "market",
            "name": "farmers market",
            "type": "Event",
            "attributes": {"weekday": "wednesday", "starts": "8am"},
        },
        {
            "id": "gala",
            "name": "charity gala",
            "type": "Event",
            "attributes": {"date": "2026-10-09", "starts": "7pm"},
        },
    ],
    "schema": {"weekday": {"value_type": "date"}, "date": {"value_type": "date"}},
}


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(KnowledgeBase.model_validate(KB))


def _day_claims(engine: Engine, reply: str) -> dict[str, object]:
    result = engine.postprocess(reply, "", [], reference_time=REFERENCE)
    fv = result.factual_validation
    status = {v.claim_id: v.status for v in fv.claim_validations}
    return {c.object: status[c.id] for c in fv.claims if c.predicate in ("weekday", "date")}


@pytest.mark.parametrize(
    "reply",
    [
        "Choir practice is tonight at 6:30pm.",
        "Choir practice is today at 6:30pm.",
        "The farmers market is tomorrow at 8am.",
        "The charity gala is this Friday, the 9th, at 7pm.",
        "The charity gala is on Friday at 7pm.",
    ],
)
def test_a_correct_relative_date_is_verified(engine: Engine, reply: str) -> None:
    claims = _day_claims(engine, reply)
    assert claims and all(s.kind == "Verified" for s in claims.values())


@pytest.mark.parametrize(
    ("reply", "kb_value"),
    [
        ("Choir practice is tomorrow at 6:30pm.", "tuesday"),
        ("The farmers market is today at 8am.", "wednesday"),
        ("The charity gala is tomorrow at 7pm.", "2026-10-09"),
    ],
)
def test_a_wrong_relative_date_is_contradicted(engine: Engine, reply: str, kb_value: str) -> None:
    (status,) = _day_claims(engine, reply).values()
    assert status.kind == "Contradicted" and status.kb_value == kb_value


def test_a_relative_weekday_with_its_date_is_one_mention() -> None:
    (mention,) = [m for m in find_temporal("It is next Thursday, October 15.", REFERENCE) if m.date]
    assert mention.text == "next Thursday, October 15"
    assert mention.date.isoformat() == "2026-10-15"


def test_a_relative_weekday_with_its_date_is_corrected_once(engine: Engine) -> None:
    reply = "The charity gala is next Thursday, October 15, at 7pm."
    result = engine.postprocess(reply, "", [], reference_time=REFERENCE)
    corrections = [c for c in result.corrected.corrections if c.original.startswith("next")]
    assert len(corrections) == 1
    assert corrections[0].original == "next Thursday, October 15"
