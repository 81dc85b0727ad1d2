"""A KB for a domain no dataset covers (two local food shops, a baker, a harbour shuttle), for
the reading tests: each test writes its sentences and the verdict expected before running."""

from __future__ import annotations

from datetime import datetime

import pytest

from replyguard.engine import Engine
from replyguard.kb import kb_from_document
from replyguard.models import Turn

REFERENCE = datetime(2026, 11, 30, 9, 0)  # a Monday

DOMAIN_KB = {
    "entities": [
        {
            "id": "B1",
            "name": "Quarry Lane Bakery",
            "type": "Organization",
            "attributes": {
                "area": "south",
                "price_range": "cheap",
                "phone": "0131 496 0723",
                "address": "14 Quarry Lane",
                "postcode": "EH9 3LT",
                "wifi": True,
                "dogs_allowed": False,
                "food": "pastries",
                "saturday_open": "08:00",
                "saturday_close": "16:00",
                "monday_open": "07:30",
                "monday_close": "15:00",
            },
        },
        {
            "id": "B2",
            "name": "Marrow and Vine",
            "type": "Organization",
            "attributes": {
                "area": "west",
                "price_range": "expensive",
                "phone": "0131 496 0988",
                "address": "3-5 Tollcross Row",
                "postcode": "EH3 9QN",
                "wifi": False,
                "dogs_allowed": True,
                "food": "lebanese",
                "saturday_open": "12:00",
                "saturday_close": "23:00",
                "monday_open": "17:00",
                "monday_close": "22:00",
            },
        },
        {
            "id": "P1",
            "name": "Ingrid Valtonen",
            "type": "Person",
            "gender": "Feminine",
            "attributes": {"role": "Head Baker - Sourdough", "works_at": "Quarry Lane Bakery"},
        },
        {
            "id": "S1",
            "name": "Harbour Shuttle",
            "type": "Object",
            "attributes": {
                "runs_on": ["monday", "friday"],
                "fare": "$4.50",
                "journey_time": "1.5 hours",
                "live_music": "no",
            },
        },
    ]
}


@pytest.fixture(scope="module")
def domain() -> Engine:
    return Engine(kb_from_document(DOMAIN_KB))


def read(engine: Engine, text: str, before: str | None = None) -> list[tuple[str, str, str, str]]:
    """(subject, attribute, claimed value, verdict) of each claim in a reply; `before` is a user
    turn said before it."""
    turns = [Turn(id="T1", speaker="user", text=before)] if before else []
    result = engine.postprocess(text, "", turns, reference_time=REFERENCE)
    return [
        (c.subject, c.predicate, c.object, v.status.kind)
        for c, v in zip(
            result.factual_validation.claims,
            result.factual_validation.claim_validations,
            strict=True,
        )
    ]
