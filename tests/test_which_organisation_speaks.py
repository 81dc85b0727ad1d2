"""Issue 11, class 5: of two organisations that may speak as "we", the one the question names
speaks in the reply ("What's the phone number for Northside Pool?" - "You can reach us on
..."); with neither named, "we" is no one's and the value stays unread.

Two swimming pools of our own; the verdicts were written before the code was run.
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
            "id": "north",
            "name": "Northside Pool",
            "type": "Organization",
            "attributes": {
                "phone": "0113 496 0101",
                "address": "8 Mill Road, Leeds",
                "opening_hours": "6:30 am - 9:00 pm",
            },
        },
        {
            "id": "south",
            "name": "Southside Pool",
            "type": "Organization",
            "attributes": {
                "phone": "0113 496 0202",
                "address": "40 Bank Street, Leeds",
                "opening_hours": "7:00 am - 8:00 pm",
            },
        },
    ]
}


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(KnowledgeBase.model_validate(KB))


def _claims(result) -> dict[str, str]:  # noqa: ANN001
    status = {v.claim_id: v.status.kind for v in result.factual_validation.claim_validations}
    return {
        f"{c.subject_id}.{c.predicate}={c.object}": status[c.id]
        for c in result.factual_validation.claims
    }


def test_the_organisation_the_question_names_speaks(engine: Engine) -> None:
    question = "What's the phone number for Northside Pool?"
    right = engine.postprocess(
        "You can reach us on 0113 496 0101.", question, reference_time=REFERENCE
    )
    assert _claims(right) == {"north.phone=0113 496 0101": "Verified"}
    assert right.recommendation.kind == "Accept"
    wrong = engine.postprocess(
        "You can reach us on 0113 496 0202.", question, reference_time=REFERENCE
    )
    assert _claims(wrong) == {"north.phone=0113 496 0202": "Contradicted"}
    assert wrong.recommendation.deliver == "You can reach us on 0113 496 0101."


def test_with_no_organisation_named_we_is_no_ones(engine: Engine) -> None:
    result = engine.postprocess(
        "You can reach us on 0113 496 0101.", "How do I get in touch?", reference_time=REFERENCE
    )
    assert _claims(result) == {}
    assert [u.text for u in result.unread_values] == ["0113 496 0101"]
