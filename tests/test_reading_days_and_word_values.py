"""Issue 11, classes 9 and 13 and value reading: a yes to a question that names a relative day
is judged by the day it names, and a KB value made only of function words ("For You") is that
value only written as the KB writes it.

A diary and a music library of our own; the verdicts were written before the code was run.
"""

from __future__ import annotations

from datetime import datetime

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase

REFERENCE = datetime(2026, 12, 2, 12, 0)
DIARY = {
    "entities": [
        {
            "id": "checkup",
            "name": "Check-up with Dr Osei",
            "type": "Event",
            "attributes": {"event_date": "2026-12-04", "event_time": "10:00"},
        }
    ]
}
MUSIC = {
    "entities": [
        {
            "id": "harbour",
            "name": "Harbour Song",
            "type": "Object",
            "attributes": {"album": "Low Tide", "artist": "Mara Quell"},
        },
        {
            "id": "lantern",
            "name": "Lantern",
            "type": "Object",
            "attributes": {"album": "For You", "artist": "The Gannets"},
        },
    ]
}


def _check(kb: dict, reply: str, question: str):  # noqa: ANN202
    engine = Engine(KnowledgeBase.model_validate(kb))
    return engine.postprocess(reply, question, reference_time=REFERENCE)


def _flags(result) -> list[str]:  # noqa: ANN001
    return [f.hallucination_type for f in result.hallucination_flags]


def test_a_yes_to_a_request_naming_the_right_day_is_no_contradiction() -> None:
    result = _check(
        DIARY,
        "Sure. You have a Check-up with Dr Osei at 10 am.",
        "Can you check my diary for the 4th of this month?",
    )
    assert "ContradictsFact" not in _flags(result)
    assert result.recommendation.kind == "Accept"


def test_a_yes_to_the_wrong_day_still_contradicts() -> None:
    result = _check(DIARY, "Yes, it is.", "Is my Check-up with Dr Osei on December 5th?")
    assert "ContradictsFact" in _flags(result)


def test_function_words_in_lower_case_are_no_album() -> None:
    result = _check(MUSIC, "Shall I play the song for you?", "Play Harbour Song please.")
    assert result.factual_validation.claims == []
    assert "ContradictsFact" not in _flags(result)


def test_the_album_written_as_the_kb_writes_it_is_read() -> None:
    result = _check(MUSIC, "Lantern is from the album For You.", "What album is Lantern on?")
    claims = [(c.predicate, c.object) for c in result.factual_validation.claims]
    assert claims == [("album", "For You")]
    assert result.recommendation.kind == "Accept"


CLUB = {
    "entities": [
        {
            "id": "session",
            "name": "Tuesday Session",
            "type": "Event",
            "attributes": {"performer": "Ana Brook", "date": "2026-12-08"},
        },
        {
            "id": "social",
            "name": "Folk Social",
            "type": "Event",
            "attributes": {"performer": "Tom Reed", "date": "2026-12-15"},
        },
    ]
}


def test_a_day_after_another_value_is_still_the_subjects() -> None:
    result = _check(
        CLUB,
        "There is the Tuesday Session with Ana Brook on the 8th, and Folk Social with Tom Reed"
        " on the 16th.",
        "What's on at the club?",
    )
    claims = {(c.subject, c.predicate, c.object) for c in result.factual_validation.claims}
    assert ("Folk Social", "date", "16th") in claims
    assert ("Tuesday Session", "date", "8th") in claims
    assert result.recommendation.kind == "CorrectAndDeliver"
    assert result.recommendation.deliver.endswith("on the 15th.")


def test_a_month_opening_a_name_is_no_date() -> None:
    from replyguard.text.temporal import find_temporal

    said = [m.text for m in find_temporal("The gala is at August Hall on June Street.", REFERENCE)]
    assert said == []
    assert [m.text for m in find_temporal("The gala is in August.", REFERENCE)] == ["August"]
    result = _check(CLUB, "The Tuesday Session is at August Hall.", "Where is the Tuesday Session?")
    assert not any(c.predicate == "date" for c in result.factual_validation.claims)
