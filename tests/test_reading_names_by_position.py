"""Issue 11, classes 3 and 7: an unknown name is a value by where it stands, whatever its words.

- before a cue ("from the Glass Coast series"), as after one ("the series Glass Coast");
- after "by", even when it is a common word capitalised ("by Summer"): who made the thing;
- opened by a capitalised function word ("in Only Tides");
- of the columns a sentence names, a value goes to one of its own type ("a 30 percent chance of
  rain, with a high of 7 degrees": the high is the number, not the chance);
- a stop typed without its space before "I'm" ends a sentence, and no name runs across it.

An audiobook library and a village fair of our own; the verdicts were written before the code
was run.
"""

from __future__ import annotations

from datetime import datetime

import pytest
from conftest import verdicts

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase

REFERENCE = datetime(2026, 12, 2, 12, 0)
BOOKS = {
    "entities": [
        {
            "id": "salt",
            "name": "Salt Roads",
            "type": "Object",
            "attributes": {"series": "Tidewater", "narrator": "Ines Calder", "year": 2021},
        },
        {
            "id": "lamp",
            "name": "The Lamp Keeper",
            "type": "Object",
            "attributes": {"series": "Harbour Nights", "narrator": "Tomas Reyes", "year": 2019},
        },
    ]
}
FAIR = {
    "entities": [
        {
            "id": "fair",
            "name": "Ashby Village Fair",
            "type": "Event",
            "attributes": {
                "date": "2026-12-12",
                "chance_of_rain": "30%",
                "forecast_high": "9 degrees",
            },
        },
        {
            "id": "market",
            "name": "Ashby Farmers Market",
            "type": "Event",
            "attributes": {
                "date": "2026-12-19",
                "chance_of_rain": "60%",
                "forecast_high": "6 degrees",
            },
        },
    ]
}


def _check(kb: dict, reply: str, question: str):  # noqa: ANN202
    engine = Engine(KnowledgeBase.model_validate(kb))
    return engine.postprocess(reply, question, reference_time=REFERENCE)


@pytest.mark.parametrize(
    ("reply", "said", "right"),
    [
        ("Salt Roads is from the Glass Coast series.", "series=Glass Coast", "Tidewater"),
        ("How about Salt Roads by Summer?", "narrator=Summer", "Ines Calder"),
        (
            "You might like Salt Roads by Ines Calder in Only Tides.",
            "series=Only Tides",
            "Tidewater",
        ),
    ],
)
def test_an_unknown_name_in_a_value_place_is_a_wrong_value(
    reply: str, said: str, right: str
) -> None:
    result = _check(BOOKS, reply, "Can you suggest an audiobook?")
    assert {c: s for c, s in verdicts(result).items() if s != "Verified"} == {said: "Contradicted"}
    assert [f.hallucination_type for f in result.hallucination_flags].count(
        "NonexistentEntity"
    ) == 0
    assert result.recommendation.kind == "CorrectAndDeliver"
    assert right in result.recommendation.deliver


def test_the_right_names_in_those_places_are_verified() -> None:
    result = _check(
        BOOKS,
        "How about Salt Roads by Ines Calder, from the Tidewater series?",
        "Can you suggest an audiobook?",
    )
    assert verdicts(result) == {"narrator=Ines Calder": "Verified", "series=Tidewater": "Verified"}
    assert result.recommendation.kind == "Accept"


def test_a_value_goes_to_the_named_column_of_its_own_type() -> None:
    right = _check(
        FAIR,
        "There's a 30 percent chance of rain for the Ashby Village Fair, with a high of 9 degrees.",
        "What's the weather for the fair?",
    )
    assert verdicts(right) == {
        "chance_of_rain=30 percent": "Verified",
        "forecast_high=9 degrees": "Verified",
    }
    assert right.recommendation.kind == "Accept"
    wrong = _check(
        FAIR,
        "There's a 30 percent chance of rain for the Ashby Village Fair, with a high of 7 degrees.",
        "What's the weather for the fair?",
    )
    assert verdicts(wrong) == {
        "chance_of_rain=30 percent": "Verified",
        "forecast_high=7 degrees": "Contradicted",
    }


def test_a_stop_without_its_space_before_i_am_ends_the_name() -> None:
    result = _check(
        BOOKS, "I've queued The Lamp Keeper.I'm sure you'll like it.", "Play The Lamp Keeper."
    )
    assert [f.content for f in result.hallucination_flags] == []
    assert result.recommendation.kind == "Accept"


@pytest.mark.parametrize(
    ("reply", "claims"),
    [
        (
            "how about salt roads by mara quell, from the tidewater series?",
            {"narrator=mara quell": "Contradicted", "series=tidewater": "Verified"},
        ),
        ("how about salt roads by ines calder?", {"narrator=ines calder": "Verified"}),
    ],
)
def test_in_a_text_that_writes_names_lower_case_the_words_after_by_are_a_name(
    reply: str, claims: dict
) -> None:
    result = _check(BOOKS, reply, "Can you suggest an audiobook?")
    assert verdicts(result) == claims


def test_lower_case_words_after_by_in_a_capitalised_text_stay_words() -> None:
    # the text writes its KB names with capitals: "by train" is how, not who
    result = _check(BOOKS, "Salt Roads is a lovely listen by train or by car.", "Any tips?")
    assert verdicts(result) == {}
