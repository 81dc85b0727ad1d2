"""Issue 11, decisions: a reply is not Accept on checks that never ran. A value no claim read
that no entity the reply speaks of holds keeps it at AcceptWithFlags; one that such an entity
does hold (said in words the reading missed) matched the KB all the same: it is still listed
among the unread values, and the reply is accepted.

A yoga studio of our own; the verdicts were written before the code was run.
"""

from __future__ import annotations

from datetime import datetime

import pytest

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase

REFERENCE = datetime(2026, 12, 2, 12, 0)
KB = {
    "entities": [
        {
            "id": "flow",
            "name": "Evening Flow",
            "type": "Event",
            "attributes": {"price": "£12", "duration": "75 minutes", "teacher": "Lena Hart"},
        },
        {
            "id": "studio",
            "name": "Willow Yoga",
            "type": "Organization",
            "attributes": {"phone": "0161 555 0144", "address": "3 Mill Street"},
        },
    ]
}


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(KnowledgeBase.model_validate(KB))


def _check(engine: Engine, reply: str):  # noqa: ANN202
    return engine.postprocess(reply, "Tell me about Evening Flow.", reference_time=REFERENCE)


def test_an_unread_value_the_claimed_entity_holds_is_accepted(engine: Engine) -> None:
    result = _check(engine, "Evening Flow costs £12, and people stay a good 75 minutes.")
    claims = [(c.predicate, c.object) for c in result.factual_validation.claims]
    assert claims == [("price", "£12")]
    assert [u.text for u in result.unread_values] == ["75 minutes"]  # listed all the same
    assert result.recommendation.kind == "Accept"


def test_an_unread_value_no_claimed_entity_holds_is_flagged(engine: Engine) -> None:
    result = _check(engine, "Evening Flow costs £12, and people stay a good 90 minutes.")
    assert [u.text for u in result.unread_values] == ["90 minutes"]
    assert result.recommendation.kind == "AcceptWithFlags"
    assert any(s.start == result.original.index("90") for s in result.recommendation.flags)


def test_a_reply_with_no_claim_is_not_accepted_on_an_unread_value(engine: Engine) -> None:
    # "hire" names the lexicon's join_date, a date: a price is never its value
    result = _check(engine, "You can hire a mat for £3.")
    assert result.factual_validation.claims == []
    assert [u.text for u in result.unread_values] == ["£3"]
    assert result.recommendation.kind == "AcceptWithFlags"
