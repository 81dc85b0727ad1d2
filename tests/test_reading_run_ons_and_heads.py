"""Issue 11, classes 3 and 4 and the question's focus: a reply read as its writer meant it.

- A comma then a capitalised auxiliary starts a question run on after a statement ("The lesson
  is £30, Is that okay?"): the statement's values are still claims.
- A capitalised common word right after a KB name or a number is the noun of the thing named or
  counted ("the Harbour Lights Concert", "2 Tickets"), not an invented name.
- A short form of KB names running on into capitalised words the KB does not know opens one
  unknown name ("Riverside Vs Thornbury" beside "Riverside Vs Harbour"): an invented thing of their
  kind, not a value of theirs.
- Of two columns a value fits alike, the one the question names is meant ("What's the chance of
  snow?" - "It's 40%" where the snow cover is 40% too).
- A when-question about a show is answered by a date of another performance of the same name.

Every KB here is our own; the verdicts were written before the code was run.
"""

from __future__ import annotations

from datetime import datetime

import pytest
from conftest import engine_of, verdicts

from replyguard.engine import Engine
from replyguard.models import Turn

REFERENCE = datetime(2026, 12, 2, 12, 0)


def _flags(result, kind: str) -> list[str]:  # noqa: ANN001
    return [f.content for f in result.hallucination_flags if f.hallucination_type == kind]


# ------------------------------------------------------------------ a surf school
SURF = [
    {
        "id": "beginner",
        "name": "Beginner Lesson",
        "type": "Event",
        "attributes": {"price": "£30", "length": "2 hours", "beach": "Gwithian"},
    },
    {
        "id": "improver",
        "name": "Improver Lesson",
        "type": "Event",
        "attributes": {"price": "£40", "length": "2 hours", "beach": "Porthmeor"},
    },
]


# the day's forecast at a ski resort, a row with no name
FORECAST = [
    {
        "id": "today",
        "type": "Object",
        "attributes": {
            "snow_cover": "40%",
            "chance_of_snow": "40%",
            "wind": "12 mph",
            "date": "2026-12-02",
        },
    }
]
ASKED = [
    Turn(id="T1", speaker="user", text="Can you check the forecast at the resort for today?"),
    Turn(id="T2", speaker="assistant", text="Yes, the wind will be 12 mph today."),
    Turn(id="T3", speaker="user", text="What is the chance of snow there?"),
]


def test_a_statement_run_on_into_a_question_is_still_read() -> None:
    engine = engine_of(FORECAST)
    right = engine.postprocess(
        "It will be 40 %, Is that good enough for you?",
        ASKED[-1].text,
        ASKED,
        reference_time=REFERENCE,
    )
    assert verdicts(right) == {"chance_of_snow=40 %": "Verified"}
    assert "QUDNotAddressed" not in [i.issue_type for i in right.coherence.issues]
    assert right.recommendation.kind == "Accept"
    wrong = engine.postprocess(
        "It will be 70 %, Is that good enough for you?",
        ASKED[-1].text,
        ASKED,
        reference_time=REFERENCE,
    )
    assert verdicts(wrong) == {"chance_of_snow=70 %": "Contradicted"}
    assert wrong.recommendation.kind == "CorrectAndDeliver"
    assert wrong.recommendation.deliver == "It will be 40%, Is that good enough for you?"


# ------------------------------------------------------------------ a concert hall's listings
HALL = [
    {
        "id": "lights",
        "name": "Harbour Lights",
        "type": "Event",
        "attributes": {"date": "2026-12-12", "starts": "7:30 pm", "price": "£18"},
    },
    {
        "id": "riverside_harbour",
        "name": "Riverside Vs Harbour",
        "type": "Event",
        "attributes": {"date": "2026-12-13", "starts": "3:00 pm", "price": "£12"},
    },
    {
        "id": "riverside_dockers",
        "name": "Riverside Vs Dockers",
        "type": "Event",
        "attributes": {"date": "2026-12-20", "starts": "3:00 pm", "price": "£12"},
    },
]


