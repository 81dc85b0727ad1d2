"""Issue 11, decisions: a reply is not Accept on checks that never ran, but a value the user gave
and the reply says back to them ("a 9-year-old can join" to "can my 9-year-old join?") is
theirs, not a KB value left unread. A value of the KB's types the user never said still is.

A pottery studio of our own; the verdicts were written before the code was run.
"""

from __future__ import annotations

from datetime import datetime

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase

REFERENCE = datetime(2026, 12, 2, 12, 0)
KB = {
    "entities": [
        {
            "id": "kids_clay",
            "name": "Kids Clay Club",
            "type": "Event",
            "attributes": {"age_range": "8-12", "price": "£15", "day": "Saturday", "places": 10},
        },
        {
            "id": "wheel",
            "name": "Wheel Taster",
            "type": "Event",
            "attributes": {"min_age": "16+", "price": "£45", "day": "Sunday", "places": 6},
        },
    ]
}


def _check(reply: str, question: str):  # noqa: ANN202
    engine = Engine(KnowledgeBase.model_validate(KB))
    return engine.postprocess(reply, question, reference_time=REFERENCE)


def test_an_age_the_user_gave_is_not_unread() -> None:
    result = _check(
        "Yes, the Wheel Taster is 16+, so a 17-year-old can come along.",
        "Can my 17-year-old do the Wheel Taster?",
    )
    assert [u.text for u in result.unread_values] == []
    assert result.recommendation.kind == "Accept"


def test_an_age_said_in_other_words_is_not_unread() -> None:
    result = _check(
        "The Kids Clay Club is for ages 8-12, so at 9 she can join.",
        "My daughter is 9, can she join the Kids Clay Club?",
    )
    assert [u.text for u in result.unread_values] == []
    assert result.recommendation.kind == "Accept"


def test_a_value_the_user_never_said_is_still_unread() -> None:
    result = _check(
        "Yes, the Wheel Taster is 16+, and a 17-year-old gets a £5 discount.",
        "Can my 17-year-old do the Wheel Taster?",
    )
    assert [u.text for u in result.unread_values] == ["£5"]
    assert result.recommendation.kind == "AcceptWithFlags"
