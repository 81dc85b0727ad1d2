"""Rows with no name whose values, said together, no one row holds (issue 11, class 4): the row
holding most of them is meant and the odd value is contradicted against it; of rows that hold
as many, the one in focus, else the first the KB lists (a search's rows in the order returned).
Each value is checked against that one row, whichever column it is of."""

from __future__ import annotations

from datetime import datetime

import pytest
from row_verdicts import claim_verdicts

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase, Turn

REFERENCE = datetime(2026, 10, 5, 7, 0)

# airport shuttles a timetable search returned, in that order: no names
SHUTTLES = [
    ("Kestrel Coaches", "06:20", "07:35", "18"),
    ("Ouzel Travel", "09:45", "11:05", "22"),
    ("Kestrel Coaches", "13:10", "14:30", "26"),
]
KB = {
    "entities": [
        {
            "id": f"shuttle_{i}",
            "type": "Event",
            "attributes": {"operator": o, "departs": d, "arrives": a, "price": p},
        }
        for i, (o, d, a, p) in enumerate(SHUTTLES, start=1)
    ],
    "schema": {
        "departs": {"value_type": "time"},
        "arrives": {"value_type": "time"},
        "price": {"value_type": "money"},
    },
}


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(KnowledgeBase.model_validate(KB))


def _verdicts(engine: Engine, reply: str, turns: list[Turn] | None = None) -> dict:
    return claim_verdicts(engine, reply, REFERENCE, turns)


def test_the_values_one_row_holds_together_are_all_verified(engine: Engine) -> None:
    verdicts = _verdicts(engine, "A Kestrel Coaches shuttle leaves at 1:10 pm and costs $26.")
    assert {k[0] for k in verdicts} == {"shuttle_3"}
    assert {s.kind for s in verdicts.values()} == {"Verified"}


def test_a_time_of_another_row_is_contradicted_by_the_row_most_values_point_to(
    engine: Engine,
) -> None:
    # 9:45 am is the second shuttle's own time, but the operator, the arrival and the price
    # said with it are the third's
    reply = "A Kestrel Coaches shuttle leaves at 9:45 am, gets in at 2:30 pm and costs $26."
    verdicts = _verdicts(engine, reply)
    status = verdicts[("shuttle_3", "departs", "9:45 am")]
    assert status.kind == "Contradicted" and status.kb_value == "13:10"
    assert verdicts[("shuttle_3", "price", "$26")].kind == "Verified"
    result = engine.postprocess(reply, "", [], reference_time=REFERENCE)
    assert result.corrected is not None and "1:10 pm" in result.corrected.corrected


def test_two_values_of_two_rows_and_nothing_in_focus_are_the_first_listed_rows(
    engine: Engine,
) -> None:
    verdicts = _verdicts(engine, "The earliest one leaves at 9:45 am and costs $18.")
    status = verdicts[("shuttle_1", "departs", "9:45 am")]
    assert status.kind == "Contradicted" and status.kb_value == "06:20"
    assert verdicts[("shuttle_1", "price", "$18")].kind == "Verified"


def test_two_values_of_two_rows_are_the_row_the_dialogue_has_in_focus(engine: Engine) -> None:
    turns = [
        Turn(id="T1", speaker="user", text="Is there a shuttle to the airport tomorrow?"),
        Turn(id="T2", speaker="assistant", text="There is one at 9:45 am, arriving 11:05 am."),
        Turn(id="T3", speaker="user", text="What does that one cost?"),
    ]
    verdicts = _verdicts(engine, "That shuttle leaves at 9:45 am and costs $18.", turns)
    status = verdicts[("shuttle_2", "price", "$18")]
    assert status.kind == "Contradicted" and status.kb_value == "22"
    assert verdicts[("shuttle_2", "departs", "9:45 am")].kind == "Verified"


def test_a_sentence_naming_nothing_goes_on_with_the_row_the_one_before_said(
    engine: Engine,
) -> None:
    good = _verdicts(engine, "The shuttle leaves at 9:45 am. A seat on it is $22.")
    assert {k[0] for k in good} == {"shuttle_2"}
    assert {s.kind for s in good.values()} == {"Verified"}
    verdicts = _verdicts(engine, "I found three. The shuttle leaves at 9:45 am. A seat is $18.")
    status = verdicts[("shuttle_1", "departs", "9:45 am")]
    assert status.kind == "Contradicted" and status.kb_value == "06:20"
    assert verdicts[("shuttle_1", "price", "$18")].kind == "Verified"


def test_a_sentence_about_a_named_entitys_value_does_not_go_on_with_the_row():
    kb = {
        "entities": [
            *KB["entities"],
            {
                "id": "desk",
                "name": "Kestrel Travel Desk",
                "type": "Organization",
                "attributes": {"booking_fee": "$3"},
            },
        ],
        "schema": KB["schema"] | {"booking_fee": {"value_type": "money"}},
    }
    engine = Engine(KnowledgeBase.model_validate(kb))
    verdicts = _verdicts(engine, "The shuttle leaves at 9:45 am for $22. Booking adds $3.")
    assert verdicts[("shuttle_2", "price", "$22")].kind == "Verified"
    assert not any(k[0] == "shuttle_2" and k[2] == "$3" for k in verdicts)