@pytest.mark.parametrize(
    ("reply", "claims"),
    [
        (
            "So you want me to book 2 seats for the Harbour Lights Concert that takes place on"
            " 12 December at 7:30 pm?",
            {"date=12 December": "Verified", "starts=7:30 pm": "Verified"},
        ),
        (
            "I have 2 seats for the Harbour Lights Concert, which costs £18.",
            {"price=£18": "Verified"},
        ),
    ],
)
def test_a_capitalised_noun_after_a_name_is_that_thing(reply: str, claims: dict) -> None:
    engine = engine_of(HALL)
    result = engine.postprocess(
        reply, "Please book 2 seats for Harbour Lights.", reference_time=REFERENCE
    )
    assert _flags(result, "NonexistentEntity") == []
    assert verdicts(result) == claims
    assert result.recommendation.kind == "Accept"


def test_a_capitalised_noun_after_a_count_is_what_is_counted() -> None:
    engine = engine_of(HALL)
    result = engine.postprocess(
        "2 Tickets for Harbour Lights at 7:30 pm on 12 December.",
        "Book 2 tickets for Harbour Lights.",
        reference_time=REFERENCE,
    )
    assert _flags(result, "NonexistentEntity") == []
    assert verdicts(result) == {"starts=7:30 pm": "Verified", "date=12 December": "Verified"}


def test_a_short_form_running_on_opens_an_unknown_name() -> None:
    engine = engine_of(HALL)
    result = engine.postprocess(
        "There is also Riverside Vs Thornbury on 20 December at 3 pm.",
        "Are there any other matches?",
        reference_time=REFERENCE,
    )
    assert _flags(result, "NonexistentEntity") == ["Riverside Vs Thornbury"]
    assert not any(
        c.startswith("date=") and s == "Contradicted" for c, s in verdicts(result).items()
    )
    assert result.recommendation.kind == "Regenerate"


def test_a_when_question_is_answered_by_another_performance() -> None:
    engine = engine_of(
        [
            {
                "id": "carols_1",
                "name": "Winter Carols",
                "type": "Event",
                "attributes": {"date": "2026-12-12", "starts": "6:00 pm"},
            },
            {
                "id": "carols_2",
                "name": "Winter Carols",
                "type": "Event",
                "attributes": {"date": "2026-12-19", "starts": "6:00 pm"},
            },
        ]
    )
    turns = [
        Turn(id="T1", speaker="user", text="When is Winter Carols on?"),
        Turn(id="T2", speaker="assistant", text="Winter Carols is on 12 December at 6 pm."),
        Turn(id="T3", speaker="user", text="When would it be on again, in case I can't make it"),
    ]
    result = engine.postprocess(
        "There is another Winter Carols on 19 December.",
        turns[-1].text,
        turns,
        reference_time=REFERENCE,
    )
    assert [
        i.issue_type for i in result.coherence.issues if i.issue_type == "QUDNotAddressed"
    ] == []
    assert result.recommendation.kind == "Accept"


# ------------------------------------------------------------------ a ski resort's conditions
SNOW = [
    {
        "id": "today",
        "name": "Conditions Today",
        "type": "Object",
        "attributes": {"snow_cover": "40%", "chance_of_snow": "40%", "wind": "12 mph"},
    }
]


CONDITIONS = [
    Turn(id="T1", speaker="user", text="What are Conditions Today like?"),
    Turn(id="T2", speaker="assistant", text="Conditions Today: the wind is 12 mph."),
]


def _asked(engine: Engine, reply: str, question: str):  # noqa: ANN202
    turns = [*CONDITIONS, Turn(id="T3", speaker="user", text=question)]
    return engine.postprocess(reply, question, turns, reference_time=REFERENCE)


def test_the_question_names_the_column_the_reply_does_not() -> None:
    engine = engine_of(SNOW)
    right = _asked(engine, "It's 40%.", "And the chance of snow?")
    assert verdicts(right) == {"chance_of_snow=40%": "Verified"}
    assert right.recommendation.kind == "Accept"
    wrong = _asked(engine, "It's 70%.", "And the chance of snow?")
    assert verdicts(wrong) == {"chance_of_snow=70%": "Contradicted"}
    assert wrong.recommendation.kind == "CorrectAndDeliver"
    assert wrong.recommendation.deliver == "It's 40%."
    cover = _asked(engine, "It's 70%.", "How much snow cover is there?")
    assert verdicts(cover) == {"snow_cover=70%": "Contradicted"}
