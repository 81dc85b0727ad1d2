"""Class 8 of issue 11: opening hours per weekday, closed days, days a service runs."""

from __future__ import annotations

import pytest
from reading_domain import read  # noqa: I001

from replyguard.engine import Engine
from replyguard.kb import kb_from_csv, kb_from_rows

# A bike-hire desk: hours per weekday, the days it is shut, the days its van delivers.
HIRE = "\n".join(
    [
        "name,type,friday_open,friday_close,sunday_open,sunday_close,closed_days,delivery_days",
        "Loch Cycle Hire,Organization,09:30,18:00,11:00,15:00,tuesday,monday | thursday",
    ]
)


@pytest.fixture(scope="module")
def hire() -> Engine:
    return Engine(kb_from_csv(HIRE, origin="hire.csv"))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Loch Cycle Hire opens at 9:30am and closes at 6pm on Fridays.",
            [("friday_open", "9:30am", "Verified"), ("friday_close", "6pm", "Verified")],
        ),
        (
            "On Sunday Loch Cycle Hire is open from 10:00 until 15:00.",
            [("sunday_open", "10:00", "Contradicted"), ("sunday_close", "15:00", "Verified")],
        ),
        (
            "Loch Cycle Hire is open 11am - 4pm on Sundays.",
            [("sunday_open", "11am", "Verified"), ("sunday_close", "4pm", "Contradicted")],
        ),
        ("Loch Cycle Hire is closed on Tuesdays.", [("closed_days", "Tuesdays", "Verified")]),
        ("Loch Cycle Hire is closed on Fridays.", [("closed_days", "Fridays", "Contradicted")]),
    ],
)
def test_hours_and_closed_days(hire: Engine, text, expected):
    assert [c[1:] for c in read(hire, text)] == expected


def test_a_day_that_picks_the_hours_is_not_itself_claimed(hire: Engine):
    # "on Friday" says which day's hours are meant; it is no closed day or delivery day
    assert [c[1] for c in read(hire, "Loch Cycle Hire closes at 6pm on Friday.")] == [
        "friday_close"
    ]


def test_a_day_against_a_list_of_days(hire: Engine):
    assert [c[1:] for c in read(hire, "Loch Cycle Hire offers delivery on Thursdays.")] == [
        ("delivery_days", "Thursdays", "Verified")
    ]
    assert [c[1:] for c in read(hire, "Loch Cycle Hire offers delivery on Fridays.")] == [
        ("delivery_days", "Fridays", "Contradicted")
    ]
    # two date attributes fit a bare day: which one is meant is not guessed
    assert read(hire, "Loch Cycle Hire can help you on Friday.") == []


# A ferry office whose hours are one cell each, as a user would type them.
OFFICE = [
    {"name": "Ferry Office", "ticket_desk": "8:30 am - 5:00 pm", "left_luggage": "£4 - £9"},
    {"name": "Pier Kiosk", "ticket_desk": "10:00 am - 2:00 pm"},
]


def test_a_range_in_one_cell_is_checked_end_by_end():
    engine = Engine(kb_from_rows(OFFICE, entity_type="Organization"))
    assert {a for e in engine.kb.entities for a in e.attributes} == {
        "ticket_desk_start",
        "ticket_desk_end",
        "left_luggage_start",
        "left_luggage_end",
    }
    assert [c[1:] for c in read(engine, "The Ferry Office ticket desk is open 8:30am to 6pm.")] == [
        ("ticket_desk_start", "8:30am", "Verified"),
        ("ticket_desk_end", "6pm", "Contradicted"),
    ]
    # one end said alone is read against the bound it lies beyond
    assert [c[1:] for c in read(engine, "The Pier Kiosk ticket desk stays open until 4pm.")] == [
        ("ticket_desk_end", "4pm", "Contradicted")
    ]
    assert read(engine, "The Pier Kiosk ticket desk is quiet at noon.") == []
