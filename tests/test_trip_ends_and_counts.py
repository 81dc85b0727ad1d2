"""Nameless trip rows (issue 11, class 4): which end of a trip a stop is said as, and counts said
with the noun their column counts.

- A cue naming one of two columns of a kind ("the return stop is ...", origin and return
  stops) tells which the value is said as, even when the KB lists the value under the other.
- Of several columns a cue names ("leaves from": the town and the stop), the one the KB lists
  the value under is meant.
- "departs from" / "arrives at" name the origin and the destination, "leaving" / "arriving"
  the departure and arrival columns (`cue-word-synonym`).
- "with 1 change" is the number of the column that counts changes, read with its noun, and
  corrected with it."""

from __future__ import annotations

from datetime import datetime

import pytest
from row_verdicts import claim_verdicts

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase

REFERENCE = datetime(2026, 9, 3, 8, 0)

# coach journeys a timetable search returned, no names: (sets off, changes, fare)
JOURNEYS = [("07:25", 0, "$14"), ("12:05", 1, "$11")]
KB = {
    "entities": [
        {
            "id": f"coach_{i}",
            "attributes": {
                "origin": "Kelso",
                "destination": "Alnwick",
                "origin_stop": "Abbey Row",
                "destination_stop": "Bondgate",
                "sets_off": sets_off,
                "changes": changes,
                "fare": fare,
            },
        }
        for i, (sets_off, changes, fare) in enumerate(JOURNEYS, start=1)
    ],
    "schema": {"sets_off": {"value_type": "time"}, "fare": {"value_type": "money"}},
}


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(KnowledgeBase.model_validate(KB))


def _verdicts(engine: Engine, reply: str) -> dict:
    return {k[1:]: v.kind for k, v in claim_verdicts(engine, reply, REFERENCE).items()}


def test_a_cue_for_one_end_is_kept_when_the_value_is_the_other_ends(engine: Engine) -> None:
    verdicts = _verdicts(engine, "The 7:25 am coach costs $14. The destination stop is Abbey Row.")
    assert verdicts[("destination_stop", "Abbey Row")] == "Contradicted"


def test_each_end_said_with_its_verb(engine: Engine) -> None:
    verdicts = _verdicts(engine, "The $14 coach departs from Bondgate and arrives at Bondgate.")
    assert verdicts[("origin_stop", "Bondgate")] == "Contradicted"
    assert verdicts[("destination_stop", "Bondgate")] == "Verified"


def test_of_the_columns_a_cue_names_the_one_listing_the_value(engine: Engine) -> None:
    verdicts = _verdicts(engine, "The $11 coach leaves from Abbey Row at 12:05 pm.")
    assert verdicts[("origin_stop", "Abbey Row")] == "Verified"
    assert ("origin", "Abbey Row") not in verdicts


def test_a_narrower_column_listing_the_value_wins_over_the_cue(engine: Engine) -> None:
    verdicts = _verdicts(engine, "The $11 coach goes at 12:05 pm; its destination is Bondgate.")
    assert verdicts.get(("destination_stop", "Bondgate")) == "Verified"
    assert ("destination", "Bondgate") not in verdicts


def test_a_count_said_with_its_columns_noun_is_read_and_corrected(engine: Engine) -> None:
    reply = "The coach that sets off at 7:25 am costs $14 with 1 change."
    assert _verdicts(engine, reply)[("changes", "1 change")] == "Contradicted"
    result = engine.postprocess(reply, "", [], reference_time=REFERENCE)
    assert result.corrected is not None
    assert result.corrected.corrected.endswith("with 0 changes.") or (
        result.corrected.corrected.endswith("with 0 change.")
    )


def test_the_right_count_with_its_noun_is_verified(engine: Engine) -> None:
    reply = "The coach that sets off at 12:05 pm is $11 and has 1 change."
    assert _verdicts(engine, reply)[("changes", "1 change")] == "Verified"


# sailings with a departure and an arrival time each: the type alone tells neither apart
SAILINGS = {
    "entities": [
        {
            "id": f"sailing_{i}",
            "attributes": {"departure_time": leaves, "arrival_time": lands, "fare": fare},
        }
        for i, (leaves, lands, fare) in enumerate(
            [("07:50", "09:05", "$19"), ("15:20", "16:40", "$23")], start=1
        )
    ],
    "schema": {
        "departure_time": {"value_type": "time"},
        "arrival_time": {"value_type": "time"},
        "fare": {"value_type": "money"},
    },
}


def test_leaving_and_arriving_name_the_departure_and_arrival_columns() -> None:
    engine = Engine(KnowledgeBase.model_validate(SAILINGS))
    verdicts = {
        k[1:]: v.kind
        for k, v in claim_verdicts(
            engine, "The $19 boat is leaving at 7:50 am and arriving at 9:40 am.", REFERENCE
        ).items()
    }
    assert verdicts[("departure_time", "7:50 am")] == "Verified"
    assert verdicts[("arrival_time", "9:40 am")] == "Contradicted"
