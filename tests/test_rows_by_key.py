"""Rows with no name, told by the values said with them (issue 11, class 4): a bare amount column
is found by a price said with its currency; a value only one row holds is that row's, whatever
was offered before; when the values said together point to different rows, the value whose
column tells rows apart (a departure time no two sailings share) names the row and the other
(a fare several sailings share) is checked against it; a value every row holds alike tells
none apart."""

from __future__ import annotations

from datetime import datetime

import pytest
from row_verdicts import claim_verdicts

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase, Turn

REFERENCE = datetime(2026, 6, 2, 8, 0)

# water-taxi sailings a timetable search returned: no names, a bare fare column
SAILINGS = [
    ("08:15", "12", "Standard", "Pier 4"),
    ("09:05", "14", "Standard", "Pier 4"),
    ("11:40", "14", "Standard", "Pier 4"),
    ("13:20", "16", "Standard", "Pier 7"),
]
KB = {
    "entities": [
        {
            "id": f"sailing_{i}",
            "type": "Event",
            "attributes": {"sails_at": t, "fare": f, "seat_class": c, "boarding": b},
        }
        for i, (t, f, c, b) in enumerate(SAILINGS, start=1)
    ],
    "schema": {"sails_at": {"value_type": "time"}, "fare": {"value_type": "money"}},
}


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(KnowledgeBase.model_validate(KB))


def _verdicts(engine: Engine, reply: str, turns: list[Turn] | None = None) -> dict:
    return claim_verdicts(engine, reply, REFERENCE, turns)


def test_a_price_with_its_currency_finds_the_row_of_a_bare_amount(engine: Engine) -> None:
    verdicts = _verdicts(engine, "The boat goes at 1:20 pm and the fare is £16.")
    assert verdicts[("sailing_4", "sails_at", "1:20 pm")].kind == "Verified"
    assert verdicts[("sailing_4", "fare", "£16")].kind == "Verified"


def test_a_value_one_row_holds_is_that_rows_not_the_one_offered_before(engine: Engine) -> None:
    turns = [
        Turn(id="T1", speaker="user", text="When can I get a water taxi?"),
        Turn(id="T2", speaker="assistant", text="The first boat goes at 8:15 am for £12."),
        Turn(id="T3", speaker="user", text="Anything later?"),
    ]
    verdicts = _verdicts(engine, "A later boat goes at 11:40 am.", turns)
    assert list(verdicts) == [("sailing_3", "sails_at", "11:40 am")]
    assert verdicts[("sailing_3", "sails_at", "11:40 am")].kind == "Verified"


def test_the_time_no_other_row_shares_names_the_row_of_a_price_said_first(
    engine: Engine,
) -> None:
    verdicts = _verdicts(engine, "There's a £14 crossing and it goes at 8:15 am.")
    status = verdicts[("sailing_1", "fare", "£14")]
    assert status.kind == "Contradicted" and status.kb_value == "12"
    assert verdicts[("sailing_1", "sails_at", "8:15 am")].kind == "Verified"
    # said the right way round, both are the 8:15 sailing's
    good = _verdicts(engine, "There's a £12 crossing and it goes at 8:15 am.")
    assert {s.kind for s in good.values()} == {"Verified"}


def test_a_price_no_row_holds_is_checked_against_the_row_the_time_after_it_names(
    engine: Engine,
) -> None:
    verdicts = _verdicts(engine, "Tickets are £19 on the boat that goes at 9:05 am.")
    status = verdicts[("sailing_2", "fare", "£19")]
    assert status.kind == "Contradicted" and status.kb_value == "14"
    result = engine.postprocess(
        "Tickets are £19 on the boat that goes at 9:05 am.", "", [], reference_time=REFERENCE
    )
    assert result.corrected.corrected == "Tickets are £14 on the boat that goes at 9:05 am."


def test_a_value_every_row_holds_alike_tells_no_row(engine: Engine) -> None:
    # "standard" is every sailing's: the price is read against the row its time names
    verdicts = _verdicts(engine, "A standard seat is £16 and the boat leaves at 9:05 am.")
    status = verdicts[("sailing_2", "fare", "£16")]
    assert status.kind == "Contradicted" and status.kb_value == "14"


def test_a_shared_value_and_a_price_in_the_next_sentence_are_the_told_rows(
    engine: Engine,
) -> None:
    # 9:05 am names the row; the next sentence's seat class every sailing has tells none, and
    # its price (another sailing's fare) is checked against the 9:05 one
    verdicts = _verdicts(engine, "The first boat goes at 9:05 am. A standard seat is £16.")
    status = verdicts[("sailing_2", "fare", "£16")]
    assert status.kind == "Contradicted" and status.kb_value == "14"


def test_one_of_them_is_the_row_its_values_tell(engine: Engine) -> None:
    verdicts = _verdicts(engine, "I found four sailings. One of them goes at 1:20 pm for £16.")
    assert verdicts[("sailing_4", "sails_at", "1:20 pm")].kind == "Verified"
    assert verdicts[("sailing_4", "fare", "£16")].kind == "Verified"
    # the time and the price of two sailings, nothing in focus: the first listed is meant
    verdicts = _verdicts(engine, "I found four sailings. One of them goes at 1:20 pm for £12.")
    status = verdicts[("sailing_1", "sails_at", "1:20 pm")]
    assert status.kind == "Contradicted" and status.kb_value == "08:15"
    assert verdicts[("sailing_1", "fare", "£12")].kind == "Verified"
