"""Amounts and measures a table writes bare: a money column of plain numbers, a temperature
column of plain degrees. "$18.40" is the fare 18.40 in the table's unstated currency, "71 degrees
Fahrenheit" is one measure (its scale is no name), and "for 4 people" is never a price."""

from __future__ import annotations

from datetime import datetime

import pytest

from replyguard.engine import Engine
from replyguard.kb import kb_from_document
from replyguard.models import Turn, ValueType
from replyguard.values import grade

REFERENCE = datetime(2026, 7, 14, 9, 0)

# a water-taxi booking and a mountain forecast, as a service would return them: bare numbers
BOATS = {
    "entities": [
        {
            "id": "B1",
            "attributes": {"jetty": "North Quay", "passengers": "4", "fare": "18.40", "wait": "9"},
        }
    ],
    "schema": {"fare": {"value_type": "money"}},
}
FORECAST = {
    "entities": [
        {
            "id": "F1",
            "attributes": {"summit": "Ben Lawers", "temperature": "71", "gusts": "23"},
        }
    ]
}


def _check(kb: dict, reply: str, *turns: str):
    # the turns alternate and the last one is the user's
    said = [
        Turn(id=f"T{i + 1}", speaker="user" if (len(turns) - i) % 2 else "assistant", text=t)
        for i, t in enumerate(turns)
    ]
    engine = Engine(kb_from_document(kb))
    return engine.postprocess(reply, turns[-1], said, reference_time=REFERENCE)


def _verdicts(result) -> list[tuple[str, str, str]]:
    fv = result.factual_validation
    return [
        (c.predicate, c.object, v.status.kind)
        for c, v in zip(fv.claims, fv.claim_validations, strict=True)
    ]


@pytest.mark.parametrize(
    ("claimed", "kb", "kind"),
    [
        ("$18.40", "18.40", "Compatible"),  # the column leaves its currency unstated
        ("18.40 euros", "18.40", "Compatible"),
        ("$18.40", "$18.40", "Exact"),
        ("$19.40", "18.40", "Mismatch"),
        ("€18.40", "$18.40", "Mismatch"),  # two stated currencies still differ
    ],
)
def test_an_amount_in_a_column_without_a_currency(claimed, kb, kind):
    assert grade(ValueType.money, claimed, kb).kind == kind


@pytest.mark.parametrize(
    ("claimed", "kb", "kind"),
    [
        ("71 degrees Fahrenheit", "71", "Compatible"),
        ("71 degrees Fahrenheit", "71F", "Normalised"),
        ("22 degrees Celsius", "22°C", "Normalised"),
        ("73 degrees Fahrenheit", "71", "Mismatch"),
    ],
)
def test_degrees_and_their_scale_are_one_measure(claimed, kb, kind):
    assert grade(ValueType.number, claimed, kb).kind == kind


def test_the_fare_with_its_currency_is_the_bare_fare():
    result = _check(
        BOATS,
        "Your water taxi is on its way and the fare will be $18.40.",
        "Yes, please book it. How much is it?",
    )
    assert ("fare", "$18.40", "Verified") in _verdicts(result)
    assert result.recommendation.kind.value in ("Accept", "AcceptWithFlags")


def test_a_wrong_fare_with_its_currency_is_contradicted():
    result = _check(
        BOATS,
        "Your water taxi is on its way and the fare will be $21.90.",
        "Yes, please book it. How much is it?",
    )
    assert ("fare", "$21.90", "Contradicted") in _verdicts(result)


def test_a_head_count_is_no_fare():
    result = _check(
        BOATS,
        "Done: the boat takes 4 people from North Quay and the fare is $18.40.",
        "Book a water taxi from North Quay for 4 people.",
    )
    assert all(
        attribute != "fare" or value == "$18.40" for attribute, value, _ in _verdicts(result)
    )
    assert not any(v == "Contradicted" for _, _, v in _verdicts(result))


SHOW = {
    "entities": [
        {
            "id": "S1",
            "name": "Late Laughs",
            "type": "Event",
            "attributes": {"age_limit": "16+", "price": "£12", "starts": "8:00 pm"},
        }
    ]
}


@pytest.mark.parametrize(
    "reply",
    [
        "Yes, Late Laughs is 16+, so a 17-year-old can come.",
        "Late Laughs is a 90-minute show and starts at 8pm.",
    ],
)
def test_a_number_joined_to_its_unit_is_no_price(reply):
    # issue 11: "so a 17-year-old can come" was read as a price of 17
    result = _check(SHOW, reply, "Can my son come? He is 17.")
    assert not any(attribute == "price" for attribute, _, _ in _verdicts(result))


