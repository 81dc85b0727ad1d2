"""A measure said with no cue and no copula ("with a high of 21 degrees") belongs to the one
column of its entity that the words just before it name; words naming no column leave it
unread, and words naming two leave it to the rules that tell columns apart."""

from __future__ import annotations

from datetime import datetime

import pytest

from replyguard.engine import Engine
from replyguard.kb import kb_from_document

REFERENCE = datetime(2026, 5, 2, 8, 0)

WALKS = {
    "entities": [
        {
            "id": "ridge",
            "name": "Crag Ridge Walk",
            "type": "Event",
            "attributes": {
                "forecast_high": "16 degrees",
                "forecast_low": "4 degrees",
                "ascent": "350 metres",
                "group_size": "12",
                "leader": "Morag Beattie",
            },
        },
        {
            "id": "loch",
            "name": "Lochside Stroll",
            "type": "Event",
            "attributes": {"forecast_high": "19 degrees", "group_size": "20"},
        },
    ]
}


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(kb_from_document(WALKS))


def _claims(engine: Engine, reply: str) -> list[tuple[str, str, str]]:
    result = engine.postprocess(reply, "How is it looking?", reference_time=REFERENCE)
    fv = result.factual_validation
    return [
        (c.predicate, c.object, v.status.kind)
        for c, v in zip(fv.claims, fv.claim_validations, strict=True)
    ]


def test_a_high_of_said_after_another_value_is_the_forecast_high(engine: Engine) -> None:
    claims = _claims(
        engine, "The Crag Ridge Walk is led by Morag Beattie, with a high of 21 degrees."
    )
    assert ("forecast_high", "21 degrees", "Contradicted") in claims


def test_the_lead_word_picks_low_over_high(engine: Engine) -> None:
    claims = _claims(engine, "The Crag Ridge Walk should see a low of 4 degrees at the top.")
    assert ("forecast_low", "4 degrees", "Verified") in claims
    assert not any(p == "forecast_high" for p, _, _ in claims)


def test_a_measure_whose_lead_names_no_column_stays_unread(engine: Engine) -> None:
    claims = _claims(engine, "For the Crag Ridge Walk, bring 2 litres of water.")
    assert not any(p in ("group_size", "ascent", "forecast_high") for p, _, _ in claims)


def test_each_entity_its_own_led_column(engine: Engine) -> None:
    claims = _claims(engine, "The Lochside Stroll expects a high of 19 degrees.")
    assert claims == [("forecast_high", "19 degrees", "Verified")]
