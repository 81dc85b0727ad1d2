"""Issue 11, entities that share a name: a community choir's concerts, one row per performance
of the same programme. A value said of the shared name that one of the rows holds is checked
against that row; one that none holds, where the rows hold different values, is wrong whichever
performance is meant: Contradicted against all of them, not corrected in place (no one value
fixes it), and the reply regenerated. Verdicts written before the run."""

from __future__ import annotations

from datetime import datetime

import pytest

from replyguard.engine import Engine
from replyguard.kb import kb_from_document
from replyguard.models import RecommendationKind as R

REFERENCE = datetime(2026, 12, 3, 9, 0)


def concert(ident: str, date: str, venue: str, start: str = "19:30") -> dict:
    return {
        "id": ident,
        "name": "Winter Carols",
        "type": "Event",
        "attributes": {"date": date, "venue": venue, "start_time": start, "city": "York"},
    }


CONCERTS = {
    "entities": [
        concert("C1", "2026-12-12", "St Olave's Church"),
        concert("C2", "2026-12-15", "St Olave's Church"),
        concert("C3", "2026-12-19", "Merchant Hall", "15:00"),
        {
            "id": "C4",
            "name": "Spring Songs",
            "type": "Event",
            "attributes": {
                "date": "2027-03-20",
                "venue": "Merchant Hall",
                "start_time": "19:00",
                "city": "York",
            },
        },
    ]
}


@pytest.fixture(scope="module")
def choir() -> Engine:
    return Engine(kb_from_document(CONCERTS))


def check(engine: Engine, text: str, query: str = "When is Winter Carols on?"):
    return engine.postprocess(text, query, [], reference_time=REFERENCE)


def statuses(result) -> dict[str, str]:
    fv = result.factual_validation
    return {
        c.predicate: v.status.kind for c, v in zip(fv.claims, fv.claim_validations, strict=True)
    }


@pytest.mark.parametrize(
    "reply",
    ["Winter Carols is on December 15th.", "There is a Winter Carols on December 19th."],
)
def test_a_day_one_performance_holds_verifies(choir, reply):
    result = check(choir, reply)
    assert statuses(result) == {"date": "Verified"}
    assert result.recommendation.kind in (R.Accept, R.AcceptWithFlags)


@pytest.mark.parametrize(
    "reply",
    ["Winter Carols is on December 22nd.", "There is a Winter Carols on December 8th."],
)
def test_a_day_no_performance_holds_is_wrong_and_regenerated(choir, reply):
    result = check(choir, reply)
    assert statuses(result) == {"date": "Contradicted"}
    assert result.recommendation.kind == R.Regenerate
    # no one performance's day is put in its place
    assert result.corrected.corrected == reply
    validation = result.factual_validation.claim_validations[0]
    for day in ("2026-12-12", "2026-12-15", "2026-12-19"):
        assert day in validation.status.kb_value


def test_a_value_all_performances_share_is_checked_as_one(choir):
    # every Winter Carols is in York: a wrong city is corrected in place as for one entity
    result = check(choir, "Winter Carols is in Leeds.", "Which city is Winter Carols in?")
    assert statuses(result) == {"city": "Contradicted"}
    assert result.recommendation.kind == R.CorrectAndDeliver
    assert "York" in result.corrected.corrected
