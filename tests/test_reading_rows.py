"""Class 4 of issue 11: rows with no name (coaches a search returned) and entities that share a
name (two "harbour tour" sailings) are identified by the other values said with them; when they
still tie, the claim is checked against every candidate."""

from __future__ import annotations

from datetime import datetime

import pytest
from row_verdicts import claim_verdicts

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase, Turn

REFERENCE = datetime(2026, 4, 14, 9, 0)  # a Tuesday

KB = {
    "entities": [
        {
            "id": "coach_a",
            "type": "Event",
            "attributes": {"leaves": "6:05 am", "fare": "$27", "operator": "Northline"},
        },
        {
            "id": "coach_b",
            "type": "Event",
            "attributes": {"leaves": "2:20 pm", "fare": "$19", "operator": "Bluebird"},
        },
        {
            "id": "tour_1",
            "name": "harbour tour",
            "type": "Event",
            "attributes": {"day": "thursday", "start": "10 am", "price": "$15"},
        },
        {
            "id": "tour_2",
            "name": "harbour tour",
            "type": "Event",
            "attributes": {"day": "sunday", "start": "1 pm", "price": "$15"},
        },
    ],
    "schema": {"leaves": {"value_type": "time"}, "start": {"value_type": "time"}},
}


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(KnowledgeBase.model_validate(KB))


def _verdicts(engine: Engine, reply: str, turns: list[Turn] | None = None) -> dict:
    return claim_verdicts(engine, reply, REFERENCE, turns)


def test_a_time_said_first_identifies_the_nameless_row(engine: Engine) -> None:
    verdicts = _verdicts(engine, "The 2:20 pm coach is $19.")
    assert verdicts[("coach_b", "fare", "$19")].kind == "Verified"


def test_a_value_of_another_row_is_contradicted_with_the_identified_rows_value(
    engine: Engine,
) -> None:
    verdicts = _verdicts(engine, "The 6:05 am coach costs $19.")
    status = verdicts[("coach_a", "fare", "$19")]
    assert status.kind == "Contradicted" and status.kb_value == "$27"


def test_a_list_of_rows_is_read_row_by_row(engine: Engine) -> None:
    reply = "There are two coaches: Northline at 6:05 am for $19 and Bluebird at 2:20 pm for $27."
    verdicts = _verdicts(engine, reply)
    assert verdicts[("coach_a", "fare", "$19")].kind == "Contradicted"
    assert verdicts[("coach_b", "fare", "$27")].kind == "Contradicted"
    good = reply.replace("$19", "$X").replace("$27", "$19").replace("$X", "$27")
    assert all(s.kind == "Verified" for s in _verdicts(engine, good).values())


def test_two_values_after_identify_the_row_of_the_first(engine: Engine) -> None:
    verdicts = _verdicts(engine, "The 7:30 am coach is run by Northline and costs $27.")
    status = verdicts[("coach_a", "leaves", "7:30 am")]
    assert status.kind == "Contradicted" and status.kb_value == "6:05 am"


def test_one_later_value_does_not_decide_which_of_two_values_is_wrong(engine: Engine) -> None:
    verdicts = _verdicts(engine, "The 6:05 am coach costs $19.")
    assert ("coach_b", "leaves", "6:05 am") not in verdicts


def test_a_shared_name_is_told_apart_by_the_day_said_with_it(engine: Engine) -> None:
    good = _verdicts(engine, "The harbour tour on Sunday starts at 1 pm.")
    assert good[("tour_2", "start", "1 pm")].kind == "Verified"
    bad = _verdicts(engine, "The harbour tour on Thursday starts at 1 pm.")
    status = bad[("tour_1", "start", "1 pm")]
    assert status.kind == "Contradicted" and status.kb_value == "10 am"


def test_tied_rows_are_checked_against_every_candidate(engine: Engine) -> None:
    # either tour may be meant: the value one of them holds is no contradiction
    held = _verdicts(engine, "The harbour tour starts at 10 am.")
    assert held[("tour_1", "start", "10 am")].kind == "Verified"
    # a value both hold alike is checked against both
    shared = _verdicts(engine, "The harbour tour costs $12.")
    assert shared[("tour_1", "price", "$12")].kind == "Contradicted"
    # a value neither holds, where they differ: wrong whichever is meant, against both
    neither = _verdicts(engine, "The harbour tour starts at 4 pm.")
    status = neither[("tour_1", "start", "4 pm")]
    assert status.kind == "Contradicted" and status.kb_value == "10 am or 1 pm"


def test_the_dialogue_focus_breaks_a_tie(engine: Engine) -> None:
    turns = [
        Turn(id="T1", speaker="user", text="Is there a harbour tour on Sunday?"),
        Turn(id="T2", speaker="assistant", text="Yes, the harbour tour on Sunday starts at 1 pm."),
        Turn(id="T3", speaker="user", text="Where does it leave from?"),
    ]
    verdicts = _verdicts(engine, "It is at 3 pm.", turns)
    assert verdicts[("tour_2", "start", "3 pm")].kind == "Contradicted"
