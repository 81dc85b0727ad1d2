"""Class 10 of issue 11: a raw table as a user hands it in (compound cells, a `today` column) is
read by the engine at load time."""

from __future__ import annotations

from datetime import datetime

import pytest

from replyguard.engine import Engine
from replyguard.kb import kb_from_csv, read_table

TIDE_TABLE = "\n".join(
    [
        "name,today,saturday,sunday,monday",
        'Pittenweem,saturday,"calm, high tide of 06:10, swell of 2ft",'
        '"choppy, high tide of 07:05, swell of 5ft","calm, high tide of 08:00, swell of 1ft"',
        'Anstruther,saturday,"fog, high tide of 06:20, swell of 3ft",'
        '"calm, high tide of 07:15, swell of 2ft","choppy, high tide of 08:10, swell of 6ft"',
    ]
)
THURSDAY = datetime(2026, 12, 3, 10, 0)  # the call's clock; the table says today is Saturday


@pytest.fixture(scope="module")
def tides() -> Engine:
    return Engine(kb_from_csv(TIDE_TABLE, origin="tides.csv"))


def test_compound_cells_become_one_fact_per_part():
    rows, today = read_table(
        [{"name": "Crail", "today": "Sunday", "sunday": "calm, high tide of 06:10, swell of 2ft"}]
    )
    assert today == "sunday"
    assert rows == [
        {
            "name": "Crail",
            "sunday": "calm",
            "sunday_high_tide": "06:10",
            "sunday_swell": "2ft",
        }
    ]


def test_a_cell_without_typed_labels_stays_whole():
    rows, today = read_table([{"name": "Crail", "notes": "nets, pots and creels"}])
    assert today is None
    assert rows == [{"name": "Crail", "notes": "nets, pots and creels"}]


def test_the_today_column_is_the_tables_day_not_a_fact(tides: Engine):
    assert tides.kb.today == "saturday"
    assert all("today" not in e.attributes for e in tides.kb.entities)


def _verdicts(engine: Engine, text: str) -> list[tuple[str, str, str]]:
    result = engine.postprocess(text, "", [], reference_time=THURSDAY)
    return [
        (c.predicate, c.object, v.status.kind)
        for c, v in zip(
            result.factual_validation.claims,
            result.factual_validation.claim_validations,
            strict=True,
        )
    ]


def test_replies_are_checked_against_the_parts_and_the_tables_today(tides: Engine):
    assert _verdicts(tides, "In Pittenweem it will be choppy tomorrow.") == [
        ("sunday", "choppy", "Verified")
    ]
    assert _verdicts(tides, "Anstruther has a swell of 6ft on Monday.") == [
        ("monday_swell", "6ft", "Verified")
    ]
    assert _verdicts(tides, "Today Anstruther is calm.") == [("saturday", "calm", "Contradicted")]
