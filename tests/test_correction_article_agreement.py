"""A corrected value takes the article it needs: the word before it is judged by the spelling
rules with the KB's value in place, not the wrong one ("a Beginner class" corrected to
Intermediate reads "an Intermediate class"; "an Beginner" to "an Intermediate", unchanged)."""

from __future__ import annotations

from datetime import datetime

import pytest

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase

KB = {
    "entities": [
        {
            "id": "taster",
            "name": "Pottery Taster",
            "type": "Event",
            "attributes": {"level": "Intermediate", "tutor": "Mara Voss"},
        },
        {
            "id": "glaze",
            "name": "Glaze Lab",
            "type": "Event",
            "attributes": {"level": "Beginner", "tutor": "Ola Fenn"},
        },
    ]
}


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(KnowledgeBase.model_validate(KB))


@pytest.mark.parametrize(
    ("reply", "corrected"),
    [
        (
            "Pottery Taster is a Beginner class with Mara Voss.",
            "Pottery Taster is an Intermediate class with Mara Voss.",
        ),
        (
            "Glaze Lab is an Intermediate class with Ola Fenn.",
            "Glaze Lab is a Beginner class with Ola Fenn.",
        ),
        ("Pottery Taster is an Beginner class.", "Pottery Taster is an Intermediate class."),
    ],
)
def test_the_article_before_a_corrected_value_agrees_with_the_value_put_in(
    engine, reply, corrected
):
    result = engine.postprocess(reply, "", [], reference_time=datetime(2026, 4, 1))
    assert result.corrected is not None and result.corrected.corrected == corrected