def test_the_scale_of_a_temperature_is_no_name():
    result = _check(
        FORECAST,
        "On Ben Lawers the temperature should reach 71 degrees Fahrenheit.",
        "How warm will it be on the summit?",
    )
    assert not [
        f for f in result.hallucination_flags if f.hallucination_type == "NonexistentEntity"
    ]
    assert ("temperature", "71 degrees Fahrenheit", "Verified") in _verdicts(result)


# --------------------------------------------------------------------------- the sole row
# A booking a call returned is one row: a price said with nothing named can only be its price.


def test_a_price_said_of_nothing_named_is_the_sole_rows():
    result = _check(BOATS, "The total comes to $23.10.", "Okay, book it. What is the total?")
    assert _verdicts(result) == [("fare", "$23.10", "Contradicted")]
    assert result.corrected is not None
    assert result.corrected.corrected == "The total comes to $18.40."  # written as the reply did


def test_the_sole_rows_price_is_verified():
    result = _check(BOATS, "That will be $18.40 all in.", "Okay, book it. What is the total?")
    assert _verdicts(result) == [("fare", "$18.40", "Verified")]


def test_with_several_rows_a_lone_price_names_no_row():
    two = {"entities": [*BOATS["entities"], {**BOATS["entities"][0], "id": "B2"}]}
    two["entities"][1] = {"id": "B2", "attributes": {"jetty": "Old Dock", "fare": "26.00"}}
    two["schema"] = BOATS["schema"]
    result = _check(two, "The total comes to $23.10.", "Okay, book it. What is the total?")
    assert _verdicts(result) == []


def test_a_bare_number_is_not_given_to_the_sole_row():
    result = _check(BOATS, "There are 3 jetties nearby.", "Where can I board?")
    assert _verdicts(result) == []


# --------------------------------------------------------------------------- durations
# A number column named for a stretch of time ("wait") holds durations written without a unit.


def test_a_wait_in_minutes_is_the_bare_wait_column():
    ok = _check(BOATS, "The boat will reach North Quay in 9 minutes.", "How long is the wait?")
    assert ("wait", "9 minutes", "Verified") in _verdicts(ok)
    wrong = _check(BOATS, "The boat will reach North Quay in 14 minutes.", "How long is the wait?")
    assert ("wait", "14 minutes", "Contradicted") in _verdicts(wrong)
    assert wrong.corrected is not None
    assert wrong.corrected.corrected == "The boat will reach North Quay in 9 minutes."


def test_a_cue_for_a_column_the_kb_lacks_gives_way_to_the_timed_column():
    result = _check(BOATS, "Your boat is 9 minutes away.", "How long is the wait?")
    assert _verdicts(result) == [("wait", "9 minutes", "Verified")]


@pytest.mark.parametrize(("claimed", "kind"), [("an hour", "Compatible"), ("an hour", "Mismatch")])
def test_a_duration_in_words_against_bare_minutes(claimed, kind):
    assert grade(ValueType.number, claimed, "60" if kind == "Compatible" else "45").kind == kind


def test_a_duration_is_no_count():
    result = _check(BOATS, "Up to 4 people can board, and it takes 9 minutes.", "How many fit?")
    assert ("passengers", "9 minutes", "Contradicted") not in _verdicts(result)


def test_the_amount_of_free_is_zero():
    from replyguard.values import money_amount

    assert money_amount("free") == "0"
    assert money_amount("$12.50") == "12.50"


PASSES = {
    "entities": [
        {
            "id": "P1",
            "name": "Standard Pass",
            "attributes": {"monthly_price": "£30", "min_age": "16"},
        },
        {
            "id": "P2",
            "name": "Senior Pass",
            "attributes": {"monthly_price": "£20", "min_age": "65"},
        },
    ]
}


def test_a_bare_number_is_no_price_where_the_kb_writes_its_currency():
    # issue 11: "As you're over 60, the concession membership suits you at £24" read 60 as a price
    reply = "As you're over 70, the senior pass would suit you best at £20 a month."
    result = _check(PASSES, reply, "Which pass should I get?")
    assert _verdicts(result) == [("monthly_price", "£20", "Verified")]


def test_a_bare_number_is_a_price_where_the_kb_writes_prices_bare():
    result = _check(BOATS, "The fare is 18.40 from North Quay.", "How much is the water taxi?")
    assert ("fare", "18.40", "Verified") in _verdicts(result)
