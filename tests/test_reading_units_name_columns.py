"""Issue 11, measures: a number said with its unit ("9 degrees", "40 mph") is a value of the
column the unit measures (`unit-measures` in metta/lexicon.metta), where the KB writes bare
numbers in several columns and the sentence names none of them; "chance of rain" names the
precipitation (`cue-word-synonym`). A ski centre's conditions
board, a domain of my own; verdicts written before the run."""

from __future__ import annotations

from datetime import datetime

import pytest

from replyguard.engine import Engine
from replyguard.kb import kb_from_document

REFERENCE = datetime(2026, 12, 3, 8, 0)

BOARD = {
    "entities": [
        {
            "id": "G1",
            "name": "Glenshee",
            "type": "Location",
            "attributes": {
                "temperature": "4",
                "wind_speed": "25",
                "visibility": "2",
                "lifts_open": "9",
                "precipitation": "30",
                "humidity": "80",
            },
        }
    ]
}


@pytest.fixture(scope="module")
def board() -> Engine:
    return Engine(kb_from_document(BOARD))


def claims(result) -> set[tuple[str, str]]:
    fv = result.factual_validation
    return {
        (c.predicate, v.status.kind) for c, v in zip(fv.claims, fv.claim_validations, strict=True)
    }


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("Glenshee will be 4 degrees this morning.", ("temperature", "Verified")),
        ("Glenshee will be 9 degrees this morning.", ("temperature", "Contradicted")),
        ("It should reach 9 degrees Celsius at Glenshee.", ("temperature", "Contradicted")),
        ("Glenshee has gusts of 25 mph.", ("wind_speed", "Verified")),
        ("Glenshee has gusts of 40 mph.", ("wind_speed", "Contradicted")),
        # a percent fits precipitation and humidity alike; "chance of rain" names the first
        ("Glenshee has a 30 percent chance of rain.", ("precipitation", "Verified")),
        ("Glenshee has a 60 percent chance of rain.", ("precipitation", "Contradicted")),
    ],
)
def test_a_unit_names_the_column_it_measures(board, reply, expected):
    result = board.postprocess(reply, "What are the conditions like?", reference_time=REFERENCE)
    assert expected in claims(result)


def test_a_unit_no_column_is_measured_by_claims_nothing(board):
    # "miles" measures a distance the board has no column for: no column is guessed
    result = board.postprocess("Glenshee is 40 miles from Perth.", reference_time=REFERENCE)
    assert claims(result) == set()
